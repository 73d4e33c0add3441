// Requirement (distributed inner solve of the probed operator): distributed_sweeps() solves a frictional contact
// problem whose contacts are split among the ranks, each rank holding only the rows of W of its own
// contacts, and
//  - on one rank takes exactly the iterates of NonsmoothGaussSeidel (same impulses, same sweeps);
//  - on every rank count reaches the tolerance in the FCLIB measure, checked independently with the
//    whole W (compute_error()), with the impulses of the whole-problem NSGS to 1e-8 (W symmetric
//    positive definite, μ = 0.3: one solution);
//  - returns u = W r + q on the rank's own contacts, and its ghosts' impulses as their owners have them;
//  - exchanges after a sweep only the impulses that a rank's rows couple to (ImpulseExchange);
//  - no rank holds more than its own and its ghost contacts (ContactPartition, localize()), and
//    gather_whole() gives back the whole operator.
#define BOOST_TEST_MODULE contact_solvers_distributed_sweeps
#include "../../mpi_test_fixture.h"

#include <percussion/contact_solvers/block_delassus.h>
#include <percussion/contact_solvers/distributed_sweeps.h>
#include <percussion/contact_solvers/error_measure.h>
#include <percussion/contact_solvers/nonsmooth_gauss_seidel.h>

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

  /// This rank's part of @p p for the contacts [first, last): its rows of W in the partition's
  /// local numbering (own contacts, then the ghosts its rows couple to), q and μ of its own
  /// contacts (zero for the ghosts), as the contact step holds them.
  ContactSolvers::LocalProblem local_part(const ContactSolvers::LocalProblem &p, const int first, const int last,
                                          ContactSolvers::ContactPartition &partition, const MPI_Comm comm)
  {
    partition = ContactSolvers::partition_by_counts(last - first, comm);
    BOOST_REQUIRE(partition.offset() == static_cast<unsigned long long>(first));
    std::vector<int> rows, cols;
    std::vector<double> values;
    for (int i = 3 * first; i < 3 * last; ++i)
      for (int k = p.W_sparse.row_start[i]; k < p.W_sparse.row_start[i + 1]; ++k)
        {
          rows.push_back(i - 3 * first);
          cols.push_back(p.W_sparse.column_index[k]);
          values.push_back(p.W_sparse.values[k]);
        }
    ContactSolvers::LocalProblem local;
    local.dimension = 3;
    local.storage = ContactSolvers::MatrixStorage::sparse;
    local.W_sparse =
      ContactSolvers::localize(ContactSolvers::CsrMatrix::from_triplets(3 * (last - first), 3 * p.number_of_contacts,
                                                                        rows, cols, values, "own rows"),
                               3, partition);
    local.number_of_contacts = partition.n_local();
    local.q.assign(3 * partition.n_local(), 0.0);
    local.mu.assign(partition.n_local(), 0.0);
    std::copy(p.q.begin() + 3 * first, p.q.begin() + 3 * last, local.q.begin());
    std::copy(p.mu.begin() + first, p.mu.begin() + last, local.mu.begin());
    return local;
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
  const ContactSolvers::SolverResult reference =
    ContactSolvers::NonsmoothGaussSeidel(whole, whole_blocks)
      .run(r_whole, u_whole, tolerance, 500, std::chrono::steady_clock::time_point::max());
  BOOST_REQUIRE(reference.status == ContactSolvers::SolverStatus::converged);

  // Split: contiguous ranges in rank order, each rank with its own rows of W only, in its local
  // numbering.
  const int first = m * rank / size, last = m * (rank + 1) / size;
  ContactSolvers::ContactPartition partition;
  const ContactSolvers::LocalProblem own = local_part(whole, first, last, partition, comm);
  const ContactSolvers::BlockDelassus own_blocks(own);
  std::vector<double> r(3 * partition.n_local(), 0.0), u;
  const ContactSolvers::SolverResult result =
    ContactSolvers::distributed_sweeps(own, own_blocks, ContactSolvers::ImpulseExchange(partition, 3, comm), r, u,
                                       tolerance, 500);
  BOOST_REQUIRE(result.status == ContactSolvers::SolverStatus::converged);
  BOOST_TEST(result.error <= tolerance);

  // The whole impulse vector from the ranks' own parts; the ghosts hold their owners' values.
  const std::vector<double> gathered = ContactSolvers::gather_own(r, 3, partition, comm);
  BOOST_REQUIRE(gathered.size() == 3u * m);
  for (int a = partition.n_own(); a < partition.n_local(); ++a)
    for (int i = 0; i < 3; ++i)
      BOOST_TEST(r[3 * a + i] == gathered[3 * partition.global(a) + i], "ghost " << partition.global(a));

  // Independent check with the whole W.
  const double error = ContactSolvers::compute_error(whole, gathered);
  BOOST_TEST(error <= 2 * tolerance, "FCLIB error with the whole W " << error);
  for (int i = 3 * first; i < 3 * last; ++i)
    {
      double wr = whole.q[i];
      for (int k = whole.W_sparse.row_start[i]; k < whole.W_sparse.row_start[i + 1]; ++k)
        wr += whole.W_sparse.values[k] * gathered[whole.W_sparse.column_index[k]];
      BOOST_TEST(std::abs(u[i - 3 * first] - wr) <= 1e-14 * (1 + std::abs(wr)));
    }

  // The impulses of the whole-problem NSGS to 1e-8.
  double largest = 0, difference = 0;
  for (int i = 0; i < 3 * m; ++i)
    {
      largest = std::max(largest, std::abs(r_whole[i]));
      difference = std::max(difference, std::abs(gathered[i] - r_whole[i]));
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
// arrive where they belong, and the own entries are not touched.
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
      ContactSolvers::ContactPartition partition;
      local_part(whole, first, last, partition, comm);
      const ContactSolvers::ImpulseExchange exchange(partition, 3, comm);

      // The ghosts: the contacts within 3 places of the own range, outside it.
      std::vector<unsigned long long> expected;
      for (int a = std::max(0, first - 3); a < std::min(m, last + 3) && first < last; ++a)
        if (a < first || a >= last)
          expected.push_back(a);
      BOOST_TEST(partition.ghosts == expected, boost::test_tools::per_element());
      BOOST_TEST(exchange.received_contacts() == (size == 1 ? 0 : expected.size()));
      const auto sent = dealii::Utilities::MPI::sum(exchange.sent_contacts(), comm);
      const auto received = dealii::Utilities::MPI::sum(exchange.received_contacts(), comm);
      BOOST_TEST(sent == received);

      // Own entries a known function of the global index, the ghosts NaN: after the exchange the
      // ghosts hold the owners' values and the own entries are unchanged.
      const auto value = [](const unsigned long long i) { return 1.0 + 0.5 * i; };
      std::vector<double> r(3 * partition.n_local(), std::numeric_limits<double>::quiet_NaN());
      for (int a = 0; a < partition.n_own(); ++a)
        for (int i = 0; i < 3; ++i)
          r[3 * a + i] = value(3 * partition.global(a) + i);
      exchange.exchange(r);
      for (int a = 0; a < partition.n_local(); ++a)
        for (int i = 0; i < 3; ++i)
          BOOST_TEST(r[3 * a + i] == value(3 * partition.global(a) + i), "contact " << partition.global(a));
    }
}

// gather_whole() gives back the whole operator from the ranks' local rows, entry for entry.
BOOST_AUTO_TEST_CASE(whole_operator_is_gathered_from_the_local_rows)
{
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int rank = dealii::Utilities::MPI::this_mpi_process(comm);
  const int size = dealii::Utilities::MPI::n_mpi_processes(comm);
  const int m = 20;
  const ContactSolvers::LocalProblem whole = make_problem(m);
  const int first = m * rank / size, last = m * (rank + 1) / size;
  ContactSolvers::ContactPartition partition;
  const ContactSolvers::LocalProblem local = local_part(whole, first, last, partition, comm);
  const ContactSolvers::CsrMatrix gathered = ContactSolvers::gather_whole(local.W_sparse, 3, partition, comm);
  BOOST_REQUIRE(gathered.rows == 3 * m);
  BOOST_TEST(gathered.row_start == whole.W_sparse.row_start, boost::test_tools::per_element());
  BOOST_TEST(gathered.column_index == whole.W_sparse.column_index, boost::test_tools::per_element());
  BOOST_TEST(gathered.values == whole.W_sparse.values, boost::test_tools::per_element());
}
