#include <percussion/core/exceptions.h>
#include <percussion/postprocess/body_motion.h>
#include <percussion/postprocess/contact_force_table.h>
#include <percussion/postprocess/postprocessor_registry.h>
#include <percussion/postprocess/statistics_output.h>

#include <stdexcept>

namespace percussion::Postprocess
{
  namespace
  {
    using dealii::ParameterHandler;

    /// statistics.csv: the Simulator reads the table (Simulator::statistics()) in every run.
    template <int dim>
    struct Statistics
    {
      static constexpr const char *name = "statistics";
      static constexpr bool always = true;
      static void declare_parameters(ParameterHandler &prm)
      {
        prm.declare_entry("Write statistics", "true", dealii::Patterns::Bool(),
                          "Write one row per time step to <Directory>/statistics.csv.");
      }
      static void parse_parameters(ParameterHandler &prm, OutputParameters &output)
      {
        // The older switch, kept: false takes statistics out of the list.
        if (!prm.get_bool("Write statistics"))
          output.set_listed(name, false);
      }
      static void add(PostprocessorContext<dim> &context, const bool write)
      {
        context.list.add(
          std::make_unique<StatisticsOutput>(context.initial_view, context.output.directory + "/statistics.csv",
                                             context.root && write, context.resumed_step, context.keep_rows));
      }
    };

    /// step_timings.csv.
    template <int dim>
    struct StepTimings
    {
      static constexpr const char *name = "step timings";
      static constexpr bool always = false;
      static void declare_parameters(ParameterHandler &prm)
      {
        prm.declare_entry("Write step timings", "false", dealii::Patterns::Bool(),
                          "Write the wall-clock seconds of each step and of its parts (contact geometry, "
                          "free-velocity solve, contact step, gap check/projection) to "
                          "<Directory>/step_timings.csv, for benchmarks; timings are not reproducible, so "
                          "they are kept out of statistics.csv.");
      }
      static void parse_parameters(ParameterHandler &prm, OutputParameters &output)
      {
        if (prm.get_bool("Write step timings"))
          output.set_listed(name, true);
      }
      static void add(PostprocessorContext<dim> &context, bool)
      {
        context.list.add(std::make_unique<StepTimingsOutput>(context.output.directory + "/step_timings.csv",
                                                             context.root, context.resumed_step, context.keep_rows));
      }
    };

    /// bodies.csv.
    template <int dim>
    struct Bodies
    {
      static constexpr const char *name = "bodies";
      static constexpr bool always = false;
      static void declare_parameters(ParameterHandler &prm)
      {
        prm.declare_entry("Write bodies", "false", dealii::Patterns::Bool(),
                          "Write one row per body (material id) and time step to <Directory>/bodies.csv: "
                          "mass, momentum, mean velocity, kinetic energy (costs a mass-matrix product per "
                          "body and step, hence off by default).");
      }
      static void parse_parameters(ParameterHandler &prm, OutputParameters &output)
      {
        if (prm.get_bool("Write bodies"))
          output.set_listed(name, true);
      }
      static void add(PostprocessorContext<dim> &context, bool)
      {
        auto &bodies = context.list.add(
          std::make_unique<BodyMotion<dim>>(context.bodies.get_dof_handler(), context.bodies.mass_matrix(),
                                            context.bodies.locally_owned_dofs(), context.communicator,
                                            context.frames != nullptr ? context.frames->body_of_material()
                                                                      : std::map<unsigned int, unsigned int>()));
        bodies.keep_rows_in_memory(context.keep_rows);
        bodies.open(context.output.directory + "/bodies.csv", context.root, context.resumed_step);
      }
    };

