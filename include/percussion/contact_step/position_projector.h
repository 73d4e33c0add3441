#ifndef PERCUSSION_CONTACT_STEP_POSITION_PROJECTOR_H
#define PERCUSSION_CONTACT_STEP_POSITION_PROJECTOR_H

#include <deal.II/lac/petsc_sparse_matrix.h>
#include <deal.II/lac/petsc_vector.h>

#include <percussion/contact_laws/active_contact.h>
#include <percussion/contact_solvers/solver_options.h>
#include <percussion/contact_step/contact_dynamics_parameters.h>
#include <percussion/contact_step/delassus_operator.h>
#include <percussion/contact_step/dense_delassus_operator.h>
#include <percussion/contact_step/owned_contact_point.h>
#include <percussion/contact_step/probed_delassus_operator.h>
#include <percussion/contact_step/scheme_interface.h>

#include <mpi.h>

#include <limits>
#include <memory>
#include <vector>

namespace percussion::ContactStep
{
  /// What the end-of-step gap check and position projection did.
  struct PositionProjectionResult
  {
    /// The smallest end-of-step gap g_{k+1} ≈ g_k + [Hᵀ(q_{k+1} − q_k)]_N + h w_N over the
    /// candidates, before and after the projection (+∞ without candidates).
    double min_gap_before = std::numeric_limits<double>::infinity();
    double min_gap = std::numeric_limits<double>::infinity();
    unsigned int n_contacts = 0; ///< contacts in the projection problem (0: no projection)
    double energy_change = 0;    ///< E after − E before the projection (strain energy only)
    /// Whether the projection's metric was the step's impulse response 𝒯 (else the quasi-static
    /// metric); with 'Projection metric' = adaptive, 𝒯 where an impact left the penetration.
    bool impulse_metric = false;
    /// Whether the adaptive rule's impulse response would have added energy and the quasi-static
    /// metric, which adds less, corrected the positions instead.
    bool metric_replaced = false;
    /// The fraction of the projection's correction that was applied (the smallest of its passes):
    /// below 1 where the whole correction would have added more energy than allowed.
    double scale = 1;
    ContactSolvers::SolverResult solver;
  };

  /// What a position projection uses of the contact step that came before it (FrictionalContactStep).
  struct ProjectionContext
  {
    /// The step's dense operator: the projection's operator in the impulse response's metric.
    DenseDelassusOperator &dense;
    /// The step's probed operator (2D/3D, FrictionalContactStep::set_dof_positions()), or nullptr.
    ProbedDelassusOperator *probed;
    /// Whether the step's problem was solved with the probed operator.
    bool step_was_distributed;
    /// H changed at this step and the one before (ContactHistory::operator_moves()).
    bool operator_moves;
    /// A vector with H's column partition.
    const dealii::PETScWrappers::MPI::Vector &columns_like;
    /// The contact solver's options.
    const ContactSolvers::SolverOptions &options;
    /// The keys of this rank's contacts in lasting contact at the step, sorted
    /// (ContactHistory::lasting_keys()).
    const std::vector<unsigned long long> &lasting_keys;
  };

  /**
   * After the step: the end-of-step gaps and, where a contact penetrates beyond a tolerance, the
   * projection of the displacement back onto g ≥ 0 (Acary 2013, direct projection) through a
   * DelassusOperator (DelassusOperator::project()): a frictionless problem
   * 0 ≤ g_{k+1} + W p̃ ⊥ p̃ ≥ 0, q_{k+1} += 𝒫⁻¹H p̃, in the metric 𝒫 of the step's impulse response
   * or the quasi-static one (doc/contact.md, "Position projection"), in a few passes, none adding
   * more energy than allowed.
   */
  class PositionProjector
  {
  public:
    PositionProjector(const ContactDynamicsParameters &parameters, unsigned int dim, MPI_Comm communicator);

