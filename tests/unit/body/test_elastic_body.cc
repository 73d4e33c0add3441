// Requirement: the body layer, percussion::Body::ElasticBody, assembles the
// matrices and loads of M v' + C v + K q = F (paper eq. (1)) correctly, checked on small box
// meshes in 1D (bar of cross-section S), 2D (plane strain) and 3D, with Q1 and Q2 elements,
// against exact integrals and without running a simulation:
//  - consistent mass: 1_cᵀ M 1_d = ρ·volume δ_cd (1D: ρ·length·S), 1_c the unit translation in
//    direction c;
//  - stiffness: K annihilates the rigid translations and (2D/3D) the infinitesimal rotations;
//  - strain energy ½qᵀKq of the uniform uniaxial strain q = ε x e_x equals ½Eε²·volume for ν = 0
//    (also 1D), and ½(λ + 2μ)ε²·volume for ν = 0.3 (plane strain 2D / 3D);
//  - gravity: the components of F sum to mass × g;
//  - traction t(x) on boundary id 1 (x = upper end) sums to ∫t dA over that face, and F vanishes
//    at every DoF off that face;
//  - two boxes with two materials (mesh type `boxes`): each body's mass, the total mass, the
//    strain energy and the gravity load are the sums over the materials;
//  - setup() rejects a material id or a traction boundary id missing from the parameters/mesh;
//  - rigid_body_modes() returns exactly those rigid motions, zero on Dirichlet DoFs.
// Every check is run on 1 and 2 MPI ranks (CMake registers both); all sums are global (PETSc
// dot products and MPI sums), so the expected values do not depend on the partition.
#define BOOST_TEST_MODULE body_elastic_body
#include "../../mpi_test_fixture.h"

#include <deal.II/base/function.h>
#include <deal.II/base/parameter_handler.h>
#include <deal.II/base/tensor.h>
#include <deal.II/base/utilities.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/lac/petsc_vector.h>
#include <deal.II/numerics/vector_tools.h>

#include <percussion/body/body_parameters.h>
#include <percussion/body/elastic_body.h>
#include <percussion/core/exceptions.h>
#include <percussion/core/mesh_generator.h>
#include <percussion/core/mesh_parameters.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using namespace dealii;
using percussion::InputError;
using percussion::MeshParameters;
using percussion::Body::BodyParameters;
using percussion::Body::ElasticBody;

namespace
{
  using PetscVector = PETScWrappers::MPI::Vector;

  // ----- tolerances (measured values are printed with --log_level=message) -----
  // Every expected value below is an exact integral of a polynomial that the assembly's Gauss rule
  // QGauss(p+1) integrates exactly on the affine box cells, and every test field (translations,
  // rotations, x e_x) lies in the Q1/Q2 space. What remains is floating-point round-off in sums of
  // at most ~1e5 matrix entries, i.e. ~1e-16 × (number of terms) in the worst case. Measured on 1
  // and 2 ranks: ≤ 7e-16 for the masses and loads, ≤ 2e-14 for ½qᵀKq (K q cancels to the boundary
  // rows, losing one or two digits) and ≤ 4e-14 for the two-material model. 1e-12 relative keeps
  // more than an order of margin and still fails any wrong factor (ρ, S, ½, λ, quadrature order),
  // which would be an O(1) or O(h²) error.
  const double exact_tolerance = 1e-12;
  // Rigid motions: ‖K r‖ ≤ 1e-10 ‖K‖_F ‖r‖; a strain that is not zero would
  // give ‖K r‖ of the order of ‖K‖‖r‖·h, many orders above.
  const double rigid_tolerance = 1e-10;

  // ----- the test geometry: a box off the origin, [x0, x1] × [y0, y1] × [z0, z1] -----
  const double lower[3] = {0.2, -0.3, 0.1};
  const double upper[3] = {1.4, 0.2, 0.35};
  const double cross_section = 2.5e-3; // 1D bar: S
  const double youngs_modulus = 3.7e4;
  const double density = 2.3;
  const double gravity[3] = {0.7, -9.81, 1.3};

