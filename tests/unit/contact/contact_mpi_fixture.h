// MPI initialisation for the contact Boost.Test executables (run with 1 or 2 ranks).
#ifndef PERCUSSION_TESTS_CONTACT_MPI_FIXTURE_H
#define PERCUSSION_TESTS_CONTACT_MPI_FIXTURE_H

#include <deal.II/base/mpi.h>

#include <boost/test/unit_test.hpp>

#include <memory>

struct ContactMpiFixture
{
  ContactMpiFixture()
  {
    auto &suite = boost::unit_test::framework::master_test_suite();
    mpi = std::make_unique<dealii::Utilities::MPI::MPI_InitFinalize>(suite.argc, suite.argv, 1);
  }
  std::unique_ptr<dealii::Utilities::MPI::MPI_InitFinalize> mpi;
};

BOOST_TEST_GLOBAL_FIXTURE(ContactMpiFixture);

#endif
