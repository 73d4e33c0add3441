#include <deal.II/base/quadrature_lib.h>
#include <deal.II/base/utilities.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/lac/dynamic_sparsity_pattern.h>
#include <deal.II/lac/sparsity_tools.h>
#include <deal.II/numerics/vector_tools.h>

#include <percussion/body/elastic_body.h>
#include <percussion/core/connected_bodies.h>
#include <percussion/core/exceptions.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

namespace percussion::Body
{
  using namespace dealii;

  template <int dim>
  ElasticBody<dim>::ElasticBody(const BodyParameters &parameters, const unsigned int fe_degree,
                                const double cross_section_area, Triangulation<dim> &triangulation,
                                MPI_Comm communicator)
    : parameters(parameters)
    , thickness_factor(dim == 1 ? cross_section_area : 1.0)
    , triangulation(triangulation)
    , communicator(communicator)
    , fe(FE_Q<dim>(fe_degree), dim)
    , dof_handler(triangulation)
  {
    const auto &c = parameters.function_constants;
    body_force = make_function<dim>(parameters.body_force, dim, c);
    traction = make_function<dim>(parameters.traction, dim, c);
    prescribed = make_function<dim>(parameters.prescribed_displacement, dim, c);
    initial_q = make_function<dim>(parameters.initial_displacement, dim, c);
    initial_v = make_function<dim>(parameters.initial_velocity, dim, c);

    bool gravity_nonzero = false;
    for (const double g : parameters.gravity)
      gravity_nonzero = gravity_nonzero || g != 0.0;
    const bool has_traction = !parameters.traction_boundary_ids.empty() && !is_zero(parameters.traction);
    has_force = gravity_nonzero || !is_zero(parameters.body_force) || has_traction;
    force_depends_on_time =
      depends_on_time(parameters.body_force) || (has_traction && depends_on_time(parameters.traction));
  }

  template <int dim>
  void ElasticBody<dim>::check_mesh_ids() const
  {
    std::set<types::material_id> local_ids;
    for (const auto &cell : triangulation.active_cell_iterators())
      if (cell->is_locally_owned())
        local_ids.insert(cell->material_id());
    std::vector<unsigned int> ids(local_ids.begin(), local_ids.end());
    for (const auto &rank_ids : Utilities::MPI::all_gather(communicator, ids))
      for (const unsigned int id : rank_ids)
        if (parameters.materials.count(id) == 0)
          throw InputError("The mesh has cells with material id " + std::to_string(id) +
                           " but 'Materials/Material ids' does not list it.");

    // Boundary ids of the coarse mesh are known on every rank (p4est keeps the coarse mesh whole).
    const std::vector<types::boundary_id> existing = triangulation.get_boundary_ids();
    auto require = [&](const unsigned int id, const std::string &entry) {
      if (std::find(existing.begin(), existing.end(), id) == existing.end())
        {
          std::string list;
          for (const auto b : existing)
            list += (list.empty() ? "" : ", ") + std::to_string(b);
          throw InputError("Parameter '" + entry + "': boundary id " + std::to_string(id) +
                           " does not exist in the mesh (its boundary ids are " + list + ").");
        }
    };
    for (const auto &b : parameters.fixed_boundaries)
      require(b.boundary_id, "Boundary conditions/Fixed boundary ids");
    for (const auto &b : parameters.prescribed_boundaries)
      require(b.boundary_id, "Boundary conditions/Prescribed displacement boundary ids");
    for (const auto id : parameters.traction_boundary_ids)
      require(id, "Loads/Traction boundary ids");
  }