  template <int dim>
  std::string subdivisions()
  {
    return dim == 1 ? "6" : dim == 2 ? "4, 2" : "3, 2, 2";
  }

  /// Volume of the box (1D: length × S).
  template <int dim>
  double box_volume()
  {
    double v = dim == 1 ? cross_section : 1.0;
    for (unsigned int d = 0; d < dim; ++d)
      v *= upper[d] - lower[d];
    return v;
  }

  /// Area of the face x = x1 (1D: S; 2D: the height, per unit thickness).
  template <int dim>
  double end_face_area()
  {
    double a = dim == 1 ? cross_section : 1.0;
    for (unsigned int d = 1; d < dim; ++d)
      a *= upper[d] - lower[d];
    return a;
  }

  std::string numbers(const double *values, const unsigned int n)
  {
    std::ostringstream s;
    s.precision(17);
    for (unsigned int i = 0; i < n; ++i)
      s << (i ? ", " : "") << values[i];
    return s.str();
  }

  /// The parameters, mesh and body of one test; the body refers to the parameters and the mesh.
  template <int dim>
  struct Model
  {
    MeshParameters mesh;
    BodyParameters parameters;
    std::unique_ptr<Triangulation<dim>> triangulation;
    std::unique_ptr<ElasticBody<dim>> body;
  };

  /// Parses `subsection Mesh` and the body subsections from @p text, builds the mesh and sets up the body.
  template <int dim>
  std::unique_ptr<Model<dim>> make_model(const std::string &text)
  {
    ParameterHandler prm;
    MeshParameters::declare_parameters(prm);
    BodyParameters::declare_parameters(prm);
    prm.parse_input_from_string(text);
    auto model = std::make_unique<Model<dim>>();
    model->mesh.parse_parameters(prm, dim);
    model->parameters.parse_parameters(prm, dim, {});
    model->triangulation = percussion::create_triangulation<dim>(MPI_COMM_WORLD);
    percussion::generate_mesh(model->mesh, *model->triangulation);
    model->body =
      std::make_unique<ElasticBody<dim>>(model->parameters, model->mesh.fe_degree, model->mesh.cross_section_area,
                                         *model->triangulation, MPI_COMM_WORLD);
    model->body->setup();
    return model;
  }

  /// The test box with Q@p degree, Poisson's ratio @p nu and @p loads (a `subsection Loads`, or "").
  template <int dim>
  std::unique_ptr<Model<dim>> box_model(const unsigned int degree, const double nu = 0.0, const std::string &loads = "")
  {
    std::ostringstream text;
    text.precision(17);
    text << "subsection Mesh\n  set Type = box\n  set Lower corner = " << numbers(lower, 3)
         << "\n  set Upper corner = " << numbers(upper, 3) << "\n  set Subdivisions = " << subdivisions<dim>()
         << "\n  set Cross section area = " << cross_section << "\n  set Finite element degree = " << degree
         << "\nend\nsubsection Materials\n  set Young's modulus = " << youngs_modulus
         << "\n  set Poisson's ratio = " << nu << "\n  set Density = " << density << "\nend\n"
         << loads;
    return make_model<dim>(text.str());
  }

  /// u(x) = A x + b, the fields of the tests (all in the Q1 space on affine cells).
  template <int dim>
  class AffineField : public Function<dim>
  {
  public:
    AffineField(const Tensor<2, dim> &A, const Tensor<1, dim> &b)
      : Function<dim>(dim)
      , A(A)
      , b(b)
    {
    }
    double value(const Point<dim> &p, const unsigned int component) const override
    {
      return (A * p)[component] + b[component];
    }

  private:
    Tensor<2, dim> A;
    Tensor<1, dim> b;
  };

