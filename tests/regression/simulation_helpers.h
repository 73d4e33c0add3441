#ifndef PERCUSSION_TESTS_SIMULATION_HELPERS_H
#define PERCUSSION_TESTS_SIMULATION_HELPERS_H

#include <deal.II/base/utilities.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/component_mask.h>

#include <percussion/simulator/run_parameters.h>
#include <percussion/simulator/simulator.h>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace percussion::testing
{
  /// Parameter text with a fresh output directory (no VTU, no progress lines) appended.
  inline std::string with_quiet_output(const std::string &text, const std::string &directory)
  {
    return text + "\nsubsection Output\n  set Directory = " + directory +
           "\n  set VTU interval = 0\n  set Progress interval = 0\nend\n";
  }

  /// Largest and smallest distance of the nodes at reference radius @p radius from the first body's
  /// centre (a disk or a ball turning about it), over all ranks.
  template <int dim>
  std::pair<double, double> boundary_radius_range(const Simulator<dim> &simulator, const NodeLayout &nodes,
                                                  const double radius)
  {
    const auto &q = simulator.integrator().displacement();
    const auto &center = simulator.rigid_motion().at(0).center;
    double largest = 0, smallest = 1e300;
    for (std::size_t i = 0; i < nodes.mass.size(); ++i)
      {
        double reference = 0, current = 0;
        for (unsigned int d = 0; d < dim; ++d)
          {
            reference += nodes.position[i][d] * nodes.position[i][d];
            const double x = nodes.position[i][d] + q(nodes.dofs[i][d]) - center[d];
            current += x * x;
          }
        if (std::sqrt(reference) < radius * (1 - 1e-9))
          continue;
        largest = std::max(largest, std::sqrt(current));
        smallest = std::min(smallest, std::sqrt(current));
      }
    return {dealii::Utilities::MPI::max(largest, MPI_COMM_WORLD),
            dealii::Utilities::MPI::min(smallest, MPI_COMM_WORLD)};
  }

  /// The value in row @p row and column @p name of @p table (the column must exist).
  inline double column_value(const Postprocess::StatisticsTable &table, const std::size_t row, const std::string &name)
  {
    const auto &names = table.columns();
    const auto at = std::find(names.begin(), names.end(), name);
    BOOST_REQUIRE(at != names.end());
    return table.row(row)[at - names.begin()];
  }

  /// Runs a simulation described by parameter text on @p communicator; returns the finished simulator.
  template <int dim>
  std::unique_ptr<Simulator<dim>> run_simulation(const std::string &text, const std::string &directory,
                                                 MPI_Comm communicator = MPI_COMM_WORLD)
  {
    const RunParameters parameters = RunParameters::from_string(with_quiet_output(text, directory));
    std::ostringstream log;
    auto simulator = std::make_unique<Simulator<dim>>(parameters, communicator, log);
    simulator->run();
    return simulator;
  }

  /// Times of the local maxima of a sampled signal, refined by a parabola through three samples.
  /**
   * The largest |difference| of the @p columns of two runs' statistics, relative to the largest
   * |total_energy|, |external_work| or |damping_work| of @p a (the energy flowing through the runs).
   */
  inline double largest_column_difference(const Postprocess::StatisticsTable &a, const Postprocess::StatisticsTable &b,
                                          const std::vector<std::string> &columns)
  {
    BOOST_REQUIRE_EQUAL(a.n_rows(), b.n_rows());
    double scale = 0;
    for (const std::string name : {"total_energy", "external_work", "damping_work"})
      for (const double x : a.column(name))
        scale = std::max(scale, std::abs(x));
    double worst = 0;
    for (const std::string &name : columns)
      {
        const auto x = a.column(name), y = b.column(name);
        for (std::size_t k = 0; k < x.size(); ++k)
          worst = std::max(worst, std::abs(x[k] - y[k]) / scale);
      }
    return worst;
  }

  inline std::vector<double> local_maxima_times(const std::vector<double> &t, const std::vector<double> &y)
  {
    std::vector<double> result;
    for (std::size_t i = 1; i + 1 < y.size(); ++i)
      if (y[i] > y[i - 1] && y[i] >= y[i + 1])
        {
          const double denominator = y[i - 1] - 2 * y[i] + y[i + 1];
          const double shift = denominator != 0 ? 0.5 * (y[i - 1] - y[i + 1]) / denominator : 0.0;
          result.push_back(t[i] + shift * (t[i + 1] - t[i]));
        }
    return result;
  }

  /// Mean of one displacement/velocity component over the locally owned nodes (all ranks).
  template <int dim>
  double mean_component(const Simulator<dim> &simulator, const dealii::PETScWrappers::MPI::Vector &x,
                        const unsigned int component)
  {
    std::vector<bool> mask(dim, false);
    mask[component] = true;
    const dealii::IndexSet dofs =
      dealii::DoFTools::extract_dofs(simulator.body().get_dof_handler(), dealii::ComponentMask(mask)) &
      simulator.body().locally_owned_dofs();
    double sum = 0;
    for (const auto i : dofs)
      sum += x(i);
    const double n = dealii::Utilities::MPI::sum(static_cast<double>(dofs.n_elements()), MPI_COMM_WORLD);
    return dealii::Utilities::MPI::sum(sum, MPI_COMM_WORLD) / n;
  }

  /// Mass-weighted mean of one velocity component: momentum / mass of the bodies.
  template <int dim>
  double mean_velocity(const Simulator<dim> &simulator, const unsigned int component)
  {
    std::vector<bool> mask(dim, false);
    mask[component] = true;
    const auto &body = simulator.body();
    const dealii::IndexSet dofs =
      dealii::DoFTools::extract_dofs(body.get_dof_handler(), dealii::ComponentMask(mask)) & body.locally_owned_dofs();
    dealii::PETScWrappers::MPI::Vector indicator(body.locally_owned_dofs(), MPI_COMM_WORLD), mass_indicator(indicator);
    for (const auto i : dofs)
      indicator(i) = 1.0;
    indicator.compress(dealii::VectorOperation::insert);
    body.mass_matrix().vmult(mass_indicator, indicator);
    return (mass_indicator * simulator.integrator().velocity()) / (mass_indicator * indicator);
  }

  /// The rigid wall at x = −5e-5 of doc/theory.md reference problem 1 in 1D.
  inline const std::string one_wall_1d = R"(
subsection Contact
  set Number of pairs = 1
  set Search distance = 1e-3
  subsection Pair 1
    set Type = plane
    set Slave boundary id = 0
    set Point = -5e-5
    set Normal = 1
  end
end
)";

  /**
   * doc/theory.md reference problem 1 in 1D: a steel bar of length 1, section 3.14e-4, thrown at −0.1 m/s, with
   * @p time_integration_lines (scheme and its parameters) and the @p contact subsection.
   */
  inline std::string impacting_bar_1d_text(const unsigned int elements, const double h,
                                           const std::string &time_integration_lines = "  set Theta = 0.5\n",
                                           const double end_time = 1.5e-3, const std::string &contact = one_wall_1d)
  {
    std::ostringstream text;
    text.precision(17);
    text << R"(
set Dimension = 1
subsection Mesh
  set Type = bar
  set Subdivisions = )"
         << elements << R"(
  set Cross section area = 3.14e-4
