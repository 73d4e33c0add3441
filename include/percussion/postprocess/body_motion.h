#ifndef PERCUSSION_POSTPROCESS_BODY_MOTION_H
#define PERCUSSION_POSTPROCESS_BODY_MOTION_H

#include <deal.II/dofs/dof_handler.h>
#include <deal.II/lac/petsc_sparse_matrix.h>
#include <deal.II/lac/petsc_vector.h>

#include <percussion/core/body_frames.h>
#include <percussion/postprocess/postprocessor.h>
#include <percussion/postprocess/statistics_table.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace percussion::Postprocess
{
  /**
   * The motion of each body, one row per body and step in `bodies.csv`: mass, momentum, mean
   * velocity (momentum / mass) and kinetic energy. A body is a material id (a box of `Mesh/Type =
   * boxes`, a gmsh volume with its own physical tag). With the consistent mass matrix M, body b's
   * mass is 1_bᵀ M 1_b, its momentum per component 1_{b,c}ᵀ M v and its kinetic energy
   * ½ (v∘1_b)ᵀ M (v∘1_b), where 1_b marks the DoFs of b's cells. Exact for bodies that share no
   * node (M is then block diagonal); DoFs on an interface between materials of one connected body
   * count for both.
   *
   * In 2D and 3D (@p rigid_body_of_material given) also the rigid motion of the body the material
   * belongs to (BodyFrames::motion(); materials that share nodes form one body): angular velocity
   * and angular momentum about the centre of mass (z only in 2D), rotation angle of its frame, and
   * the kinetic energy of its translation and of its rotation (the rest of kinetic_energy is
   * that of its deformation).
   */
  template <int dim>
  class BodyMotion : public Postprocessor
  {
  public:
    /// Finds the bodies (material ids over all ranks) and precomputes M 1_{b,c}. Collective.
    BodyMotion(const dealii::DoFHandler<dim> &dof_handler, const dealii::PETScWrappers::MPI::SparseMatrix &mass,
               const dealii::IndexSet &locally_owned_dofs, MPI_Comm communicator,
               std::map<unsigned int, unsigned int> rigid_body_of_material = {});
    ~BodyMotion();

    /// Opens (truncates) @p file_name on the ranks where @p write is true; a resumed run keeps the
    /// rows up to @p resume_after_step (StatisticsTable::open()).
    void open(const std::string &file_name, bool write, std::optional<unsigned int> resume_after_step = std::nullopt);
    /// Adds one row per body for the velocity @p v at @p step, @p time, with the rigid motions
    /// @p rigid of the frames' bodies where the table has their columns. Collective.
    void record(unsigned int step, double time, const dealii::PETScWrappers::MPI::Vector &v,
                const std::vector<RigidMotion> &rigid = {});
    /// record() of @p view's velocity and rigid motions (all occasions but StepView::Occasion::last_state).
    void execute(const StepView &view) override;
    void flush() override { table->flush(); }

    const StatisticsTable &table_of_rows() const { return *table; }
    /// StatisticsTable::keep_rows_in_memory() of the table.
    void keep_rows_in_memory(bool keep) { table->keep_rows_in_memory(keep); }
    unsigned int n_bodies() const { return bodies.size(); }

  private:
    const dealii::PETScWrappers::MPI::SparseMatrix *mass;
    std::vector<unsigned int> bodies;                ///< material ids
    std::map<unsigned int, unsigned int> rigid_body; ///< material id → BodyFrames' body
    std::vector<double> body_mass;
    /// Per body: the indicator of its DoFs, and per component M 1_{b,c}.
    std::vector<dealii::PETScWrappers::MPI::Vector> indicator;
    std::vector<std::vector<dealii::PETScWrappers::MPI::Vector>> mass_indicator;
    dealii::PETScWrappers::MPI::Vector masked, mass_masked;
    std::unique_ptr<StatisticsTable> table;
  };
} // namespace percussion::Postprocess

#endif