  template <int dim>
  PetscVector interpolate(const ElasticBody<dim> &body, const Tensor<2, dim> &A, const Tensor<1, dim> &b)
  {
    PetscVector v(body.locally_owned_dofs(), MPI_COMM_WORLD);
    VectorTools::interpolate(body.get_dof_handler(), AffineField<dim>(A, b), v);
    return v;
  }

  /// The unit translation in direction @p c: 1 on the DoFs of component c, 0 elsewhere.
  template <int dim>
  PetscVector translation(const ElasticBody<dim> &body, const unsigned int c)
  {
    Tensor<1, dim> e;
    e[c] = 1;
    return interpolate(body, Tensor<2, dim>(), e);
  }

  /// The uniaxial strain q = ε x e_x.
  template <int dim>
  PetscVector uniaxial_strain(const ElasticBody<dim> &body, const double epsilon)
  {
    Tensor<2, dim> A;
    A[0][0] = epsilon;
    return interpolate(body, A, Tensor<1, dim>());
  }

  double relative_error(const double computed, const double exact)
  {
    return std::abs(computed - exact) / std::abs(exact);
  }

  template <int dim>
  std::string label(const unsigned int degree)
  {
    return std::to_string(dim) + "D Q" + std::to_string(degree);
  }

  // ----- the checks, per dimension and degree -----

  template <int dim>
  void check_mass(const unsigned int degree)
  {
    const auto model = box_model<dim>(degree);
    const auto &M = model->body->mass_matrix();
    const double mass = density * box_volume<dim>();
    double worst = 0;
    for (unsigned int c = 0; c < dim; ++c)
      for (unsigned int d = 0; d < dim; ++d)
        {
          const double m_cd = M.matrix_scalar_product(translation(*model->body, c), translation(*model->body, d));
          if (c == d)
            {
              const double error = relative_error(m_cd, mass);
              worst = std::max(worst, error);
              BOOST_TEST(error <= exact_tolerance,
                         label<dim>(degree) << ": 1ᵀM1 in component " << c << " = " << m_cd << ", ρV = " << mass);
            }
          else // the components do not couple through M: the products are exactly 0
            BOOST_TEST(m_cd == 0.0, label<dim>(degree) << ": 1_" << c << "ᵀ M 1_" << d << " = " << m_cd);
        }
    BOOST_TEST_MESSAGE(label<dim>(degree) << " mass: " << model->body->get_dof_handler().n_dofs()
                                          << " DoFs, largest relative error " << worst);
  }

  template <int dim>
  void check_rigid_motions(const unsigned int degree)
  {
    const auto model = box_model<dim>(degree, 0.3);
    const auto &K = model->body->stiffness_matrix();
    const double norm_K = K.frobenius_norm();
    BOOST_TEST(norm_K > 0.0);

    std::vector<std::pair<std::string, PetscVector>> motions;
    for (unsigned int c = 0; c < dim; ++c)
      motions.emplace_back("translation " + std::to_string(c), translation(*model->body, c));
    // Infinitesimal rotations r = e_k × x about the coordinate axes (only about z in 2D).
    for (unsigned int k = (dim == 3 ? 0 : 2); k < (dim == 1 ? 0 : 3); ++k)
      {
        Tensor<2, dim> W; // W x = e_k × x
        const unsigned int i = (k + 1) % 3, j = (k + 2) % 3;
        W[j][i] = 1;  // (e_k × x)_j = x_i
        W[i][j] = -1; // (e_k × x)_i = −x_j
        motions.emplace_back("rotation about axis " + std::to_string(k),
                             interpolate(*model->body, W, Tensor<1, dim>()));
      }

    PetscVector Kr(model->body->locally_owned_dofs(), MPI_COMM_WORLD);
    double worst = 0;
    for (const auto &[name, r] : motions)
      {
        K.vmult(Kr, r);
        const double ratio = Kr.l2_norm() / (norm_K * r.l2_norm());
        worst = std::max(worst, ratio);
        BOOST_TEST(ratio <= rigid_tolerance, label<dim>(degree)
                                               << ": ‖K r‖/(‖K‖‖r‖) = " << ratio << " for the " << name);
      }
    BOOST_TEST_MESSAGE(label<dim>(degree)
                       << " rigid motions (" << motions.size() << "): largest ‖K r‖/(‖K‖_F‖r‖) = " << worst);
  }

