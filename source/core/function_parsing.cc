#include <deal.II/base/exceptions.h>
#include <deal.II/base/utilities.h>
#include <deal.II/lac/vector.h>

#include <percussion/core/exceptions.h>
#include <percussion/core/function_parsing.h>

#include <regex>
#include <sstream>

namespace percussion
{
  namespace
  {
    std::string variable_names(const unsigned int dim)
    {
      const char *names[] = {"x", "x,y", "x,y,z"};
      return std::string(names[dim - 1]) + ",t";
    }

    std::vector<std::string> split_components(const std::string &expression)
    {
      std::vector<std::string> parts = dealii::Utilities::split_string_list(expression, ';');
      // split_string_list drops a trailing empty item; an entirely empty expression is one empty
      // component, which the parser then reports.
      if (parts.empty())
        parts.emplace_back("");
      return parts;
    }
  } // namespace

  std::map<std::string, double> parse_function_constants(const std::string &text, const std::string &parameter_name)
  {
    std::map<std::string, double> constants;
    for (const std::string &item : dealii::Utilities::split_string_list(text, ','))
      {
        const auto equal = item.find('=');
        if (equal == std::string::npos)
          throw InputError("Parameter '" + parameter_name + "': item '" + item + "' is not of the form name=value.");
        const std::string name = dealii::Utilities::trim(item.substr(0, equal));
        const std::string value = dealii::Utilities::trim(item.substr(equal + 1));
        try
          {
            std::size_t used = 0;
            const double number = std::stod(value, &used);
            if (used != value.size())
              throw std::invalid_argument(value);
            constants[name] = number;
          }
        catch (const std::exception &)
          {
            throw InputError("Parameter '" + parameter_name + "': the value of constant '" + name +
                             "' is not a number: '" + value + "'.");
          }
      }
    return constants;
  }

  std::vector<double> parse_number_list(const std::string &text, const std::string &parameter_name)
  {
    std::vector<double> values;
    for (const std::string &item : dealii::Utilities::split_string_list(text, ','))
      try
        {
          std::size_t used = 0;
          values.push_back(std::stod(item, &used));
          if (used != item.size())
            throw std::invalid_argument(item);
        }
      catch (const std::exception &)
        {
          throw InputError("Parameter '" + parameter_name + "': '" + item + "' is not a number.");
        }
    return values;
  }

  template <int dim>
  std::unique_ptr<dealii::FunctionParser<dim>> make_function(const FunctionExpression &function,
                                                             const unsigned int n_components,
                                                             const std::map<std::string, double> &constants)
  {
    const std::vector<std::string> components = split_components(function.expression);
    if (components.size() != n_components)
      throw InputError("Parameter '" + function.parameter_name + "' = '" + function.expression + "' has " +
                       std::to_string(components.size()) + " component(s) separated by ';', but " +
                       std::to_string(n_components) + " are needed in " + std::to_string(dim) + "D.");
    auto parser = std::make_unique<dealii::FunctionParser<dim>>(n_components);
    try
      {
        // pi is available in every expression, as in deal.II's ParsedFunction.
        std::map<std::string, double> all_constants{{"pi", dealii::numbers::PI}, {"Pi", dealii::numbers::PI}};
        for (const auto &[name, value] : constants)
          all_constants[name] = value;
        parser->initialize(variable_names(dim), components, all_constants, /*time_dependent=*/true);
        // muParser reports some errors only at the first evaluation: evaluate once here so that
        // bad input is caught before any computation.
        dealii::Vector<double> values(n_components);
        parser->vector_value(dealii::Point<dim>(), values);
      }
    catch (const dealii::ExceptionBase &error)
      {
        std::ostringstream message;
        error.print_info(message);
        throw InputError("Parameter '" + function.parameter_name + "' = '" + function.expression +
                         "' does not parse (variables " + variable_names(dim) +
                         " and the named constants): " + message.str());
      }
    return parser;
  }

  void validate_function(const FunctionExpression &function, const unsigned int dim, const unsigned int n_components,
                         const std::map<std::string, double> &constants)
  {
    switch (dim)
      {
      case 1:
        make_function<1>(function, n_components, constants);
        break;
      case 2:
        make_function<2>(function, n_components, constants);
        break;
      case 3:
        make_function<3>(function, n_components, constants);
        break;
      default:
        throw InputError("Dimension must be 1, 2 or 3.");
      }
  }

  bool depends_on_time(const FunctionExpression &function)
  {
    static const std::regex time_variable("(^|[^A-Za-z0-9_])t($|[^A-Za-z0-9_])");
    return std::regex_search(function.expression, time_variable);
  }

  bool is_zero(const FunctionExpression &function)
  {
    for (const std::string &component : split_components(function.expression))
      {
        const std::string c = dealii::Utilities::trim(component);
        if (c != "0" && c != "0.0" && c != "0.")
          return false;
      }
    return true;
  }

  template std::unique_ptr<dealii::FunctionParser<1>> make_function<1>(const FunctionExpression &, unsigned int,
                                                                       const std::map<std::string, double> &);
  template std::unique_ptr<dealii::FunctionParser<2>> make_function<2>(const FunctionExpression &, unsigned int,
                                                                       const std::map<std::string, double> &);
  template std::unique_ptr<dealii::FunctionParser<3>> make_function<3>(const FunctionExpression &, unsigned int,
                                                                       const std::map<std::string, double> &);
} // namespace percussion
