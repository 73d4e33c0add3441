// Requirement (issue 10, distributed inner solve): distributed_sweeps() solves a frictional contact
// problem whose contacts are split among the ranks, each rank holding only the rows of W of its own
// contacts, and
//  - on one rank takes exactly the iterates of NonsmoothGaussSeidel (same impulses, same sweeps);
//  - on every rank count reaches the tolerance in the FCLIB measure, checked independently with the
//    whole W (compute_error()), with the same impulses on every rank to the last bit, and the
//    impulses of the whole-problem NSGS to 1e-8 (W symmetric positive definite, μ = 0.3: one
//    solution);
//  - returns u = W r + q on the rank's own contacts;
//  - exchanges after a sweep only the impulses that a rank's rows couple to (ImpulseExchange).
#define BOOST_TEST_MODULE time_integration_distributed_sweeps
#include "../../mpi_test_fixture.h"

#include <percussion/contact_solvers/block_delassus.h>
#include <percussion/contact_solvers/error_measure.h>
#include <percussion/contact_solvers/nonsmooth_gauss_seidel.h>
#include <percussion/time_integration/distributed_sweeps.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <vector>

using namespace percussion;

namespace
{
  /// m contacts in 3D on a line, each coupled to those within 3 places: W diagonally dominant
  /// (mass-like), q with pressing and separating contacts, sliding and sticking ones.
  ContactSolvers::LocalProblem make_problem(const int m)
  {
    ContactSolvers::LocalProblem p;
    p.dimension = 3;
    p.number_of_contacts = m;
    p.storage = ContactSolvers::MatrixStorage::sparse;
    std::vector<int> rows, cols;
    std::vector<double> values;
    unsigned long long state = 12345;
    const auto uniform = [&state]() {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      return static_cast<double>(state >> 11) / 9007199254740992.0;
    };
    for (int a = 0; a < m; ++a)
      for (int b = std::max(0, a - 3); b <= std::min(m - 1, a + 3); ++b)
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j)
            {
              // Symmetric: the value depends on the unordered pair of unknowns.
              const int s = std::min(3 * a + i, 3 * b + j), t = std::max(3 * a + i, 3 * b + j);
              double w = 0.02 * std::cos(0.7 * s + 1.3 * t) / (1 + std::abs(a - b));
              if (s == t)
                w = 1.0 + 0.1 * std::sin(s);
              rows.push_back(3 * a + i);
              cols.push_back(3 * b + j);
              values.push_back(w);
            }
    p.W_sparse = ContactSolvers::CsrMatrix::from_triplets(3 * m, 3 * m, rows, cols, values, "test W");
    for (int a = 0; a < m; ++a)
      {
        p.q.push_back(a % 5 == 4 ? 0.3 : -1.0 - uniform());
        p.q.push_back(0.8 * (uniform() - 0.5));
        p.q.push_back(0.8 * (uniform() - 0.5));
        p.mu.push_back(0.3);
      }
    return p;
  }

  /// The rows of @p p of the contacts [first, last) only.
  ContactSolvers::LocalProblem own_rows(const ContactSolvers::LocalProblem &p, const int first, const int last)
  {
    ContactSolvers::LocalProblem own = p;
    std::vector<int> rows, cols;
    std::vector<double> values;
    for (int i = 3 * first; i < 3 * last; ++i)
      for (int k = p.W_sparse.row_start[i]; k < p.W_sparse.row_start[i + 1]; ++k)
        {
          rows.push_back(i);
          cols.push_back(p.W_sparse.column_index[k]);
          values.push_back(p.W_sparse.values[k]);
        }
    own.W_sparse = ContactSolvers::CsrMatrix::from_triplets(3 * p.number_of_contacts, 3 * p.number_of_contacts, rows,
                                                            cols, values, "own rows");
    return own;
  }
} // namespace