  template <int dim>
  void check_uniaxial_strain_energy(const unsigned int degree, const double nu)
  {
    const auto model = box_model<dim>(degree, nu);
    const double epsilon = 1e-3;
    const PetscVector q = uniaxial_strain(*model->body, epsilon);
    const double energy = 0.5 * model->body->stiffness_matrix().matrix_scalar_product(q, q);
    // 1D: σ = Eε. 2D plane strain and 3D: σ_xx = (λ + 2μ)ε, which is E for ν = 0.
    const auto &m = model->body->material(0);
    const double modulus = dim == 1 ? youngs_modulus : m.lame_lambda() + 2 * m.lame_mu();
    if (nu == 0.0)
      BOOST_TEST(modulus == youngs_modulus);
    const double exact = 0.5 * modulus * epsilon * epsilon * box_volume<dim>();
    const double error = relative_error(energy, exact);
    BOOST_TEST(error <= exact_tolerance, label<dim>(degree)
                                           << ", ν = " << nu << ": ½qᵀKq = " << energy << ", exact " << exact);
    BOOST_TEST_MESSAGE(label<dim>(degree) << " ν = " << nu << " uniaxial strain energy: relative error " << error);
  }

  template <int dim>
  void check_gravity(const unsigned int degree)
  {
    const auto model =
      box_model<dim>(degree, 0.3, "subsection Loads\n  set Gravity = " + numbers(gravity, 3) + "\nend\n");
    BOOST_TEST(model->body->has_external_force());
    BOOST_TEST(!model->body->external_force_depends_on_time());
    PetscVector force(model->body->locally_owned_dofs(), MPI_COMM_WORLD);
    model->body->assemble_external_force(0.25, force);
    const double mass = density * box_volume<dim>();
    double g_norm = 0;
    for (unsigned int c = 0; c < dim; ++c)
      g_norm += gravity[c] * gravity[c];
    g_norm = std::sqrt(g_norm);
    double worst = 0;
    for (unsigned int c = 0; c < dim; ++c)
      {
        const double sum = translation(*model->body, c) * force;
        // Relative to mass·|g|: a zero-free comparison for every component.
        const double error = std::abs(sum - mass * gravity[c]) / (mass * g_norm);
        worst = std::max(worst, error);
        BOOST_TEST(error <= exact_tolerance,
                   label<dim>(degree) << ": Σ F_" << c << " = " << sum << ", m g_" << c << " = " << mass * gravity[c]);
      }
    BOOST_TEST_MESSAGE(label<dim>(degree) << " gravity: largest error / (m|g|) " << worst);
  }