  template <int dim>
  void ElasticBody<dim>::setup()
  {
    check_mesh_ids();
    dof_handler.distribute_dofs(fe);
    owned_dofs = dof_handler.locally_owned_dofs();
    DoFTools::extract_locally_relevant_dofs(dof_handler, relevant_dofs);

    DynamicSparsityPattern dsp(relevant_dofs);
    DoFTools::make_sparsity_pattern(dof_handler, dsp);
    SparsityTools::distribute_sparsity_pattern(dsp, owned_dofs, communicator, relevant_dofs);
    stiffness.reinit(owned_dofs, owned_dofs, dsp, communicator);
    // M couples each displacement component with itself only: its own pattern has 1/dim of K's
    // entries, and a mass mat-vec (two per step) reads 1/dim of the memory (the assembly below
    // leaves the exact zeros between components out).
    Table<2, DoFTools::Coupling> same_component(dim, dim);
    for (unsigned int c = 0; c < dim; ++c)
      for (unsigned int d = 0; d < dim; ++d)
        same_component(c, d) = c == d ? DoFTools::always : DoFTools::none;
    DynamicSparsityPattern mass_dsp(relevant_dofs);
    DoFTools::make_sparsity_pattern(dof_handler, same_component, mass_dsp);
    SparsityTools::distribute_sparsity_pattern(mass_dsp, owned_dofs, communicator, relevant_dofs);
    mass.reinit(owned_dofs, owned_dofs, mass_dsp, communicator);
    // The viscous operators have the sparsity of K (a subset of it where a material is absent).
    has_kelvin_voigt = parameters.has_kelvin_voigt();
    if (has_kelvin_voigt)
      kelvin_voigt.reinit(owned_dofs, owned_dofs, dsp, communicator);
    branches.clear();
    for (const auto &[id, m] : parameters.materials)
      for (unsigned int i = 0; i < m.prony_moduli.size(); ++i)
        {
          branches.push_back(std::make_unique<MaxwellBranch>());
          auto &branch = *branches.back();
          branch.material_id = id;
          branch.term = i;
          branch.modulus = m.prony_moduli[i];
          branch.relaxation_time = m.prony_times[i];
          branch.stiffness.reinit(owned_dofs, owned_dofs, dsp, communicator);
        }

    assemble_mass_and_stiffness();
    collect_constrained_dofs();
  }

  template <int dim>
  void ElasticBody<dim>::assemble_mass_and_stiffness()
  {
    const QGauss<dim> quadrature(fe.degree + 1);
    FEValues<dim> fe_values(mapping, fe, quadrature, update_values | update_gradients | update_JxW_values);
    const FEValuesExtractors::Vector displacement(0);
    const unsigned int n = fe.n_dofs_per_cell();
    FullMatrix<double> cell_mass(n, n), cell_stiffness(n, n), cell_scaled(n, n);
    std::vector<types::global_dof_index> dof_indices(n);
    std::vector<SymmetricTensor<2, dim>> strain(n);
    std::vector<double> divergence(n);
    std::vector<Tensor<1, dim>> value(n);

    for (const auto &cell : dof_handler.active_cell_iterators())
      {
        if (!cell->is_locally_owned())
          continue;
        fe_values.reinit(cell);
        const Material &m = parameters.materials.at(cell->material_id());
        const double lambda = m.lame_lambda(), mu = m.lame_mu();
        cell_mass = 0;
        cell_stiffness = 0;
        for (const unsigned int q : fe_values.quadrature_point_indices())
          {
            const double JxW = fe_values.JxW(q) * thickness_factor;
            for (unsigned int i = 0; i < n; ++i)
              {
                value[i] = fe_values[displacement].value(i, q);
                strain[i] = fe_values[displacement].symmetric_gradient(i, q);
                divergence[i] = fe_values[displacement].divergence(i, q);
              }
            for (unsigned int i = 0; i < n; ++i)
              for (unsigned int j = 0; j <= i; ++j)
                {
                  cell_mass(i, j) += m.density * (value[i] * value[j]) * JxW;
                  // 1D is a bar in uniaxial stress (sigma = E eps); 2D plane strain, 3D full.
                  const double elastic = dim == 1
                                           ? m.youngs_modulus * strain[i][0][0] * strain[j][0][0]
                                           : lambda * divergence[i] * divergence[j] + 2 * mu * (strain[i] * strain[j]);
                  cell_stiffness(i, j) += elastic * JxW;
                }
          }
        for (unsigned int i = 0; i < n; ++i)
          for (unsigned int j = 0; j < i; ++j)
            {
              cell_mass(j, i) = cell_mass(i, j);
              cell_stiffness(j, i) = cell_stiffness(i, j);
            }
        cell->get_dof_indices(dof_indices);
        mass.add(dof_indices, cell_mass);
        stiffness.add(dof_indices, cell_stiffness);
        // The viscous operators are the elastic one of the cell, scaled: τ_KV K_m and (Eᵢ/E∞) K_m.
        if (m.kelvin_voigt_time > 0)
          {
            cell_scaled.equ(m.kelvin_voigt_time, cell_stiffness);
            kelvin_voigt.add(dof_indices, cell_scaled);
          }
        for (auto &branch : branches)
          if (branch->material_id == cell->material_id())
            {
              cell_scaled.equ(branch->modulus / m.youngs_modulus, cell_stiffness);
              branch->stiffness.add(dof_indices, cell_scaled);
            }
      }
    mass.compress(VectorOperation::add);
    stiffness.compress(VectorOperation::add);
    if (has_kelvin_voigt)
      kelvin_voigt.compress(VectorOperation::add);
    for (auto &branch : branches)
      branch->stiffness.compress(VectorOperation::add);
  }

