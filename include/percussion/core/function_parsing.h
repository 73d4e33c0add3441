#ifndef PERCUSSION_CORE_FUNCTION_PARSING_H
#define PERCUSSION_CORE_FUNCTION_PARSING_H

#include <deal.II/base/function_parser.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace percussion
{
  /**
   * A vector-valued function of (x, t) written in a parameter file: `dim` expressions separated by
   * semicolons, in the variables x (1D), x,y (2D) or x,y,z (3D) and t, with the user's named
   * constants (entry `Function constants`) and pi. Example for a rigid initial velocity in 3D: `0; 0; -v0`.
   */
  struct FunctionExpression
  {
    /// The parameter's name as the user sees it (subsection/entry), used in error messages.
    std::string parameter_name;
    /// The expression text, components separated by ';'.
    std::string expression;
  };

  /**
   * Parses a list of named constants "a=1, b=2.5" (the `Function constants` entry).
   * @throws InputError naming @p parameter_name when an item is not of the form name=number.
   */
  std::map<std::string, double> parse_function_constants(const std::string &text, const std::string &parameter_name);

  /**
   * Builds the deal.II function of the expression with @p n_components components.
   * @throws InputError naming the parameter when the number of components is wrong or an
   *         expression does not parse.
   */
  template <int dim>
  std::unique_ptr<dealii::FunctionParser<dim>> make_function(const FunctionExpression &function,
                                                             unsigned int n_components,
                                                             const std::map<std::string, double> &constants);

  /// make_function for a dimension known only at run time; only checks the expression.
  void validate_function(const FunctionExpression &function, unsigned int dim, unsigned int n_components,
                         const std::map<std::string, double> &constants);

  /**
   * Parses a comma-separated list of numbers (an entry such as 'Gravity' or 'Lower corner').
   * @throws InputError naming @p parameter_name when an item is not a number.
   */
  std::vector<double> parse_number_list(const std::string &text, const std::string &parameter_name);

  /// True if the expression uses the time variable t (so it must be re-evaluated every step).
  bool depends_on_time(const FunctionExpression &function);

  /// True if every component is the literal 0 (so the term can be skipped).
  bool is_zero(const FunctionExpression &function);
} // namespace percussion

#endif
