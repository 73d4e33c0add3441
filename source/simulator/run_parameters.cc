#include <deal.II/base/exceptions.h>
#include <deal.II/base/utilities.h>

#include <algorithm>
#include <percussion/core/exceptions.h>
#include <percussion/simulator/parameter_suggestions.h>
#include <percussion/simulator/run_parameters.h>
#include <percussion/time_integration/time_integrator_factory.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <sstream>

namespace percussion
{
  void RunParameters::declare_parameters(dealii::ParameterHandler &prm, const unsigned int n_pairs)
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
    Contact::ContactParameters::declare_parameters(prm, n_pairs);
    ContactStep::ContactDynamicsParameters::declare_parameters(prm);
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
    contact.parse_parameters(prm, dimension);
    contact_solver.parse_parameters(prm);
    {
      std::vector<double> restitution;
      for (const auto &pair : contact.pairs)
        for (const double e : pair.restitution_values())
          restitution.push_back(e);
      time.resolve_auto_theta(restitution);
      // 'Energy creation policy' = auto: stop where the scheme provably dissipates (Proposition 1:
      // the Frémond scheme with ½ ≤ θ ≤ 1/(1+max e); without contact ½ ≤ θ), warn elsewhere.
      if (time.energy_creation_policy == TimeIntegration::EnergyCreationPolicy::automatic)
        time.energy_creation_policy = time.provably_dissipative(restitution)
                                        ? TimeIntegration::EnergyCreationPolicy::stop
                                        : TimeIntegration::EnergyCreationPolicy::continue_run;
    }

    const double last_time = time.start_time + time.n_steps() * time.time_step;
    if (std::abs(last_time - time.end_time) > 1e-9 * std::max(1.0, std::abs(time.end_time)))
      warnings.push_back("'Time integration/End time' = " + std::to_string(time.end_time) +
                         " is not a whole number of time steps from 'Start time': the run ends at t = " +
                         std::to_string(last_time) + " after " + std::to_string(time.n_steps()) + " steps.");

    // Records at fixed times fall on step ends only if their interval is a whole number of steps
    // (the adaptive and the retried steps are binary fractions of the time step).
    if (const double records = output.vtu_time_interval / time.time_step;
        output.vtu_time_interval > 0 &&
        (records < 1 - 1e-9 || std::abs(records - std::round(records)) > 1e-9 * records))
      {
        std::ostringstream message;
        message << "Parameter 'Output/VTU time interval' = " << output.vtu_time_interval
                << " s is not a whole multiple of 'Time integration/Time step' = " << time.time_step
                << " s; the records must fall on the ends of steps.";
        throw InputError(message.str());
      }

    // Each scheme checks its own parameter combinations (e.g. Proposition 1's θ range for the
    // Frémond scheme, no friction for Schatzman–Paoli).
    ContactStep::SchemeContactSettings settings;
    for (const auto &pair : contact.pairs)
      {
        settings.friction.push_back(pair.friction_coefficient);
        for (const auto &entry : pair.friction_by_materials)
          settings.friction.push_back(entry.second);
        for (const double e : pair.restitution_values())
          settings.restitution.push_back(e);
      }
    settings.position_projection = contact_solver.position_projection;
    settings.dissipation_range_policy = contact_solver.dissipation_range_policy;
    TimeIntegration::check_scheme_parameters(time, settings, warnings);

