#ifndef PERCUSSION_TESTS_MPI_TEST_FIXTURE_H
#define PERCUSSION_TESTS_MPI_TEST_FIXTURE_H

// Initialises MPI (and PETSc) once for a Boost.Test executable; include after BOOST_TEST_MODULE.
#include <deal.II/base/mpi.h>

#include <boost/test/unit_test.hpp>

#include <memory>

struct MPITestFixture
{
  MPITestFixture()
  {
    auto &suite = boost::unit_test::framework::master_test_suite();
    mpi = std::make_unique<dealii::Utilities::MPI::MPI_InitFinalize>(suite.argc, suite.argv, 1);
  }
  std::unique_ptr<dealii::Utilities::MPI::MPI_InitFinalize> mpi;
};
BOOST_TEST_GLOBAL_FIXTURE(MPITestFixture);

#endif