  template <int dim>
  void ElasticBody<dim>::assemble_external_force(const double time, PETScWrappers::MPI::Vector &force) const
  {
    force = 0;
    if (!has_force)
      return;
    const unsigned int n = fe.n_dofs_per_cell();
    Vector<double> cell_force(n);
    std::vector<types::global_dof_index> dof_indices(n);
    Vector<double> b(dim);

    const bool volume_load =
      !is_zero(parameters.body_force) ||
      std::any_of(parameters.gravity.begin(), parameters.gravity.end(), [](const double g) { return g != 0.0; });
    const QGauss<dim> quadrature(fe.degree + 1);
    const QGauss<dim - 1> face_quadrature(fe.degree + 1);
    FEValues<dim> fe_values(mapping, fe, quadrature, update_values | update_quadrature_points | update_JxW_values);
    FEFaceValues<dim> fe_face_values(mapping, fe, face_quadrature,
                                     update_values | update_quadrature_points | update_JxW_values);
    body_force->set_time(time);
    traction->set_time(time);
    const std::set<types::boundary_id> traction_ids(parameters.traction_boundary_ids.begin(),
                                                    parameters.traction_boundary_ids.end());

    for (const auto &cell : dof_handler.active_cell_iterators())
      {
        if (!cell->is_locally_owned())
          continue;
        cell_force = 0;
        bool touched = false;
        if (volume_load)
          {
            touched = true;
            fe_values.reinit(cell);
            const double rho = parameters.materials.at(cell->material_id()).density;
            for (const unsigned int q : fe_values.quadrature_point_indices())
              {
                body_force->vector_value(fe_values.quadrature_point(q), b);
                for (unsigned int i = 0; i < n; ++i)
                  {
                    const unsigned int c = fe.system_to_component_index(i).first;
                    cell_force(i) += (rho * parameters.gravity[c] + b(c)) * fe_values.shape_value(i, q) *
                                     fe_values.JxW(q) * thickness_factor;
                  }
              }
          }
        if (!traction_ids.empty() && cell->at_boundary())
          for (const unsigned int f : cell->face_indices())
            if (cell->face(f)->at_boundary() && traction_ids.count(cell->face(f)->boundary_id()))
              {
                touched = true;
                fe_face_values.reinit(cell, f);
                for (const unsigned int q : fe_face_values.quadrature_point_indices())
                  {
                    traction->vector_value(fe_face_values.quadrature_point(q), b);
                    for (unsigned int i = 0; i < n; ++i)
                      {
                        const unsigned int c = fe.system_to_component_index(i).first;
                        cell_force(i) +=
                          b(c) * fe_face_values.shape_value(i, q) * fe_face_values.JxW(q) * thickness_factor;
                      }
                  }
              }
        if (touched)
          {
            cell->get_dof_indices(dof_indices);
            force.add(dof_indices, cell_force);
          }
      }
    force.compress(VectorOperation::add);
  }

