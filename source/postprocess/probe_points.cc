#include <deal.II/base/geometry_info.h>
#include <deal.II/base/mpi.h>
#include <deal.II/base/quadrature.h>
#include <deal.II/base/utilities.h>
#include <deal.II/fe/fe.h>
#include <deal.II/fe/fe_values.h>

#include <percussion/core/exceptions.h>
#include <percussion/core/petsc_check.h>
#include <percussion/postprocess/probe_points.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>

namespace percussion::Postprocess
{
  namespace
  {
    std::string describe(const unsigned int index, const std::string &text)
    {
      return "point " + std::to_string(index + 1) + " ('" + text + "')";
    }

    /// Number of stress components in Voigt order: xx, yy, zz, xy, xz, yz (dim(dim+1)/2).
    constexpr unsigned int n_stress(const int dim)
    {
      return dim * (dim + 1) / 2;
    }
  } // namespace

  template <int dim>
  std::vector<dealii::Point<dim>> parse_probe_points(const std::string &text)
  {
    std::vector<dealii::Point<dim>> points;
    const auto trimmed = dealii::Utilities::trim(text);
    if (trimmed.empty())
      return points;
    const auto entries = dealii::Utilities::split_string_list(trimmed, ';');
    for (unsigned int i = 0; i < entries.size(); ++i)
      {
        const auto coordinates = dealii::Utilities::split_string_list(entries[i], ',');
        if (coordinates.size() != dim)
          throw InputError("Parameter 'Output/Probe points': " + describe(i, entries[i]) + " has " +
                           std::to_string(coordinates.size()) + " coordinates, the model has dimension " +
                           std::to_string(dim) + " (points are separated by ';', coordinates by ',').");
        dealii::Point<dim> p;
        for (unsigned int d = 0; d < dim; ++d)
          {
            std::size_t used = 0;
            double x = std::numeric_limits<double>::quiet_NaN();
            try
              {
                x = std::stod(coordinates[d], &used);
              }
            catch (const std::exception &)
              {
                used = 0;
              }
            if (used != coordinates[d].size() || !std::isfinite(x))
              throw InputError("Parameter 'Output/Probe points': " + describe(i, entries[i]) + ": coordinate '" +
                               coordinates[d] + "' is not a finite number.");
            p[d] = x;
          }
        points.push_back(p);
      }
    return points;
  }

  namespace
  {
    /// The columns of probes.csv in @p dim dimensions: step, time, probe, position, u, v and the
    /// stress components (xx, yy[, zz], xy[, xz, yz]).
    std::vector<std::string> probe_column_names(const unsigned int dim)
    {
      std::vector<std::string> names{"step", "time", "probe"};
      const char *axes[] = {"x", "y", "z"};
      for (unsigned int d = 0; d < dim; ++d)
        names.push_back(axes[d]);
      for (const std::string field : {"u_", "v_"})
        for (unsigned int d = 0; d < dim; ++d)
          names.push_back(field + axes[d]);
      const char *stress[] = {"s_xx", "s_yy", "s_zz", "s_xy", "s_xz", "s_yz"};
      for (unsigned int s = 0; s < dim; ++s)
        names.push_back(stress[s]);
      if (dim == 2)
        names.push_back("s_xy");
      if (dim == 3)
        for (unsigned int s = 3; s < 6; ++s)
          names.push_back(stress[s]);
      return names;
    }
  } // namespace

