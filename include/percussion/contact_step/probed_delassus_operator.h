#ifndef PERCUSSION_CONTACT_STEP_PROBED_DELASSUS_OPERATOR_H
#define PERCUSSION_CONTACT_STEP_PROBED_DELASSUS_OPERATOR_H

#include <percussion/contact_step/delassus_operator.h>
#include <percussion/contact_step/probed_delassus_solver.h>

#include <mpi.h>

#include <array>
#include <vector>

namespace percussion::ContactStep
{
  /**
   * W = Hᵀ𝒯H of many contacts: the probed sparse approximation W_s = HᵀGH corrected by exact
   * products W p in ProbedDelassusSolver's outer iteration (doc/contact.md, "Many contacts"). The
   * problem stays distributed: a rank holds its own contacts and the ghosts its rows of W_s couple
   * to. The step's problem keeps its warm start (the accepted iterate with its exact product, Hp
   * and 𝒯Hp) for the next step; a projection starts from a copy of it and leaves it as it was.
   * 2D and 3D (the law's dimension is the body's).
   */
  class ProbedDelassusOperator : public DelassusOperator
  {
  public:
    /// @p max_iterations: the most exact products per solve ('Probed operator iterations').
    ProbedDelassusOperator(unsigned int dim, unsigned int max_iterations, MPI_Comm communicator);

    /// A new probed approximation of radius @p radius (in node spacings @p node_spacing) on the
    /// reference positions of the locally owned DoFs (the first is @p first_owned_dof).
    void set_dof_positions(dealii::types::global_dof_index first_owned_dof,
                           std::vector<std::array<double, 3>> positions, double radius, double node_spacing)
    {
      solver.set_dof_positions(first_owned_dof, std::move(positions), radius, node_spacing);
    }
    /// The probed approximation (ProbedDelassus::n_probings(): whether G has been probed).
    const ProbedDelassus &approximation() const { return solver.approximation(); }

    bool is_distributed() const override { return true; }
    ContactSolvers::SolverResult solve(const OperatorContext &context,
                                       const std::vector<ContactLaws::ActiveContact> &held, double factor,
                                       ContactSolution &solution, const ContactSolvers::SolverOptions &options,
                                       OperatorSolveCounts &counts) override;
    /// Hp and 𝒯Hp of the accepted iterate (kept by the solve: no further solve).
    void impulse_vectors(const OperatorContext &context, const std::vector<ContactLaws::ActiveContact> &held,
                         const std::vector<double> &impulse,
                         const dealii::PETScWrappers::MPI::Vector *&generalized_impulse,
                         const dealii::PETScWrappers::MPI::Vector *&response) override;
    /// The exact product W p of the accepted iterate.
    void add_product(const std::vector<ContactLaws::ActiveContact> &held, unsigned int a, unsigned int first,
                     unsigned int i, const std::vector<double> &impulse, double &u) const override;
    /// The frictionless problem (μ = 0, b = (g, 0, 0), factor 1) solved by the same distributed
    /// outer iteration, from a copy of the step's warm start: no dense column, no rank holding all
    /// contacts.
    const dealii::PETScWrappers::MPI::Vector &project(const OperatorContext &context,
                                                      std::vector<ContactLaws::ActiveContact> &local,
                                                      const ContactSolvers::SolverOptions &options,
                                                      ContactSolvers::SolverResult &solver_result,
                                                      unsigned int &n_contacts) override;
    void forget_warm_start() override { step_start.valid = false; }

  private:
    const unsigned int dim;
    MPI_Comm communicator;
    ProbedDelassusSolver solver;
    /// The step's problem's last accepted iterate: the next step's warm start.
    ProbedWarmStart step_start;
    /// The last projection's warm start and correction 𝒯Hp̃.
    ProbedWarmStart projection_start;
    dealii::PETScWrappers::MPI::Vector correction;
  };
} // namespace percussion::ContactStep

#endif