  template <int dim>
  void ElasticBody<dim>::collect_constrained_dofs()
  {
    // Later entries win: a DoF that is both fixed and prescribed follows the prescribed motion.
    std::map<types::global_dof_index, bool> is_prescribed;
    auto collect = [&](const std::vector<ConstrainedBoundary> &boundaries, const bool prescribed_flag) {
      for (const auto &b : boundaries)
        {
          const IndexSet dofs = DoFTools::extract_boundary_dofs(dof_handler, ComponentMask(b.components),
                                                                {static_cast<types::boundary_id>(b.boundary_id)});
          for (const auto dof : dofs)
            if (owned_dofs.is_element(dof))
              is_prescribed[dof] = prescribed_flag;
        }
    };
    collect(parameters.fixed_boundaries, false);
    collect(parameters.prescribed_boundaries, true);

    constrained.clear();
    prescribed_entries.clear();
    for (const auto &[dof, flag] : is_prescribed)
      {
        if (flag)
          prescribed_entries.push_back(constrained.size());
        constrained.push_back(dof);
      }
    const bool local_motion = !prescribed_entries.empty() && !is_zero(parameters.prescribed_displacement);
    prescribed_motion = Utilities::MPI::logical_or(local_motion, communicator);

    prescribed_support_points.clear();
    prescribed_components.clear();
    if (!prescribed_entries.empty())
      {
        std::map<types::global_dof_index, Point<dim>> points;
        DoFTools::map_dofs_to_support_points(mapping, dof_handler, points);
        std::vector<IndexSet> component_dofs(dim);
        for (unsigned int d = 0; d < dim; ++d)
          {
            std::vector<bool> mask(dim, false);
            mask[d] = true;
            component_dofs[d] = DoFTools::extract_dofs(dof_handler, ComponentMask(mask));
          }
        for (const std::size_t entry : prescribed_entries)
          {
            const auto dof = constrained[entry];
            prescribed_support_points.push_back(points.at(dof));
            unsigned int component = 0;
            while (!component_dofs[component].is_element(dof))
              ++component;
            prescribed_components.push_back(component);
          }
      }
  }

  template <int dim>
  void ElasticBody<dim>::prescribed_displacement(const double time, std::vector<double> &values) const
  {
    values.assign(constrained.size(), 0.0);
    prescribed->set_time(time);
    for (std::size_t i = 0; i < prescribed_entries.size(); ++i)
      values[prescribed_entries[i]] = prescribed->value(prescribed_support_points[i], prescribed_components[i]);
  }

  template <int dim>
  void ElasticBody<dim>::initial_conditions(const double time, PETScWrappers::MPI::Vector &displacement,
                                            PETScWrappers::MPI::Vector &velocity) const
  {
    initial_q->set_time(time);
    initial_v->set_time(time);
    VectorTools::interpolate(mapping, dof_handler, *initial_q, displacement);
    VectorTools::interpolate(mapping, dof_handler, *initial_v, velocity);
    std::vector<double> values;
    prescribed_displacement(time, values);
    std::vector<bool> prescribed_flag(constrained.size(), false);
    for (const auto e : prescribed_entries)
      prescribed_flag[e] = true;
    for (std::size_t i = 0; i < constrained.size(); ++i)
      {
        displacement(constrained[i]) = values[i];
        if (!prescribed_flag[i])
          velocity(constrained[i]) = 0.0;
      }
    displacement.compress(VectorOperation::insert);
    velocity.compress(VectorOperation::insert);
  }

  namespace
  {
    /// R σ Rᵀ: a stress given in a body's frame, in space (R about z in 2D: its in-plane block).
    template <int dim>
    SymmetricTensor<2, dim> rotated_to_space(const SymmetricTensor<2, dim> &sigma, const Matrix3 &R)
    {
      SymmetricTensor<2, dim> rotated;
      for (unsigned int i = 0; i < dim; ++i)
        for (unsigned int j = i; j < dim; ++j)
          for (unsigned int k = 0; k < dim; ++k)
            for (unsigned int l = 0; l < dim; ++l)
              rotated[i][j] += R[3 * i + k] * sigma[k][l] * R[3 * j + l];
      return rotated;
    }
  } // namespace