    /**
     * After the scheme's step: the end-of-step gaps to first order,
     * g_{k+1} = g_k + [Hᵀ Δq]_N + h w_N with @p displacement_increment Δq = q_{k+1} − q_k (exact
     * for plane obstacles), and, if @p project and some g_{k+1} < −@p tolerance, the direct
     * projection of q_{k+1} onto g ≥ 0: the contacts with g_{k+1} < @p tolerance enter the
     * frictionless problem 0 ≤ g_{k+1} + W p̃ ⊥ p̃ ≥ 0 (W = Hᵀ𝒯H of the step), and
     * SchemeInterface::correct_displacement(𝒯 H p̃), the velocity giving up along the correction
     * what the correction would add beyond its loads' work. No pass adds more than
     * @p allowed_energy beyond that (energy_safe_correction()): a correction that would is taken
     * in the quasi-static metric where that adds less, and scaled back (PositionProjectionResult::
     * scale). Collective.
     */
    PositionProjectionResult project(SchemeInterface &scheme, const dealii::PETScWrappers::MPI::SparseMatrix &H,
                                     const dealii::PETScWrappers::MPI::Vector &w,
                                     const std::vector<OwnedContactPoint> &points,
                                     const dealii::PETScWrappers::MPI::Vector &displacement_increment, bool project,
                                     double tolerance, double allowed_energy, const ProjectionContext &step);

  private:
    /// g_k + [Hᵀ Δq]_N + h w_N of each of @p points into end_gap, and the smallest of all ranks.
    /// Collective.
    double end_of_step_gaps(const dealii::PETScWrappers::MPI::SparseMatrix &H,
                            const dealii::PETScWrappers::MPI::Vector &w, const std::vector<OwnedContactPoint> &points,
                            const dealii::PETScWrappers::MPI::Vector &displacement_increment, double time_step);
    /**
     * The operator of a projection pass over this rank's contacts @p local: the probed one where
     * the step's problem took it (2D/3D) and either the metric is the impulse response or the
     * contacts need more than 'Delassus column limit' columns; else the dense operator of the step
     * (@p impulse_metric) or of the quasi-static metric (made at each projection's first use of
     * it: see project()). Collective.
     */
    DelassusOperator &projection_operator(const std::vector<ContactLaws::ActiveContact> &local, bool impulse_metric,
                                          const ProjectionContext &step);
    /// One projection pass's δq = 𝒫⁻¹H p̃ for this rank's contacts @p local in the step's impulse
    /// response (@p impulse_metric) or the quasi-static metric; the solver's result in @p result.
    /// Collective.
    const dealii::PETScWrappers::MPI::Vector &
    projected_response(SchemeInterface &scheme, const dealii::PETScWrappers::MPI::SparseMatrix &H,
                       const dealii::PETScWrappers::MPI::Vector &w, std::vector<ContactLaws::ActiveContact> &local,
                       bool impulse_metric, const ProjectionContext &step, PositionProjectionResult &result);
    /**
     * The correction of one projection pass that adds at most @p allowed_energy (after the
     * velocity's share, SchemeInterface::position_correction_cost()): projected_response() in the
     * pass's metric; where that would add more and the metric is the adaptive rule's impulse
     * response, the quasi-static metric's if it can be taken further; the chosen one scaled by
     * PositionCorrectionCost::largest_scale(). Collective.
     */
    const dealii::PETScWrappers::MPI::Vector &
    energy_safe_correction(SchemeInterface &scheme, const dealii::PETScWrappers::MPI::SparseMatrix &H,
                           const dealii::PETScWrappers::MPI::Vector &w, std::vector<ContactLaws::ActiveContact> &local,
                           bool impulse_metric, double allowed_energy, const ProjectionContext &step,
                           PositionProjectionResult &result);
    /// Whether the adaptive metric takes the impulse response for the end-of-step gaps end_gap of
    /// @p points: a contact not in lasting contact (@p lasting_keys) penetrates beyond
    /// @p tolerance while one in lasting contact is closed (doc/contact.md, "Position projection").
    /// Collective.
    bool impact_beside_lasting_contact(const std::vector<OwnedContactPoint> &points,
                                       const std::vector<unsigned long long> &lasting_keys, double tolerance) const;

    const ContactDynamicsParameters parameters;
    const unsigned int dim;
    MPI_Comm communicator;
    /// The projection's quasi-static metric where it is not the impulse response (dense columns).
    std::unique_ptr<DenseDelassusOperator> metric_operator;
    /// Hᵀ of a displacement change (column partition of H), kept from step to step.
    dealii::PETScWrappers::MPI::Vector gap_increment;
    /// A projection pass's correction scaled back to what the energy bound allows.
    dealii::PETScWrappers::MPI::Vector scaled_correction;
    /// Buffers kept from step to step: the candidates' normal columns of H, their gap increments,
    /// normal obstacle velocities and end-of-step gaps, and a pass's contacts.
    std::vector<dealii::types::global_dof_index> normal_rows;
    std::vector<double> increments, w_normal, end_gap;
    std::vector<ContactLaws::ActiveContact> local;
  };
} // namespace percussion::ContactStep

#endif