    /// probes.csv at 'Probe points' (located by the Simulator at set-up).
    template <int dim>
    struct Probes
    {
      static constexpr const char *name = "probes";
      static constexpr bool always = false;
      static void declare_parameters(ParameterHandler &prm)
      {
        prm.declare_entry("Probe points", "", dealii::Patterns::Anything(),
                          "Points of the reference configuration, separated by ';', each with one "
                          "comma-separated coordinate per dimension (e.g. '0.5, 0, 0.1; 1, 0, 0'): "
                          "displacement, velocity and stress interpolated there every step into "
                          "<Directory>/probes.csv, one row per point and step. Empty: none.");
      }
      static void parse_parameters(ParameterHandler &prm, OutputParameters &output)
      {
        output.probe_points = prm.get("Probe points");
        if (output.probe_points.find_first_not_of(" \t") != std::string::npos)
          output.set_listed(name, true);
        else if (output.lists(name))
          throw InputError("Parameter 'Output/Postprocessors' lists probes, and 'Output/Probe points' is empty: "
                           "give the points there (e.g. '0.5, 0, 0.1; 1, 0, 0'), or take probes out of the list.");
      }
      static void add(PostprocessorContext<dim> &context, bool)
      {
        // (parse_parameters() lists probes only with points, which the Simulator has located.)
        if (!context.probes)
          throw std::logic_error("probes listed without located probe points");
        auto &probes = context.list.add(std::move(context.probes));
        probes.keep_rows_in_memory(context.keep_rows);
        probes.measure_in_frames(context.large_rotations ? context.frames : nullptr);
        probes.open(context.output.directory + "/probes.csv", context.root, context.resumed_step);
      }
    };

    /// events.csv: the Simulator holds the log from its start (its parts add events); this opens it.
    template <int dim>
    struct Events
    {
      static constexpr const char *name = "events";
      static constexpr bool always = true;
      static constexpr void (*declare_parameters)(ParameterHandler &) = nullptr;
      static constexpr void (*parse_parameters)(ParameterHandler &, OutputParameters &) = nullptr;
      static void add(PostprocessorContext<dim> &context, const bool write)
      {
        EventLog *events = context.list.template find<EventLog>();
        if (events == nullptr)
          throw std::logic_error("the Simulator's event log is not in its postprocessor list");
        events->open(context.output.directory + "/events.csv", context.root && write, context.resumed_step,
                     context.resumed_events);
      }
    };

    /// The ParaView records: a checkpoint lists them, so the Simulator makes them in every run.
    template <int dim>
    struct Vtu
    {
      static constexpr const char *name = "vtu";
      static constexpr bool always = true;
      // ('VTU interval' and the other VTU entries stay OutputParameters' own: the checkpoints and
      // the solution output read them.)
      static constexpr void (*declare_parameters)(ParameterHandler &) = nullptr;
      static void parse_parameters(ParameterHandler &, OutputParameters &output)
      {
        // Not listed: no records, as with an interval of 0 (VtuOutput writes none then).
        if (!output.lists(name))
          {
            output.vtu_interval = 0;
            output.vtu_time_interval = 0;
          }
      }
      static void add(PostprocessorContext<dim> &context, bool) { context.list.add(std::move(context.vtu)); }
    };

    /// The registry's line of a postprocessor class @p P (see PostprocessorPlugin).
    template <class P, int dim>
    PostprocessorPlugin<dim> plugin()
    {
      return {P::name, P::always, P::declare_parameters, P::parse_parameters, P::add};
    }
  } // namespace

  template <int dim>
  const std::vector<PostprocessorPlugin<dim>> &postprocessor_plugins()
  {
    // The order they run after a step: the tables, then the records whose writing flushes them.
    static const std::vector<PostprocessorPlugin<dim>> plugins{
      plugin<Statistics<dim>, dim>(), plugin<StepTimings<dim>, dim>(),       plugin<Bodies<dim>, dim>(),
      plugin<Probes<dim>, dim>(),     plugin<ContactForceTable<dim>, dim>(), plugin<Events<dim>, dim>(),
      plugin<Vtu<dim>, dim>(),
    };
    return plugins;
  }

  std::string postprocessor_names()
  {
    std::string names;
    for (const auto &plugin : postprocessor_plugins<1>())
      names += (names.empty() ? "" : "|") + plugin.name;
    return names;
  }

  template <int dim>
  void add_postprocessors(PostprocessorContext<dim> &context)
  {
    for (const auto &plugin : postprocessor_plugins<dim>())
      {
        const bool listed = context.output.lists(plugin.name);
        if (listed || plugin.always)
          plugin.add(context, listed);
      }
  }

  template const std::vector<PostprocessorPlugin<1>> &postprocessor_plugins<1>();
  template const std::vector<PostprocessorPlugin<2>> &postprocessor_plugins<2>();
  template const std::vector<PostprocessorPlugin<3>> &postprocessor_plugins<3>();
  template void add_postprocessors<1>(PostprocessorContext<1> &);
  template void add_postprocessors<2>(PostprocessorContext<2> &);
  template void add_postprocessors<3>(PostprocessorContext<3> &);
} // namespace percussion::Postprocess
