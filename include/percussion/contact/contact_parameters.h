#ifndef PERCUSSION_CONTACT_CONTACT_PARAMETERS_H
#define PERCUSSION_CONTACT_CONTACT_PARAMETERS_H

#include <deal.II/base/parameter_handler.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace percussion
{
  namespace Contact
  {
    /**
     * What the slave surface of a pair touches.
     * - plane:    a rigid half-space {x : (x − p)·n ≤ 0}; the slave stays on the side n points to.
     * - sphere:   the exterior of a rigid ball (center, radius); in 2D a disc.
     * - cylinder: the exterior of a rigid infinite cylinder (axis point, axis direction, radius);
     *             in 2D it is a disc like the sphere (the axis is ignored).
     * - body:     another deformable surface of the same mesh (master boundary id), node-to-segment
     *             (2D) / node-to-face (3D) with closest-point projection in the current configuration.
     * - bodies:   general contact: every node of the listed surfaces against the faces of every
     *             other body among them (both directions; a mutual pair of nodes makes one contact,
     *             ContactGeometry::yields_to_mutual_node()), node-to-node in 1D.
     * Every rigid obstacle may translate with a prescribed velocity V(t) (paper §2: u_N = n·(v − V)).
     */
    enum class PairType
    {
      plane,
      sphere,
      cylinder,
      body,
      bodies
    };

    /**
     * How the constraint of a body pair is discretised.
     * - node_to_surface: each slave node is projected on the master surface (closest point) and
     *   its impulse is a point force (collocation).
     * - integrated: dual mortar (Wohlmuth 2000; Popp et al. 2010): weighted gaps g̃_j = ∫ Ψ_j g dΓ
     *   and the coupling matrices D (diagonal) and M integrated over the clipped overlap of the
     *   projected slave and master facets; passes the contact patch test (Taylor & Papadopoulos
     *   1991). doc/contact.md, "Integrated (mortar) formulation".
     */
    enum class Formulation
    {
      node_to_surface,
      integrated
    };

    /** A surface given by boundary ids: a list of them, or every boundary face of the mesh ('all'). */
    struct BoundaryIds
    {
      bool all = false;
      std::vector<unsigned int> ids;
      bool contains(const unsigned int id) const { return all || std::find(ids.begin(), ids.end(), id) != ids.end(); }
      /// "all", or the ids separated by ", ".
      std::string to_string() const;
      /// "boundary id 4", "boundary ids 4, 5" or "boundary ids all", for messages.
      std::string describe() const
      {
        return (!all && ids.size() == 1 ? "boundary id " : "boundary ids ") + to_string();
      }
    };
    /**
     * "all" or a comma-separated list of boundary ids (non-negative integers) → BoundaryIds;
     * throws InputError naming @p parameter otherwise.
     */
    BoundaryIds boundary_ids_from_string(const std::string &text, const std::string &parameter);

    /** Parameters of one contact pair (subsection `Contact/Pair i`). */
    struct PairParameters
    {
      /** Name used in error messages, e.g. "Contact/Pair 2". */
      std::string name;
      PairType type = PairType::plane;
      /** Boundary ids of the slave surface: its nodes are the contact points. */
      BoundaryIds slave_boundary{false, {0}};
      /** Boundary ids of the master surface (type body; type bodies: the same as the slave's). */
      BoundaryIds master_boundary{false, {1}};

      /** Whether the pair's slave nodes touch a deformable master surface (types body and bodies). */
      bool has_master_surface() const { return type == PairType::body || type == PairType::bodies; }

      /** The table's value for materials @p slave and @p master, else @p otherwise. */
      static double coefficient(const std::map<std::pair<unsigned int, unsigned int>, double> &table,
                                const double otherwise, const unsigned int slave, const unsigned int master)
      {
        const auto key = master == no_material ? std::make_pair(slave, master)
                                               : std::make_pair(std::min(slave, master), std::max(slave, master));
        const auto found = table.find(key);
        return found == table.end() ? otherwise : found->second;
      }

      /** Discretisation of a body pair's constraint (type body only; integrated needs dim ≥ 2). */
      Formulation formulation = Formulation::node_to_surface;
      /** Coulomb friction coefficient μ ≥ 0 (cone K_α, paper §2). */
      double friction_coefficient = 0.;
      /** Newton restitution coefficient e ∈ [0, 1] (u_N⁺ = −e u_N⁻). */
      double restitution_coefficient = 0.;
      /**
       * 'Friction by materials' and 'Restitution by materials': μ and e of the contacts between a
       * slave node of material a and a master facet of material b, keyed (min(a, b), max(a, b));
       * obstacle pairs key the slave's material alone, (a, no_material). The pair's coefficients
       * hold for the combinations not listed.
       */
      std::map<std::pair<unsigned int, unsigned int>, double> friction_by_materials, restitution_by_materials;
      /// The master side of an obstacle pair in the tables' keys.
      static constexpr unsigned int no_material = static_cast<unsigned int>(-1);
      /// μ of a contact between materials @p slave and @p master (no_material: an obstacle).
      double friction(unsigned int slave, unsigned int master) const
      {
        return coefficient(friction_by_materials, friction_coefficient, slave, master);
      }
      /// e of a contact between materials @p slave and @p master (no_material: an obstacle).
      double restitution(unsigned int slave, unsigned int master) const
      {
        return coefficient(restitution_by_materials, restitution_coefficient, slave, master);
      }
      /// Every restitution coefficient the pair can give (its own and its table's).
      std::vector<double> restitution_values() const
      {
        std::vector<double> values{restitution_coefficient};
        for (const auto &entry : restitution_by_materials)
          values.push_back(entry.second);
        return values;
      }
      /** Plane point / sphere center / cylinder axis point at t = 0 (2 or 3 entries). */
      std::vector<double> point = {0., 0., 0.};
      /** Plane normal pointing toward the slave side (normalised internally). */
      std::vector<double> normal = {0., 0., 1.};
      /** Sphere / cylinder radius. */
      double radius = 1.;
      /** Cylinder axis direction (normalised internally). */
      std::vector<double> axis = {0., 0., 1.};
      /** Obstacle velocity V(t): one muparser expression of t per component, separated by ';'. */
      std::string obstacle_velocity = "0; 0; 0";
      /**
       * Reference direction projected on the tangent plane to build t1 (3D); empty means
       * automatic (the coordinate axis least aligned with n).
       */
      std::vector<double> tangent_reference;
    };

    /**
     * All parameters of the contact geometry layer, declared in and parsed from
     * `subsection Contact` of a dealii::ParameterHandler.
     *
     * ParameterHandler declares entries before it reads a file: declare_parameters() declares as
     * many subsections `Pair 1` … `Pair n` as the input names (pairs_named_in(), at least
     * default_declared_pairs); `Number of pairs` says how many are used, without limit. Their
     * entries are declared "to be set" so that parse_parameters() knows which ones the input set.
     *
     * Errors in values (μ < 0, e ∉ [0,1], zero normal, non-positive radius, zero axis, wrong
     * number of components) throw percussion::InputError naming the pair. Checks that need the
     * mesh (boundary ids) are done by ContactGeometry.
     */
    struct ContactParameters
    {
      /** The subsections `Pair i` declared when the input names fewer (and listed by --print-parameters). */
      static constexpr unsigned int default_declared_pairs = 8;

      std::vector<PairParameters> pairs;
      /** γ in the active-set rule g ≤ 0 or g + γ h u_N ≤ 0 (paper eq. (55) without its approach
       *  condition: doc/contact.md, "Lasting contact"). */
      double gap_prediction_factor = 0.5;
      /** Slave nodes farther than this from their obstacle / master surface are not tracked. */
      double search_distance = 0.1;
      /** Extra weight of a cell per face on a slave boundary, in units of a cell's, in the partition
       *  of a 2D/3D mesh over MPI ranks: the contact work of a step belongs to the ranks owning the
       *  slave nodes (doc/contact.md, "Many contacts"), so that a partition by cells alone can give
       *  one rank the whole contact surface. 0: cells only. */
      double slave_face_partition_weight = 0.;

      /** Declares `subsection Contact` with the subsections `Pair 1` … `Pair max(n_pairs, 8)`. */
      static void declare_parameters(dealii::ParameterHandler &prm, unsigned int n_pairs = default_declared_pairs);
      /**
       * The largest i of the names `Pair i` in @p text (a parameter file, or `--set` paths): the
       * subsections declare_parameters() must declare for it. 0 if there is none.
       */
      static unsigned int pairs_named_in(const std::string &text);
      /**
       * Reads the first 'Number of pairs' pairs for a run in @p dimension (1, 2, 3) and validate()s
       * them. @throws InputError naming the pair when the input (the parameter file, or an
       * override applied with ParameterHandler::set()) leaves one of them at the defaults: a used
       * pair must set 'Type' and 'Slave boundary id', and what its type needs ('Point' and
       * 'Normal' for a plane, 'Point' and 'Radius' for a sphere, also 'Axis' for a cylinder in 3D,
       * 'Master boundary id' for a body pair).
       */
      void parse_parameters(dealii::ParameterHandler &prm, unsigned int dimension);

      /** Check the values that do not need the mesh; throws InputError. */
      void validate() const;
    };

    /** "plane" | "sphere" | "cylinder" | "body" → PairType (throws InputError otherwise). */
    PairType pair_type_from_string(const std::string &name, const std::string &context);
    std::string to_string(PairType type);
    /** "node-to-surface" | "integrated" → Formulation (throws InputError otherwise). */
    Formulation formulation_from_string(const std::string &name, const std::string &context);
    std::string to_string(Formulation formulation);
  } // namespace Contact
} // namespace percussion

#endif
