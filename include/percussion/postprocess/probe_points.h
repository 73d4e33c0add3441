#ifndef PERCUSSION_POSTPROCESS_PROBE_POINTS_H
#define PERCUSSION_POSTPROCESS_PROBE_POINTS_H

#include <deal.II/base/point.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/mapping.h>
#include <deal.II/lac/petsc_vector.h>

#include <percussion/core/body_frames.h>
#include <percussion/core/petsc_handle.h>
#include <percussion/postprocess/postprocessor.h>
#include <percussion/postprocess/statistics_table.h>

#include <petscvec.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace percussion::Postprocess
{
  /**
   * Displacement, velocity and stress at fixed points of the reference configuration
   * (`Output/Probe points`), one row per point and step in `probes.csv`:
   * `step,time,probe,x[,y[,z]],u_x…,v_x…,s_xx[,s_yy[,s_zz]][,s_xy[,s_xz,s_yz]]`.
   *
   * u and v are the finite-element fields interpolated at the point (u_h(x) = Σ_j U_j φ_j(x)),
   * σ = λ tr(ε) I + 2μ ε with ε the symmetric gradient of u_h in the cell holding the point and the
   * Lamé constants of that cell's material. A point on a face or vertex is taken in the cell that
   * the lowest rank finds first; the fields are continuous there, the stress is that cell's.
   *
   * Parallel: the rank owning the cell evaluates the point; the few DoF values it needs (some may be
   * owned by neighbours) arrive by one PETSc scatter per vector and step; the rows are summed onto
   * every rank (the other ranks contribute exact zeros), so the file is the same on any number of
   * ranks to round-off.
   */
  template <int dim>
  class ProbePoints : public Postprocessor
  {
  public:
    /**
     * Locates @p points in the locally owned cells of @p dof_handler (the mapping of the bodies)
     * and precomputes the shape values and gradients there. @p lame gives (λ, μ) of a material id.
     * @throws InputError naming the parameter and the point if one lies outside the mesh.
     * Collective.
     */
    ProbePoints(const dealii::DoFHandler<dim> &dof_handler, const dealii::Mapping<dim> &mapping,
                const std::vector<dealii::Point<dim>> &points,
                const std::function<std::pair<double, double>(dealii::types::material_id)> &lame,
                const dealii::PETScWrappers::MPI::Vector &like, MPI_Comm communicator);
    ProbePoints(const ProbePoints &) = delete;
    ProbePoints &operator=(const ProbePoints &) = delete;

    /// Opens (truncates) @p file_name on the ranks where @p write is true; a resumed run keeps the
    /// rows up to @p resume_after_step (StatisticsTable::open()).
    void open(const std::string &file_name, bool write, std::optional<unsigned int> resume_after_step = std::nullopt);
    /// Adds one row per point for the displacement @p u and velocity @p v at @p step, @p time.
    /// Collective.
    void record(unsigned int step, double time, const dealii::PETScWrappers::MPI::Vector &u,
                const dealii::PETScWrappers::MPI::Vector &v);
    /**
     * The same with large rotations: the stress from the elastic displacement @p strain in the
     * bodies' frames, rotated to space by the frame of the probe's material, R σ Rᵀ (@p rotations
     * by material id). Collective.
     */
    void record(unsigned int step, double time, const dealii::PETScWrappers::MPI::Vector &u,
                const dealii::PETScWrappers::MPI::Vector &v, const dealii::PETScWrappers::MPI::Vector &strain,
                const std::map<unsigned int, Matrix3> &rotations);
    /// record() of @p view's displacement and velocity (all occasions but StepView::Occasion::last_state),
    /// with the stress measured in the frames of measure_in_frames() where they are not all the identity.
    void execute(const StepView &view) override;
    void flush() override { table->flush(); }
    /// Large rotations: execute() takes the stress of the elastic displacement in @p frames
    /// (nullptr: of the displacement).
    void measure_in_frames(const BodyFrames *frames) { stress_frames = frames; }

    const StatisticsTable &table_of_rows() const { return *table; }
    /// StatisticsTable::keep_rows_in_memory() of the table.
    void keep_rows_in_memory(bool keep) { table->keep_rows_in_memory(keep); }
    /// The values of the last record(), per point: u (dim), v (dim), σ (Voigt, dim(dim+1)/2).
    const std::vector<double> &last_values() const { return values; }

  private:
    /// What the owning rank keeps of one point it evaluates.
    struct LocalProbe
    {
      unsigned int index = 0;                             ///< in the list of points
      std::vector<unsigned int> scatter_slot;             ///< per cell DoF: its slot in the gathered values
      std::vector<unsigned int> component;                ///< per cell DoF: its vector component
      std::vector<double> shape_value;                    ///< per cell DoF: φ_j(x)
      std::vector<dealii::Tensor<1, dim>> shape_gradient; ///< per cell DoF: ∇φ_j(x) (its component's)
      double lambda = 0, mu = 0;
      unsigned int material = 0;
    };

    void evaluate(const PetscScalar *u, const PetscScalar *v, const PetscScalar *strain = nullptr,
                  const std::map<unsigned int, Matrix3> *rotations = nullptr);
    /// The rows of the last evaluate().
    void add_rows(unsigned int step, double time);

    const std::vector<dealii::Point<dim>> points;
    MPI_Comm communicator;
    std::vector<LocalProbe> local;
    /// The owned points' DoF values gathered from the distributed vectors (one slot per DoF).
    VecHandle gathered_u, gathered_v, gathered_strain;
    /// Gathers those DoFs' values into the vectors above.
    VecScatterHandle scatter;
    std::vector<double> values;
    std::unique_ptr<StatisticsTable> table;
    const BodyFrames *stress_frames = nullptr; ///< measure_in_frames()
  };

  /**
   * Parses `Output/Probe points`: points separated by ';', each with @p dim comma-separated finite
   * coordinates. @throws InputError naming the parameter and the offending point.
   */
  template <int dim>
  std::vector<dealii::Point<dim>> parse_probe_points(const std::string &text);
} // namespace percussion::Postprocess

#endif
