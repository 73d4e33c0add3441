#include <percussion/core/exceptions.h>
#include <percussion/core/linear_solver_parameters.h>

#include <array>
#include <utility>

namespace percussion
{
  namespace
  {
    /// The value called @p name in @p table; an InputError naming @p entry for an unknown name.
    template <typename Choice, std::size_t n>
    Choice choice_from_name(const std::array<std::pair<Choice, const char *>, n> &table, const std::string &name,
                            const std::string &entry)
    {
      for (const auto &[value, known_name] : table)
        if (name == known_name)
          return value;
      std::string admissible;
      for (const auto &[value, known_name] : table)
        admissible += (admissible.empty() ? "" : "|") + std::string(known_name);
      throw InputError("Parameter 'Linear solver/" + entry + "': unknown value '" + name +
                       "' (admissible: " + admissible + ").");
    }

    // Every choice with its name in the parameter file: the one place the names are written.
    constexpr std::array<std::pair<LinearSolverType, const char *>, 3> solver_type_names{
      {{LinearSolverType::automatic, "auto"}, {LinearSolverType::direct, "direct"}, {LinearSolverType::cg, "cg"}}};
    constexpr std::array<std::pair<PreconditionerType, const char *>, 5> preconditioner_names{
      {{PreconditionerType::automatic, "auto"},
       {PreconditionerType::jacobi, "jacobi"},
       {PreconditionerType::boomeramg, "boomeramg"},
       {PreconditionerType::gamg, "gamg"},
       {PreconditionerType::ml, "ml"}}};
    constexpr std::array<std::pair<DirectSolverPackage, const char *>, 3> direct_package_names{
      {{DirectSolverPackage::automatic, "auto"},
       {DirectSolverPackage::mumps, "mumps"},
       {DirectSolverPackage::petsc, "petsc"}}};
  } // namespace

  LinearSolverType linear_solver_type_from_name(const std::string &name)
  {
    return choice_from_name(solver_type_names, name, "Type");
  }

  PreconditionerType preconditioner_type_from_name(const std::string &name)
  {
    return choice_from_name(preconditioner_names, name, "Preconditioner");
  }

  std::string preconditioner_type_name(const PreconditionerType type)
  {
    for (const auto &[value, name] : preconditioner_names)
      if (value == type)
        return name;
    return "unknown";
  }

  DirectSolverPackage direct_solver_package_from_name(const std::string &name)
  {
    return choice_from_name(direct_package_names, name, "Direct solver package");
  }

  void LinearSolverParameters::declare_parameters(dealii::ParameterHandler &prm)
  {
    using dealii::Patterns::Double;
    using dealii::Patterns::Integer;
    using dealii::Patterns::Selection;
    prm.enter_subsection("Linear solver");
    prm.declare_entry("Type", "auto", Selection("auto|direct|cg"),
                      "How the iteration matrix W = M + h theta C + h^2 theta^2 K is solved. "
                      "'direct': MUMPS Cholesky factor computed once per step size, one "
                      "forward/backward substitution per solve. 'cg': conjugate gradients with the "
                      "preconditioner below (lean in memory; fast when W is mass-dominated). "
                      "'auto': direct up to 'Direct solver DoF limit' DoFs, cg above.");
    prm.declare_entry("Preconditioner", "auto", Selection("auto|jacobi|boomeramg|gamg|ml"),
                      "Preconditioner of CG: 'jacobi' (diagonal), 'boomeramg' (hypre algebraic "
                      "multigrid, scalar), 'gamg' (PETSc smoothed-aggregation multigrid with the "
                      "elasticity near-null space: the rigid-body modes of the bodies, zero on "
                      "Dirichlet DoFs, and nodal blocks) or 'ml' (Trilinos ML smoothed aggregation "
                      "with the same near-null space and blocks, on a copy of the matrix). 'auto': ml when the Courant "
                      "number "
                      "c h / (node spacing) exceeds 'AMG Courant number', else jacobi (at the CFL "
                      "step the mass-dominated matrix needs about 17 Jacobi-CG iterations, cheaper "
                      "than a multigrid cycle's set-up and smoothing; measurements in "
                      "doc/user_guide.md, 'Linear solver').");
    prm.declare_entry("AMG Courant number", "8", Double(0),
                      "With 'Preconditioner = auto': the Courant number c h / (node spacing), c the "
                      "dilatational wave speed, above which CG uses gamg instead of jacobi "
                      "(measured crossover between 1 and 10, doc/user_guide.md).");
    prm.declare_entry("Tolerance", "1e-12", Double(0, 1), "Relative residual tolerance of CG.");
    prm.declare_entry("Max iterations", "2000", Integer(1),
                      "Iteration limit of CG. A solve that does not converge within it stops the "
                      "run with an error.");
    prm.declare_entry("Direct solver DoF limit", "150000", Integer(1),
                      "With Type = auto: the largest number of DoFs for which the direct solver is "
                      "used.");
    prm.declare_entry("Direct solver package", "auto", Selection("auto|mumps|petsc"),
                      "Which sparse Cholesky factorises W on the direct path. 'mumps': MUMPS (any "
                      "number of MPI ranks). 'petsc': PETSc's own Cholesky with nested-dissection "
                      "ordering (one MPI rank only; a much smaller cost per solve for small models). "
                      "'auto': petsc on one rank up to 'Native Cholesky DoF limit' DoFs, mumps "
                      "otherwise.");
    prm.declare_entry("Native Cholesky DoF limit", "0", Integer(0),
                      "With 'Direct solver package' = auto: the largest number of DoFs for which "
                      "PETSc's own Cholesky is used on one MPI rank. 0: by dimension, 50000 in 1D and "
                      "2D (2-2.6x faster solves than MUMPS, similar factorisation time), 5000 in 3D "
                      "(above, its factorisation is 4-5x slower than MUMPS').");
    prm.leave_subsection();
  }

  void LinearSolverParameters::parse_parameters(dealii::ParameterHandler &prm)
  {
    prm.enter_subsection("Linear solver");
    type = linear_solver_type_from_name(prm.get("Type"));
    preconditioner = preconditioner_type_from_name(prm.get("Preconditioner"));
    amg_courant_number = prm.get_double("AMG Courant number");
    tolerance = prm.get_double("Tolerance");
    max_iterations = prm.get_integer("Max iterations");
    direct_solver_dof_limit = prm.get_integer("Direct solver DoF limit");
    direct_package = direct_solver_package_from_name(prm.get("Direct solver package"));
    native_cholesky_dof_limit = prm.get_integer("Native Cholesky DoF limit");
    prm.leave_subsection();
    if (!(tolerance > 0))
      throw InputError("Parameter 'Linear solver/Tolerance' must be positive.");
  }
} // namespace percussion
