// The floor of a 3D implicit step: the ball-on-plane body of benchmarks/impact_3d/run_step_cost.sh
// (steel ball, R = 0.05 m, Q1, 'Global refinements' = level) with the project's own assembly
// (Body::ElasticBody: M and K) and iteration-matrix solver (IterationMatrixSolver, factor of
// Ŵ = M + (hθ)²K stored once, θ = ½, h = cell size / 5900 m/s). A bare step is what any implicit
// θ-scheme step on this body has to do at least, with no contact, energy audit or output:
//   rhs = M v − h K q − h²θ(1−θ) K v,  Ŵ v⁺ = rhs,  q⁺ = q + h((1−θ)v + θv⁺),  then M v⁺ and K v⁺
// for the next step, and K q⁺ = K q + h((1−θ)K v + θK v⁺): one solve with the stored factor and
// two sparse mat-vecs (plus vector updates), as the Moreau–Jean integrator's step. Prints, per level, the DoFs, the
// wall time per bare step (the fastest of 3 timed blocks of STEPS steps; the factorisation, printed too, is not
// counted), the largest velocity after the steps (a check: 2 m/s, the initial rigid motion's) and the solver. Usage:
// bare_step [LEVEL...] [--steps N]     (default levels 2 3, N = 150)
#include <deal.II/base/mpi.h>
#include <deal.II/base/parameter_handler.h>
#include <deal.II/lac/petsc_vector.h>

#include <percussion/body/body_parameters.h>
#include <percussion/body/elastic_body.h>
#include <percussion/core/iteration_matrix_solver.h>
#include <percussion/core/linear_solver_parameters.h>
#include <percussion/core/mesh_generator.h>
#include <percussion/core/mesh_parameters.h>
#include <percussion/core/petsc_handle.h>
#include <percussion/time_integration/linear_elastodynamic_system.h>
#include <percussion/time_integration/system_algebra.h>

#include <petscmat.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

using namespace percussion;
using Vector = dealii::PETScWrappers::MPI::Vector;

namespace
{
  void usage_error(const std::string &message)
  {
    std::cerr << "bare_step: " << message << "\nusage: bare_step [LEVEL...] [--steps N]\n";
    std::exit(2);
  }