  template <int dim>
  ProbePoints<dim>::ProbePoints(const dealii::DoFHandler<dim> &dof_handler, const dealii::Mapping<dim> &mapping,
                                const std::vector<dealii::Point<dim>> &probe_points,
                                const std::function<std::pair<double, double>(dealii::types::material_id)> &lame,
                                const dealii::PETScWrappers::MPI::Vector &like, MPI_Comm communicator)
    : points(probe_points)
    , communicator(communicator)
  {
    const unsigned int n_points = points.size();
    const int rank = dealii::Utilities::MPI::this_mpi_process(communicator);
    const int n_ranks = dealii::Utilities::MPI::n_mpi_processes(communicator);

    // Which locally owned cell holds each point (a bounding-box test first, then the inverse
    // mapping); the lowest rank that finds a point evaluates it.
    using CellIterator = typename dealii::DoFHandler<dim>::active_cell_iterator;
    std::vector<CellIterator> cells(n_points);
    std::vector<dealii::Point<dim>> reference(n_points);
    std::vector<int> finder(n_points, n_ranks);
    for (const auto &cell : dof_handler.active_cell_iterators())
      {
        if (!cell->is_locally_owned())
          continue;
        const auto box = cell->bounding_box();
        const double tolerance = 1e-10 * cell->diameter();
        for (unsigned int i = 0; i < n_points; ++i)
          {
            if (finder[i] == rank)
              continue;
            bool inside_box = true;
            for (unsigned int d = 0; d < dim; ++d)
              inside_box = inside_box && points[i][d] >= box.lower_bound(d) - tolerance &&
                           points[i][d] <= box.upper_bound(d) + tolerance;
            if (!inside_box)
              continue;
            try
              {
                const auto unit = mapping.transform_real_to_unit_cell(cell, points[i]);
                if (dealii::GeometryInfo<dim>::is_inside_unit_cell(unit, 1e-10))
                  {
                    cells[i] = cell;
                    reference[i] = dealii::GeometryInfo<dim>::project_to_unit_cell(unit);
                    finder[i] = rank;
                  }
              }
            catch (const typename dealii::Mapping<dim>::ExcTransformationFailed &)
              {
                // Not in this cell (the Newton iteration of the inverse mapping left it).
              }
          }
      }
    std::vector<int> owner(n_points, n_ranks);
    if (n_points > 0)
      MPI_Allreduce(finder.data(), owner.data(), n_points, MPI_INT, MPI_MIN, communicator);
    for (unsigned int i = 0; i < n_points; ++i)
      if (owner[i] == n_ranks)
        {
          std::ostringstream where;
          where << points[i];
          throw InputError("Parameter 'Output/Probe points': point " + std::to_string(i + 1) + " (" + where.str() +
                           ") lies outside the mesh.");
        }

    // Shape values and gradients at the owned points; the DoFs they need, gathered once per step.
    const auto &fe = dof_handler.get_fe();
    std::vector<dealii::types::global_dof_index> cell_dofs(fe.n_dofs_per_cell());
    std::map<dealii::types::global_dof_index, unsigned int> slot_of;
    for (unsigned int i = 0; i < n_points; ++i)
      {
        if (owner[i] != rank)
          continue;
        const dealii::Quadrature<dim> at_point(std::vector<dealii::Point<dim>>{reference[i]});
        dealii::FEValues<dim> fe_values(mapping, fe, at_point, dealii::update_values | dealii::update_gradients);
        fe_values.reinit(cells[i]);
        cells[i]->get_dof_indices(cell_dofs);
        LocalProbe probe;
        probe.index = i;
        std::tie(probe.lambda, probe.mu) = lame(cells[i]->material_id());
        probe.material = cells[i]->material_id();
        for (unsigned int j = 0; j < fe.n_dofs_per_cell(); ++j)
          {
            const unsigned int c = fe.system_to_component_index(j).first;
            const auto inserted = slot_of.emplace(cell_dofs[j], slot_of.size());
            probe.scatter_slot.push_back(inserted.first->second);
            probe.component.push_back(c);
            probe.shape_value.push_back(fe_values.shape_value_component(j, 0, c));
            probe.shape_gradient.push_back(fe_values.shape_grad_component(j, 0, c));
          }
        local.push_back(std::move(probe));
      }
    std::vector<PetscInt> needed(slot_of.size());
    for (const auto &[dof, slot] : slot_of)
      needed[slot] = static_cast<PetscInt>(dof);
    IsHandle from;
    PERCUSSION_PETSC_CALL(
      ISCreateGeneral(PETSC_COMM_SELF, needed.size(), needed.data(), PETSC_COPY_VALUES, from.out()));
    PERCUSSION_PETSC_CALL(VecCreateSeq(PETSC_COMM_SELF, needed.size(), gathered_u.out()));
    PERCUSSION_PETSC_CALL(VecDuplicate(gathered_u, gathered_v.out()));
    PERCUSSION_PETSC_CALL(VecScatterCreate(static_cast<Vec>(like), from, gathered_u, nullptr, scatter.out()));

    table = std::make_unique<StatisticsTable>(probe_column_names(dim));
  }