end
subsection Materials
  set Young's modulus = 210e9
  set Density = 7800
end
subsection Initial conditions
  set Velocity = -0.1
end
subsection Time integration
)" << time_integration_lines
         << "  set Time step = " << h << "\n  set End time = " << end_time << "\nend\n"
         << contact;
    return text.str();
  }

  /**
   * doc/theory.md reference problem 4: a mass m = 1 dropped from height 1 onto a wall with e = 0.9 under gravity,
   * modelled by one stiff 1D element (ω = √(12E/(ρL²)) = 2e5 rad/s, far above 1/h, so it moves
   * rigidly), to T = 10, with @p time_integration_lines.
   */
  inline std::string bouncing_ball_text(const double h, const std::string &time_integration_lines)
  {
    std::ostringstream text;
    text.precision(17);
    text << R"(
set Dimension = 1
subsection Mesh
  set Type = bar
  set Length = 1
  set Subdivisions = 1
  set Cross section area = 1
end
subsection Materials
  set Young's modulus = 3.3333333333e9
  set Density = 1
end
subsection Loads
  set Gravity = -9.81
end
subsection Time integration
)" << time_integration_lines
         << "  set Time step = " << h << R"(
  set End time = 10
end
subsection Contact
  set Number of pairs = 1
  set Search distance = 2
  subsection Pair 1
    set Type = plane
    set Slave boundary id = 0
    set Point = -1
    set Normal = 1
    set Restitution coefficient = 0.9
  end
