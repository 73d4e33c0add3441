#include <deal.II/base/utilities.h>

#include <percussion/simulator/parameter_suggestions.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <sstream>

namespace percussion
{
  unsigned int edit_distance(const std::string &a, const std::string &b)
  {
    const auto lower = [](const char c) { return std::tolower(static_cast<unsigned char>(c)); };
    std::vector<unsigned int> previous(b.size() + 1);
    std::vector<unsigned int> current(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
      previous[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i)
      {
        current[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j)
          current[j] = std::min(
            {previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (lower(a[i - 1]) == lower(b[j - 1]) ? 0u : 1u)});
        std::swap(previous, current);
      }
    return previous[b.size()];
  }

  namespace
  {
    /// What a logical line of a parameter file does: `set NAME = ...`, `subsection NAME` or `end`.
    struct PrmLine
    {
      unsigned int first_line = 0;
      unsigned int last_line = 0;
      std::string keyword;
      std::string name;
      /// The subsection path the line stands in.
      std::vector<std::string> path;
    };

    bool starts_with(const std::string &text, const std::string &prefix)
    {
      return text.compare(0, prefix.size(), prefix) == 0;
    }

    /// Calls @p visit for each `set`, `subsection` and `end` line of @p text. The lines are read as
    /// ParameterHandler::parse_input reads them (a trailing backslash continues a line, '#' starts a
    /// comment, keywords in lower or upper case), so that a line number of its messages finds the
    /// line it complained about.
    void scan_prm(const std::string &text, const std::function<void(const PrmLine &)> &visit)
    {
      std::istringstream input(text);
      std::string raw;
      std::string joined;
      unsigned int number = 0;
      unsigned int first = 0;
      std::vector<std::string> path;
      while (std::getline(input, raw))
        {
          ++number;
          std::string line = dealii::Utilities::trim(raw);
          if (joined.empty())
            first = number;
          if (!line.empty() && line.back() == '\\')
            {
              joined += line.substr(0, line.size() - 1);
              continue;
            }
          line = joined + line;
          joined.clear();
          line = line.substr(0, line.find('#'));
          std::replace(line.begin(), line.end(), '\t', ' ');
          line = dealii::Utilities::trim(line);
          PrmLine what;
          what.first_line = first;
          what.last_line = number;
          what.path = path;
          if (starts_with(line, "subsection ") || starts_with(line, "SUBSECTION "))
            {
              what.keyword = "subsection";
              what.name = dealii::Utilities::trim(line.substr(11));
              path.push_back(what.name);
            }
          else if (starts_with(line, "end") || starts_with(line, "END"))
            {
              what.keyword = "end";
              if (!path.empty())
                path.pop_back();
            }
          else if ((starts_with(line, "set ") || starts_with(line, "SET ")) && line.find('=') != std::string::npos)
            {
              what.keyword = "set";
              what.name = dealii::Utilities::trim(line.substr(4, line.find('=') - 4));
            }
          else
            continue;
          visit(what);
        }
    }

    std::string joined_path(const std::vector<std::string> &path)
    {
      std::string key;
      for (const std::string &name : path)
        key += (key.empty() ? "" : "/") + name;
      return key;
    }
  } // namespace

  DeclaredParameterNames::DeclaredParameterNames(const dealii::ParameterHandler &prm)
  {
    // The declared tree is read back from the handler's own listing: ParameterHandler has no public
    // way to enumerate its entries, and the listing is what a parameter file is checked against.
    std::ostringstream listing;
    prm.print_parameters(listing, dealii::ParameterHandler::ShortPRM);
    names[""];
    scan_prm(listing.str(), [this](const PrmLine &line) {
      Names &here = names[joined_path(line.path)];
      if (line.keyword == "set")
        here.entries.push_back(line.name);
      else if (line.keyword == "subsection")
        {
          here.subsections.push_back(line.name);
          std::vector<std::string> inside = line.path;
          inside.push_back(line.name);
          names[joined_path(inside)];
        }
    });
  }

  std::vector<std::string> DeclaredParameterNames::closest(const std::vector<std::string> &path,
                                                           const std::string &name, const bool subsection) const
  {
    const auto here = names.find(joined_path(path));
    if (here == names.end())
      return {};
    // A name further than a third of its length (and than 2) from every declared one is taken for
    // another word rather than a misspelling: no suggestion is better than a wrong one.
    const unsigned int limit = std::max<unsigned int>(2, name.size() / 3);
    unsigned int best = limit + 1;
    std::vector<std::string> found;
    for (const std::string &candidate : subsection ? here->second.subsections : here->second.entries)
      {
        const unsigned int d = edit_distance(name, candidate);
        if (d < best)
          {
            best = d;
            found.clear();
          }
        if (d == best && std::find(found.begin(), found.end(), candidate) == found.end())
          found.push_back(candidate);
      }
    return found;
  }

  std::vector<std::string> DeclaredParameterNames::closest_for_line(const std::string &text,
                                                                    const unsigned int line) const
  {
    std::vector<std::string> found;
    scan_prm(text, [&](const PrmLine &what) {
      if (line < what.first_line || line > what.last_line || what.keyword == "end")
        return;
      const auto here = names.find(joined_path(what.path));
      if (here == names.end())
        return;
      const std::vector<std::string> &declared =
        what.keyword == "set" ? here->second.entries : here->second.subsections;
      // Only a name that is not declared there: the line's error may have another cause.
      if (std::find(declared.begin(), declared.end(), what.name) == declared.end())
        found = closest(what.path, what.name, what.keyword == "subsection");
    });
    return found;
  }

  std::string with_suggestion(const std::string &message, const std::vector<std::string> &candidates)
  {
    if (candidates.empty())
      return message;
    std::string text = message;
    if (!text.empty() && text.back() != '.')
      text += '.';
    text += " Did you mean ";
    for (std::size_t i = 0; i < candidates.size(); ++i)
      text += (i == 0 ? "" : (i + 1 == candidates.size() ? " or " : ", ")) + ("'" + candidates[i] + "'");
    return text + "?";
  }
} // namespace percussion
