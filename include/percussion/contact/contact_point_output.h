#ifndef PERCUSSION_CONTACT_CONTACT_POINT_OUTPUT_H
#define PERCUSSION_CONTACT_CONTACT_POINT_OUTPUT_H

#include <percussion/contact/contact_geometry.h>
#include <percussion/contact_solvers/contact_state.h>

#include <string>
#include <vector>

namespace percussion
{
  namespace Contact
  {

    /**
     * Per-point fields computed by the contact solver, for the owned points of a ContactGeometry
     * in the order of owned_points(). Each array may be left empty on all ranks (then it is not
     * written); if it is given on some rank it must have the right size on every rank (a rank
     * without contact points may leave it empty).
     */
    struct ContactPointFields
    {
      /** One status per point. */
      std::vector<ContactSolvers::ContactState> status;
      /** Reaction or impulse in the local frame (n, t1, t2): dim entries per point. */
      std::vector<double> reaction;
      /** Tangential (slip) velocity in the local frame: dim entries per point (first = normal). */
      std::vector<double> slip_velocity;
      /**
       * Energy dissipated at each contact since the start of the simulation, one value per point:
       * −Σ_k u_{α,k+θ}ᵀ p_{α,k+1} over the steps (the contact work of the discrete energy balance,
       * doc/theory.md: paper (56)–(62), talk (63), restricted to contact α); ≥ 0 when the contact
       * dissipates (e.g. the Frémond scheme, Proposition 1). Filled by the caller.
       */
      std::vector<double> dissipated_energy;
      /** Whether each point entered the last step's contact problem (the "active" array). */
      std::vector<bool> in_problem;
      /**
       * The step size h of the step whose impulses are in `reaction` (the same on every rank). If
       * it is > 0 and `reaction` is given, the field pressure = contact_pressure() is written.
       */
      double time_step = 0.;
    };

    /**
     * Contact pressure per owned point: p_α = r_{N,α} / (h · area_α) with the normal impulse r_N of
     * a step of size @p h (@p impulse: dim entries per point, (n, t1, t2)) and ContactPoint::area
     * (the weighted area D_jj with Formulation = integrated, the tributary area ∫ N_j dΓ
     * otherwise). Points without an area (1D) get 0.
     */
    template <int dim>
    std::vector<double> contact_pressure(const ContactGeometry<dim> &geometry, const std::vector<double> &impulse,
                                         double h);

    /**
     * Write the contact points as a VTU point cloud (one VTK_VERTEX per point) with the fields
     * gap, normal, tangent1 (2D and 3D), tangent2 (3D), pair, friction, restitution, and,
     * if given, active (in the step's contact problem), status, reaction (local), reaction_vector (global Σ r_k
     * frame_k), slip_velocity, dissipated_energy, pressure (contact_pressure(), if the reaction and the time step are
     * given). Vectors are padded to 3 components (in 1D: (n, 0, 0)).
     *
     * Files: @p directory/@p basename-NNNNN.RRRR.vtu per rank and, if the communicator has more
     * than one rank, @p basename-NNNNN.pvtu written by rank 0. With one rank only
     * @p basename-NNNNN.vtu. Returns the name (without directory) of the file to reference from a
     * .pvd collection (the .pvtu, or the single .vtu). With @p single_file on several ranks, rank
     * 0 gathers every rank's points and writes @p basename-NNNNN.vtu alone. Collective. Throws
     * InputError if an array has the wrong size or a file cannot be written.
     */
    template <int dim>
    std::string write_contact_points_vtu(const ContactGeometry<dim> &geometry, const ContactPointFields &fields,
                                         const std::string &directory, const std::string &basename, unsigned int step,
                                         bool single_file = false);
  } // namespace Contact
} // namespace percussion

#endif
