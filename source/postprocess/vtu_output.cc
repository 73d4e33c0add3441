#include <deal.II/base/timer.h>

#include <cmath>

#include <percussion/contact/contact_point_output.h>
#include <percussion/postprocess/vtu_output.h>
#include <percussion/time_integration/moreau_jean_integrator.h>

namespace percussion::Postprocess
{
  using namespace dealii;

  template <int dim>
  VtuOutput<dim>::VtuOutput(const OutputParameters &output, MPI_Comm communicator, const Body::ElasticBody<dim> &bodies,
                            const BodyFrames *stress_frames, const bool viscoelastic,
                            const Contact::ContactGeometry<dim> *geometry, std::function<void()> after_record,
                            double &output_seconds)
    : output(output)
    , communicator(communicator)
    , bodies(bodies)
    , stress(bodies.make_stress_postprocessor())
    , stress_frames(stress_frames)
    , viscoelastic(viscoelastic)
    , geometry(geometry)
    , after_record(std::move(after_record))
    , output_seconds(output_seconds)
    , solution(output.directory, communicator, output.vtu_compression, output.vtu_files_per_record,
               output.write_in_background)
  {
    if (geometry)
      contact_series = std::make_unique<TimeSeries>(output.directory, "contact", communicator);
  }

  template <int dim>
  void VtuOutput<dim>::execute(const StepView &view)
  {
    if (!output.writes_vtu())
      return;
    bool due = false;
    switch (view.occasion)
      {
      case StepView::Occasion::initial_state:
        due = true;
        break;
      case StepView::Occasion::step:
        due = view.last_step || record_due_after_step(view.integrator);
        break;
      case StepView::Occasion::stopped_after_step:
      case StepView::Occasion::last_state:
        // A run that stops early leaves its last state behind, once.
        due = last_written_step != view.step();
        break;
      }
    if (due)
      write(view);
  }

  template <int dim>
  bool VtuOutput<dim>::record_due_after_step(const TimeIntegration::TimeIntegrator &integrator) const
  {
    if (output.vtu_time_interval <= 0)
      return integrator.step_number() % output.vtu_interval == 0;
    // Counted in nominal steps, which are exact binary fractions whatever the step sizes were: the
    // interval is a whole number of them (an input check), and a step of any dyadic size ends on
    // every multiple of the nominal step it crosses, so the record falls on the step that ends at
    // its time. (The rounding margin only absorbs the division.)
    const double steps_per_record = std::round(output.vtu_time_interval / integrator.nominal_time_step());
    const double after = integrator.elapsed_nominal_steps();
    const double before = after - integrator.time_step() / integrator.nominal_time_step();
    return std::floor(after / steps_per_record + 1e-9) > std::floor(before / steps_per_record + 1e-9);
  }

  template <int dim>
  void VtuOutput<dim>::finish(const StepView &)
  {
    // The last record written in the background is output time too.
    Timer timer;
    solution.finish();
    output_seconds += timer.wall_time();
  }

  template <int dim>
  void VtuOutput<dim>::restore(std::vector<std::pair<double, std::string>> solution_records,
                               std::vector<std::pair<double, std::string>> contact_records)
  {
    solution.restore(std::move(solution_records));
    if (contact_series)
      contact_series->restore(std::move(contact_records));
  }

