#include <deal.II/base/mpi.h>

#include <percussion/core/body_frames.h>
#include <percussion/core/exceptions.h>
#include <percussion/core/petsc_check.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace percussion
{
  namespace
  {
    Matrix3 transpose(const Matrix3 &a)
    {
      return {{a[0], a[3], a[6], a[1], a[4], a[7], a[2], a[5], a[8]}};
    }

    Matrix3 multiply(const Matrix3 &a, const Matrix3 &b)
    {
      Matrix3 c{};
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          for (int k = 0; k < 3; ++k)
            c[3 * i + j] += a[3 * i + k] * b[3 * k + j];
      return c;
    }

    double determinant(const Matrix3 &a)
    {
      return a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) +
             a[2] * (a[3] * a[7] - a[4] * a[6]);
    }

    /// The inverse transpose of @p a (the cofactor matrix over the determinant).
    Matrix3 inverse_transpose(const Matrix3 &a)
    {
      const double det = determinant(a);
      return {{(a[4] * a[8] - a[5] * a[7]) / det, (a[5] * a[6] - a[3] * a[8]) / det, (a[3] * a[7] - a[4] * a[6]) / det,
               (a[2] * a[7] - a[1] * a[8]) / det, (a[0] * a[8] - a[2] * a[6]) / det, (a[1] * a[6] - a[0] * a[7]) / det,
               (a[1] * a[5] - a[2] * a[4]) / det, (a[2] * a[3] - a[0] * a[5]) / det,
               (a[0] * a[4] - a[1] * a[3]) / det}};
    }

    double frobenius(const Matrix3 &a)
    {
      double s = 0;
      for (const double x : a)
        s += x * x;
      return std::sqrt(s);
    }

    bool is_identity(const Matrix3 &a)
    {
      return a == Matrix3{{1, 0, 0, 0, 1, 0, 0, 0, 1}};
    }

    /**
     * x = R x (or Rᵀ x) at the nodes of @p layout whose body has @p turned set, in the vector of
     * locally owned DoFs @p a. The dimension is a template parameter: the nodes' small loops
     * unrolled, a rotation of a vector costs about as much as copying it.
     */
    template <unsigned int dim>
    void rotate_nodes(const NodeLayout &layout, const std::vector<RigidFit> &frames, const std::vector<char> &turned,
                      const bool transposed, const dealii::types::global_dof_index first_owned, double *a)
    {
      for (std::size_t i = 0; i < layout.mass.size(); ++i)
        {
          const unsigned int b = layout.body[i];
          if (!turned[b])
            continue;
          const Matrix3 &R = frames[b].rotation;
          double *x[dim];
          for (unsigned int d = 0; d < dim; ++d)
            x[d] = &a[layout.dofs[i][d] - first_owned];
          double y[dim];
          for (unsigned int r = 0; r < dim; ++r)
            {
              y[r] = 0;
              for (unsigned int c = 0; c < dim; ++c)
                y[r] += (transposed ? R[3 * c + r] : R[3 * r + c]) * *x[c];
            }
          for (unsigned int d = 0; d < dim; ++d)
            *x[d] = y[d];
        }
    }

    void rotate_nodes(const NodeLayout &layout, const std::vector<RigidFit> &frames, const std::vector<char> &turned,
                      const bool transposed, const dealii::types::global_dof_index first_owned, double *a)
    {
      switch (layout.dimension)
        {
        case 1:
          rotate_nodes<1>(layout, frames, turned, transposed, first_owned, a);
          break;
        case 2:
          rotate_nodes<2>(layout, frames, turned, transposed, first_owned, a);
          break;
        default:
          rotate_nodes<3>(layout, frames, turned, transposed, first_owned, a);
        }
    }

    /// Solves the symmetric positive definite @p J x = @p b (the upper-left dim × dim block; in 2D
    /// the rotation about z: J_zz ω = L_z, stored in the third entries).
    std::array<double, 3> solve_inertia(const unsigned int dim, const Matrix3 &J, const std::array<double, 3> &b)
    {
      if (dim == 2)
        return {{0, 0, J[8] != 0 ? b[2] / J[8] : 0.0}};
      const double det = determinant(J);
      if (det == 0)
        return {{0, 0, 0}};
      const Matrix3 inv_t = inverse_transpose(J); // J symmetric: J⁻ᵀ = J⁻¹
      std::array<double, 3> x{};
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          x[i] += inv_t[3 * i + j] * b[j];
      return x;
    }
  } // namespace

  BodyFrames::BodyFrames(NodeLayout node_layout, const dealii::IndexSet &owned, MPI_Comm communicator)
    : layout(std::move(node_layout))
    , first_owned(owned.n_elements() > 0 ? *owned.begin() : 0)
    , communicator(communicator)
  {
    const unsigned int nb = layout.n_bodies, dim = layout.dimension;
    std::vector<double> sums(4 * nb, 0.0);
    for (std::size_t i = 0; i < layout.mass.size(); ++i)
      {
        const unsigned int b = layout.body[i];
        sums[4 * b] += layout.mass[i];
        for (unsigned int d = 0; d < dim; ++d)
          sums[4 * b + 1 + d] += layout.mass[i] * layout.position[i][d];
      }
    dealii::Utilities::MPI::sum(sums, communicator, sums);
    reference_center.assign(nb, {{0, 0, 0}});
    for (unsigned int b = 0; b < nb; ++b)
      for (unsigned int d = 0; d < dim; ++d)
        reference_center[b][d] = sums[4 * b] > 0 ? sums[4 * b + 1 + d] / sums[4 * b] : 0.0;
    step_frames.resize(nb);
    for (unsigned int b = 0; b < nb; ++b)
      {
        step_frames[b].mass = sums[4 * b];
        step_frames[b].center = reference_center[b];
      }
    node_of_dof.assign(owned.n_elements(), -1);
    component_of_dof.assign(owned.n_elements(), 0);
    for (std::size_t i = 0; i < layout.mass.size(); ++i)
      for (unsigned int d = 0; d < dim; ++d)
        {
          node_of_dof[layout.dofs[i][d] - first_owned] = static_cast<int>(i);
          component_of_dof[layout.dofs[i][d] - first_owned] = static_cast<unsigned char>(d);
        }
    frame_storage.assign(12 * nb, 0.0);
    store_frames();
    note_turned_bodies();
  }

  void BodyFrames::note_turned_bodies()
  {
    turned.resize(step_frames.size());
    for (std::size_t b = 0; b < step_frames.size(); ++b)
      turned[b] = is_identity(step_frames[b].rotation) ? 0 : 1;
    identity = std::none_of(turned.begin(), turned.end(), [](const char t) { return t != 0; });
  }

  void BodyFrames::store_frames()
  {
    for (unsigned int b = 0; b < layout.n_bodies; ++b)
      {
        std::copy(step_frames[b].rotation.begin(), step_frames[b].rotation.end(), frame_storage.begin() + 12 * b);
        std::copy(step_frames[b].center.begin(), step_frames[b].center.end(), frame_storage.begin() + 12 * b + 9);
      }
  }

  std::string BodyFrames::body_name(const unsigned int b) const
  {
    const auto &ids = layout.body_materials[b];
    std::string name = ids.size() == 1 ? "material id " : "material ids ";
    if (!materials_name_one_body())
      name = "body " + std::to_string(b) + " (" + name;
    for (std::size_t i = 0; i < ids.size(); ++i)
      name += (i > 0 ? ", " : "") + std::to_string(ids[i]);
    return materials_name_one_body() ? name : name + ")";
  }

  bool BodyFrames::materials_name_one_body() const
  {
    std::set<unsigned int> seen;
    for (const auto &ids : layout.body_materials)
      for (const unsigned int id : ids)
        if (!seen.insert(id).second)
          return false;
    return true;
  }

  std::map<unsigned int, unsigned int> BodyFrames::body_of_material() const
  {
    std::map<unsigned int, unsigned int> bodies;
    for (unsigned int b = 0; b < layout.n_bodies; ++b)
      for (const unsigned int id : layout.body_materials[b])
        bodies[id] = b;
    return bodies;
  }

  std::vector<RigidFit> BodyFrames::fit(const dealii::PETScWrappers::MPI::Vector &q,
                                        const dealii::PETScWrappers::MPI::Vector *v, const double s) const
  {
    const unsigned int nb = layout.n_bodies, dim = layout.dimension;
    // Per body: Σ m x (3) and A = Σ m x (X − X_c)ᵀ (9); Σ m (X − X_c) = 0, so that A needs no c.
    std::vector<double> sums(12 * nb, 0.0);
    const PetscScalar *qa = nullptr, *va = nullptr;
    PERCUSSION_PETSC_CALL(VecGetArrayRead(q, &qa));
    if (v != nullptr)
      PERCUSSION_PETSC_CALL(VecGetArrayRead(*v, &va));
    for (std::size_t i = 0; i < layout.mass.size(); ++i)
      {
        const unsigned int b = layout.body[i];
        const double m = layout.mass[i];
        double x[3] = {0, 0, 0}, r[3] = {0, 0, 0};
        for (unsigned int d = 0; d < dim; ++d)
          {
            const auto k = layout.dofs[i][d] - first_owned;
            // x − X_c, so that a translation far from the origin loses no digits.
            x[d] = layout.position[i][d] - reference_center[b][d] + qa[k] + (va != nullptr ? s * va[k] : 0.0);
            r[d] = layout.position[i][d] - reference_center[b][d];
          }
        for (unsigned int d = 0; d < dim; ++d)
          {
            sums[12 * b + d] += m * x[d];
            for (unsigned int e = 0; e < dim; ++e)
              sums[12 * b + 3 + 3 * d + e] += m * x[d] * r[e];
          }
      }
    PERCUSSION_PETSC_CALL(VecRestoreArrayRead(q, &qa));
    if (v != nullptr)
      PERCUSSION_PETSC_CALL(VecRestoreArrayRead(*v, &va));
    dealii::Utilities::MPI::sum(sums, communicator, sums);

    std::vector<RigidFit> fits(nb);
    for (unsigned int b = 0; b < nb; ++b)
      {
        RigidFit &f = fits[b];
        f.mass = step_frames[b].mass;
        for (unsigned int d = 0; d < dim; ++d)
          f.center[d] = reference_center[b][d] + (f.mass > 0 ? sums[12 * b + d] / f.mass : 0.0);
        Matrix3 A{};
        std::copy(sums.begin() + 12 * b + 3, sums.begin() + 12 * b + 12, A.begin());
        f.rotation = polar_rotation(dim, A);
      }
    return fits;
  }

  Matrix3 BodyFrames::polar_rotation(const unsigned int dim, const Matrix3 &A)
  {
    if (dim == 1)
      return {{1, 0, 0, 0, 1, 0, 0, 0, 1}};
    if (dim == 2)
      {
        // The rotation maximising tr(RᵀA) (the least-squares fit) has the angle below.
        const double angle = std::atan2(A[3] - A[1], A[0] + A[4]);
        const double c = std::cos(angle), s = std::sin(angle);
        return {{c, -s, 0, s, c, 0, 0, 0, 1}};
      }
    // A body turned inside out (det A ≤ 0: the linear model allows it, e.g. a box squeezed through
    // itself by a large velocity field) has no rotation to fit: it keeps the identity.
    if (!(determinant(A) > 0))
      return {{1, 0, 0, 0, 1, 0, 0, 0, 1}};
    // Scaled Newton iteration X ← ½(γX + X⁻ᵀ/γ) (Higham): quadratic convergence to the polar
    // factor; A is a rotation times the bodies' (positive definite) second moment of mass.
    Matrix3 X = A;
    for (int iteration = 0; iteration < 100; ++iteration)
      {
        const Matrix3 Y = inverse_transpose(X);
        const double gamma = iteration < 6 ? std::sqrt(frobenius(Y) / frobenius(X)) : 1.0;
        Matrix3 next{};
        double change = 0;
        for (int k = 0; k < 9; ++k)
          {
            next[k] = 0.5 * (gamma * X[k] + Y[k] / gamma);
            change = std::max(change, std::abs(next[k] - X[k]));
          }
        X = next;
        if (change < 1e-15)
          break;
      }
    return X;
  }

  double BodyFrames::rotation_angle(const unsigned int dim, const Matrix3 &R)
  {
    if (dim == 2)
      return std::atan2(R[3], R[0]);
    if (dim == 1)
      return 0;
    // From the skew part (accurate for small angles) and the trace (for large ones).
    const double s =
      0.5 * std::sqrt((R[7] - R[5]) * (R[7] - R[5]) + (R[2] - R[6]) * (R[2] - R[6]) + (R[3] - R[1]) * (R[3] - R[1]));
    const double c = 0.5 * (R[0] + R[4] + R[8] - 1);
    return std::atan2(s, c);
  }

  double BodyFrames::angle_between(const unsigned int dim, const Matrix3 &from, const Matrix3 &to)
  {
    return std::abs(rotation_angle(dim, multiply(transpose(from), to)));
  }

  bool BodyFrames::update_frames(const std::vector<RigidFit> &fits, const double tolerance)
  {
    bool changed = false;
    for (unsigned int b = 0; b < layout.n_bodies; ++b)
      {
        if (!is_free(b))
          continue;
        if (angle_between(layout.dimension, step_frames[b].rotation, fits[b].rotation) > tolerance)
          {
            step_frames[b].rotation = fits[b].rotation;
            changed = true;
          }
        step_frames[b].center = fits[b].center;
      }
    note_turned_bodies();
    store_frames();
    return changed;
  }

  Matrix3 BodyFrames::rotation_exponential(const std::array<double, 3> &phi)
  {
    // Rodrigues: exp(φ̂) = I + (sin a / a) φ̂ + ((1 − cos a) / a²) φ̂², a = |φ|; the series below
    // 1e-4, where 1 − cos a would lose its digits.
    const double a2 = phi[0] * phi[0] + phi[1] * phi[1] + phi[2] * phi[2], a = std::sqrt(a2);
    const double s = a < 1e-4 ? 1 - a2 / 6 : std::sin(a) / a, c = a < 1e-4 ? 0.5 - a2 / 24 : (1 - std::cos(a)) / a2;
    const Matrix3 hat{{0, -phi[2], phi[1], phi[2], 0, -phi[0], -phi[1], phi[0], 0}};
    const Matrix3 hat2 = multiply(hat, hat);
    Matrix3 Q{};
    for (int k = 0; k < 9; ++k)
      Q[k] = (k % 4 == 0 ? 1.0 : 0.0) + s * hat[k] + c * hat2[k];
    return Q;
  }

  void BodyFrames::turn(const std::vector<BodyTurn> &turns, const TurnedQuantity what,
                        dealii::PETScWrappers::MPI::Vector &x) const
  {
    const unsigned int dim = layout.dimension;
    PetscScalar *a = nullptr;
    PERCUSSION_PETSC_CALL(VecGetArray(x, &a));
    for (std::size_t i = 0; i < layout.mass.size(); ++i)
      {
        const unsigned int b = layout.body[i];
        const BodyTurn &t = turns[b];
        if (!t.turns || !is_free(b))
          continue;
        // Positions relative to the centre as X − X_c + q − (c − X_c): no digits lost far from the origin.
        double y[3] = {0, 0, 0}, offset[3] = {0, 0, 0};
        for (unsigned int d = 0; d < dim; ++d)
          {
            if (what == TurnedQuantity::positions)
              offset[d] = layout.position[i][d] - reference_center[b][d] - (t.center[d] - reference_center[b][d]);
            else if (what == TurnedQuantity::velocities)
              offset[d] = -t.velocity[d];
            y[d] = a[layout.dofs[i][d] - first_owned] + offset[d];
          }
        for (unsigned int d = 0; d < dim; ++d)
          {
            double z = 0;
            for (unsigned int e = 0; e < dim; ++e)
              z += t.rotation[3 * d + e] * y[e];
            a[layout.dofs[i][d] - first_owned] = z - offset[d];
          }
      }
    PERCUSSION_PETSC_CALL(VecRestoreArray(x, &a));
  }

  void BodyFrames::turn_frames(const std::vector<BodyTurn> &turns)
  {
    for (unsigned int b = 0; b < layout.n_bodies; ++b)
      {
        const BodyTurn &t = turns[b];
        if (!t.turns || !is_free(b))
          continue;
        RigidFit &f = step_frames[b];
        f.rotation = multiply(t.rotation, f.rotation);
        double r[3];
        for (unsigned int d = 0; d < 3; ++d)
          r[d] = f.center[d] - t.center[d];
        for (unsigned int d = 0; d < layout.dimension; ++d)
          f.center[d] = t.center[d] + t.rotation[3 * d] * r[0] + t.rotation[3 * d + 1] * r[1] +
                        (layout.dimension == 3 ? t.rotation[3 * d + 2] * r[2] : 0.0);
      }
    // (frame_values() keep the frames of the step's start: a checkpoint or snapshot taken within
    // the step, and a step taken back, find them there.)
    note_turned_bodies();
  }

  std::vector<std::array<double, 3>> BodyFrames::means(const dealii::PETScWrappers::MPI::Vector &x) const
  {
    const unsigned int nb = layout.n_bodies, dim = layout.dimension;
    std::vector<double> sums(3 * nb, 0.0);
    const PetscScalar *a = nullptr;
    PERCUSSION_PETSC_CALL(VecGetArrayRead(x, &a));
    for (std::size_t i = 0; i < layout.mass.size(); ++i)
      for (unsigned int d = 0; d < dim; ++d)
        sums[3 * layout.body[i] + d] += layout.mass[i] * a[layout.dofs[i][d] - first_owned];
    PERCUSSION_PETSC_CALL(VecRestoreArrayRead(x, &a));
    dealii::Utilities::MPI::sum(sums, communicator, sums);
    std::vector<std::array<double, 3>> result(nb, {{0, 0, 0}});
    for (unsigned int b = 0; b < nb; ++b)
      for (unsigned int d = 0; d < dim; ++d)
        result[b][d] = step_frames[b].mass > 0 ? sums[3 * b + d] / step_frames[b].mass : 0.0;
    return result;
  }

  std::array<double, 3> BodyFrames::reference_center_of(const unsigned int b) const
  {
    return reference_center[b];
  }

  void BodyFrames::spin_field(const std::vector<BodyTurn> &turns, const TurnedQuantity what,
                              const dealii::PETScWrappers::MPI::Vector &in,
                              dealii::PETScWrappers::MPI::Vector &out) const
  {
    out = 0;
    const unsigned int dim = layout.dimension;
    const PetscScalar *ia = nullptr;
    PetscScalar *oa = nullptr;
    PERCUSSION_PETSC_CALL(VecGetArrayRead(in, &ia));
    PERCUSSION_PETSC_CALL(VecGetArray(out, &oa));
    for (std::size_t i = 0; i < layout.mass.size(); ++i)
      {
        const unsigned int b = layout.body[i];
        const BodyTurn &t = turns[b];
        if (!t.turns || !is_free(b))
          continue;
        double r[3] = {0, 0, 0};
        for (unsigned int d = 0; d < dim; ++d)
          r[d] = ia[layout.dofs[i][d] - first_owned] +
                 (what == TurnedQuantity::positions
                    ? layout.position[i][d] - reference_center[b][d] - (t.center[d] - reference_center[b][d])
                    : -t.velocity[d]);
        const auto &w = t.angular_velocity;
        const double y[3] = {w[1] * r[2] - w[2] * r[1], w[2] * r[0] - w[0] * r[2], w[0] * r[1] - w[1] * r[0]};
        for (unsigned int d = 0; d < dim; ++d)
          oa[layout.dofs[i][d] - first_owned] = y[d];
      }
    PERCUSSION_PETSC_CALL(VecRestoreArray(out, &oa));
    PERCUSSION_PETSC_CALL(VecRestoreArrayRead(in, &ia));
  }

  SavedValues BodyFrames::saved_values()
  {
    SavedValues values;
    for (std::size_t i = 0; i < frame_storage.size(); ++i)
      values.push_back({"body_frame_" + std::to_string(i), &frame_storage[i]});
    return values;
  }

  void BodyFrames::frames_from_values()
  {
    for (unsigned int b = 0; b < layout.n_bodies; ++b)
      {
        std::copy(frame_storage.begin() + 12 * b, frame_storage.begin() + 12 * b + 9, step_frames[b].rotation.begin());
        std::copy(frame_storage.begin() + 12 * b + 9, frame_storage.begin() + 12 * b + 12,
                  step_frames[b].center.begin());
      }
    note_turned_bodies();
  }

  void BodyFrames::rotate(dealii::PETScWrappers::MPI::Vector &x, const bool transposed) const
  {
    if (identity)
      return;
    PetscScalar *a = nullptr;
    PERCUSSION_PETSC_CALL(VecGetArray(x, &a));
    rotate_nodes(layout, step_frames, turned, transposed, first_owned, a);
    PERCUSSION_PETSC_CALL(VecRestoreArray(x, &a));
  }

  void BodyFrames::rotate_rows(Mat X, const bool transposed) const
  {
    if (identity)
      return;
    PetscInt columns = 0, lda = 0;
    PERCUSSION_PETSC_CALL(MatGetSize(X, nullptr, &columns));
    PERCUSSION_PETSC_CALL(MatDenseGetLDA(X, &lda));
    PetscScalar *a = nullptr;
    PERCUSSION_PETSC_CALL(MatDenseGetArray(X, &a));
    for (PetscInt j = 0; j < columns; ++j)
      rotate_nodes(layout, step_frames, turned, transposed, first_owned, a + j * lda);
    PERCUSSION_PETSC_CALL(MatDenseRestoreArray(X, &a));
  }

  void BodyFrames::unrotated_displacement(const dealii::PETScWrappers::MPI::Vector &q,
                                          dealii::PETScWrappers::MPI::Vector &out) const
  {
    unrotated_displacement(q, out, step_frames);
  }

  void BodyFrames::unrotated_displacement(const dealii::PETScWrappers::MPI::Vector &q,
                                          dealii::PETScWrappers::MPI::Vector &out,
                                          const std::vector<RigidFit> &fits) const
  {
    out = q;
    if (identity)
      return;
    const unsigned int dim = layout.dimension;
    const PetscScalar *qa = nullptr;
    PetscScalar *oa = nullptr;
    PERCUSSION_PETSC_CALL(VecGetArrayRead(q, &qa));
    PERCUSSION_PETSC_CALL(VecGetArray(out, &oa));
    for (std::size_t i = 0; i < layout.mass.size(); ++i)
      {
        const unsigned int b = layout.body[i];
        if (!turned[b])
          continue;
        const Matrix3 &R = fits[b].rotation;
        // x − c in the frame, less X − X_c: the translation of the centre is taken out first, so
        // that the small elastic displacement is not the difference of two large numbers.
        double y[3] = {0, 0, 0};
        for (unsigned int d = 0; d < dim; ++d)
          y[d] = layout.position[i][d] - reference_center[b][d] + qa[layout.dofs[i][d] - first_owned] -
                 (fits[b].center[d] - reference_center[b][d]);
        for (unsigned int d = 0; d < dim; ++d)
          {
            double z = 0;
            for (unsigned int e = 0; e < dim; ++e)
              z += R[3 * e + d] * y[e];
            oa[layout.dofs[i][d] - first_owned] = z - (layout.position[i][d] - reference_center[b][d]);
          }
      }
    PERCUSSION_PETSC_CALL(VecRestoreArray(out, &oa));
    PERCUSSION_PETSC_CALL(VecRestoreArrayRead(q, &qa));
  }

  void BodyFrames::spin_of(const std::vector<RigidMotion> &motions, const dealii::PETScWrappers::MPI::Vector &u,
                           dealii::PETScWrappers::MPI::Vector &out) const
  {
    out = 0;
    const unsigned int dim = layout.dimension;
    std::vector<std::array<double, 3>> spin(layout.n_bodies, {{0, 0, 0}});
    for (unsigned int b = 0; b < layout.n_bodies; ++b)
      for (unsigned int i = 0; i < 3; ++i)
        for (unsigned int j = 0; j < 3; ++j)
          spin[b][i] += step_frames[b].rotation[3 * j + i] * motions[b].angular_velocity[j];
    const PetscScalar *ua = nullptr;
    PetscScalar *oa = nullptr;
    PERCUSSION_PETSC_CALL(VecGetArrayRead(u, &ua));
    PERCUSSION_PETSC_CALL(VecGetArray(out, &oa));
    for (std::size_t i = 0; i < layout.mass.size(); ++i)
      {
        const unsigned int b = layout.body[i];
        if (!turned[b])
          continue;
        double x[3] = {0, 0, 0};
        for (unsigned int d = 0; d < dim; ++d)
          x[d] = ua[layout.dofs[i][d] - first_owned];
        const auto &w = spin[b];
        const double y[3] = {w[1] * x[2] - w[2] * x[1], w[2] * x[0] - w[0] * x[2], w[0] * x[1] - w[1] * x[0]};
        for (unsigned int d = 0; d < dim; ++d)
          oa[layout.dofs[i][d] - first_owned] = y[d];
      }
    PERCUSSION_PETSC_CALL(VecRestoreArray(out, &oa));
    PERCUSSION_PETSC_CALL(VecRestoreArrayRead(u, &ua));
  }

  void BodyFrames::deformation_velocity(const std::vector<RigidMotion> &motions,
                                        const dealii::PETScWrappers::MPI::Vector &q,
                                        const dealii::PETScWrappers::MPI::Vector &v, const std::vector<char> &bodies,
                                        dealii::PETScWrappers::MPI::Vector &out) const
  {
    out = 0;
    const unsigned int dim = layout.dimension;
    const PetscScalar *qa = nullptr, *va = nullptr;
    PetscScalar *oa = nullptr;
    PERCUSSION_PETSC_CALL(VecGetArrayRead(q, &qa));
    PERCUSSION_PETSC_CALL(VecGetArrayRead(v, &va));
    PERCUSSION_PETSC_CALL(VecGetArray(out, &oa));
    for (std::size_t i = 0; i < layout.mass.size(); ++i)
      {
        const unsigned int b = layout.body[i];
        const RigidMotion &m = motions[b];
        if (!bodies[b] || !(m.mass > 0))
          continue;
        double r[3] = {0, 0, 0};
        for (unsigned int d = 0; d < dim; ++d)
          r[d] = layout.position[i][d] + qa[layout.dofs[i][d] - first_owned] - m.center[d];
        const auto &w = m.angular_velocity;
        const double spin[3] = {w[1] * r[2] - w[2] * r[1], w[2] * r[0] - w[0] * r[2], w[0] * r[1] - w[1] * r[0]};
        for (unsigned int d = 0; d < dim; ++d)
          {
            const auto k = layout.dofs[i][d] - first_owned;
            oa[k] = va[k] - m.momentum[d] / m.mass - spin[d];
          }
      }
    PERCUSSION_PETSC_CALL(VecRestoreArray(out, &oa));
    PERCUSSION_PETSC_CALL(VecRestoreArrayRead(v, &va));
    PERCUSSION_PETSC_CALL(VecRestoreArrayRead(q, &qa));
  }

  bool BodyFrames::locate(const dealii::types::global_dof_index dof,
                          std::array<dealii::types::global_dof_index, 3> &node_dofs, unsigned int &component,
                          const Matrix3 *&rotation) const
  {
    if (dof < first_owned || dof - first_owned >= node_of_dof.size() || node_of_dof[dof - first_owned] < 0)
      return false;
    const auto node = static_cast<std::size_t>(node_of_dof[dof - first_owned]);
    node_dofs = layout.dofs[node];
    component = component_of_dof[dof - first_owned];
    rotation = &step_frames[layout.body[node]].rotation;
    return true;
  }

  unsigned int BodyFrames::body_of_owned_dof(const dealii::types::global_dof_index dof) const
  {
    if (dof < first_owned || dof - first_owned >= node_of_dof.size() || node_of_dof[dof - first_owned] < 0)
      return layout.n_bodies;
    return layout.body[static_cast<std::size_t>(node_of_dof[dof - first_owned])];
  }

  MatHandle BodyFrames::rotation_matrix(const bool transposed, MatType type) const
  {
    const unsigned int dim = layout.dimension;
    const PetscInt n_local = static_cast<PetscInt>(node_of_dof.size());
    PetscInt n = 0;
    {
      const unsigned long long local = node_of_dof.size();
      n = static_cast<PetscInt>(dealii::Utilities::MPI::sum(local, communicator));
    }
    MatHandle R;
    PERCUSSION_PETSC_CALL(MatCreate(communicator, R.out()));
    PERCUSSION_PETSC_CALL(MatSetSizes(R, n_local, n_local, n, n));
    PERCUSSION_PETSC_CALL(MatSetType(R, type));
    PERCUSSION_PETSC_CALL(MatSeqAIJSetPreallocation(R, dim, nullptr));
    PERCUSSION_PETSC_CALL(MatMPIAIJSetPreallocation(R, dim, nullptr, 0, nullptr));
    for (std::size_t i = 0; i < layout.mass.size(); ++i)
      {
        const Matrix3 &rotation = step_frames[layout.body[i]].rotation;
        for (unsigned int a = 0; a < dim; ++a)
          for (unsigned int b = 0; b < dim; ++b)
            {
              const double value = transposed ? rotation[3 * b + a] : rotation[3 * a + b];
              if (value != 0.0 || a == b)
                PERCUSSION_PETSC_CALL(MatSetValue(R, static_cast<PetscInt>(layout.dofs[i][a]),
                                                  static_cast<PetscInt>(layout.dofs[i][b]), value, INSERT_VALUES));
            }
      }
    PERCUSSION_PETSC_CALL(MatAssemblyBegin(R, MAT_FINAL_ASSEMBLY));
    PERCUSSION_PETSC_CALL(MatAssemblyEnd(R, MAT_FINAL_ASSEMBLY));
    return R;
  }

  void BodyFrames::reference_positions(dealii::PETScWrappers::MPI::Vector &x) const
  {
    PetscScalar *a = nullptr;
    PERCUSSION_PETSC_CALL(VecGetArray(x, &a));
    for (std::size_t i = 0; i < layout.mass.size(); ++i)
      for (unsigned int d = 0; d < layout.dimension; ++d)
        a[layout.dofs[i][d] - first_owned] = layout.position[i][d];
    PERCUSSION_PETSC_CALL(VecRestoreArray(x, &a));
  }

  std::vector<RigidMotion> BodyFrames::motion(const dealii::PETScWrappers::MPI::Vector &q,
                                              const dealii::PETScWrappers::MPI::Vector &mass_v,
                                              const dealii::PETScWrappers::MPI::Vector &mass_x,
                                              const std::vector<RigidFit> &fits) const
  {
    const unsigned int nb = layout.n_bodies, dim = layout.dimension;
    // Per body: P (3), Σ r × (Mv) about c (3), Σ r_i ⊗ (M r)_i (9) with (M r)_i = (M x)_i − m_i c.
    std::vector<double> sums(15 * nb, 0.0);
    const PetscScalar *qa = nullptr, *mva = nullptr, *mxa = nullptr;
    PERCUSSION_PETSC_CALL(VecGetArrayRead(q, &qa));
    PERCUSSION_PETSC_CALL(VecGetArrayRead(mass_v, &mva));
    PERCUSSION_PETSC_CALL(VecGetArrayRead(mass_x, &mxa));
    for (std::size_t i = 0; i < layout.mass.size(); ++i)
      {
        const unsigned int b = layout.body[i];
        double r[3] = {0, 0, 0}, p[3] = {0, 0, 0}, mr[3] = {0, 0, 0};
        for (unsigned int d = 0; d < dim; ++d)
          {
            const auto k = layout.dofs[i][d] - first_owned;
            r[d] = layout.position[i][d] + qa[k] - fits[b].center[d];
            p[d] = mva[k];
            mr[d] = mxa[k] - layout.mass[i] * fits[b].center[d];
          }
        double *s = &sums[15 * b];
        for (unsigned int d = 0; d < 3; ++d)
          s[d] += p[d];
        s[3] += r[1] * p[2] - r[2] * p[1];
        s[4] += r[2] * p[0] - r[0] * p[2];
        s[5] += r[0] * p[1] - r[1] * p[0];
        for (unsigned int d = 0; d < 3; ++d)
          for (unsigned int e = 0; e < 3; ++e)
            s[6 + 3 * d + e] += r[d] * mr[e];
      }
    PERCUSSION_PETSC_CALL(VecRestoreArrayRead(q, &qa));
    PERCUSSION_PETSC_CALL(VecRestoreArrayRead(mass_v, &mva));
    PERCUSSION_PETSC_CALL(VecRestoreArrayRead(mass_x, &mxa));
    dealii::Utilities::MPI::sum(sums, communicator, sums);

    std::vector<RigidMotion> motions(nb);
    for (unsigned int b = 0; b < nb; ++b)
      {
        RigidMotion &m = motions[b];
        const double *s = &sums[15 * b];
        m.mass = fits[b].mass;
        m.center = fits[b].center;
        for (unsigned int d = 0; d < 3; ++d)
          {
            m.momentum[d] = s[d];
            m.angular_momentum[d] = s[3 + d];
          }
        // J = tr(S) I − S with S = Σ r ⊗ M r (symmetrised).
        Matrix3 S{};
        for (unsigned int d = 0; d < 3; ++d)
          for (unsigned int e = 0; e < 3; ++e)
            S[3 * d + e] = 0.5 * (s[6 + 3 * d + e] + s[6 + 3 * e + d]);
        const double trace = S[0] + S[4] + S[8];
        Matrix3 J{};
        for (unsigned int d = 0; d < 3; ++d)
          for (unsigned int e = 0; e < 3; ++e)
            J[3 * d + e] = (d == e ? trace : 0.0) - S[3 * d + e];
        if (dim < 3)
          m.angular_momentum[0] = m.angular_momentum[1] = 0;
        m.angular_velocity = dim == 1 ? std::array<double, 3>{{0, 0, 0}} : solve_inertia(dim, J, m.angular_momentum);
        m.rotation_angle = rotation_angle(dim, fits[b].rotation);
        double p2 = 0, wl = 0;
        for (unsigned int d = 0; d < 3; ++d)
          {
            p2 += m.momentum[d] * m.momentum[d];
            wl += m.angular_velocity[d] * m.angular_momentum[d];
          }
        m.kinetic_energy_translation = m.mass > 0 ? 0.5 * p2 / m.mass : 0.0;
        m.kinetic_energy_rotation = 0.5 * wl;
      }
    return motions;
  }
} // namespace percussion
