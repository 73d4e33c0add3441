// The global-form PETSc Newton solver on the global files of the public FCLIB set and on a small
// hand-made problem: convergence, the error recomputed on the condensed problem, and the global
// equations M v = H r + f, u = Hᵀ v + w.
#define BOOST_TEST_MODULE contact_solvers.global_petsc
#include <percussion/contact_solvers/error_measure.h>
#include <percussion/contact_solvers/fclib_reader.h>
#include <percussion/contact_solvers/global_petsc_solver.h>
#include <percussion/contact_solvers/solve.h>

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <string>

using namespace percussion::ContactSolvers;

namespace
{
  struct PetscFixture
  {
    PetscScope scope;
  };

  void check_global_equations(const GlobalProblem &g, const std::vector<double> &r, const std::vector<double> &v,
                              const std::vector<double> &u)
  {
    std::vector<double> Mv(g.M.rows, 0.0), Hr = g.f;
    g.M.multiply_add(v.data(), Mv.data());
    g.H.multiply_add(r.data(), Hr.data());
    double scale = 1e-300, defect = 0.0;
    for (int i = 0; i < g.M.rows; ++i)
      {
        scale = std::max({scale, std::abs(Mv[i]), std::abs(Hr[i])});
        defect = std::max(defect, std::abs(Mv[i] - Hr[i]));
      }
    BOOST_TEST(defect <= 1e-10 * scale);
    std::vector<double> w = g.w;
    g.H.transpose_multiply_add(v.data(), w.data());
    for (std::size_t i = 0; i < u.size(); ++i)
      BOOST_CHECK_SMALL(u[i] - w[i], 1e-10 * (1.0 + std::abs(w[i])));
  }
} // namespace

BOOST_TEST_GLOBAL_FIXTURE(PetscFixture);

BOOST_AUTO_TEST_CASE(hand_made_sliding_contact)
{
  // The problem of test_multi_contact.cc (global_form_condensation): r = (1, −0.3, 0).
  GlobalProblem g;
  g.dimension = 3;
  g.number_of_contacts = 1;
  g.M = CsrMatrix::from_triplets(4, 4, {0, 1, 2, 3}, {0, 1, 2, 3}, {2.0, 4.0, 1.0, 1.0});
  g.H = CsrMatrix::from_triplets(4, 3, {0, 1, 2, 3}, {0, 0, 1, 2}, {1.0, 2.0, 1.0, 1.0});
  g.f = {-4.0, 0.0, 3.0, 0.0};
  g.w = {0.5, 0.0, 0.0};
  g.mu = {0.3};
  std::vector<double> r, v, u;
  SolverOptions options;
  options.tolerance = 1e-12;
  const SolverResult result = solve_global_petsc(g, r, v, u, options);
  BOOST_TEST(to_string(result.status) == "converged");
  BOOST_CHECK_SMALL(r[0] - 1.0, 1e-10);
  BOOST_CHECK_SMALL(r[1] + 0.3, 1e-10);
  BOOST_CHECK_SMALL(r[2], 1e-10);
  check_global_equations(g, r, v, u);
}

BOOST_AUTO_TEST_CASE(public_global_files)
{
  for (const std::string name : {"CubeH8.hdf5", "LMGC_GFC3D-i00001-1-00000.hdf5", "LMGC_GFC3D-i00501-4-00000.hdf5",
                                 "LMGC_GlobalFrictionContactProblem00046.hdf5", "Spheres-i099-356-679.hdf5"})
    {
      BOOST_TEST_CONTEXT(name)
      {
        const FclibProblem file = read_fclib_file(std::string(PERCUSSION_TEST_DATA_DIR) + "/fclib/" + name);
        BOOST_TEST_REQUIRE(file.is_global);
        std::vector<double> r, v, u;
        SolverOptions options;
        options.tolerance = 1e-8;
        options.time_limit_seconds = 60.0;
        const SolverResult result = solve_global_petsc(file.global, r, v, u, options);
        BOOST_TEST_MESSAGE(name << ": " << to_string(result.status) << " in " << result.iterations
                                << " iterations, error " << result.error << ", " << result.seconds << " s");
        BOOST_TEST(to_string(result.status) == "converged");
        // The same measure on the condensed problem, computed with W.
        const LocalProblem local = condense_to_local(file.global);
        BOOST_TEST(compute_error(local, r) <= 1e-8);
        BOOST_TEST(std::abs(compute_error(local, r) - result.error) <= 1e-3 * result.error + 1e-13);
        check_global_equations(file.global, r, v, u);
      }
    }
}