  template <int dim>
  std::vector<std::pair<std::string, Vector<float>>>
  ElasticBody<dim>::viscoelastic_fields(const PETScWrappers::MPI::Vector &velocity,
                                        const std::vector<const PETScWrappers::MPI::Vector *> &branch_strains,
                                        const std::map<unsigned int, Matrix3> &rotations) const
  {
    const std::string axes = "xyz";
    std::vector<std::pair<std::string, Vector<float>>> fields;
    for (unsigned int i = 0; i < dim; ++i)
      for (unsigned int j = 0; j < dim; ++j)
        fields.emplace_back(std::string("viscous_stress_") + axes[i] + axes[j],
                            Vector<float>(triangulation.n_active_cells()));
    fields.emplace_back("viscoelastic_energy_density", Vector<float>(triangulation.n_active_cells()));
    auto &energy_density = fields.back().second;
    // One point per cell: the field is cell data, like material_id.
    const QMidpoint<dim> midpoint;
    FEValues<dim> fe_values(mapping, fe, midpoint, update_gradients);
    const FEValuesExtractors::Vector displacement(0);
    std::vector<SymmetricTensor<2, dim>> strain(1);
    for (const auto &cell : dof_handler.active_cell_iterators())
      {
        if (!cell->is_locally_owned())
          continue;
        fe_values.reinit(cell);
        const Material &m = parameters.materials.at(cell->material_id());
        // σ_m is linear: Σ cᵢ σ_m(ε(xᵢ)) = σ_m(Σ cᵢ ε(xᵢ)).
        SymmetricTensor<2, dim> eps;
        if (const double kv = parameters.rayleigh_beta + m.kelvin_voigt_time; kv > 0)
          {
            fe_values[displacement].get_function_symmetric_gradients(velocity, strain);
            eps += kv * strain[0];
          }
        const auto elastic_stress = [&m](const SymmetricTensor<2, dim> &e) {
          return dim == 1 ? SymmetricTensor<2, dim>(m.youngs_modulus * e)
                          : m.lame_lambda() * trace(e) * unit_symmetric_tensor<dim>() + 2 * m.lame_mu() * e;
        };
        double branch_energy = 0;
        for (std::size_t b = 0; b < branches.size(); ++b)
          if (branches[b]->material_id == cell->material_id())
            {
              fe_values[displacement].get_function_symmetric_gradients(*branch_strains[b], strain);
              const double ratio = branches[b]->modulus / m.youngs_modulus;
              eps += ratio * strain[0];
              // ½ (Eᵢ/E∞) σ_m(ε(eᵢ)) : ε(eᵢ), the density of (V6)'s ½ eᵢᵀKᵢeᵢ.
              branch_energy += 0.5 * ratio * (elastic_stress(strain[0]) * strain[0]);
            }
        SymmetricTensor<2, dim> sigma = elastic_stress(eps);
        if (const auto frame = rotations.find(cell->material_id()); dim > 1 && frame != rotations.end())
          sigma = rotated_to_space(sigma, frame->second);
        energy_density(cell->active_cell_index()) = branch_energy;
        for (unsigned int i = 0; i < dim; ++i)
          for (unsigned int j = 0; j < dim; ++j)
            fields[i * dim + j].second(cell->active_cell_index()) = sigma[i][j];
      }
    return fields;
  }

  namespace
  {
    /// Stress σ = λ tr(ε) I + 2με (E ε in 1D) and its von Mises equivalent, per cell material.
    template <int dim>
    class StressPostprocessor : public DataPostprocessor<dim>
    {
    public:
      StressPostprocessor(const std::map<unsigned int, Material> &materials, std::map<unsigned int, Matrix3> frames)
        : materials(materials)
        , frames(std::move(frames))
      {
      }

      void evaluate_vector_field(const DataPostprocessorInputs::Vector<dim> &inputs,
                                 std::vector<Vector<double>> &computed) const override
      {
        const auto cell = inputs.template get_cell<dim>();
        const Material &m = materials.at(cell->material_id());
        for (unsigned int q = 0; q < inputs.solution_gradients.size(); ++q)
          {
            Tensor<2, dim> grad;
            for (unsigned int c = 0; c < dim; ++c)
              grad[c] = inputs.solution_gradients[q][c];
            const SymmetricTensor<2, dim> eps = symmetrize(grad);
            SymmetricTensor<2, 3> sigma; // full 3D stress, also for plane strain
            if (dim == 1)
              sigma[0][0] = m.youngs_modulus * eps[0][0];
            else
              {
                const double tr = trace(eps);
                for (unsigned int i = 0; i < 3; ++i)
                  sigma[i][i] = m.lame_lambda() * tr;
                for (unsigned int i = 0; i < dim; ++i)
                  for (unsigned int j = i; j < dim; ++j)
                    sigma[i][j] += 2 * m.lame_mu() * eps[i][j];
              }
            if (const auto frame = frames.find(cell->material_id()); dim > 1 && frame != frames.end())
              {
                // σ of ũ is the stress in the body's frame; in space it is R σ Rᵀ.
                sigma = rotated_to_space(sigma, frame->second);
              }
            for (unsigned int i = 0; i < dim; ++i)
              for (unsigned int j = 0; j < dim; ++j)
                computed[q](i * dim + j) = sigma[i][j];
            const SymmetricTensor<2, 3> s = deviator(sigma);
            computed[q](dim * dim) = std::sqrt(1.5 * (s * s));
          }
      }

      std::vector<std::string> get_names() const override
      {
        std::vector<std::string> names(dim * dim, "stress");
        names.emplace_back("von_mises_stress");
        return names;
      }