  template <int dim>
  void check_traction(const unsigned int degree)
  {
    // t = (1.5, 2 + 3y, −0.5z) (first dim components) on x = x1; ∫t dA = A (1.5, 2 + 3ȳ, −0.5z̄).
    const std::string expression = dim == 1 ? "1.5" : dim == 2 ? "1.5; 2 + 3*y" : "1.5; 2 + 3*y; -0.5*z";
    const auto model =
      box_model<dim>(degree, 0.3,
                     "subsection Loads\n  set Traction boundary ids = 1\n  set Traction = " + expression + "\nend\n");
    BOOST_TEST(model->body->has_external_force());
    BOOST_TEST(!model->body->external_force_depends_on_time());
    PetscVector force(model->body->locally_owned_dofs(), MPI_COMM_WORLD);
    model->body->assemble_external_force(0.0, force);

    const double area = end_face_area<dim>();
    const double mean_y = 0.5 * (lower[1] + upper[1]), mean_z = 0.5 * (lower[2] + upper[2]);
    const double exact[3] = {1.5 * area, (2 + 3 * mean_y) * area, -0.5 * mean_z * area};
    double scale = 0;
    for (unsigned int c = 0; c < dim; ++c)
      scale = std::max(scale, std::abs(exact[c]));
    double worst = 0;
    for (unsigned int c = 0; c < dim; ++c)
      {
        const double sum = translation(*model->body, c) * force;
        const double error = std::abs(sum - exact[c]) / scale;
        worst = std::max(worst, error);
        BOOST_TEST(error <= exact_tolerance,
                   label<dim>(degree) << ": Σ F_" << c << " = " << sum << ", ∫t_" << c << " dA = " << exact[c]);
      }

    // No load at the DoFs off the loaded face (exactly 0: nothing is added there).
    const IndexSet face_dofs = DoFTools::extract_boundary_dofs(model->body->get_dof_handler(), ComponentMask(), {1});
    double off_face = 0;
    for (const auto i : model->body->locally_owned_dofs())
      if (!face_dofs.is_element(i))
        off_face = std::max(off_face, std::abs(force(i)));
    off_face = Utilities::MPI::max(off_face, MPI_COMM_WORLD);
    BOOST_TEST(off_face == 0.0, label<dim>(degree) << ": largest |F_i| off the loaded face = " << off_face);
    BOOST_TEST_MESSAGE(label<dim>(degree) << " traction: largest error / max|∫t dA| " << worst);
  }

  // ----- two bodies with two materials (mesh type `boxes`) -----

  template <int dim>
  void check_two_materials()
  {
    // Box 0 (material id 0) and box 1 (material id 1), disjoint; 2 × 2 (× 2) cells each.
    const double box_lower[2][3] = {{0, 0, 0}, {1.5, -0.1, 0.05}};
    const double box_upper[2][3] = {{1, 0.5, 0.25}, {2.25, 0.3, 0.35}};
    const double rho[2] = {2.3, 7.8}, E[2] = {3.7e4, 1.1e5};
    double volume[2];
    std::ostringstream boxes;
    boxes.precision(17);
    for (unsigned int b = 0; b < 2; ++b)
      {
        volume[b] = 1;
        for (unsigned int d = 0; d < dim; ++d)
          volume[b] *= box_upper[b][d] - box_lower[b][d];
        boxes << (b ? "; " : "") << numbers(box_lower[b], dim) << " : " << numbers(box_upper[b], dim);
      }
    std::ostringstream text;
    text.precision(17);
    text << "subsection Mesh\n  set Type = boxes\n  set Boxes = " << boxes.str()
         << "\n  set Subdivisions = 2\n  set Finite element degree = 2\nend\n"
         << "subsection Materials\n  set Material ids = 0, 1\n  set Young's modulus = " << E[0] << ", " << E[1]
         << "\n  set Poisson's ratio = 0\n  set Density = " << rho[0] << ", " << rho[1] << "\nend\n"
         << "subsection Loads\n  set Gravity = " << numbers(gravity, 3) << "\nend\n";
    const auto model = make_model<dim>(text.str());
    const auto &body = *model->body;
    const auto &M = body.mass_matrix();
    const double total_mass = rho[0] * volume[0] + rho[1] * volume[1];

    // The unit translation of body b alone, in direction c: 1 on the component-c DoFs of its cells
    // (the boxes share no vertices, so no DoF belongs to both).
    auto body_translation = [&](const unsigned int b, const unsigned int c) {
      PetscVector r(body.locally_owned_dofs(), MPI_COMM_WORLD);
      std::vector<types::global_dof_index> dofs(body.get_fe().n_dofs_per_cell());
      for (const auto &cell : body.get_dof_handler().active_cell_iterators())
        if (cell->is_locally_owned() && cell->material_id() == b)
          {
            cell->get_dof_indices(dofs);
            for (unsigned int i = 0; i < dofs.size(); ++i)
              if (body.get_fe().system_to_component_index(i).first == c &&
                  body.locally_owned_dofs().is_element(dofs[i]))
                r(dofs[i]) = 1.0;
          }
      r.compress(VectorOperation::insert);
      return r;
    };

    double worst = 0;
    for (unsigned int c = 0; c < dim; ++c)
      {
        const double m = M.matrix_scalar_product(translation(body, c), translation(body, c));
        double error = relative_error(m, total_mass);
        worst = std::max(worst, error);
        BOOST_TEST(error <= exact_tolerance, dim << "D two materials: 1ᵀM1 = " << m << ", Σ ρ_b V_b = " << total_mass);
        for (unsigned int b = 0; b < 2; ++b)
          {
            const PetscVector r = body_translation(b, c);
            const double m_b = M.matrix_scalar_product(r, r);
            error = relative_error(m_b, rho[b] * volume[b]);
            worst = std::max(worst, error);
            BOOST_TEST(error <= exact_tolerance,
                       dim << "D body " << b << ": mass " << m_b << ", ρ V = " << rho[b] * volume[b]);
          }
      }

    // ν = 0: ½qᵀKq = ½ε²(E_0 V_0 + E_1 V_1) for q = ε x e_x (uniform strain in both bodies).
    const double epsilon = 2e-3;
    const PetscVector q = uniaxial_strain(body, epsilon);
    const double energy = 0.5 * body.stiffness_matrix().matrix_scalar_product(q, q);
    const double exact_energy = 0.5 * epsilon * epsilon * (E[0] * volume[0] + E[1] * volume[1]);
    double error = relative_error(energy, exact_energy);
    worst = std::max(worst, error);
    BOOST_TEST(error <= exact_tolerance, dim << "D two materials: ½qᵀKq = " << energy << ", exact " << exact_energy);

    PetscVector force(body.locally_owned_dofs(), MPI_COMM_WORLD);
    body.assemble_external_force(0.0, force);
    double g_norm = 0;
    for (unsigned int c = 0; c < dim; ++c)
      g_norm += gravity[c] * gravity[c];
    g_norm = std::sqrt(g_norm);
    for (unsigned int c = 0; c < dim; ++c)
      {
        const double sum = translation(body, c) * force;
        error = std::abs(sum - total_mass * gravity[c]) / (total_mass * g_norm);
        worst = std::max(worst, error);
        BOOST_TEST(error <= exact_tolerance, dim << "D two materials: Σ F_" << c << " = " << sum << ", m g_" << c
                                                 << " = " << total_mass * gravity[c]);
      }
    BOOST_TEST_MESSAGE(dim << "D two materials (Q2): largest relative error " << worst);
  }
} // namespace

