#ifndef PERCUSSION_SIMULATOR_PARAMETER_SUGGESTIONS_H
#define PERCUSSION_SIMULATOR_PARAMETER_SUGGESTIONS_H

#include <deal.II/base/parameter_handler.h>

#include <map>
#include <string>
#include <vector>

namespace percussion
{
  /// The number of single-character insertions, deletions and substitutions that turn @p a into
  /// @p b, ignoring case (Levenshtein distance).
  unsigned int edit_distance(const std::string &a, const std::string &b);

  /**
   * The entries and subsections a ParameterHandler declares, subsection by subsection: for an input
   * error about a name it does not declare, the declared name closest to it ("did you mean 'Time
   * step'?").
   */
  class DeclaredParameterNames
  {
  public:
    /// The names of @p prm (all of its subsections, whichever one is entered).
    explicit DeclaredParameterNames(const dealii::ParameterHandler &prm);

    /// The entries (or, with @p subsection, the subsections) of the subsection @p path closest to
    /// @p name, those at the smallest edit distance if it is small for the name's length; empty
    /// if none is close or the path is not declared.
    std::vector<std::string> closest(const std::vector<std::string> &path, const std::string &name,
                                     bool subsection) const;

    /// The closest names for line @p line of the parameter file @p text, if that line (or the
    /// continued line it ends or starts) sets an entry or enters a subsection that is not declared
    /// where it stands; empty otherwise.
    std::vector<std::string> closest_for_line(const std::string &text, unsigned int line) const;

  private:
    struct Names
    {
      std::vector<std::string> entries;
      std::vector<std::string> subsections;
    };
    /// Key: the subsection path, names joined by '/' ("" for the top level).
    std::map<std::string, Names> names;
  };

  /// @p message with " Did you mean 'A'?" (or 'A' or 'B') appended for @p candidates; @p message
  /// unchanged without candidates.
  std::string with_suggestion(const std::string &message, const std::vector<std::string> &candidates);
} // namespace percussion

#endif
