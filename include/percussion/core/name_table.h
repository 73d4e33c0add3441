#ifndef PERCUSSION_CORE_NAME_TABLE_H
#define PERCUSSION_CORE_NAME_TABLE_H

#include <percussion/core/exceptions.h>

#include <array>
#include <string>
#include <string_view>
#include <utility>

namespace percussion
{
  /**
   * The names of an enumeration's values as parameter files, messages and the log spell them: one
   * table per enumeration serves both directions (name_of(), value_of()) and the Selection pattern
   * of its parameter entry (names_pattern()). Plain C++ (no deal.II): the contact solvers use it too.
   *
   *   constexpr NameTable<Policy, 3> policy_names{{{Policy::stop, "stop"}, {Policy::retry, "retry"}, ...}};
   */
  template <typename Enum, std::size_t N>
  using NameTable = std::array<std::pair<Enum, std::string_view>, N>;

  /// The names joined by '|' (a ParameterHandler Selection pattern, or a list for a message).
  template <typename Enum, std::size_t N>
  std::string names_pattern(const NameTable<Enum, N> &table)
  {
    std::string result;
    for (const auto &[value, name] : table)
      result += (result.empty() ? "" : "|") + std::string(name);
    return result;
  }

  /// The value named @p name; InputError naming @p parameter (e.g. 'Contact solver/Solver') and
  /// the names it takes where no entry has that name.
  template <typename Enum, std::size_t N>
  Enum value_of(const NameTable<Enum, N> &table, const std::string_view name, const std::string &parameter)
  {
    for (const auto &[value, known] : table)
      if (known == name)
        return value;
    throw InputError("Parameter '" + parameter + "' = '" + std::string(name) + "' is not one of " +
                     names_pattern(table) + ".");
  }

  /// Whether @p name is in the table (for callers that report an unknown name their own way).
  template <typename Enum, std::size_t N>
  bool has_name(const NameTable<Enum, N> &table, const std::string_view name)
  {
    for (const auto &entry : table)
      if (entry.second == name)
        return true;
    return false;
  }

  /// The name of @p value; @p fallback where the table does not list it.
  template <typename Enum, std::size_t N>
  std::string name_of(const NameTable<Enum, N> &table, const Enum value, const std::string &fallback = "unknown")
  {
    for (const auto &[known, name] : table)
      if (known == value)
        return std::string(name);
    return fallback;
  }
} // namespace percussion

#endif
