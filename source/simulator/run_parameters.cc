#include <deal.II/base/exceptions.h>

#include <percussion/core/exceptions.h>
#include <percussion/simulator/run_parameters.h>

#include <cmath>
#include <fstream>
#include <sstream>

namespace percussion
{
  void RunParameters::declare_parameters(dealii::ParameterHandler &prm)
  {
    prm.declare_entry("Dimension", "3", dealii::Patterns::Integer(1, 3),
                      "Space dimension of the bodies: 1 (bar), 2 (plane strain) or 3.");
    prm.declare_entry("Function constants", "", dealii::Patterns::Anything(),
                      "Named constants usable in every function expression of this file, e.g. "
                      "'v0=0.1, L=1'.");
    MeshParameters::declare_parameters(prm);
    Body::BodyParameters::declare_parameters(prm);
    TimeIntegration::TimeIntegrationParameters::declare_parameters(prm);
    LinearSolverParameters::declare_parameters(prm);
    Postprocess::OutputParameters::declare_parameters(prm);
    Contact::ContactParameters::declare_parameters(prm);
    TimeIntegration::ContactDynamicsParameters::declare_parameters(prm);
  }

  void RunParameters::parse_parameters(dealii::ParameterHandler &prm)
  {
    dimension = prm.get_integer("Dimension");
    function_constants = parse_function_constants(prm.get("Function constants"), "Function constants");
    mesh.parse_parameters(prm, dimension);
    body.parse_parameters(prm, dimension, function_constants);
    time.parse_parameters(prm);
    linear_solver.parse_parameters(prm);
    // 0 = by dimension: measured on one core (doc/user_guide.md, "Linear solver"), PETSc's own
    // Cholesky solves 2-2.6x faster than MUMPS in 1D/2D at a similar factorisation cost, while in 3D
    // its factorisation is 4-5x slower from about 1e4 DoFs.
    if (linear_solver.native_cholesky_dof_limit == 0)
      linear_solver.native_cholesky_dof_limit = dimension < 3 ? 50000 : 5000;
    output.parse_parameters(prm);
    contact.parse_parameters(prm);
    contact_solver.parse_parameters(prm);

    const double last_time = time.start_time + time.n_steps() * time.time_step;
    if (std::abs(last_time - time.end_time) > 1e-9 * std::max(1.0, std::abs(time.end_time)))
      warnings.push_back("'Time integration/End time' = " + std::to_string(time.end_time) +
                         " is not a whole number of time steps from 'Start time': the run ends at t = " +
                         std::to_string(last_time) + " after " + std::to_string(time.n_steps()) + " steps.");


    if (time.is_generalized_alpha())
      {
        const double g = time.newmark_gamma(), b = time.newmark_beta();
        if (!(g >= 0.5 - 1e-14 && 2 * b >= g - 1e-14))
          warnings.push_back("the nonsmooth Newmark parameters gamma = " + std::to_string(g) + ", beta = " +
                             std::to_string(b) + " violate 2 beta >= gamma >= 1/2: the scheme is not "
                             "unconditionally stable and may create energy (talk (34), (74)).");
      }

    if (time.scheme == "Schatzman-Paoli")
      {
        for (unsigned int i = 0; i < contact.pairs.size(); ++i)
          if (contact.pairs[i].friction_coefficient != 0)
            throw InputError("Parameter 'Contact/Pair " + std::to_string(i + 1) +
                             "/Friction coefficient' must be 0 with 'Time integration/Scheme' = Schatzman-Paoli "
                             "(a position-level, frictionless impact law).");
        if (contact_solver.position_projection == "on")
          throw InputError("Parameter 'Contact solver/Position projection' = on does not apply to 'Time "
                           "integration/Scheme' = Schatzman-Paoli: its law holds the gaps at position level "
                           "(set it off).");
        if (time.schatzman_paoli_beta < 0.25)
          warnings.push_back("'Time integration/Schatzman-Paoli beta' = " + std::to_string(time.schatzman_paoli_beta) +
                             " < 1/4: the scheme is only conditionally stable (h below about 2/omega_max).");
      }

    // Proposition 1: the Frémond scheme dissipates energy for ½ ≤ θ ≤ 1/(1+ē), ē = max e.
    double max_e = 0;
    for (const auto &pair : contact.pairs)
      max_e = std::max(max_e, pair.restitution_coefficient);
    if (!contact.pairs.empty() && time.scheme == "Moreau-Jean Fremond" &&
        (time.theta < 0.5 || time.theta > 1.0 / (1.0 + max_e) + 1e-14))
      {
        const std::string message =
          "'Time integration/Theta' = " + std::to_string(time.theta) +
          " lies outside [1/2, 1/(1+max e)] = [0.5, " + std::to_string(1.0 / (1.0 + max_e)) +
          "], where the Fremond scheme is proven to dissipate energy (max e = " + std::to_string(max_e) + ").";
        if (contact_solver.dissipation_range_policy == "refuse")
          throw InputError("Parameter " + message + " Set 'Contact solver/Dissipation range policy' = warn to run anyway.");
        warnings.push_back(message);
      }
  }

  namespace
  {
    RunParameters parse(std::istream &input, const std::string &name)
    {
      dealii::ParameterHandler prm;
      RunParameters::declare_parameters(prm);
      try
        {
          prm.parse_input(input, name);
        }
      catch (const dealii::ExceptionBase &error)
        {
          std::ostringstream message;
          error.print_info(message);
          std::string text = message.str();
          while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
            text.pop_back();
          throw InputError("Error in parameter file '" + name + "': " + text);
        }
      RunParameters parameters;
      try
        {
          parameters.parse_parameters(prm);
        }
      catch (const InputError &error)
        {
          throw InputError("Error in parameter file '" + name + "': " + error.what());
        }
      return parameters;
    }
  } // namespace

  RunParameters RunParameters::from_file(const std::string &file_name)
  {
    std::ifstream input(file_name);
    if (!input)
      throw InputError("Cannot open the parameter file '" + file_name + "'.");
    return parse(input, file_name);
  }

  RunParameters RunParameters::from_string(const std::string &text, const std::string &name)
  {
    std::istringstream input(text);
    return parse(input, name);
  }
} // namespace percussion
