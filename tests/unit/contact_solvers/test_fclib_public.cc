// Every file of the public FCLIB set (tests/data/fclib) solved by the default
// solver at the reference tolerance 1e-8 from r = 0, with the status expected per file; the error
// is recomputed independently from the returned reactions. A generous time cap per file.
#define BOOST_TEST_MODULE contact_solvers.fclib_public
#include <percussion/contact_solvers/error_measure.h>
#include <percussion/contact_solvers/fclib_reader.h>
#include <percussion/contact_solvers/solve.h>

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <map>
#include <string>

using namespace percussion::ContactSolvers;

namespace
{
  const std::string public_dir = std::string(PERCUSSION_TEST_DATA_DIR) + "/fclib/";

  // Expected status of "alart_curnier" at 1e-8: every file converges. The granular flow with 2020
  // contacts, which no Siconos solver brings to 1e-8 within a minute (Siconos Numerics 4.4 reference runs,
  // doc/contact_solvers.md), is solved by the proximal-point phase (proximal_point.h) after both Newton variants stall
  // at ~4e-7.
  const std::map<std::string, std::string> expected = {
    {"Capsules-i100-1090.hdf5", "converged"},
    {"Capsules-i100-889.hdf5", "converged"},
    {"Capsules-i101-404.hdf5", "converged"},
    {"Capsules-i103-990.hdf5", "converged"},
    {"Capsules-i122-1617.hdf5", "converged"},
    {"Capsules-i125-1213.hdf5", "converged"},
    {"Capsules-i97-269.hdf5", "converged"},
    {"Confeti-ex03-Fc3D-SBM.hdf5", "converged"},
    {"Confeti-ex13-4contact-Fc3D-SBM.hdf5", "converged"},
    {"Confeti-ex13-Fc3D-SBM.hdf5", "converged"},
    {"CubeH8.hdf5", "converged"},
    {"FC3D_Example1.hdf5", "converged"},
    {"FrictionContact3D_1c.hdf5", "converged"},
    {"FrictionContact3D_RR_1c.hdf5", "converged"},
    {"FrictionContactProblem00031.hdf5", "converged"},
    {"FrictionContactProblem00071.hdf5", "converged"},
    {"FrictionContactProblem00237.hdf5", "converged"},
    {"FrictionContactProblem00374.hdf5", "converged"},
    {"FrictionContactProblem00394.hdf5", "converged"},
    {"FrictionContactProblem00727.hdf5", "converged"},
    {"LMGC_GFC3D-i00001-1-00000.hdf5", "converged"},
    {"LMGC_GFC3D-i00501-4-00000.hdf5", "converged"},
    {"LMGC_GlobalFrictionContactProblem00046.hdf5", "converged"},
    {"NESpheres_10_1.hdf5", "converged"},
    {"NESpheres_30_1.hdf5", "converged"},
    {"OneObject-i100000-316.hdf5", "converged"},
    {"OneObject-i100000-499.hdf5", "converged"},
    {"OneObject-i1028-138.hdf5", "converged"},
    {"Spheres-i099-356-679.hdf5", "converged"},
    {"fc2d_granularflowonwall_00667_00000.hdf5", "converged"},
    {"fc2d_granularflowonwall_02020_00213.hdf5", "converged"},
    {"fc2d_granularflowonwall_07002_00801.hdf5", "converged"},
    {"fclib_local_problem_test.hdf5", "converged"},
  };
} // namespace

BOOST_AUTO_TEST_CASE(every_public_file)
{
  int files = 0, solved = 0;
  for (const auto &entry : std::filesystem::directory_iterator(public_dir))
    {
      const std::string name = entry.path().filename().string();
      if (entry.path().extension() != ".hdf5")
        continue;
      ++files;
      BOOST_TEST_CONTEXT(name)
      {
        const auto it = expected.find(name);
        BOOST_TEST_REQUIRE((it != expected.end()), "no expected status recorded for " << name);
        const FclibProblem file = read_fclib_file(entry.path().string());
        const LocalProblem local = file.is_global ? condense_to_local(file.global) : file.local;
        SolverOptions options;
        options.tolerance = 1e-8;
        // Generous for the files we solve (the slowest takes < 1 s in Release).
        options.time_limit_seconds = 60.0;
        std::vector<double> r, u;
        const SolverResult result = solve(local, r, u, options);
        BOOST_TEST_MESSAGE(name << ": " << to_string(result.status) << ", " << result.iterations
                                << " iterations, error " << result.error << ", " << result.seconds << " s");
        BOOST_TEST(to_string(result.status) == it->second);
        const double error = compute_error(local, r);
        BOOST_TEST(error == result.error, boost::test_tools::tolerance(1e-6));
        if (it->second == "converged")
          BOOST_TEST(error <= 1e-8);
        solved += result.status == SolverStatus::converged;
      }
    }
  BOOST_TEST(files == 33);
  BOOST_TEST(solved == 33);
}
