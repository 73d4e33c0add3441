#include <deal.II/base/utilities.h>

#include <percussion/body/body_parameters.h>
#include <percussion/core/exceptions.h>

#include <algorithm>

namespace percussion::Body
{
  using namespace dealii;

  namespace
  {
    /// "0:xyz, 2:y" or "0, 2" (all components).
    std::vector<ConstrainedBoundary> parse_constrained(const std::string &text, const unsigned int dim,
                                                       const std::string &entry)
    {
      std::vector<ConstrainedBoundary> result;
      for (const std::string &item : Utilities::split_string_list(text, ','))
        {
          const auto parts = Utilities::split_string_list(item, ':');
          ConstrainedBoundary boundary;
          try
            {
              const int id = Utilities::string_to_int(parts[0]);
              if (id < 0)
                throw std::invalid_argument(parts[0]);
              boundary.boundary_id = id;
            }
          catch (...)
            {
              throw InputError("Parameter '" + entry + "': '" + parts[0] + "' is not a boundary id.");
            }
          boundary.components.assign(dim, parts.size() == 1);
          if (parts.size() == 2)
            for (const char c : parts[1])
              {
                const std::string axes = "xyz";
                const auto d = axes.find(c);
                if (d == std::string::npos || d >= dim)
                  throw InputError("Parameter '" + entry + "': component '" + std::string(1, c) + "' in '" + item +
                                   "' does not exist in " + std::to_string(dim) + "D (use " + axes.substr(0, dim) +
                                   ").");
                boundary.components[d] = true;
              }
          else if (parts.size() > 2)
            throw InputError("Parameter '" + entry + "': '" + item + "' is not of the form id or id:components.");
          result.push_back(boundary);
        }
      return result;
    }

    /// The Prony lists of @p entry: one group per material id (or one for all), each a
    /// comma-separated list; empty if the entry is.
    std::vector<std::vector<double>> prony_groups(ParameterHandler &prm, const std::string &entry)
    {
      std::vector<std::vector<double>> groups;
      const std::string text = prm.get(entry);
      if (Utilities::trim(text).empty())
        return groups;
      // (split_string_list drops a trailing empty group: keep one list per ';'.)
      std::string::size_type begin = 0;
      while (true)
        {
          const auto end = text.find(';', begin);
          groups.push_back(parse_number_list(Utilities::trim(text.substr(begin, end - begin)), "Materials/" + entry));
          if (end == std::string::npos)
            break;
          begin = end + 1;
        }
      return groups;
    }

    /// `subsection Materials` as read: per entry one value (or list) for all ids or one per id.
    struct MaterialLists
    {
      std::vector<int> ids;
      std::vector<double> youngs_modulus, poissons_ratio, density, kelvin_voigt_time;
      std::vector<std::vector<double>> prony_moduli, prony_times;

      /// The value of @p entry for the @p i-th id. @throws InputError for a list of the wrong length.
      double pick(const std::vector<double> &values, const std::size_t i, const std::string &entry) const
      {
        if (values.size() == 1)
          return values[0];
        if (values.size() != ids.size())
          throw InputError("Parameter 'Materials/" + entry + "' has " + std::to_string(values.size()) +
                           " values but 'Materials/Material ids' lists " + std::to_string(ids.size()) +
                           " ids (give one value, or one per id).");
        return values[i];
      }

      /// The Prony list of @p entry for the @p i-th id. @throws InputError for the wrong number of lists.
      std::vector<double> pick_group(const std::vector<std::vector<double>> &groups, const std::size_t i,
                                     const std::string &entry) const
      {
        if (groups.empty())
          return std::vector<double>();
        if (groups.size() == 1)
          return groups[0];
        if (groups.size() != ids.size())
          throw InputError("Parameter 'Materials/" + entry + "' has " + std::to_string(groups.size()) +
                           " ';'-separated lists but 'Materials/Material ids' lists " + std::to_string(ids.size()) +
                           " ids (give one list, or one per id).");
        return groups[i];
      }
    };

    MaterialLists read_material_lists(ParameterHandler &prm)
    {
      MaterialLists lists;
      prm.enter_subsection("Materials");
      lists.ids = Utilities::string_to_int(Utilities::split_string_list(prm.get("Material ids"), ','));
      lists.youngs_modulus = parse_number_list(prm.get("Young's modulus"), "Materials/Young's modulus");
      lists.poissons_ratio = parse_number_list(prm.get("Poisson's ratio"), "Materials/Poisson's ratio");
      lists.density = parse_number_list(prm.get("Density"), "Materials/Density");
      lists.kelvin_voigt_time = parse_number_list(prm.get("Kelvin-Voigt time"), "Materials/Kelvin-Voigt time");
      lists.prony_moduli = prony_groups(prm, "Prony moduli");
      lists.prony_times = prony_groups(prm, "Prony times");
      prm.leave_subsection();
      if (lists.ids.empty())
        throw InputError("Parameter 'Materials/Material ids' is empty.");
      return lists;
    }