BOOST_AUTO_TEST_CASE(consistent_mass_integrates_the_density)
{
  for (const unsigned int degree : {1u, 2u})
    {
      check_mass<1>(degree);
      check_mass<2>(degree);
      check_mass<3>(degree);
    }
}

BOOST_AUTO_TEST_CASE(stiffness_annihilates_rigid_motions)
{
  for (const unsigned int degree : {1u, 2u})
    {
      check_rigid_motions<1>(degree);
      check_rigid_motions<2>(degree);
      check_rigid_motions<3>(degree);
    }
}

// ElasticBody::rigid_body_modes() (the near-null space of the CG path's 'gamg' preconditioner):
// the translations and rotations about the coordinate axes, equal to the interpolated rigid motions
// of check_rigid_motions() to round-off, and zero on the DoFs of a fixed boundary.
template <int dim>
void check_rigid_body_modes(const unsigned int degree)
{
  const auto model = box_model<dim>(degree, 0.3);
  const auto modes = model->body->rigid_body_modes();
  BOOST_TEST(modes.size() == (dim == 2 ? 3u : 6u));
  std::vector<PetscVector> expected;
  for (unsigned int c = 0; c < dim; ++c)
    expected.push_back(translation(*model->body, c));
  // The order of the modes: in 2D the rotation about z; in 3D about z, x, y.
  for (const unsigned int k : (dim == 2 ? std::vector<unsigned int>{2} : std::vector<unsigned int>{2, 0, 1}))
    {
      Tensor<2, dim> W;
      const unsigned int i = (k + 1) % 3, j = (k + 2) % 3;
      W[j][i] = 1;
      W[i][j] = -1;
      expected.push_back(interpolate(*model->body, W, Tensor<1, dim>()));
    }
  for (unsigned int m = 0; m < modes.size(); ++m)
    {
      PetscVector difference = modes[m];
      difference -= expected[m];
      BOOST_TEST(difference.l2_norm() <= exact_tolerance * expected[m].l2_norm(),
                 label<dim>(degree) << ": rigid-body mode " << m << " differs by " << difference.l2_norm());
    }
  // With a fixed face the modes vanish on its DoFs (and only there).
  const auto fixed =
    make_model<dim>("subsection Mesh\n  set Type = box\n  set Subdivisions = " + subdivisions<dim>() +
                    "\n  set Finite element degree = " + std::to_string(degree) +
                    "\nend\nsubsection Materials\n  set Young's modulus = 1\n  set Poisson's ratio = 0.3\n"
                    "  set Density = 1\nend\nsubsection Boundary conditions\n  set Fixed boundary ids = 0\nend\n");
  const auto constrained_modes = fixed->body->rigid_body_modes();
  const auto &constrained = fixed->body->constrained_dofs();
  double largest = 0;
  for (const auto &mode : constrained_modes)
    for (const auto dof : constrained)
      largest = std::max(largest, std::abs(mode(dof)));
  BOOST_TEST(largest == 0.0);
  BOOST_TEST(constrained_modes[0].l2_norm() > 0.0);
}