end
)";
    return text.str();
  }

  /**
   * A 3D box clamped at one end, set in motion by an initial velocity, no load: the `Time
   * integration` subsection is left open for the scheme's lines and `end`.
   */
  inline std::string free_box_3d_text(const double end_time)
  {
    std::ostringstream text;
    text << R"(
set Dimension = 3
subsection Mesh
  set Type = box
  set Upper corner = 1, 0.25, 0.25
  set Subdivisions = 8, 2, 2
end
subsection Materials
  set Young's modulus = 1000
  set Poisson's ratio = 0.3
  set Density = 2
end
subsection Boundary conditions
  set Fixed boundary ids = 0
end
subsection Initial conditions
  set Velocity = 0; 0.2*x; 0.1*x*x
end
subsection Time integration
  set Time step = 2e-3
  set End time = )"
         << end_time << "\n";
    return text.str();
  }

  /// A smooth 1D problem (damping, a time-dependent traction, a fixed end) to T = 1.28.
  inline std::string smooth_bar_text(const std::string &time_integration_lines, const double h)
  {
    std::ostringstream text;
    text.precision(17);
    text << R"(
set Dimension = 1
subsection Mesh
  set Type = bar
  set Subdivisions = 20
end
subsection Materials
  set Young's modulus = 1
  set Density = 1
end
subsection Damping
  set Stiffness proportional coefficient = 0.001
end
subsection Loads
  set Traction boundary ids = 1
  set Traction = 0.01*sin(2*t)
end
subsection Boundary conditions
  set Fixed boundary ids = 0
end
subsection Initial conditions
  set Displacement = 0.01*sin(pi*x/2)
  set Velocity = 0.02*x
end
subsection Time integration
  set Time step = )"
         << h << "\n  set End time = 1.28\n"
         << time_integration_lines << "end\n";
    return text.str();
  }

  /// Relative errors of q(1.28) of smooth_bar_text() for h = 0.04, 0.02, 0.01 against h = 0.04/64.
  inline std::vector<double> time_convergence_errors(const std::string &time_integration_lines)
  {
    const auto reference =
      run_simulation<1>(smooth_bar_text(time_integration_lines, 0.04 / 64), "convergence_reference");
    dealii::PETScWrappers::MPI::Vector q_ref = reference->integrator().displacement();
    std::vector<double> result;
    for (const double h : {0.04, 0.02, 0.01})
      {
        const auto simulator = run_simulation<1>(smooth_bar_text(time_integration_lines, h), "convergence");
        BOOST_REQUIRE_CLOSE(simulator->integrator().time(), 1.28, 1e-10);
        dealii::PETScWrappers::MPI::Vector difference = simulator->integrator().displacement();
        difference -= q_ref;
        result.push_back(difference.l2_norm() / q_ref.l2_norm());
      }
    return result;
  }

  /**
   * doc/theory.md reference problem 5: a stiff 2D block (0.1 × 0.05) sliding at 1 m/s on a flat floor under gravity
   * with μ = 0.5, to T = 0.3, with @p time_integration_lines.
   */
  inline std::string sliding_block_text(const std::string &time_integration_lines)
  {
    return R"(
set Dimension = 2
subsection Mesh
  set Type = box
  set Upper corner = 0.1, 0.05
  set Subdivisions = 4, 2
end
subsection Materials
  set Young's modulus = 1e9
  set Poisson's ratio = 0.3
  set Density = 1000
end
subsection Loads
  set Gravity = 0, -9.81
end
subsection Initial conditions
  set Velocity = 1; 0
end
subsection Contact
  set Number of pairs = 1
  set Search distance = 0.01
  subsection Pair 1
    set Type = plane
    set Slave boundary id = 2
    set Point = 0, 0
    set Normal = 0, 1
    set Friction coefficient = 0.5
  end
end
subsection Time integration
  set Time step = 1e-3
  set End time = 0.3
)" + time_integration_lines +
           "end\n";
  }

  /// What a run of the impacting bar shows: contact start, duration, plateau force, rebound, energy.
  struct ImpactFigures
  {
    double start, duration, mean_force, rebound_velocity, energy_ratio;
    /// The audit's largest relative step residual and the cumulated normal contact work.
    double residual, contact_work_normal;
  };

  /**
   * Runs @p text (a bar hitting a wall along x) and measures the first contact phase from the
   * statistics: the impulse of step k acts on (t_{k−1}, t_k]; the force is the plateau (median) of
   * the contact forces. Checks that the energy balance closes and no contact did positive work.
   */
  template <int dim = 3>
  ImpactFigures measure_impact(const std::string &text, const double h)
  {
    const auto simulator = run_simulation<dim>(text, "impacting_bar");
    const auto &table = simulator->statistics();
    const auto t = table.column("time");
    const auto force = table.column("contact_normal_force");
    ImpactFigures f{-1, 0, 0, 0, 0, 0, 0};
    std::vector<double> contact_forces;
    for (std::size_t k = 0; k < t.size(); ++k)
      if (force[k] > 0)
        {
          if (f.start < 0)
            f.start = t[k] - h;
          contact_forces.push_back(force[k]);
        }
    BOOST_REQUIRE(!contact_forces.empty());
    f.duration = contact_forces.size() * h;
    // The plateau value (the median): the first and last steps hold only part of the contact.
    std::sort(contact_forces.begin(), contact_forces.end());
    f.mean_force = contact_forces[contact_forces.size() / 2];
    f.rebound_velocity = mean_velocity(*simulator, 0);
    f.energy_ratio = table.column("total_energy").back() / table.column("total_energy").front();
    f.residual = simulator->energy_audit().max_relative_step_residual();
    f.contact_work_normal = simulator->energy_audit().contact_work_normal();
    BOOST_TEST(f.residual <= 1e-10);
    BOOST_TEST(table.column("contact_positive_work_count").back() == 0.0);
    return f;
  }
} // namespace percussion::testing

#endif