    /// The Prony series of @p m: as many times as moduli, at most Material::max_prony_terms, all
    /// positive. @p which names the material in the messages.
    void check_prony_series(const Material &m, const std::string &which)
    {
      if (m.prony_moduli.size() != m.prony_times.size())
        throw InputError("Parameters 'Materials/Prony moduli' and 'Materials/Prony times' give " +
                         std::to_string(m.prony_moduli.size()) + " and " + std::to_string(m.prony_times.size()) +
                         " terms" + which + " (each Maxwell branch needs a modulus and a relaxation time).");
      if (m.prony_moduli.size() > Material::max_prony_terms)
        throw InputError("Parameter 'Materials/Prony moduli' gives " + std::to_string(m.prony_moduli.size()) +
                         " terms" + which + "; at most " + std::to_string(Material::max_prony_terms) +
                         " are supported.");
      for (std::size_t t = 0; t < m.prony_moduli.size(); ++t)
        {
          const std::string term = "term " + std::to_string(t + 1);
          if (!(m.prony_moduli[t] > 0))
            throw InputError("Parameter 'Materials/Prony moduli': " + term + which + " must be positive (got " +
                             std::to_string(m.prony_moduli[t]) + ").");
          if (!(m.prony_times[t] > 0))
            throw InputError("Parameter 'Materials/Prony times': " + term + which + " must be positive (got " +
                             std::to_string(m.prony_times[t]) + ").");
        }
    }

    /// The material of the @p i-th id of @p lists. @throws InputError for an inadmissible value.
    Material material_of(const MaterialLists &lists, const std::size_t i)
    {
      Material m;
      m.youngs_modulus = lists.pick(lists.youngs_modulus, i, "Young's modulus");
      m.poissons_ratio = lists.pick(lists.poissons_ratio, i, "Poisson's ratio");
      m.density = lists.pick(lists.density, i, "Density");
      const std::string which = " for material id " + std::to_string(lists.ids[i]);
      if (!(m.youngs_modulus > 0))
        throw InputError("Parameter 'Materials/Young's modulus' must be positive" + which + " (got " +
                         std::to_string(m.youngs_modulus) + ").");
      if (!(m.poissons_ratio < 0.5 && m.poissons_ratio > -1))
        throw InputError("Parameter 'Materials/Poisson's ratio' must satisfy -1 < nu < 0.5" + which + " (got " +
                         std::to_string(m.poissons_ratio) + "; nu >= 0.5 is incompressible).");
      if (!(m.density > 0))
        throw InputError("Parameter 'Materials/Density' must be positive" + which + " (got " +
                         std::to_string(m.density) + ").");
      m.kelvin_voigt_time = lists.pick(lists.kelvin_voigt_time, i, "Kelvin-Voigt time");
      if (!(m.kelvin_voigt_time >= 0))
        throw InputError("Parameter 'Materials/Kelvin-Voigt time' must be >= 0" + which + " (got " +
                         std::to_string(m.kelvin_voigt_time) + ").");
      m.prony_moduli = lists.pick_group(lists.prony_moduli, i, "Prony moduli");
      m.prony_times = lists.pick_group(lists.prony_times, i, "Prony times");
      check_prony_series(m, which);
      return m;
    }

    /// Functions are written for 3D by default ("0; 0; 0"); the default is accepted in lower
    /// dimensions by dropping surplus literal-zero components (anything else of the wrong size is
    /// left for validate_function() to reject).
    void drop_surplus_zero_components(FunctionExpression &f, const unsigned int dim)
    {
      auto parts = Utilities::split_string_list(f.expression, ';');
      while (parts.size() > dim && Utilities::trim(parts.back()) == "0")
        parts.pop_back();
      std::string joined;
      for (std::size_t i = 0; i < parts.size(); ++i)
        joined += (i ? "; " : "") + parts[i];
      f.expression = joined;
    }

    /// The KinematicsFormulation called @p name (a value of the Selection of 'Kinematics/Formulation').
    KinematicsFormulation kinematics_formulation_from_name(const std::string &name)
    {
      if (name == "small displacements")
        return KinematicsFormulation::small_displacements;
      if (name == "large rotations")
        return KinematicsFormulation::large_rotations;
      return KinematicsFormulation::automatic;
    }
  } // namespace

  bool BodyParameters::has_kelvin_voigt() const
  {
    return std::any_of(materials.begin(), materials.end(),
                       [](const auto &m) { return m.second.kelvin_voigt_time > 0; });
  }