  unsigned int to_count(const std::string &text, unsigned int minimum, unsigned int maximum)
  {
    char *end = nullptr;
    const long value = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || value < long(minimum) || value > long(maximum))
      usage_error("'" + text + "' is not a whole number in [" + std::to_string(minimum) + ", " +
                  std::to_string(maximum) + "]");
    return static_cast<unsigned int>(value);
  }

  void run_level(const unsigned int level, const unsigned int steps, MPI_Comm comm)
  {
    constexpr int dim = 3;
    const double h = 0.05 / 2 / std::pow(2.0, level) / 5900, theta = 0.5;

    // The body of run_step_cost.sh, read through the same parameter declarations as a run's file.
    dealii::ParameterHandler prm;
    MeshParameters::declare_parameters(prm);
    Body::BodyParameters::declare_parameters(prm);
    LinearSolverParameters::declare_parameters(prm);
    prm.parse_input_from_string("subsection Mesh\n"
                                "  set Type = ball\n"
                                "  set Center = 0, 0, 0.05\n"
                                "  set Radius = 0.05\n"
                                "  set Global refinements = " +
                                std::to_string(level) +
                                "\n"
                                "  set Translation = 0, 0, 2e-6\n"
                                "end\n"
                                "subsection Materials\n"
                                "  set Young's modulus = 210e9\n"
                                "  set Poisson's ratio = 0.3\n"
                                "  set Density = 7800\n"
                                "end\n"
                                "subsection Initial conditions\n"
                                "  set Velocity = 1; 0; -2\n"
                                "end\n"
                                "subsection Linear solver\n"
                                "  set Type = direct\n"
                                "end\n");
    MeshParameters mesh;
    mesh.parse_parameters(prm, dim);
    Body::BodyParameters body_parameters;
    body_parameters.parse_parameters(prm, dim, {});
    LinearSolverParameters solver_parameters;
    solver_parameters.parse_parameters(prm);
    if (solver_parameters.native_cholesky_dof_limit == 0) // as a run resolves it in 3D
      solver_parameters.native_cholesky_dof_limit = 5000;

    auto triangulation = create_triangulation<dim>(comm);
    generate_mesh(mesh, *triangulation);
    Body::ElasticBody<dim> body(body_parameters, mesh.fe_degree, 1.0, *triangulation, comm);
    body.setup();
    const auto &owned = body.locally_owned_dofs();
    const unsigned int n_dofs = body.get_dof_handler().n_dofs();

    // Ŵ = M + h²θ²K as a run builds it.
    TimeIntegration::LinearElastodynamicSystem system;
    system.mass = &body.mass_matrix();
    system.stiffness = &body.stiffness_matrix();
    // The products as a run takes them (K through its block copy: BlockedMatrixProduct).
    system.stiffness_product = std::make_shared<BlockedMatrixProduct>(body.stiffness_matrix(), body.node_block_size());
    const MatHandle W = TimeIntegration::SystemAlgebra::scaled_sum(system, 1.0, h * theta * h * theta);
    IterationMatrixSolver solver(solver_parameters, comm);
    solver.set_matrix(W, n_dofs);

    Vector q(owned, comm), v(owned, comm), mass_v(owned, comm), stiffness_q(owned, comm), stiffness_v(owned, comm),
      stiffness_v_new(owned, comm), rhs(owned, comm), v_new(owned, comm);
    body.initial_conditions(0, q, v);
    system.apply_mass(mass_v, v);
    system.apply_stiffness(stiffness_q, q);
    system.apply_stiffness(stiffness_v, v);

    auto step = [&]() {
      rhs.equ(1.0, mass_v);
      rhs.add(-h, stiffness_q);
      rhs.add(-h * h * theta * (1 - theta), stiffness_v);
      v_new = v;
      solver.solve(rhs, v_new); // Ŵ v_{k+1} = rhs
      q.add(h * (1 - theta), v, h * theta, v_new);
      system.apply_mass(mass_v, v_new);                                          // M v_{k+1}
      system.apply_stiffness(stiffness_v_new, v_new);                            // K v_{k+1}
      stiffness_q.add(h * (1 - theta), stiffness_v, h * theta, stiffness_v_new); // K q_{k+1}
      TimeIntegration::SystemAlgebra::swap_storage(v, v_new);
      TimeIntegration::SystemAlgebra::swap_storage(stiffness_v, stiffness_v_new);
    };
    step(); // warm-up (first solve allocates)
    double best = 1e300;
    for (int block = 0; block < 3; ++block)
      {
        MPI_Barrier(comm);
        const auto start = std::chrono::steady_clock::now();
        for (unsigned int s = 0; s < steps; ++s)
          step();
        MPI_Barrier(comm);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        best = std::min(best, seconds / steps);
      }
    // On every rank (a reduction), then printed by rank 0.
    const double v_max = v.linfty_norm();
    if (dealii::Utilities::MPI::this_mpi_process(comm) == 0)
      std::printf("%-6u %-9u %-12.4g %-10.4g %-9.4g %s\n", level, n_dofs, best, solver.setup_seconds(), v_max,
                  solver.description().c_str());
  }
} // namespace

int main(int argc, char **argv)
{
  dealii::Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  std::vector<unsigned int> levels;
  unsigned int steps = 150;
  for (int i = 1; i < argc; ++i)
    {
      const std::string arg = argv[i];
      if (arg == "--steps")
        {
          if (i + 1 >= argc)
            usage_error("--steps needs a number");
          steps = to_count(argv[++i], 1, 1000000);
        }
      else if (!arg.empty() && arg[0] == '-')
        usage_error("unknown option " + arg);
      else
        levels.push_back(to_count(arg, 0, 6));
    }
  if (levels.empty())
    levels = {2, 3};
  try
    {
      if (dealii::Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0)
        std::printf("%-6s %-9s %-12s %-10s %-9s %s\n", "level", "DoFs", "step [s]", "factor [s]", "|v|max", "solver");
      for (const unsigned int level : levels)
        run_level(level, steps, MPI_COMM_WORLD);
    }
  catch (const std::exception &e)
    {
      std::cerr << "bare_step: " << e.what() << "\n";
      return 1;
    }
  return 0;
}