    // The kinematics: large rotations (a frame per body) are written for the velocity-level
    // schemes (Moreau–Jean and the generalized-α family), not for the two-step position scheme.
    const bool moreau_jean = time.scheme == TimeIntegration::Scheme::moreau_jean_fremond ||
                             time.scheme == TimeIntegration::Scheme::moreau_jean_standard;
    const bool framed_scheme = moreau_jean || TimeIntegration::is_generalized_alpha(time.scheme);
    using Body::KinematicsFormulation;
    const KinematicsFormulation kinematics = body.kinematics_formulation;
    if (kinematics == KinematicsFormulation::large_rotations && dimension == 1)
      throw InputError("Parameter 'Kinematics/Formulation' = large rotations: a 1D bar does not rotate; use small "
                       "displacements (or auto).");
    if (kinematics == KinematicsFormulation::large_rotations && !framed_scheme)
      throw InputError("Parameter 'Kinematics/Formulation' = large rotations is available with the Moreau-Jean "
                       "schemes and the nonsmooth generalized-alpha family ('Time integration/Scheme'), not with " +
                       TimeIntegration::to_string(time.scheme) + "; use small displacements with this scheme.");
    // Viscoelastic materials: written for the Moreau–Jean θ-step (the Maxwell branches' exact update
    // needs the scheme's q_{k+1} − q_k = h v_{k+θ}), with small displacements or large rotations.
    const bool viscoelastic = body.has_kelvin_voigt() || body.has_maxwell_branches();
    if (viscoelastic && !moreau_jean)
      throw InputError("Parameters 'Materials/Kelvin-Voigt time' and 'Materials/Prony moduli' (viscoelastic "
                       "materials) are available with the Moreau-Jean schemes only; 'Time integration/Scheme' = " +
                       TimeIntegration::to_string(time.scheme) +
                       " cannot take them (use the global Rayleigh pair of "
                       "'Damping' with it).");
    large_rotations = kinematics == KinematicsFormulation::large_rotations ||
                      (kinematics == KinematicsFormulation::automatic && framed_scheme && dimension > 1);
    if (time.adaptive_steps && !moreau_jean)
      throw InputError("Parameter 'Time integration/Adaptive steps' = true changes the step size, which only the "
                       "Moreau-Jean schemes can do ('Time integration/Scheme'); use a fixed step with " +
                       TimeIntegration::to_string(time.scheme) + ".");
    // The retry policy's halving of the step size is written for the Moreau-Jean schemes only.
    if (contact_solver.non_convergence_policy == ContactStep::NonConvergencePolicy::retry && !moreau_jean)
      throw InputError("Parameter 'Contact solver/Non-convergence policy' = retry halves the step size, which only "
                       "the Moreau-Jean schemes can do ('Time integration/Scheme'); use the policy continue or stop.");
    if (time.energy_creation_policy == TimeIntegration::EnergyCreationPolicy::retry && !moreau_jean)
      throw InputError("Parameter 'Time integration/Energy creation policy' = retry halves the step size, which only "
                       "the Moreau-Jean schemes can do ('Time integration/Scheme'); use the policy stop or continue.");
  }

  namespace
  {
    std::string describe(const dealii::ExceptionBase &error)
    {
      std::ostringstream message;
      error.print_info(message);
      std::string text = message.str();
      while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
        text.pop_back();
      const auto first = text.find_first_not_of(" \n");
      return first == std::string::npos ? text : text.substr(first);
    }

    /// Applies one "Section/Subsection/Entry=value" to @p prm, checked like an entry of the file.
    void apply_override(dealii::ParameterHandler &prm, const std::string &text)
    {
      const auto equals = text.find('=');
      const std::string path = equals == std::string::npos ? "" : text.substr(0, equals);
      if (path.empty() || path.back() == '/' || path.front() == '/')
        throw InputError("Override '--set " + text + "' is not of the form Section/Subsection/Entry=value.");
      std::vector<std::string> names;
      for (std::size_t begin = 0;;)
        {
          const auto slash = path.find('/', begin);
          names.push_back(path.substr(begin, slash == std::string::npos ? std::string::npos : slash - begin));
          if (slash == std::string::npos)
            break;
          begin = slash + 1;
        }
      // The whole path must exist: ParameterHandler would create an unknown subsection silently.
      const auto trim = [](std::string s) {
        while (!s.empty() && s.front() == ' ')
          s.erase(s.begin());
        while (!s.empty() && s.back() == ' ')
          s.pop_back();
        return s;
      };
      std::string value = trim(text.substr(equals + 1));
      for (auto &name : names)
        name = trim(name);
      for (unsigned int i = 0; i + 1 < names.size(); ++i)
        {
          if (!prm.subsection_path_exists({names[i]}))
            {
              for (unsigned int j = 0; j < i; ++j)
                prm.leave_subsection();
              const std::vector<std::string> above(names.begin(), names.begin() + i);
              throw InputError(
                with_suggestion("Override '--set " + text + "': there is no subsection '" + names[i] + "'.",
                                DeclaredParameterNames(prm).closest(above, names[i], true)));
            }
          prm.enter_subsection(names[i]);
        }
      try
        {
          prm.set(names.back(), value);
        }
      catch (const dealii::ExceptionBase &error)
        {
          for (unsigned int i = 0; i + 1 < names.size(); ++i)
            prm.leave_subsection();
          // prm.set also refuses a value that does not match a declared entry's pattern: a name is
          // suggested only when this one is not declared.
          const std::vector<std::string> section(names.begin(), names.end() - 1);
          const DeclaredParameterNames declared(prm);
          const std::vector<std::string> near = declared.closest(section, names.back(), false);
          const bool known = std::find(near.begin(), near.end(), names.back()) != near.end();
          throw InputError(with_suggestion("Override '--set " + text + "': " + describe(error),
                                           known ? std::vector<std::string>() : near));
        }
      for (unsigned int i = 0; i + 1 < names.size(); ++i)
        prm.leave_subsection();
    }

    /// The entry path "Section/Subsection/Entry" of an override "Section/Subsection/Entry=value",
    /// with the blanks around each name removed.
    std::string override_path(const std::string &text)
    {
      std::string path;
      std::string name;
      const auto flush = [&]() {
        path += dealii::Utilities::trim(name);
        name.clear();
      };
      for (const char c : text.substr(0, text.find('=')))
        if (c == '/')
          {
            flush();
            path += '/';
          }
        else
          name += c;
      flush();
      return path;
    }

    /// The contact pair subsections that @p text and @p overrides name (declared before parsing).
    unsigned int pairs_named(const std::string &text, const std::vector<std::string> &overrides)
    {
      unsigned int n = Contact::ContactParameters::pairs_named_in(text);
      for (const std::string &o : overrides)
        n = std::max(n, Contact::ContactParameters::pairs_named_in(override_path(o)));
      return n;
    }

    /// The message of the check of the file with @p overrides, or "" if they are accepted.
    std::string check_message(const std::string &text, const std::vector<std::string> &overrides)
    {
      dealii::ParameterHandler prm;
      RunParameters::declare_parameters(prm, pairs_named(text, overrides));
      std::istringstream input(text);
      prm.parse_input(input);
      for (const std::string &o : overrides)
        apply_override(prm, o);
      try
        {
          RunParameters().parse_parameters(prm);
        }
      catch (const InputError &error)
        {
          return error.what();
        }
      return "";
    }

    /// The overrides a rejected value came from: those whose entry the @p message names, or else
    /// those without which the file no longer fails with this message (e.g. a combination of
    /// entries). Empty if the message is the file's own.
    std::vector<std::string> overrides_to_blame(const std::string &text, const std::vector<std::string> &overrides,
                                                const std::string &message)
    {
      std::vector<std::string> named;
      for (const std::string &o : overrides)
        if (message.find("'" + override_path(o) + "'") != std::string::npos)
          named.push_back(o);
      if (!named.empty())
        return named;
      std::vector<std::string> needed;
      for (std::size_t k = 0; k < overrides.size(); ++k)
        {
          std::vector<std::string> others = overrides;
          others.erase(others.begin() + k);
          if (check_message(text, others) != message)
            needed.push_back(overrides[k]);
        }
      return needed;
    }

    RunParameters parse(std::istream &input, const std::string &name, const std::vector<std::string> &overrides)
    {
      // The text is kept: a rejected value is traced back to the file or to an override.
      const std::string text{std::istreambuf_iterator<char>(input), std::istreambuf_iterator<char>()};
      dealii::ParameterHandler prm;
      RunParameters::declare_parameters(prm, pairs_named(text, overrides));
      try
        {
          std::istringstream file(text);
          prm.parse_input(file, name);
        }
      catch (const dealii::ExceptionBase &error)
        {
          // deal.II names the line ("Line <N> of file ..."); if that line misspells an entry or a
          // subsection, the closest declared name is the likely intent.
          const std::string message = describe(error);
          std::vector<std::string> near;
          const auto at = message.find("Line <");
          if (at != std::string::npos)
            near = DeclaredParameterNames(prm).closest_for_line(text, std::stoul(message.substr(at + 6)));
          throw InputError(with_suggestion("Error in parameter file '" + name + "': " + message, near));
        }
      for (const std::string &o : overrides)
        apply_override(prm, o);
      RunParameters parameters;
      try
        {
          parameters.parse_parameters(prm);
        }
      catch (const InputError &error)
        {
          // A value out of range may come from a --set rather than from the file: name it, since
          // the file itself may hold a valid value there.
          const std::vector<std::string> blamed = overrides_to_blame(text, overrides, error.what());
          if (blamed.empty())
            throw InputError("Error in parameter file '" + name + "': " + error.what());
          std::string where;
          for (const std::string &o : blamed)
            where += (where.empty() ? "" : " with ") + ("'--set " + o + "'");
          throw InputError("Override " + where + " (parameter file '" + name + "'): " + error.what());
        }
      // The parameters as run name the θ that 'auto' resolved to (a resumed run reads the same).
      prm.enter_subsection("Time integration");
      if (dealii::Utilities::trim(prm.get("Theta")) == "auto")
        {
          std::ostringstream theta;
          theta.precision(17);
          theta << parameters.time.theta;
          prm.set("Theta", theta.str());
        }
      prm.leave_subsection();
      std::ostringstream effective;
      prm.print_parameters(effective, dealii::ParameterHandler::ShortPRM);
      parameters.effective_parameters = effective.str();
      return parameters;
    }
  } // namespace

  RunParameters RunParameters::from_file(const std::string &file_name)
  {
    return from_file(file_name, {});
  }

  RunParameters RunParameters::from_file(const std::string &file_name, const std::vector<std::string> &overrides)
  {
    std::ifstream input(file_name);
    if (!input)
      throw InputError("Cannot open the parameter file '" + file_name + "'.");
    return parse(input, file_name, overrides);
  }

  RunParameters RunParameters::from_string(const std::string &text, const std::string &name,
                                           const std::vector<std::string> &overrides)
  {
    std::istringstream input(text);
    return parse(input, name, overrides);
  }
} // namespace percussion