      std::vector<DataComponentInterpretation::DataComponentInterpretation>
      get_data_component_interpretation() const override
      {
        std::vector<DataComponentInterpretation::DataComponentInterpretation>
          kinds(dim * dim, dim == 1 ? DataComponentInterpretation::component_is_scalar
                                    : DataComponentInterpretation::component_is_part_of_tensor);
        kinds.push_back(DataComponentInterpretation::component_is_scalar);
        return kinds;
      }

      /// In 1D the displacement has one component, so deal.II hands it over as a scalar field.
      void evaluate_scalar_field(const DataPostprocessorInputs::Scalar<dim> &inputs,
                                 std::vector<Vector<double>> &computed) const override
      {
        const auto cell = inputs.template get_cell<dim>();
        const Material &m = materials.at(cell->material_id());
        for (unsigned int q = 0; q < inputs.solution_gradients.size(); ++q)
          {
            computed[q](0) = m.youngs_modulus * inputs.solution_gradients[q][0];
            computed[q](dim * dim) = std::abs(computed[q](0));
          }
      }

      UpdateFlags get_needed_update_flags() const override { return update_gradients; }

    private:
      const std::map<unsigned int, Material> &materials;
      const std::map<unsigned int, Matrix3> frames;
    };
  } // namespace

  template <int dim>
  std::unique_ptr<DataPostprocessor<dim>>
  ElasticBody<dim>::make_stress_postprocessor(std::map<unsigned int, Matrix3> frames) const
  {
    return std::make_unique<StressPostprocessor<dim>>(parameters.materials, std::move(frames));
  }

  template <int dim>
  std::vector<std::array<double, 3>> ElasticBody<dim>::owned_dof_positions() const
  {
    using namespace dealii;
    std::map<types::global_dof_index, Point<dim>> points;
    DoFTools::map_dofs_to_support_points(mapping, dof_handler, points);
    std::vector<std::array<double, 3>> positions(owned_dofs.n_elements(), std::array<double, 3>{});
    for (const auto &[dof, x] : points)
      if (owned_dofs.is_element(dof))
        for (unsigned int d = 0; d < dim; ++d)
          positions[owned_dofs.index_within_set(dof)][d] = x[d];
    return positions;
  }

  template <int dim>
  std::vector<unsigned int> ElasticBody<dim>::owned_dof_components() const
  {
    // The component of each owned DoF, from the cells that hold it (every owned DoF is on an owned cell).
    std::vector<unsigned int> component(owned_dofs.n_elements(), 0);
    std::vector<dealii::types::global_dof_index> indices(fe.n_dofs_per_cell());
    for (const auto &cell : dof_handler.active_cell_iterators())
      if (cell->is_locally_owned())
        {
          cell->get_dof_indices(indices);
          for (unsigned int i = 0; i < indices.size(); ++i)
            if (owned_dofs.is_element(indices[i]))
              component[owned_dofs.index_within_set(indices[i])] = fe.system_to_component_index(i).first;
        }
    return component;
  }

  template <int dim>
  std::vector<dealii::PETScWrappers::MPI::Vector> ElasticBody<dim>::rigid_body_modes() const
  {
    using namespace dealii;
    const auto positions = owned_dof_positions();
    const auto component = owned_dof_components();
    const unsigned int n_modes = dim == 1 ? 1 : (dim == 2 ? 3 : 6);
    std::vector<PETScWrappers::MPI::Vector> modes(n_modes);
    for (auto &mode : modes)
      mode.reinit(owned_dofs, communicator);
    for (unsigned int k = 0; k < positions.size(); ++k)
      {
        const types::global_dof_index dof = owned_dofs.nth_index_in_set(k);
        if (std::binary_search(constrained.begin(), constrained.end(), dof))
          continue;
        const auto &x = positions[k];
        const unsigned int c = component[k];
        modes[c](dof) = 1.0; // translation along c
        if constexpr (dim == 2)
          modes[2](dof) = c == 0 ? -x[1] : x[0]; // rotation (−y, x)
        if constexpr (dim == 3)
          {
            const double rotation[3][3] = {{-x[1], x[0], 0.0},  // about z: (−y, x, 0)
                                           {0.0, -x[2], x[1]},  // about x: (0, −z, y)
                                           {x[2], 0.0, -x[0]}}; // about y: (z, 0, −x)
            for (unsigned int r = 0; r < 3; ++r)
              modes[3 + r](dof) = rotation[r][c];
          }
      }
    for (auto &mode : modes)
      mode.compress(VectorOperation::insert);
    return modes;
  }

