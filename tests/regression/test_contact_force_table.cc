// The contact forces' table (Output/Postprocessors = contact forces, contact_forces.csv) against
// the weights of bodies at rest.
//
// Three boxes 1 mm apart above a plane (regression.sustained_contact's stack: 1 × 0.3, 0.8 × 0.3
// and 0.6 × 0.3, density 1000, so 300, 240 and 180 kg per unit thickness) fall, land on one another
// with friction and come to rest under mass damping. At rest each box's contact forces (from the
// plane or the box below, and from the box above as a master surface) balance its weight: the
// table's vertical force of box i is m_i g, its horizontal force 0. Checked at t = 1.5 s: the
// vertical force within 1e-6 of the box's weight (measured: 1.5e-8 at most, on 1 and 2 ranks; a
// table that left out the master side would give the lowest box the whole stack's weight), the
// horizontal force within 1e-8 of the weight (measured: 3e-11), the file's last rows equal to the
// table's, and zero forces in the state before the first step. On 2 ranks the master nodes' share
// of the body pairs' impulses reaches other ranks' nodes.
#define BOOST_TEST_MODULE contact_force_table
#include "../mpi_test_fixture.h"
#include "simulation_helpers.h"
#include "three_box_stack.h"

#include <deal.II/base/mpi.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using percussion::testing::run_simulation;

namespace
{
  const std::string stack = percussion::testing::three_box_stack_text("1.5") + R"(
subsection Output
  set Postprocessors = statistics, vtu, events, contact forces
end
)";

  /// The rows of the CSV file @p file_name (after its header), as numbers.
  std::vector<std::vector<double>> rows_of_file(const std::string &file_name)
  {
    std::ifstream file(file_name);
    std::string line;
    std::getline(file, line); // (the header)
    std::vector<std::vector<double>> rows;
    while (std::getline(file, line))
      {
        std::vector<double> row;
        std::istringstream fields(line);
        for (std::string field; std::getline(fields, field, ',');)
          row.push_back(std::stod(field));
        rows.push_back(row);
      }
    return rows;
  }
} // namespace

BOOST_AUTO_TEST_CASE(resting_stack_carries_its_weights)
{
  const std::string directory = "contact_force_table_output";
  const auto simulator = run_simulation<2>(stack, directory);
  const auto *table = simulator->contact_force_table();
  BOOST_REQUIRE(table != nullptr);
  BOOST_REQUIRE_EQUAL(table->n_bodies(), 3u);
  const std::vector<std::string> columns{"step", "time", "body", "material_id", "force_x", "force_y"};
  BOOST_TEST(table->table().columns() == columns, boost::test_tools::per_element());

  const double g = 9.81, density = 1000;
  const std::vector<double> mass{density * 1.0 * 0.3, density * 0.8 * 0.3, density * 0.6 * 0.3};
  const auto &rows = table->table();
  const std::size_t n_rows = rows.n_rows();
  BOOST_REQUIRE_EQUAL(n_rows, 3u * (simulator->integrator().step_number() + 1));
  for (unsigned int b = 0; b < 3; ++b)
    {
      // The bodies are numbered by the mesh's connected parts; material id b is box b.
      const std::vector<double> &first = rows.row(b);
      BOOST_TEST(first[0] == 0.);
      BOOST_TEST(first[4] == 0.);
      BOOST_TEST(first[5] == 0.);
      const std::vector<double> &last = rows.row(n_rows - 3 + b);
      const unsigned int box = static_cast<unsigned int>(last[3]);
      BOOST_REQUIRE(box < 3);
      const double weight = mass[box] * g;
      BOOST_TEST_MESSAGE("box " << box << ": force (" << last[4] << ", " << last[5] << "), weight " << weight
                                << ", relative deviation " << std::abs(last[5] - weight) / weight);
      BOOST_TEST(std::abs(last[5] - weight) <= 1e-6 * weight);
      BOOST_TEST(std::abs(last[4]) <= 1e-8 * weight);
      BOOST_TEST(table->force(b)[1] == last[5]);
    }

  // The file (rank 0) holds the same rows, to the last digit.
  if (dealii::Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0)
    {
      const auto file_rows = rows_of_file(directory + "/contact_forces.csv");
      BOOST_REQUIRE_EQUAL(file_rows.size(), n_rows);
      for (std::size_t i = n_rows - 3; i < n_rows; ++i)
        BOOST_TEST(file_rows[i] == rows.row(i), boost::test_tools::per_element());
    }
}