BOOST_AUTO_TEST_CASE(rigid_body_modes_are_the_rigid_motions)
{
  for (const unsigned int degree : {1u, 2u})
    {
      check_rigid_body_modes<2>(degree);
      check_rigid_body_modes<3>(degree);
    }
}

BOOST_AUTO_TEST_CASE(strain_energy_of_a_uniform_uniaxial_strain)
{
  for (const unsigned int degree : {1u, 2u})
    {
      check_uniaxial_strain_energy<1>(degree, 0.0);
      for (const double nu : {0.0, 0.3})
        {
          check_uniaxial_strain_energy<2>(degree, nu);
          check_uniaxial_strain_energy<3>(degree, nu);
        }
    }
}

BOOST_AUTO_TEST_CASE(gravity_load_sums_to_mass_times_g)
{
  for (const unsigned int degree : {1u, 2u})
    {
      check_gravity<1>(degree);
      check_gravity<2>(degree);
      check_gravity<3>(degree);
    }
}

BOOST_AUTO_TEST_CASE(traction_load_sums_to_the_face_integral)
{
  for (const unsigned int degree : {1u, 2u})
    {
      check_traction<1>(degree);
      check_traction<2>(degree);
      check_traction<3>(degree);
    }
}

BOOST_AUTO_TEST_CASE(two_materials_by_material_id)
{
  check_two_materials<2>();
  check_two_materials<3>();
}

BOOST_AUTO_TEST_CASE(setup_rejects_ids_missing_from_parameters_or_mesh)
{
  // Two boxes (material ids 0 and 1) but only material 0 described.
  const std::string two_boxes = "subsection Mesh\n  set Type = boxes\n  set Boxes = 0,0 : 1,1; 2,0 : 3,1\nend\n";
  BOOST_CHECK_THROW(make_model<2>(two_boxes), InputError);
  // Boundary id 7 does not exist on a box (ids 0–3 in 2D).
  const std::string traction_on_7 = "subsection Loads\n  set Traction boundary ids = 7\n  set Traction = 1; 0\nend\n";
  BOOST_CHECK_THROW(make_model<2>(traction_on_7), InputError);
  // The same with id 3 (y = y1) exists and is accepted.
  BOOST_CHECK_NO_THROW(
    make_model<2>("subsection Loads\n  set Traction boundary ids = 3\n  set Traction = 1; 0\nend\n"));
}
