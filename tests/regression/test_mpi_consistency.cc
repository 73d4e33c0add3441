// Requirement: a run on 2 MPI ranks reproduces the serial statistics to round-off (1D, 2D and 3D,
// with loads, damping and prescribed motion; Moreau–Jean, the generalized-α family and
// Schatzman–Paoli). Every rank runs the serial reference on MPI_COMM_SELF, then all ranks run the
// same problem together.
#define BOOST_TEST_MODULE mpi_consistency
#include "../mpi_test_fixture.h"
#include "simulation_helpers.h"

#include <cmath>

using percussion::testing::largest_column_difference;
using percussion::testing::run_simulation;

namespace
{
  std::string problem(const unsigned int dim, const std::string &scheme = "Moreau-Jean Fremond")
  {
    std::ostringstream text;
    text << "set Dimension = " << dim << "\n"
         << "subsection Mesh\n set Type = bar\n set Width = 0.2\n set Subdivisions = " << (dim == 1 ? 64 : 10)
         << "\n set Global refinements = " << (dim == 3 ? 0 : 1) << "\nend\n"
         << "subsection Materials\n set Young's modulus = 100\n set Poisson's ratio = 0.3\n set Density = 1\nend\n"
         << "subsection Damping\n set Mass proportional coefficient = 0.1\nend\n"
         << "subsection Loads\n set Traction boundary ids = 1\n set Traction = "
         << (dim == 1   ? "sin(20*t)"
             : dim == 2 ? "sin(20*t); 0.5"
                        : "sin(20*t); 0.5; 0")
         << "\nend\n"
         << "subsection Boundary conditions\n set Prescribed displacement boundary ids = 0\n"
         << " set Prescribed displacement = "
         << (dim == 1   ? "0.01*t"
             : dim == 2 ? "0.01*t; 0"
                        : "0.01*t; 0; 0")
         << "\nend\n"
         << "subsection Initial conditions\n set Velocity = "
         << (dim == 1   ? "x"
             : dim == 2 ? "x; 0.1*x"
                        : "x; 0.1*x; -0.1*x")
         << "\nend\n"
         << "subsection Time integration\n set Scheme = " << scheme
         << "\n set Theta = 0.6\n set Time step = 0.002\n set End time = 0.2\nend\n";
    return text.str();
  }

  template <int dim>
  void compare(const std::string &scheme = "Moreau-Jean Fremond")
  {
    // On one rank MPI_COMM_WORLD runs the serial computation again: the comparison could not fail.
    BOOST_REQUIRE_MESSAGE(dealii::Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD) >= 2,
                          "run this test on 2 or more MPI ranks (ctest: regression.mpi_consistency.mpi2)");
    const unsigned int rank = dealii::Utilities::MPI::this_mpi_process(MPI_COMM_WORLD);
    const auto serial = run_simulation<dim>(problem(dim, scheme), "mpi_serial_" + std::to_string(rank), MPI_COMM_SELF);
    const auto parallel = run_simulation<dim>(problem(dim, scheme), "mpi_parallel", MPI_COMM_WORLD);
    const auto &a = serial->statistics();
    const double worst =
      largest_column_difference(a, parallel->statistics(),
                                {"kinetic_energy", "strain_energy", "total_energy", "external_work", "damping_work",
                                 "numerical_dissipation", "energy_balance_residual", "algorithmic_energy"});
    BOOST_TEST_MESSAGE(dim << "D on " << dealii::Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD)
                           << " ranks: largest difference relative to the energy scale " << worst);
    BOOST_TEST(worst <= 1e-10);
    BOOST_TEST(a.column("total_energy").back() > 0);
  }
} // namespace

BOOST_AUTO_TEST_CASE(one_dimension)
{
  compare<1>();
}
BOOST_AUTO_TEST_CASE(two_dimensions)
{
  compare<2>();
}
BOOST_AUTO_TEST_CASE(three_dimensions)
{
  compare<3>();
}
BOOST_AUTO_TEST_CASE(generalized_alpha_two_dimensions)
{
  compare<2>("nonsmooth generalized-alpha");
}
BOOST_AUTO_TEST_CASE(hht_three_dimensions)
{
  compare<3>("nonsmooth HHT");
}
BOOST_AUTO_TEST_CASE(schatzman_paoli_two_dimensions)
{
  compare<2>("Schatzman-Paoli");
}