  template <int dim>
  void ProbePoints<dim>::open(const std::string &file_name, const bool write,
                              const std::optional<unsigned int> resume_after_step)
  {
    table->open(file_name, write, resume_after_step);
  }

  template <int dim>
  void ProbePoints<dim>::evaluate(const PetscScalar *u, const PetscScalar *v, const PetscScalar *strain,
                                  const std::map<unsigned int, Matrix3> *rotations)
  {
    const unsigned int per_point = 2 * dim + n_stress(dim);
    std::vector<double> local_values(points.size() * per_point, 0.0);
    for (const LocalProbe &probe : local)
      {
        double *out = &local_values[probe.index * per_point];
        dealii::Tensor<2, dim> gradient; // ∂u_c/∂x_d
        for (unsigned int j = 0; j < probe.scatter_slot.size(); ++j)
          {
            const unsigned int c = probe.component[j];
            out[c] += u[probe.scatter_slot[j]] * probe.shape_value[j];
            out[dim + c] += v[probe.scatter_slot[j]] * probe.shape_value[j];
            for (unsigned int d = 0; d < dim; ++d)
              gradient[c][d] += (strain != nullptr ? strain : u)[probe.scatter_slot[j]] * probe.shape_gradient[j][d];
          }
        // σ = λ tr(ε) I + 2μ ε, Voigt order xx, yy, zz, xy, xz, yz.
        double trace = 0;
        for (unsigned int d = 0; d < dim; ++d)
          trace += gradient[d][d];
        double *sigma = out + 2 * dim;
        for (unsigned int d = 0; d < dim; ++d)
          sigma[d] = probe.lambda * trace + 2 * probe.mu * gradient[d][d];
        if (dim >= 2)
          sigma[dim] = probe.mu * (gradient[0][1] + gradient[1][0]);
        if (dim == 3)
          {
            sigma[4] = probe.mu * (gradient[0][2] + gradient[2][0]);
            sigma[5] = probe.mu * (gradient[1][2] + gradient[2][1]);
          }
        if (const auto frame = rotations != nullptr ? rotations->find(probe.material)
                                                    : std::map<unsigned int, Matrix3>::const_iterator();
            dim > 1 && rotations != nullptr && frame != rotations->end())
          {
            // The stress in the body's frame, rotated to space: R σ Rᵀ (2D: the in-plane block).
            const Matrix3 &R = frame->second;
            double full[3][3] = {};
            for (unsigned int d = 0; d < dim; ++d)
              full[d][d] = sigma[d];
            full[0][1] = full[1][0] = sigma[dim];
            if (dim == 3)
              {
                full[0][2] = full[2][0] = sigma[4];
                full[1][2] = full[2][1] = sigma[5];
              }
            double rotated[3][3] = {};
            for (unsigned int i = 0; i < dim; ++i)
              for (unsigned int j = 0; j < dim; ++j)
                for (unsigned int k = 0; k < dim; ++k)
                  for (unsigned int l = 0; l < dim; ++l)
                    rotated[i][j] += R[3 * i + k] * full[k][l] * R[3 * j + l];
            for (unsigned int d = 0; d < dim; ++d)
              sigma[d] = rotated[d][d];
            sigma[dim] = rotated[0][1];
            if (dim == 3)
              {
                sigma[4] = rotated[0][2];
                sigma[5] = rotated[1][2];
              }
          }
      }
    values.assign(local_values.size(), 0.0);
    if (!values.empty())
      MPI_Allreduce(local_values.data(), values.data(), values.size(), MPI_DOUBLE, MPI_SUM, communicator);
  }

