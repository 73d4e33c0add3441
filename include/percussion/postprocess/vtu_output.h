#ifndef PERCUSSION_POSTPROCESS_VTU_OUTPUT_H
#define PERCUSSION_POSTPROCESS_VTU_OUTPUT_H

#include <deal.II/numerics/data_postprocessor.h>

#include <percussion/body/elastic_body.h>
#include <percussion/contact/contact_geometry.h>
#include <percussion/postprocess/output_parameters.h>
#include <percussion/postprocess/postprocessor.h>
#include <percussion/postprocess/solution_output.h>
#include <percussion/postprocess/time_series.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace percussion::Postprocess
{
  /**
   * The ParaView records of a run: the solution (`solution.pvd`, SolutionOutput: displacement,
   * velocity, stress, and the viscoelastic cell fields) and, with contact pairs, the contact points
   * of the same instant (`contact.pvd`). A record is written for the initial state, every
   * 'Output/VTU interval' steps (or at every multiple of 'Output/VTU time interval' seconds from
   * the start, whatever the step sizes), after the last step, and for the last state of a run that
   * stops early; none with both intervals 0.
   */
  template <int dim>
  class VtuOutput : public Postprocessor
  {
  public:
    /**
     * The stress is the bodies' (ElasticBody::make_stress_postprocessor()); @p stress_frames: the
     * frames it is measured in (large rotations; nullptr otherwise); @p viscoelastic: whether the integrator is
     * a MoreauJeanIntegrator with Maxwell strains or Kelvin-Voigt damping to write; @p geometry:
     * nullptr without contact pairs. @p after_record runs after every record (the tables are flushed
     * with it), and the seconds spent are added to @p output_seconds.
     */
    VtuOutput(const OutputParameters &output, MPI_Comm communicator, const Body::ElasticBody<dim> &bodies,
              const BodyFrames *stress_frames, bool viscoelastic, const Contact::ContactGeometry<dim> *geometry,
              std::function<void()> after_record, double &output_seconds);

    void execute(const StepView &view) override;
    /// Waits for the record written in the background (SolutionOutput::finish()).
    void finish(const StepView &view) override;
    /// SolutionOutput::finish() (before a checkpoint lists the records, and when a run stops).
    void finish_writing() { solution.finish(); }

    /// The (time, file) records of solution.pvd and contact.pvd (nullptr without contact pairs).
    const std::vector<std::pair<double, std::string>> &solution_records() const { return solution.written(); }
    const std::vector<std::pair<double, std::string>> *contact_records() const
    {
      return contact_series ? &contact_series->written() : nullptr;
    }
    /// A resumed run: the series list the checkpoint's records (TimeSeries::restore()).
    void restore(std::vector<std::pair<double, std::string>> solution_records,
                 std::vector<std::pair<double, std::string>> contact_records);
    /// The step of the last record (a checkpoint keeps it: SavedValues).
    unsigned int &last_recorded_step() { return last_written_step; }

  private:
    /// Whether the step @p integrator has just taken ends a record interval (in steps or in time).
    bool record_due_after_step(const TimeIntegration::TimeIntegrator &integrator) const;
    /// Writes the record of @p view's state.
    void write(const StepView &view);
    /// The contact points of the geometry the last step started from, with that step's fields.
    void write_contact_points(const StepView &view);
    /// Body::ElasticBody::viscoelastic_fields() of @p integrator's state (Moreau–Jean); with large
    /// rotations (@p rotations of each material's body not empty) computed in the frames and
    /// rotated to space.
    std::vector<std::pair<std::string, dealii::Vector<float>>>
    viscoelastic_cell_fields(const TimeIntegration::TimeIntegrator &integrator,
                             const std::map<unsigned int, Matrix3> &rotations) const;

    const OutputParameters &output;
    MPI_Comm communicator;
    const Body::ElasticBody<dim> &bodies;
    /// The stress of the bodies without frames (a record with frames gets one of its own).
    std::shared_ptr<const dealii::DataPostprocessor<dim>> stress;
    const BodyFrames *stress_frames;
    bool viscoelastic;
    const Contact::ContactGeometry<dim> *geometry;
    std::function<void()> after_record;
    double &output_seconds;
    SolutionOutput<dim> solution;
    std::unique_ptr<TimeSeries> contact_series;
    unsigned int last_written_step = static_cast<unsigned int>(-1);
  };
} // namespace percussion::Postprocess

#endif
