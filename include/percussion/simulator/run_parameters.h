#ifndef PERCUSSION_SIMULATOR_RUN_PARAMETERS_H
#define PERCUSSION_SIMULATOR_RUN_PARAMETERS_H

#include <deal.II/base/parameter_handler.h>

#include <percussion/body/body_parameters.h>
#include <percussion/contact/contact_parameters.h>
#include <percussion/contact_step/contact_dynamics_parameters.h>
#include <percussion/core/linear_solver_parameters.h>
#include <percussion/core/mesh_parameters.h>
#include <percussion/postprocess/output_parameters.h>
#include <percussion/time_integration/time_integration_parameters.h>

#include <map>
#include <string>

namespace percussion
{
  /**
   * Everything a run reads from its parameter file. Each subsystem declares and parses its own
   * subsection; this struct only gathers them and adds the top-level entries `Dimension` and
   * `Function constants`.
   */
  struct RunParameters
  {
    unsigned int dimension = 3;
    std::map<std::string, double> function_constants;
    MeshParameters mesh;
    Body::BodyParameters body;
    TimeIntegration::TimeIntegrationParameters time;
    LinearSolverParameters linear_solver;
    Postprocess::OutputParameters output;
    Contact::ContactParameters contact;
    ContactStep::ContactDynamicsParameters contact_solver;
    /// 'Kinematics/Formulation' resolved: whether the bodies move with a frame each (large rotations).
    bool large_rotations = false;
    /// Warnings found while parsing (e.g. θ outside the Frémond dissipation range), printed by the run.
    std::vector<std::string> warnings;
    /// Every entry with its effective value (the file's, overridden by `--set`), as a parameter
    /// file: the simulator writes it to <Output/Directory>/parameters.prm.
    std::string effective_parameters;

    /** Declares every entry; @p n_pairs contact pair subsections at least (ContactParameters). */
    static void declare_parameters(dealii::ParameterHandler &prm,
                                   unsigned int n_pairs = Contact::ContactParameters::default_declared_pairs);
    void parse_parameters(dealii::ParameterHandler &prm);

    /**
     * Reads a parameter file. @throws InputError naming the file and line for an unknown entry or
     * subsection, a value that does not match its pattern, or an inadmissible value.
     */
    static RunParameters from_file(const std::string &file_name);
    /**
     * The same, then @p overrides, each "Section/Subsection/Entry=value" (the command line's
     * `--set`), checked like the file's entries. @throws InputError naming the override for a
     * malformed one, an unknown entry or a value that does not match its pattern.
     */
    static RunParameters from_file(const std::string &file_name, const std::vector<std::string> &overrides);
    /// The same for parameter text (tests); @p name stands for the file name in messages.
    static RunParameters from_string(const std::string &text, const std::string &name = "input",
                                     const std::vector<std::string> &overrides = {});
  };
} // namespace percussion

#endif
