// H, gaps, Hᵀv + w and the active set are the same on MPI_COMM_WORLD (1 or 2 ranks, distributed
// and shared meshes) and on a serial Triangulation as on MPI_COMM_SELF (each rank computes the
// serial reference with a parallel::distributed mesh): two boxes with a body-to-body pair,
// a plane under the lower box and a moving sphere over the upper one, 2D/3D, Q1/Q2.
#define BOOST_TEST_MODULE contact_mpi_consistency
#include "../../mpi_test_fixture.h"
#include "contact_test_tools.h"

#include <tuple>

using namespace contact_test;

namespace
{
  // The two boxes 0.03 apart (ids 1/2 slave/master, 3 the lower box's bottom over the plane, 4 the
  // upper box's top under the sphere).
  template <int dim, typename ProblemType>
  void make_mesh(ProblemType &problem)
  {
    make_two_boxes<dim>(problem, 0.03, dim == 2 ? 1 : 0);
  }

  ContactParameters parameters(const int dim)
  {
    ContactParameters p;
    p.search_distance = 0.2;
    p.pairs.push_back(make_pair(PairType::body, two_boxes_slave_id, two_boxes_master_id));
    p.pairs.push_back(make_pair(PairType::plane, two_boxes_bottom_id));
    p.pairs.back().point = std::vector<double>(dim, 0.);
    p.pairs.back().point[dim - 1] = -0.02;
    p.pairs.back().normal = std::vector<double>(dim, 0.);
    p.pairs.back().normal[dim - 1] = 1.;
    p.pairs.push_back(make_pair(PairType::sphere, two_boxes_top_id));
    p.pairs.back().point = dim == 2 ? std::vector<double>{0.48, 2.08} : std::vector<double>{0.48, 0.56, 2.08};
    p.pairs.back().radius = 1.;
    p.pairs.back().obstacle_velocity = dim == 2 ? "0.1; -t" : "0.1; 0; -t";
    for (unsigned int i = 0; i < p.pairs.size(); ++i)
      p.pairs[i].name = "Contact/Pair " + std::to_string(i + 1);
    return p;
  }

  struct Summary
  {
    unsigned int n_points = 0;
    double frobenius = 0.;
    unsigned int n_active = 0;
    std::vector<double> gaps; // sorted, all ranks
    std::map<std::tuple<int, long, long, long>, std::vector<double>> velocity_by_point;
  };

  template <int dim, typename TriangulationType = parallel::distributed::Triangulation<dim>>
  Summary compute(const MPI_Comm comm, const unsigned int degree)
  {
    Problem<dim, TriangulationType> problem(comm, degree);
    make_mesh<dim>(problem);
    const auto q = problem.interpolate([](const Point<dim> &x) {
      Tensor<1, dim> value;
      value[0] = 0.003 * std::sin(3 * x[0] + x[1]);
      value[1] = 0.003 * std::cos(2 * x[1] - x[dim - 1]);
      value[dim - 1] = 0.004 * std::sin(x[0] * x[dim - 1]);
      return value;
    });
    const auto v = problem.interpolate([](const Point<dim> &x) {
      Tensor<1, dim> value;
      value[0] = std::cos(x[0]);
      value[1] = std::sin(2 * x[1]);
      value[dim - 1] = -x[0] * x[0] - 0.1 + 0.2 * x[dim - 1];
      return value;
    });
    ContactGeometry<dim> geometry(problem.dof_handler, parameters(dim));
    geometry.update(problem.ghosted(q), 0.3);
    PETScWrappers::MPI::Vector u;
    geometry.local_velocity(v, u);
    Summary s;
    s.n_points = geometry.n_global_points();
    s.frobenius = geometry.contact_operator().frobenius_norm();
    s.n_active = percussion::testing::count_entering(geometry, u, 0.1);
    std::vector<double> records;
    for (const auto &point : geometry.owned_points())
      {
        records.push_back(point.pair);
        for (unsigned int d = 0; d < 3; ++d)
          records.push_back(d < dim ? point.reference_position[d] : 0.);
        records.push_back(point.gap);
        for (unsigned int k = 0; k < dim; ++k)
          records.push_back(u(dim * point.global_index + k));
      }
    const unsigned int record_size = 5 + dim;
    for (const auto &rank_records : Utilities::MPI::all_gather(comm, records))
      for (unsigned int i = 0; i < rank_records.size(); i += record_size)
        {
          const auto key =
            std::make_tuple(int(rank_records[i]), std::lround(rank_records[i + 1] * 1e8),
                            std::lround(rank_records[i + 2] * 1e8), std::lround(rank_records[i + 3] * 1e8));
          s.gaps.push_back(rank_records[i + 4]);
          s.velocity_by_point[key] =
            std::vector<double>(rank_records.begin() + i + 5, rank_records.begin() + i + record_size);
        }
    std::sort(s.gaps.begin(), s.gaps.end());
    if (Utilities::MPI::n_mpi_processes(comm) > 1)
      BOOST_TEST(Utilities::MPI::min(geometry.n_owned_points(), comm) > 0u);
    return s;
  }

  template <int dim>
  void compare(const unsigned int degree)
  {
    BOOST_TEST_CONTEXT(dim << "D Q" << degree)
    {
      const Summary serial = compute<dim>(MPI_COMM_SELF, degree);
      for (const unsigned int mesh : {0u, 1u, 2u})
        BOOST_TEST_CONTEXT((mesh == 0   ? "parallel::distributed"
                            : mesh == 1 ? "parallel::shared"
                                        : "serial Triangulation"))
        {
          const Summary parallel = mesh == 0 ? compute<dim>(MPI_COMM_WORLD, degree)
                                   : mesh == 1
                                     ? compute<dim, parallel::shared::Triangulation<dim>>(MPI_COMM_WORLD, degree)
                                     : compute<dim, Triangulation<dim>>(MPI_COMM_SELF, degree);
          BOOST_TEST(serial.n_points > 10u);
          BOOST_TEST(parallel.n_points == serial.n_points);
          BOOST_TEST(parallel.velocity_by_point.size() == serial.n_points);
          BOOST_TEST(std::abs(parallel.frobenius - serial.frobenius) < 1e-12 * serial.frobenius);
          BOOST_TEST(serial.n_active > 0u);
          BOOST_TEST(serial.n_active < serial.n_points);
          BOOST_TEST(parallel.n_active == serial.n_active);
          BOOST_TEST(parallel.gaps.size() == serial.gaps.size());
          double gap_error = 0., velocity_error = 0.;
          for (unsigned int i = 0; i < std::min(parallel.gaps.size(), serial.gaps.size()); ++i)
            gap_error = std::max(gap_error, std::abs(parallel.gaps[i] - serial.gaps[i]));
          for (const auto &entry : serial.velocity_by_point)
            {
              const auto found = parallel.velocity_by_point.find(entry.first);
              BOOST_TEST((found != parallel.velocity_by_point.end()));
              if (found != parallel.velocity_by_point.end())
                for (unsigned int k = 0; k < dim; ++k)
                  velocity_error = std::max(velocity_error, std::abs(found->second[k] - entry.second[k]));
            }
          BOOST_TEST(gap_error < 1e-13);
          BOOST_TEST(velocity_error < 1e-12);
        }
    }
  }
} // namespace

BOOST_AUTO_TEST_CASE(same_on_one_and_two_ranks)
{
  for (const unsigned int degree : {1u, 2u})
    {
      compare<2>(degree);
      compare<3>(degree);
    }
}