BOOST_AUTO_TEST_CASE(split_problem_is_solved_with_own_rows)
{
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int rank = dealii::Utilities::MPI::this_mpi_process(comm);
  const int size = dealii::Utilities::MPI::n_mpi_processes(comm);
  const int m = 60;
  const double tolerance = 1e-12;
  const ContactSolvers::LocalProblem whole = make_problem(m);

  // The whole problem by NSGS (every rank the same).
  const ContactSolvers::BlockDelassus whole_blocks(whole);
  std::vector<double> r_whole(3 * m, 0.0), u_whole(3 * m, 0.0);
  const ContactSolvers::SolverResult reference = ContactSolvers::NonsmoothGaussSeidel(whole, whole_blocks)
                                                   .run(r_whole, u_whole, tolerance, 500,
                                                        std::chrono::steady_clock::time_point::max());
  BOOST_REQUIRE(reference.status == ContactSolvers::SolverStatus::converged);

  // Split: contiguous ranges in rank order, each rank with its own rows of W only.
  const int first = m * rank / size, last = m * (rank + 1) / size;
  const ContactSolvers::LocalProblem own = own_rows(whole, first, last);
  const ContactSolvers::BlockDelassus own_blocks(own);
  std::vector<double> r(3 * m, 0.0), u;
  const ContactSolvers::SolverResult result =
    TimeIntegration::distributed_sweeps(own, own_blocks, TimeIntegration::ImpulseExchange(own_blocks, first, last, comm),
                                        r, u, tolerance, 500);
  BOOST_REQUIRE(result.status == ContactSolvers::SolverStatus::converged);
  BOOST_TEST(result.error <= tolerance);

  // Independent check with the whole W.
  const double error = ContactSolvers::compute_error(whole, r);
  BOOST_TEST(error <= 2 * tolerance, "FCLIB error with the whole W " << error);
  for (int i = 3 * first; i < 3 * last; ++i)
    {
      double wr = whole.q[i];
      for (int k = whole.W_sparse.row_start[i]; k < whole.W_sparse.row_start[i + 1]; ++k)
        wr += whole.W_sparse.values[k] * r[whole.W_sparse.column_index[k]];
      BOOST_TEST(std::abs(u[i] - wr) <= 1e-14 * (1 + std::abs(wr)));
    }

  // The same impulses on every rank, bit for bit; those of the whole-problem NSGS to 1e-8.
  std::vector<double> from_rank0 = r;
  MPI_Bcast(from_rank0.data(), static_cast<int>(from_rank0.size()), MPI_DOUBLE, 0, comm);
  double largest = 0, difference = 0;
  for (int i = 0; i < 3 * m; ++i)
    {
      BOOST_TEST(r[i] == from_rank0[i]);
      largest = std::max(largest, std::abs(r_whole[i]));
      difference = std::max(difference, std::abs(r[i] - r_whole[i]));
    }
  BOOST_TEST(largest > 0.5); // contacts are pressed
  BOOST_TEST(difference <= 1e-8 * largest, "largest difference from the whole-problem NSGS " << difference);

  // One rank: NonsmoothGaussSeidel's iterates exactly.
  if (size == 1)
    {
      BOOST_TEST(result.iterations == reference.iterations);
      for (int i = 0; i < 3 * m; ++i)
        BOOST_TEST(r[i] == r_whole[i]);
    }
}

// The exchange after a sweep sends a rank only the impulses its own rows couple to (ghost
// contacts): with coupling within 3 places, the 3 contacts on each side of its range; the values
// arrive where they belong, and the other ranks' remaining entries are not touched.
// Also with fewer contacts than ranks (m = 1: the first rank has none).
BOOST_AUTO_TEST_CASE(exchange_sends_only_the_coupled_impulses)
{
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int rank = dealii::Utilities::MPI::this_mpi_process(comm);
  const int size = dealii::Utilities::MPI::n_mpi_processes(comm);
  for (const int m : {60, 1})
    {
      const ContactSolvers::LocalProblem whole = make_problem(m);
      const int first = m * rank / size, last = m * (rank + 1) / size;
      const ContactSolvers::LocalProblem own = own_rows(whole, first, last);
      const ContactSolvers::BlockDelassus own_blocks(own);
      const TimeIntegration::ImpulseExchange exchange(own_blocks, first, last, comm);

      const std::size_t expected =
        size == 1 || first == last ? 0 : static_cast<std::size_t>(std::min(3, first) + std::min(3, m - last));
      BOOST_TEST(exchange.received_contacts() == expected);
      const auto sent = dealii::Utilities::MPI::sum(exchange.sent_contacts(), comm);
      const auto received = dealii::Utilities::MPI::sum(exchange.received_contacts(), comm);
      BOOST_TEST(sent == received);

      // Own entries a known function of the index, the others NaN: after the exchange the ghosts
      // hold the owners' values and the rest stays NaN.
      const auto value = [](const int i) { return 1.0 + 0.5 * i; };
      std::vector<double> r(3 * m, std::numeric_limits<double>::quiet_NaN());
      for (int i = 3 * first; i < 3 * last; ++i)
        r[i] = value(i);
      exchange.exchange(r);
      for (int a = 0; a < m; ++a)
        {
          const bool is_own = a >= first && a < last;
          const bool is_ghost = !is_own && size > 1 && first < last &&
                                ((a < first && a >= first - 3) || (a >= last && a < last + 3));
          for (int i = 3 * a; i < 3 * a + 3; ++i)
            if (is_own || is_ghost)
              BOOST_TEST(r[i] == value(i), "contact " << a);
            else
              BOOST_TEST(std::isnan(r[i]), "contact " << a);
        }
    }
}
