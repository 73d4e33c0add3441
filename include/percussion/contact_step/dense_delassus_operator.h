#ifndef PERCUSSION_CONTACT_STEP_DENSE_DELASSUS_OPERATOR_H
#define PERCUSSION_CONTACT_STEP_DENSE_DELASSUS_OPERATOR_H

#include <percussion/contact_step/delassus_columns.h>
#include <percussion/contact_step/delassus_operator.h>

#include <mpi.h>

#include <vector>

namespace percussion::ContactStep
{
  /**
   * W = Hᵀ𝒯H from the columns 𝒯H of the problem's contacts (DelassusColumns, cached while H and
   * 𝒯 do not change), dense: every rank holds all contacts of the problem and solves it
   * redundantly and identically (ContactSolvers::solve_scaled()). The operator of few contacts,
   * and of the position projection's own metric (DelassusColumns::Response::projection).
   * In 1D the problem is posed as a 2D one with μ = 0 and a decoupled tangential row
   * (W_TT = W_NN, q_T = 0), which forces r_T = 0.
   */
  class DenseDelassusOperator : public DelassusOperator
  {
  public:
    /// @p column_limit: 'Delassus column limit'; @p response: which 𝒯 the columns are of;
    /// @p body_compliance: 'Body compliance' (DelassusColumns).
    DenseDelassusOperator(unsigned int dim, unsigned int column_limit, MPI_Comm communicator,
                          DelassusColumns::Response response = DelassusColumns::Response::impulse,
                          bool body_compliance = true);

    bool is_distributed() const override { return false; }
    ContactSolvers::SolverResult solve(const OperatorContext &context,
                                       const std::vector<ContactLaws::ActiveContact> &held, double factor,
                                       ContactSolution &solution, const ContactSolvers::SolverOptions &options,
                                       OperatorSolveCounts &counts) override;
    void impulse_vectors(const OperatorContext &context, const std::vector<ContactLaws::ActiveContact> &held,
                         const std::vector<double> &impulse,
                         const dealii::PETScWrappers::MPI::Vector *&generalized_impulse,
                         const dealii::PETScWrappers::MPI::Vector *&response) override;
    void add_product(const std::vector<ContactLaws::ActiveContact> &held, unsigned int a, unsigned int first,
                     unsigned int i, const std::vector<double> &impulse, double &u) const override;
    /// The contacts of all ranks gathered, W_NN from the columns, posed as a 2D frictionless
    /// problem with a decoupled tangential row (as 1D contact is) and solved on every rank.
    const dealii::PETScWrappers::MPI::Vector &project(const OperatorContext &context,
                                                      std::vector<ContactLaws::ActiveContact> &local,
                                                      const ContactSolvers::SolverOptions &options,
                                                      ContactSolvers::SolverResult &solver,
                                                      unsigned int &n_contacts) override;

    /// The cached columns (DelassusColumns::columns_to_compute() decides the operator's choice).
    const DelassusColumns &columns() const { return delassus; }
    /// A resumed run's support batches (DelassusColumns::restore_support_batches()).
    void restore_support_batches(DelassusColumns::SupportBatches batches)
    {
      delassus.restore_support_batches(std::move(batches));
    }

  private:
    /// Whether the problem of @p problem_points (@p components unknowns each) is posed with a
    /// sparse W: the body-compliance form's W_c with at most a quarter of its entries nonzero.
    bool poses_sparse(const std::vector<unsigned long long> &problem_points, unsigned int components) const;
    /// For each cached column, its unknown dim · (index in @p problem_points) + component, or −1.
    std::vector<int> unknowns_of_columns(const std::vector<unsigned long long> &problem_points) const;
    /// The problem's W (times @p factor) as a CSR matrix from W_c's sparse rows: @p components
    /// unknowns of each point from W_c, the rest up to @p ld the decoupled diagonal (1D, projection).
    ContactSolvers::CsrMatrix sparse_problem_matrix(const std::vector<unsigned long long> &problem_points,
                                                    const std::vector<int> &unknown_of_column, unsigned int components,
                                                    unsigned int ld, double factor) const;

    const unsigned int dim;
    MPI_Comm communicator;
    DelassusColumns delassus;
    /// The held contacts' points of the last solve() (sorted).
    std::vector<unsigned long long> points;
    /// Sparse W_c: each cached column's unknown among the last solve()'s (unknowns_of_columns()).
    std::vector<int> held_unknown_of_column;
    /// Hp and 𝒯Hp of the last impulse_vectors() or project() (DoF partition).
    dealii::PETScWrappers::MPI::Vector generalized_impulse, correction;
  };
} // namespace percussion::ContactStep

#endif