  template <int dim>
  void VtuOutput<dim>::write(const StepView &view)
  {
    Timer timer;
    const auto &integrator = view.integrator;
    const auto &dof_handler = bodies.get_dof_handler();
    const auto &q = integrator.displacement();
    const auto &v = integrator.velocity();
    const bool rotated = stress_frames != nullptr && !stress_frames->all_identity();
    const std::map<unsigned int, Matrix3> rotations =
      rotated ? material_rotations(*stress_frames) : std::map<unsigned int, Matrix3>{};
    std::vector<std::pair<std::string, Vector<float>>> viscoelastic_fields;
    if (viscoelastic)
      viscoelastic_fields = viscoelastic_cell_fields(integrator, rotations);
    if (rotated)
      {
        // Large rotations: the stress of the elastic displacement ũ in the step's frames, rotated
        // to space by the frames (a rigid rotation has no stress).
        PETScWrappers::MPI::Vector unrotated(bodies.locally_owned_dofs(), communicator);
        stress_frames->unrotated_displacement(q, unrotated);
        solution.write(integrator.time(), integrator.step_number(), dof_handler, q, v,
                       bodies.make_stress_postprocessor(rotations), &unrotated, std::move(viscoelastic_fields));
      }
    else
      solution.write(integrator.time(), integrator.step_number(), dof_handler, q, v, stress, nullptr,
                     std::move(viscoelastic_fields));
    if (geometry)
      write_contact_points(view);
    last_written_step = integrator.step_number();
    after_record();
    output_seconds += timer.wall_time();
  }

  template <int dim>
  std::vector<std::pair<std::string, Vector<float>>>
  VtuOutput<dim>::viscoelastic_cell_fields(const TimeIntegration::TimeIntegrator &integrator,
                                           const std::map<unsigned int, Matrix3> &rotations) const
  {
    // Viscoelastic materials (Moreau–Jean only): their viscous stress and the branches' energy
    // density as cell data. With large rotations the branches' eᵢ are held in the frames: the
    // velocity joins them there (𝐑ᵀv) and the stress is rotated to space as the elastic one.
    const auto &moreau_jean = dynamic_cast<const TimeIntegration::MoreauJeanIntegrator &>(integrator);
    PETScWrappers::MPI::Vector velocity = integrator.velocity();
    if (!rotations.empty())
      stress_frames->rotate(velocity, true);
    PETScWrappers::MPI::Vector ghosted_v(bodies.locally_owned_dofs(), bodies.locally_relevant_dofs(), communicator);
    ghosted_v = velocity;
    std::vector<PETScWrappers::MPI::Vector> ghosted;
    ghosted.reserve(moreau_jean.maxwell_strains().size());
    std::vector<const PETScWrappers::MPI::Vector *> strains;
    for (const auto &e : moreau_jean.maxwell_strains())
      {
        ghosted.emplace_back(bodies.locally_owned_dofs(), bodies.locally_relevant_dofs(), communicator);
        ghosted.back() = e;
        strains.push_back(&ghosted.back());
      }
    return bodies.viscoelastic_fields(ghosted_v, strains, rotations);
  }

  template <int dim>
  void VtuOutput<dim>::write_contact_points(const StepView &view)
  {
    Contact::ContactPointFields fields;
    const auto &c = view.contact;
    if (c.state.size() == geometry->n_owned_points())
      {
        fields.status = c.state;
        fields.reaction = c.impulse;
        fields.slip_velocity = c.velocity;
        fields.dissipated_energy = c.dissipated_energy;
        fields.in_problem = c.in_problem;
      }
    else
      {
        // Before the first step (no contact problem solved yet): the same arrays, open and
        // zero, so that every record of contact.pvd has the same arrays (ParaView's time
        // series and readers expect them in every file; postprocess.vtk_readers checks it).
        const std::size_t n = geometry->n_owned_points();
        fields.status.assign(n, ContactSolvers::ContactState::open);
        fields.reaction.assign(dim * n, 0.0);
        fields.slip_velocity.assign(dim * n, 0.0);
        fields.dissipated_energy.assign(n, 0.0);
        fields.in_problem.assign(n, false);
      }
    fields.time_step = view.integrator.time_step(); // for the contact pressure r_N / (h · area)
    contact_series->add(view.time(),
                        Contact::write_contact_points_vtu(*geometry, fields, output.directory, "contact",
                                                          contact_series->size(), output.vtu_files_per_record == 1));
  }

  template class VtuOutput<1>;
  template class VtuOutput<2>;
  template class VtuOutput<3>;
} // namespace percussion::Postprocess