  bool BodyParameters::has_maxwell_branches() const
  {
    return std::any_of(materials.begin(), materials.end(),
                       [](const auto &m) { return !m.second.prony_moduli.empty(); });
  }

  void BodyParameters::declare_parameters(ParameterHandler &prm)
  {
    using namespace dealii::Patterns;
    prm.enter_subsection("Materials");
    prm.declare_entry("Material ids", "0", List(Integer(0)),
                      "The material ids (cell attribute of the mesh) the lists below describe, in "
                      "order. Every material id in the mesh must be listed.");
    prm.declare_entry("Young's modulus", "210e9", List(Double()),
                      "Young's modulus E per material id (or one value for all); must be positive. With "
                      "a Prony series it is the long-term modulus E_inf.");
    prm.declare_entry("Poisson's ratio", "0.3", List(Double()),
                      "Poisson's ratio nu per material id (or one value for all); -1 < nu < 0.5. "
                      "2D is plane strain; 1D uses E alone.");
    prm.declare_entry("Density", "7800", List(Double()),
                      "Mass density rho per material id (or one value for all); must be positive.");
    prm.declare_entry("Kelvin-Voigt time", "0", List(Double()),
                      "Kelvin-Voigt retardation time tau_KV [s] per material id (or one value for all), >= 0: "
                      "the viscous stress is tau_KV times the elastic stress of the strain rate, i.e. the "
                      "damping matrix of the material's cells is tau_KV K_m (on top of the Rayleigh pair of "
                      "'Damping'). Moreau-Jean schemes (small displacements or large rotations).");
    prm.declare_entry("Prony moduli", "", Anything(),
                      "Generalized Maxwell model: the moduli E_i [Pa] of the Prony series "
                      "E(t) = E_inf + sum_i E_i exp(-t/tau_i), with E_inf = 'Young's modulus' and Poisson's "
                      "ratio constant. One comma-separated list per material id, the lists separated by ';' "
                      "(one list for all ids; an empty list: no Maxwell branch), e.g. '1e9, 2e9; ; 5e8'. At "
                      "most 8 terms per material, each positive. Moreau-Jean schemes (small displacements "
                      "or large rotations).");
    prm.declare_entry("Prony times", "", Anything(),
                      "The relaxation times tau_i [s] of the Prony series, in the layout of 'Prony moduli' "
                      "(one time per modulus), each positive.");
    prm.leave_subsection();

    prm.enter_subsection("Damping");
    prm.declare_entry("Mass proportional coefficient", "0", Double(0),
                      "alpha in the Rayleigh damping C = alpha M + beta K [1/s].");
    prm.declare_entry("Stiffness proportional coefficient", "0", Double(0),
                      "beta in C = alpha M + beta K [s]; also the Kelvin-Voigt viscosity time of every "
                      "material (viscous stress = beta times the elastic stress rate); per material: "
                      "'Materials/Kelvin-Voigt time'.");
    prm.leave_subsection();

    prm.enter_subsection("Loads");
    prm.declare_entry("Gravity", "0, 0, 0", List(Double(), 1, 3),
                      "Gravitational acceleration vector (the first dim values are used); the "
                      "body force is rho times it.");
    prm.declare_entry("Body force", "0; 0; 0", Anything(),
                      "Additional force per unit volume, a function of x,y,z,t: dim expressions "
                      "separated by ';' (in 1D: per unit length and area).");
    prm.declare_entry("Traction boundary ids", "", List(Integer(0, 254)),
                      "Boundary ids on which the surface traction below acts.");
    prm.declare_entry("Traction", "0; 0; 0", Anything(),
                      "Surface traction (force per unit area), a function of x,y,z,t with dim "
                      "components separated by ';'.");
    prm.leave_subsection();

    prm.enter_subsection("Boundary conditions");
    prm.declare_entry("Fixed boundary ids", "", Anything(),
                      "Boundaries with zero displacement: a comma-separated list of 'id' (all "
                      "components) or 'id:components' with components among x, y, z, e.g. '0, 3:y'.");
    prm.declare_entry("Prescribed displacement boundary ids", "", Anything(),
                      "Boundaries that follow the displacement function below, same syntax as "
                      "'Fixed boundary ids'.");
    prm.declare_entry("Prescribed displacement", "0; 0; 0", Anything(),
                      "Prescribed displacement, a function of x,y,z,t with dim components "
                      "separated by ';'.");
    prm.leave_subsection();

    prm.enter_subsection("Kinematics");
    prm.declare_entry("Formulation", "auto", Selection("auto|small displacements|large rotations"),
                      "How the bodies move: 'large rotations' = a frame per body follows its rigid motion "
                      "exactly (any rotation) and the strain, linear, is measured in it; 'small displacements' "
                      "= x = X + q, a rotation by phi stretches the body by sqrt(1 + phi^2); 'auto' = large "
                      "rotations in 2D/3D with the Moreau-Jean schemes (elastic and viscoelastic materials) and the "
                      "nonsmooth generalized-alpha family, small displacements otherwise (1D, Schatzman-Paoli).");
    prm.declare_entry("Frame update angle", "1e-4", Double(0),
                      "Large rotations: a body's frame is taken anew when its rigid fit has turned by more "
                      "than this angle (rad) from it; below it the linear kinematics carries the rotation "
                      "(stretch at most angle^2/2 = 5e-9 by default) and what is built from the frames (the "
                      "probed contact operator of many contacts) stays valid: a body at rest keeps its frame.");
    prm.declare_entry("Turning step basis", "true", Bool(),
                      "Large rotations with a Moreau-Jean scheme and theta > 1/2: each step is made in a basis "
                      "that turns with each body at its angular velocity (a body whose angle per step is below "
                      "a hundredth of 'Frame update angle' keeps the fixed basis), so that a steady spin and its "
                      "centrifugal strain are kept "
                      "at any theta and theta > 1/2 damps the deformation only. false: the fixed basis, where "
                      "positions move along chords and theta > 1/2 also damps a spin by about "
                      "(theta - 1/2)(omega h)^2 per step.");
    prm.declare_entry("Rotation warning angle", "0.05", Double(0),
                      "Small displacements: a warning and an event in events.csv when a body has turned by "
                      "more than this angle (rad), where the small-displacement kinematics is no longer accurate.");
    prm.leave_subsection();

    prm.enter_subsection("Initial conditions");
    prm.declare_entry("Displacement", "0; 0; 0", Anything(),
                      "Initial displacement q0(x): dim expressions separated by ';'.");
    prm.declare_entry("Velocity", "0; 0; 0", Anything(),
                      "Initial velocity v0(x): dim expressions separated by ';'. A rigid initial "
                      "velocity is one line, e.g. '0; 0; -1'.");
    prm.leave_subsection();
  }

