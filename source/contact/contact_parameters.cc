#include <percussion/contact/contact_parameters.h>
#include <percussion/core/exceptions.h>
#include <percussion/core/name_table.h>

#include <deal.II/base/utilities.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace percussion
{
  namespace Contact
  {
    namespace
    {
      std::vector<double> parse_vector(const std::string &text, const std::string &context)
      {
        std::vector<double> values;
        for (const std::string &entry : dealii::Utilities::split_string_list(text, ','))
          {
            try
              {
                values.push_back(dealii::Utilities::string_to_double(entry));
              }
            catch (...)
              {
                throw InputError(context + ": '" + text + "' is not a list of numbers");
              }
          }
        return values;
      }

      double norm(const std::vector<double> &v)
      {
        double s = 0;
        for (const double x : v)
          s += x * x;
        return std::sqrt(s);
      }
    } // namespace

    namespace
    {
      // Every pair type and formulation with its name in the parameter file: the one place the
      // names are written.
      constexpr NameTable<PairType, 5> pair_type_names{{{PairType::plane, "plane"},
                                                        {PairType::sphere, "sphere"},
                                                        {PairType::cylinder, "cylinder"},
                                                        {PairType::body, "body"},
                                                        {PairType::bodies, "bodies"}}};
      constexpr NameTable<Formulation, 2> formulation_names{
        {{Formulation::node_to_surface, "node-to-surface"}, {Formulation::integrated, "integrated"}}};
    } // namespace

    namespace
    {
      /// Every entry of a subsection `Pair i`, as declare_parameters() declares them.
      constexpr std::array<const char *, 15> pair_entry_names{
        {"Type", "Slave boundary id", "Master boundary id", "Boundary ids", "Formulation", "Friction coefficient",
         "Restitution coefficient", "Friction by materials", "Restitution by materials", "Point", "Normal", "Radius",
         "Axis", "Obstacle velocity", "Tangent reference direction"}};

      /**
       * A table 'a-b: value; c-d: value' of a body pair (or 'a: value; ...' of an obstacle pair,
       * a the slave's material) from @p text; errors name @p parameter.
       */
      std::map<std::pair<unsigned int, unsigned int>, double>
      material_table_from_string(const std::string &text, const bool obstacle, const std::string &parameter)
      {
        std::map<std::pair<unsigned int, unsigned int>, double> table;
        const std::string form = obstacle ? "'a: value; ...' (a: the slave's material id)"
                                          : "'a-b: value; ...' (a, b: the material ids of the two sides)";
        for (std::string item : dealii::Utilities::split_string_list(text, ';'))
          {
            item = dealii::Utilities::trim(item);
            if (item.empty())
              continue;
            const auto colon = item.find(':');
            const std::string key = colon == std::string::npos ? "" : dealii::Utilities::trim(item.substr(0, colon));
            const std::vector<std::string> ids = dealii::Utilities::split_string_list(key, '-');
            std::pair<unsigned int, unsigned int> entry{0, PairParameters::no_material};
            double value = 0.;
            try
              {
                if (colon == std::string::npos || ids.size() != (obstacle ? 1u : 2u))
                  throw std::invalid_argument("form");
                std::size_t used = 0;
                value = std::stod(item.substr(colon + 1), &used);
                if (!dealii::Utilities::trim(item.substr(colon + 1 + used)).empty())
                  throw std::invalid_argument("trailing");
                for (unsigned int k = 0; k < ids.size(); ++k)
                  {
                    const int id = dealii::Utilities::string_to_int(ids[k]);
                    if (id < 0)
                      throw std::invalid_argument("negative");
                    (k == 0 ? entry.first : entry.second) = static_cast<unsigned int>(id);
                  }
              }
            catch (const std::exception &)
              {
                throw InputError(parameter + ": '" + item + "' is not of the form " + form);
              }
            if (!obstacle && entry.first > entry.second)
              std::swap(entry.first, entry.second);
            if (!table.emplace(entry, value).second)
              throw InputError(parameter + ": the materials of '" + item + "' are listed twice");
          }
        return table;
      }

      /// The entries a used pair of @p type must set in @p dimension: what defines its surfaces.
      std::vector<std::string> required_entries(const PairType type, const unsigned int dimension)
      {
        std::vector<std::string> entries{"Type"};
        if (type != PairType::bodies)
          entries.emplace_back("Slave boundary id");
        switch (type)
          {
          case PairType::plane:
            entries.insert(entries.end(), {"Point", "Normal"});
            break;
          case PairType::sphere:
            entries.insert(entries.end(), {"Point", "Radius"});
            break;
          case PairType::cylinder:
            entries.insert(entries.end(), {"Point", "Radius"});
            if (dimension == 3)
              entries.emplace_back("Axis");
            break;
          case PairType::body:
            entries.emplace_back("Master boundary id");
            break;
          case PairType::bodies:
            break;
          }
        return entries;
      }

      /**
       * The name under which deal.II's ParameterHandler lists the entry @p entry of `Contact/Pair i`
       * in get_entries_wrongly_not_set(): the names of the path, each mangled as ParameterHandler
       * stores names (letters and digits kept, any other character written as '_' and its two
       * lower-case hexadecimal digits), joined by '.'.
       */
      std::string set_status_key(const unsigned int i, const std::string &entry)
      {
        const auto mangle = [](const std::string &name) {
          static const char hex[] = "0123456789abcdef";
          std::string mangled;
          for (const char c : name)
            if (std::isalnum(static_cast<unsigned char>(c)))
              mangled += c;
            else
              mangled += {'_', hex[static_cast<unsigned char>(c) / 16], hex[static_cast<unsigned char>(c) % 16]};
          return mangled;
        };
        return mangle("Contact") + "." + mangle("Pair " + std::to_string(i)) + "." + mangle(entry);
      }

      /// What a used pair must set, for the messages of check_pair_is_set() and missing_pair().
      const std::string what_a_pair_needs =
        "a used pair sets 'Type' and, unless Type = bodies, 'Slave boundary id' and what its type needs (plane: "
        "'Point', 'Normal'; sphere: 'Point', 'Radius'; cylinder: 'Point', 'Radius' and in 3D 'Axis'; body: 'Master "
        "boundary id'; bodies: nothing else, 'Boundary ids' is 'all' unless set); "
        "the defaults, a plane z = 0 touched by boundary id 0, are no surface of this problem";

      /// The error for `Contact/Pair i`, counted by 'Number of pairs' = @p n_pairs, that the input does not describe.
      InputError missing_pair(const unsigned int i, const unsigned int n_pairs)
      {
        return InputError(
          "Contact/Pair " + std::to_string(i) + ": 'Contact/Number of pairs' = " + std::to_string(n_pairs) +
          " uses it, but the subsection 'Pair " + std::to_string(i) +
          "' is missing from 'Contact' or sets none of 'Type', 'Slave boundary id': " + what_a_pair_needs +
          " (or lower 'Number of pairs').");
      }

      /**
       * Throws InputError naming `Contact/Pair i` if the input (the file and the overrides), whose
       * unset entries are @p not_set, leaves an entry the pair needs at its default: a pair
       * counted by 'Number of pairs' (@p n_pairs) but missing from the file would otherwise be a
       * plane z = 0 touched by boundary id 0, which is no surface of the problem.
       */
      void check_pair_is_set(const std::set<std::string> &not_set, const unsigned int i, const unsigned int n_pairs,
                             const PairType type, const unsigned int dimension)
      {
        const auto is_set = [&](const std::string &entry) { return not_set.count(set_status_key(i, entry)) == 0; };
        const std::string name = "Contact/Pair " + std::to_string(i);
        if (std::none_of(pair_entry_names.begin(), pair_entry_names.end(), is_set))
          throw missing_pair(i, n_pairs);
        // Without a Type, the type-dependent entries are not known: the two that every pair needs.
        std::string missing;
        for (const std::string &entry : required_entries(type, dimension))
          if ((is_set("Type") || entry == "Slave boundary id" || entry == "Type") && !is_set(entry))
            missing += (missing.empty() ? "'" : ", '") + entry + "'";
        if (!missing.empty())
          throw InputError(name + (is_set("Type") ? " (Type = " + to_string(type) + ")" : "") + " does not set " +
                           missing + ": " + what_a_pair_needs + ".");
      }

      /// Type = bodies names its surfaces by 'Boundary ids': the entries of the other types are refused.
      void check_entries_of_bodies(const std::set<std::string> &not_set, const unsigned int i)
      {
        for (const std::string entry : {"Slave boundary id", "Master boundary id"})
          if (not_set.count(set_status_key(i, entry)) == 0)
            throw InputError("Contact/Pair " + std::to_string(i) + "/" + entry +
                             " does not apply to Type = bodies: its surfaces are 'Boundary ids' (a list or 'all'), "
                             "each in contact with the other bodies'");
      }
    } // namespace

    std::string BoundaryIds::to_string() const
    {
      if (all)
        return "all";
      std::string text;
      for (const unsigned int id : ids)
        text += (text.empty() ? "" : ", ") + std::to_string(id);
      return text;
    }

    BoundaryIds boundary_ids_from_string(const std::string &text, const std::string &parameter)
    {
      BoundaryIds result;
      std::string trimmed = text;
      trimmed.erase(0, trimmed.find_first_not_of(" \t"));
      trimmed.erase(trimmed.find_last_not_of(" \t") + 1);
      if (trimmed == "all")
        {
          result.all = true;
          return result;
        }
      std::stringstream stream(trimmed);
      std::string item;
      while (std::getline(stream, item, ','))
        {
          std::size_t used = 0;
          long value = -1;
          try
            {
              value = std::stol(item, &used);
            }
          catch (const std::exception &)
            {
              used = 0;
            }
          if (used == 0 || item.find_first_not_of(" \t", used) != std::string::npos || value < 0 || value > 255)
            throw InputError("Parameter '" + parameter + "' = '" + text +
                             "': expected 'all' or a comma-separated list of boundary ids (integers 0-255).");
          if (std::find(result.ids.begin(), result.ids.end(), value) == result.ids.end())
            result.ids.push_back(static_cast<unsigned int>(value));
        }
      if (result.ids.empty())
        throw InputError("Parameter '" + parameter + "' is empty: expected 'all' or a list of boundary ids.");
      return result;
    }

    PairType pair_type_from_string(const std::string &name, const std::string &context)
    {
      if (has_name(pair_type_names, name))
        return value_of(pair_type_names, name, context);
      throw InputError(context + ": unknown pair type '" + name + "' (admissible: " + names_pattern(pair_type_names) +
                       ")");
    }

    std::string to_string(const PairType type)
    {
      return name_of(pair_type_names, type);
    }

    Formulation formulation_from_string(const std::string &name, const std::string &context)
    {
      if (has_name(formulation_names, name))
        return value_of(formulation_names, name, context);
      throw InputError(context + ": unknown value '" + name + "' (admissible: " + names_pattern(formulation_names) +
                       ")");
    }

    std::string to_string(const Formulation formulation)
    {
      return name_of(formulation_names, formulation);
    }

    unsigned int ContactParameters::pairs_named_in(const std::string &text)
    {
      // "Pair" followed by blanks and digits, as a subsection name or in an override's path.
      unsigned int largest = 0;
      for (std::size_t at = text.find("Pair"); at != std::string::npos; at = text.find("Pair", at + 4))
        {
          std::size_t k = at + 4;
          while (k < text.size() && (text[k] == ' ' || text[k] == '\t'))
            ++k;
          std::size_t end = k;
          while (end < text.size() && end - k < 9 && std::isdigit(static_cast<unsigned char>(text[end])))
            ++end;
          if (end > k && k > at + 4)
            largest = std::max(largest, static_cast<unsigned int>(std::stoul(text.substr(k, end - k))));
        }
      return largest;
    }

    namespace
    {
      /// The entries of one 'Pair N' subsection (entered by the caller).
      // Every entry of a pair is declared "to be set": deal.II then records whether the file or an
      // override set it (ParameterHandler::get_entries_wrongly_not_set()), which is how
      // parse_parameters() tells a used pair the input describes from one it left at the
      // defaults. Unused pairs are not checked.
      void declare_pair_entries(dealii::ParameterHandler &prm)
      {
        using dealii::Patterns::Double;
        using dealii::Patterns::List;
        using dealii::Patterns::Selection;
        const auto declare_pair_entry = [&prm](const std::string &name, const std::string &default_value,
                                               const dealii::Patterns::PatternBase &pattern,
                                               const std::string &documentation) {
          prm.declare_entry(name, default_value, pattern, documentation, true);
        };
        declare_pair_entry("Type", "plane", Selection(names_pattern(pair_type_names)),
                           "What the slave surface touches: a rigid plane, the exterior of a "
                           "rigid sphere or cylinder (a disc in 2D, the exterior of the interval "
                           "[center - radius, center + radius] in 1D), or a master surface of a "
                           "deformable body of the same mesh (body; node-to-node in 1D), or every other "
                           "body (bodies: general contact among the surfaces of 'Boundary ids', both "
                           "directions, a mutual pair of nodes making one contact); a node is "
                           "never paired with its own body's faces. Every used "
                           "pair must set it, with the entries its type needs: Point and Normal "
                           "(plane), Point and Radius (sphere), Point, Radius and in 3D Axis "
                           "(cylinder), Master boundary id (body).");
        declare_pair_entry("Slave boundary id", "0", dealii::Patterns::Anything(),
                           "Boundary ids of the slave surface, a comma-separated list or 'all' (every "
                           "boundary face); its nodes are the contact points. Every used pair but "
                           "Type = bodies must set it.");
        declare_pair_entry("Boundary ids", "all", dealii::Patterns::Anything(),
                           "Type = bodies only: the surfaces in general contact, a list of boundary ids "
                           "or 'all' (every boundary face of every body). Each node of them is tested "
                           "against the faces of the other bodies among them.");
        declare_pair_entry("Master boundary id", "1", dealii::Patterns::Anything(),
                           "Boundary ids of the master surface, a list or 'all' (Type = body only, "
                           "which must set it; no id may be a slave id too).");
        // Anything() rather than Selection(): a wrong value is reported by
        // formulation_from_string() as an InputError naming the pair and the parameter.
        declare_pair_entry("Formulation", "node-to-surface", dealii::Patterns::Anything(),
                           "Type = body only, 2D and 3D: node-to-surface (each slave node projected on "
                           "the master surface, point impulses) or integrated (dual mortar: weighted "
                           "gaps and coupling matrices integrated over the clipped overlap of slave and "
                           "master facets; passes the contact patch test, doc/contact.md).");
        declare_pair_entry("Friction coefficient", "0", Double(), "Coulomb friction coefficient mu >= 0.");
        declare_pair_entry("Restitution coefficient", "0", Double(), "Newton restitution coefficient e in [0, 1].");
        declare_pair_entry("Friction by materials", "", dealii::Patterns::Anything(),
                           "Friction coefficients by pair of materials, node-to-surface and obstacle "
                           "pairs: 'a-b: mu; c-d: mu' for Type = body and bodies (a slave node of "
                           "material a on a master facet of material b, either way round), 'a: mu; "
                           "...' for an obstacle (the slave's material). Combinations not listed take "
                           "'Friction coefficient'.");
        declare_pair_entry("Restitution by materials", "", dealii::Patterns::Anything(),
                           "Restitution coefficients by pair of materials, as 'Friction by materials'; "
                           "combinations not listed take 'Restitution coefficient'.");
        declare_pair_entry("Point", "0, 0, 0", List(Double(), 1, 3),
                           "Plane point, sphere center or cylinder axis point at t = 0 "
                           "(dim entries; surplus entries must be 0). In 1D the plane is a point wall "
                           "at Point.");
        declare_pair_entry("Normal", "0, 0, 1", List(Double(), 1, 3),
                           "Plane normal, pointing from the obstacle toward the slave body "
                           "(in 1D: +1 or -1).");
        declare_pair_entry("Radius", "1", Double(), "Sphere or cylinder radius (> 0).");
        declare_pair_entry("Axis", "0, 0, 1", List(Double(), 1, 3), "Cylinder axis direction (3D; ignored in 2D).");
        declare_pair_entry("Obstacle velocity", "0; 0; 0", dealii::Patterns::Anything(),
                           "Velocity of the rigid obstacle as a function of time t: one "
                           "muparser expression per component separated by ';' "
                           "(e.g. '0; -0.1*t'). The obstacle translates by its time integral.");
        declare_pair_entry("Tangent reference direction", "", List(Double(), 0, 3),
                           "Direction projected on the tangent plane to build t1 in 3D; "
                           "empty = automatic (coordinate axis least aligned with n).");
      }
    } // namespace

    void ContactParameters::declare_parameters(dealii::ParameterHandler &prm, const unsigned int n_pairs)
    {
      using dealii::Patterns::Double;
      using dealii::Patterns::Integer;
      prm.enter_subsection("Contact");
      {
        prm.declare_entry("Number of pairs", "0", Integer(0),
                          "How many of the subsections 'Pair 1', 'Pair 2', ... are used (any number; each "
                          "used pair is a subsection of 'Contact'). Type = bodies pairs every body with "
                          "every other in one pair.");
        prm.declare_entry("Gap prediction factor", "0.5", Double(0.),
                          "gamma >= 0 in the active-set rule: a candidate enters the step's contact "
                          "problem if g <= 0 (penetrated) or g + gamma h u_N <= 0 (predicted to close; "
                          "doc/contact.md, active set).");
        prm.declare_entry("Search distance", "0.1", Double(0.),
                          "Slave nodes whose distance to the obstacle or master surface is at most "
                          "this are tracked as contact candidates (columns of H). Choose it larger "
                          "than the largest motion per time step plus an element size.");
        prm.declare_entry("Slave face partition weight", "0", Double(),
                          "Extra weight of a cell per face it has on a slave boundary, in units of a "
                          "cell's weight, when the mesh (2D/3D) is partitioned over MPI ranks. A step's "
                          "contact work belongs to the ranks that own the slave nodes, and a partition "
                          "by cells alone may give one rank the whole contact surface (a box on a slab: "
                          "one rank holds the slab, the other the box). 0: cells only. Measured on such "
                          "a slab (doc/contact.md, \"Many contacts\"): 30 shares the contact surface and "
                          "saves 7 % per step, 10 and 100 cost 17-20 % (the cut shapes the linear solves), "
                          "hence no weight by default.");
        for (unsigned int i = 1; i <= std::max(n_pairs, default_declared_pairs); ++i)
          {
            prm.enter_subsection("Pair " + std::to_string(i));
            declare_pair_entries(prm);
            prm.leave_subsection();
          }
      }
      prm.leave_subsection();
    }

    void ContactParameters::parse_parameters(dealii::ParameterHandler &prm, const unsigned int dimension)
    {
      pairs.clear();
      const std::set<std::string> not_set = prm.get_entries_wrongly_not_set();
      prm.enter_subsection("Contact");
      {
        const unsigned int n_pairs = prm.get_integer("Number of pairs");
        gap_prediction_factor = prm.get_double("Gap prediction factor");
        search_distance = prm.get_double("Search distance");
        slave_face_partition_weight = prm.get_double("Slave face partition weight");
        for (unsigned int i = 1; i <= n_pairs; ++i)
          {
            PairParameters pair;
            pair.name = "Contact/Pair " + std::to_string(i);
            // Beyond the subsections the input names, none is declared: the pair is missing.
            if (!prm.subsection_path_exists({"Pair " + std::to_string(i)}))
              throw missing_pair(i, n_pairs);
            prm.enter_subsection("Pair " + std::to_string(i));
            pair.type = pair_type_from_string(prm.get("Type"), pair.name);
            check_pair_is_set(not_set, i, n_pairs, pair.type, dimension);
            if (pair.type == PairType::bodies)
              {
                check_entries_of_bodies(not_set, i);
                pair.slave_boundary = boundary_ids_from_string(prm.get("Boundary ids"), pair.name + "/Boundary ids");
                pair.master_boundary = pair.slave_boundary;
              }
            else
              {
                pair.slave_boundary =
                  boundary_ids_from_string(prm.get("Slave boundary id"), pair.name + "/Slave boundary id");
                pair.master_boundary =
                  boundary_ids_from_string(prm.get("Master boundary id"), pair.name + "/Master boundary id");
                if (not_set.count(set_status_key(i, "Boundary ids")) == 0)
                  throw InputError(pair.name + "/Boundary ids applies to Type = bodies only (the type is '" +
                                   to_string(pair.type) +
                                   "'; its surfaces are 'Slave boundary id' and, for body, "
                                   "'Master boundary id')");
              }
            pair.formulation = formulation_from_string(prm.get("Formulation"), pair.name + "/Formulation");
            pair.friction_coefficient = prm.get_double("Friction coefficient");
            pair.restitution_coefficient = prm.get_double("Restitution coefficient");
            pair.friction_by_materials =
              material_table_from_string(prm.get("Friction by materials"), !pair.has_master_surface(),
                                         pair.name + "/Friction by materials");
            pair.restitution_by_materials =
              material_table_from_string(prm.get("Restitution by materials"), !pair.has_master_surface(),
                                         pair.name + "/Restitution by materials");
            pair.point = parse_vector(prm.get("Point"), pair.name + "/Point");
            pair.normal = parse_vector(prm.get("Normal"), pair.name + "/Normal");
            pair.radius = prm.get_double("Radius");
            pair.axis = parse_vector(prm.get("Axis"), pair.name + "/Axis");
            pair.obstacle_velocity = prm.get("Obstacle velocity");
            pair.tangent_reference =
              parse_vector(prm.get("Tangent reference direction"), pair.name + "/Tangent reference direction");
            prm.leave_subsection();
            pairs.push_back(pair);
          }
      }
      prm.leave_subsection();
      validate();
    }

    void ContactParameters::validate() const
    {
      if (!(gap_prediction_factor >= 0.))
        throw InputError("Contact/Gap prediction factor must be >= 0");
      if (!(search_distance >= 0.))
        throw InputError("Contact/Search distance must be >= 0");
      if (!(slave_face_partition_weight >= 0. && slave_face_partition_weight <= 1e4))
        throw InputError("Contact/Slave face partition weight must be in [0, 1e4] (extra weight of a cell per "
                         "slave face, in units of a cell's); got " +
                         std::to_string(slave_face_partition_weight));
      for (const PairParameters &pair : pairs)
        {
          if (!(pair.friction_coefficient >= 0.))
            throw InputError(pair.name + ": friction coefficient " + std::to_string(pair.friction_coefficient) +
                             " is negative (need mu >= 0)");
          if (!(pair.restitution_coefficient >= 0. && pair.restitution_coefficient <= 1.))
            throw InputError(pair.name + ": restitution coefficient " + std::to_string(pair.restitution_coefficient) +
                             " is outside [0, 1]");
          for (const auto &[materials, mu] : pair.friction_by_materials)
            if (!(mu >= 0.))
              throw InputError(pair.name + "/Friction by materials: the coefficient " + std::to_string(mu) +
                               " of material " + std::to_string(materials.first) + " is negative (need mu >= 0)");
          for (const auto &[materials, e] : pair.restitution_by_materials)
            if (!(e >= 0. && e <= 1.))
              throw InputError(pair.name + "/Restitution by materials: the coefficient " + std::to_string(e) +
                               " of material " + std::to_string(materials.first) + " is outside [0, 1]");
          if (pair.formulation == Formulation::integrated &&
              !(pair.friction_by_materials.empty() && pair.restitution_by_materials.empty()))
            throw InputError(pair.name +
                             ": 'Friction by materials' and 'Restitution by materials' apply to "
                             "node-to-surface pairs; Formulation = integrated takes the pair's coefficients");
          switch (pair.type)
            {
            case PairType::plane:
              if (!(norm(pair.normal) > 0.))
                throw InputError(pair.name + ": degenerate plane obstacle, the normal is zero");
              break;
            case PairType::sphere:
              if (!(pair.radius > 0.))
                throw InputError(pair.name + ": degenerate sphere obstacle, radius " + std::to_string(pair.radius) +
                                 " is not positive");
              break;
            case PairType::cylinder:
              if (!(pair.radius > 0.))
                throw InputError(pair.name + ": degenerate cylinder obstacle, radius " + std::to_string(pair.radius) +
                                 " is not positive");
              if (!(norm(pair.axis) > 0.))
                throw InputError(pair.name + ": degenerate cylinder obstacle, the axis is zero");
              break;
            case PairType::body:
              {
                const bool shared =
                  pair.slave_boundary.all || pair.master_boundary.all ||
                  std::any_of(pair.slave_boundary.ids.begin(), pair.slave_boundary.ids.end(),
                              [&](const unsigned int id) { return pair.master_boundary.contains(id); });
                if (shared)
                  throw InputError(pair.name + ": the master boundary ids (" + pair.master_boundary.to_string() +
                                   ") and the slave boundary ids (" + pair.slave_boundary.to_string() +
                                   ") share an id (they must be different surfaces)");
                break;
              }
            case PairType::bodies:
              break;
            }
          if (pair.formulation == Formulation::integrated && pair.type != PairType::body)
            throw InputError(pair.name + "/Formulation: 'integrated' applies to Type = body only (the type is '" +
                             to_string(pair.type) + "')");
          if (!pair.tangent_reference.empty() && !(norm(pair.tangent_reference) > 0.))
            throw InputError(pair.name + ": tangent reference direction is zero");
        }
    }
  } // namespace Contact
} // namespace percussion