  template <int dim>
  void ProbePoints<dim>::record(const unsigned int step, const double time, const dealii::PETScWrappers::MPI::Vector &u,
                                const dealii::PETScWrappers::MPI::Vector &v)
  {
    PERCUSSION_PETSC_CALL(VecScatterBegin(scatter, static_cast<Vec>(u), gathered_u, INSERT_VALUES, SCATTER_FORWARD));
    PERCUSSION_PETSC_CALL(VecScatterEnd(scatter, static_cast<Vec>(u), gathered_u, INSERT_VALUES, SCATTER_FORWARD));
    PERCUSSION_PETSC_CALL(VecScatterBegin(scatter, static_cast<Vec>(v), gathered_v, INSERT_VALUES, SCATTER_FORWARD));
    PERCUSSION_PETSC_CALL(VecScatterEnd(scatter, static_cast<Vec>(v), gathered_v, INSERT_VALUES, SCATTER_FORWARD));
    const PetscScalar *u_values, *v_values;
    PERCUSSION_PETSC_CALL(VecGetArrayRead(gathered_u, &u_values));
    PERCUSSION_PETSC_CALL(VecGetArrayRead(gathered_v, &v_values));
    evaluate(u_values, v_values);
    PERCUSSION_PETSC_CALL(VecRestoreArrayRead(gathered_u, &u_values));
    PERCUSSION_PETSC_CALL(VecRestoreArrayRead(gathered_v, &v_values));
    add_rows(step, time);
  }

  template <int dim>
  void ProbePoints<dim>::record(const unsigned int step, const double time, const dealii::PETScWrappers::MPI::Vector &u,
                                const dealii::PETScWrappers::MPI::Vector &v,
                                const dealii::PETScWrappers::MPI::Vector &strain,
                                const std::map<unsigned int, Matrix3> &rotations)
  {
    if (!gathered_strain)
      PERCUSSION_PETSC_CALL(VecDuplicate(gathered_u, gathered_strain.out()));
    for (auto [from, to] : {std::pair<Vec, Vec>{u, gathered_u}, {v, gathered_v}, {strain, gathered_strain}})
      {
        PERCUSSION_PETSC_CALL(VecScatterBegin(scatter, from, to, INSERT_VALUES, SCATTER_FORWARD));
        PERCUSSION_PETSC_CALL(VecScatterEnd(scatter, from, to, INSERT_VALUES, SCATTER_FORWARD));
      }
    const PetscScalar *u_values, *v_values, *s_values;
    PERCUSSION_PETSC_CALL(VecGetArrayRead(gathered_u, &u_values));
    PERCUSSION_PETSC_CALL(VecGetArrayRead(gathered_v, &v_values));
    PERCUSSION_PETSC_CALL(VecGetArrayRead(gathered_strain, &s_values));
    evaluate(u_values, v_values, s_values, &rotations);
    PERCUSSION_PETSC_CALL(VecRestoreArrayRead(gathered_u, &u_values));
    PERCUSSION_PETSC_CALL(VecRestoreArrayRead(gathered_v, &v_values));
    PERCUSSION_PETSC_CALL(VecRestoreArrayRead(gathered_strain, &s_values));
    add_rows(step, time);
  }

  template <int dim>
  void ProbePoints<dim>::add_rows(const unsigned int step, const double time)
  {
    const unsigned int per_point = 2 * dim + n_stress(dim);
    for (unsigned int i = 0; i < points.size(); ++i)
      {
        std::vector<double> row{static_cast<double>(step), time, static_cast<double>(i + 1)};
        for (unsigned int d = 0; d < dim; ++d)
          row.push_back(points[i][d]);
        row.insert(row.end(), values.begin() + i * per_point, values.begin() + (i + 1) * per_point);
        table->add_row(row);
      }
  }

  template <int dim>
  void ProbePoints<dim>::execute(const StepView &view)
  {
    if (!view.adds_rows())
      return;
    const auto &u = view.integrator.displacement();
    if (stress_frames != nullptr && !stress_frames->all_identity())
      {
        // Large rotations: the stress of ũ in the frames, rotated to space (as in the VTU output).
        dealii::PETScWrappers::MPI::Vector unrotated(u.locally_owned_elements(), communicator);
        stress_frames->unrotated_displacement(u, unrotated);
        record(view.step(), view.time(), u, view.integrator.velocity(), unrotated, material_rotations(*stress_frames));
      }
    else
      record(view.step(), view.time(), u, view.integrator.velocity());
  }

  template class ProbePoints<1>;
  template class ProbePoints<2>;
  template class ProbePoints<3>;
  template std::vector<dealii::Point<1>> parse_probe_points<1>(const std::string &);
  template std::vector<dealii::Point<2>> parse_probe_points<2>(const std::string &);
  template std::vector<dealii::Point<3>> parse_probe_points<3>(const std::string &);
} // namespace percussion::Postprocess