  void BodyParameters::parse_parameters(ParameterHandler &prm, const unsigned int dim,
                                        const std::map<std::string, double> &constants)
  {
    function_constants = constants;

    const MaterialLists lists = read_material_lists(prm);
    materials.clear();
    for (std::size_t i = 0; i < lists.ids.size(); ++i)
      {
        const Material m = material_of(lists, i);
        if (materials.count(lists.ids[i]))
          throw InputError("Parameter 'Materials/Material ids' lists id " + std::to_string(lists.ids[i]) + " twice.");
        materials[lists.ids[i]] = m;
      }

    prm.enter_subsection("Damping");
    rayleigh_alpha = prm.get_double("Mass proportional coefficient");
    rayleigh_beta = prm.get_double("Stiffness proportional coefficient");
    prm.leave_subsection();

    prm.enter_subsection("Loads");
    gravity = parse_number_list(prm.get("Gravity"), "Loads/Gravity");
    gravity.resize(3, 0.0);
    gravity.resize(dim);
    body_force = {"Loads/Body force", prm.get("Body force")};
    traction_boundary_ids.clear();
    for (const int id : Utilities::string_to_int(Utilities::split_string_list(prm.get("Traction boundary ids"), ',')))
      traction_boundary_ids.push_back(id);
    traction = {"Loads/Traction", prm.get("Traction")};
    prm.leave_subsection();

    prm.enter_subsection("Boundary conditions");
    fixed_boundaries = parse_constrained(prm.get("Fixed boundary ids"), dim, "Boundary conditions/Fixed boundary ids");
    prescribed_boundaries = parse_constrained(prm.get("Prescribed displacement boundary ids"), dim,
                                              "Boundary conditions/Prescribed displacement boundary ids");
    prescribed_displacement = {"Boundary conditions/Prescribed displacement", prm.get("Prescribed displacement")};
    prm.leave_subsection();

    prm.enter_subsection("Kinematics");
    kinematics_formulation = kinematics_formulation_from_name(prm.get("Formulation"));
    frame_update_angle = prm.get_double("Frame update angle");
    turning_step_basis = prm.get_bool("Turning step basis");
    rotation_warning_angle = prm.get_double("Rotation warning angle");
    prm.leave_subsection();

    prm.enter_subsection("Initial conditions");
    initial_displacement = {"Initial conditions/Displacement", prm.get("Displacement")};
    initial_velocity = {"Initial conditions/Velocity", prm.get("Velocity")};
    prm.leave_subsection();

    for (FunctionExpression *f :
         {&body_force, &traction, &prescribed_displacement, &initial_displacement, &initial_velocity})
      {
        drop_surplus_zero_components(*f, dim);
        validate_function(*f, dim, dim, function_constants);
      }
  }
} // namespace percussion::Body