  template <int dim>
  unsigned int ElasticBody<dim>::node_block_size() const
  {
    const auto component = owned_dof_components();
    bool interleaved = owned_dofs.n_elements() % dim == 0;
    for (unsigned int k = 0; interleaved && k < component.size(); ++k)
      interleaved = owned_dofs.nth_index_in_set(k) % dim == component[k];
    return dealii::Utilities::MPI::min(interleaved ? 1u : 0u, communicator) == 1 ? dim : 1;
  }

  template <int dim>
  NodeLayout ElasticBody<dim>::node_layout() const
  {
    using namespace dealii;
    NodeLayout layout;
    layout.dimension = dim;
    // A node is the set of DoFs with the same scalar shape function of a cell; it is named by its
    // component-0 DoF. Every DoF of a node has the node's owner (deal.II owns by mesh entity).
    std::map<types::global_dof_index, std::array<types::global_dof_index, 3>> nodes;
    std::vector<types::global_dof_index> indices(fe.n_dofs_per_cell());
    std::vector<std::array<types::global_dof_index, 3>> cell_nodes(fe.base_element(0).n_dofs_per_cell());
    for (const auto &cell : dof_handler.active_cell_iterators())
      if (!cell->is_artificial())
        {
          cell->get_dof_indices(indices);
          for (unsigned int i = 0; i < indices.size(); ++i)
            {
              const auto [component, shape] = fe.system_to_component_index(i);
              cell_nodes[shape][component] = indices[i];
            }
          for (const auto &node : cell_nodes)
            if (owned_dofs.is_element(node[0]))
              nodes[node[0]] = node;
        }
    // The bodies are the mesh's connected parts (cells joined through shared nodes), the same on
    // every rank; each lists the material ids of its cells (for names and the outputs by material).
    const ConnectedBodies<dim> connected(dof_handler);
    layout.n_bodies = connected.n_bodies();
    std::set<std::pair<unsigned int, unsigned int>> body_material; // (body, material id)
    for (const auto &cell : dof_handler.active_cell_iterators())
      if (cell->is_locally_owned())
        body_material.emplace(connected.body_of_cell(cell), cell->material_id());
    for (const auto &rank_pairs :
         Utilities::MPI::all_gather(communicator,
                                    std::vector<std::pair<unsigned int, unsigned int>>(body_material.begin(),
                                                                                       body_material.end())))
      body_material.insert(rank_pairs.begin(), rank_pairs.end());
    layout.body_materials.assign(layout.n_bodies, {});
    for (const auto &[body, material] : body_material) // (sorted: each body's ids in increasing order)
      layout.body_materials[body].push_back(material);

    // Lumped masses: M is M_s ⊗ I, so the row sums of M over component-0 columns are the nodes' masses.
    PETScWrappers::MPI::Vector ones(owned_dofs, communicator), row_sums(owned_dofs, communicator);
    for (const auto &[dof, node] : nodes)
      ones[dof] = 1.0;
    ones.compress(VectorOperation::insert);
    mass.vmult(row_sums, ones);
    const auto positions = owned_dof_positions();
    std::vector<double> constrained_body(layout.n_bodies, 0.0);
    for (const auto &[dof, node] : nodes)
      {
        std::array<types::global_dof_index, 3> node_dofs{
          {node[0], dim > 1 ? node[1] : node[0], dim > 2 ? node[2] : node[0]}};
        layout.dofs.push_back(node_dofs);
        layout.position.push_back(positions[owned_dofs.index_within_set(dof)]);
        layout.mass.push_back(row_sums[dof]);
        const unsigned int body = connected.body_of_dof(dof);
        layout.body.push_back(body);
        for (unsigned int d = 0; d < dim; ++d)
          if (std::binary_search(constrained.begin(), constrained.end(), node[d]))
            constrained_body[body] = 1.0;
      }
    Utilities::MPI::max(constrained_body, communicator, constrained_body);
    for (const double c : constrained_body)
      layout.body_constrained.push_back(c > 0);
    return layout;
  }

  template class ElasticBody<1>;
  template class ElasticBody<2>;
  template class ElasticBody<3>;
} // namespace percussion::Body
