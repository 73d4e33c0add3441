#ifndef PERCUSSION_POSTPROCESS_OUTPUT_PARAMETERS_H
#define PERCUSSION_POSTPROCESS_OUTPUT_PARAMETERS_H

#include <deal.II/base/parameter_handler.h>

#include <string>
#include <vector>

namespace percussion::Postprocess
{
  /// The zlib level of the solution's VTU files ('Output/VTU compression').
  enum class VtuCompression
  {
    best_speed,
    best_compression,
    none
  };

  /// `subsection Output`.
  struct OutputParameters
  {
    std::string directory = "output";
    unsigned int vtu_interval = 10; ///< steps between VTU outputs; 0: none
    /// Seconds of simulated time between VTU outputs, from the start time (a whole multiple of the
    /// time step); 0: 'VTU interval' steps. It replaces the step interval when positive.
    double vtu_time_interval = 0;
    /// Whether the run writes VTU records (either interval positive).
    bool writes_vtu() const { return vtu_interval > 0 || vtu_time_interval > 0; }
    /// zlib level of the solution's VTU files: 'best speed' (default), 'best compression', 'none'.
    VtuCompression vtu_compression = VtuCompression::best_speed;
    /// Solution VTU files per record on several ranks: 0 one per rank, N ≥ 1 N files written
    /// together with MPI-IO (1: a single file; the contact points then go to one file as well).
    unsigned int vtu_files_per_record = 0;
    /// Encode, compress and write the solution's .vtu in a thread of its own (one file per rank).
    bool write_in_background = true;
    double progress_interval = 2; ///< wall seconds between progress lines; 0: none
    /// 'Postprocessors': the names of the registry's postprocessors the run writes
    /// (postprocessor_plugins()), with those the older entries ('Write bodies', ...) add.
    std::vector<std::string> postprocessors{"statistics", "vtu", "events"};
    /// 'Probe points' as written (parsed where the dimension is known: parse_probe_points()).
    std::string probe_points;
    unsigned int checkpoint_interval = 0; ///< steps between checkpoints; 0: none at intervals
    double checkpoint_minutes = 0;        ///< wall-clock minutes between checkpoints; 0: none
    unsigned int checkpoints_kept = 2;    ///< the newest checkpoints kept

    /// Declares the subsection, with the entries of every postprocessor of the registry.
    static void declare_parameters(dealii::ParameterHandler &prm);
    /// Reads it back; each postprocessor of the registry reads its own entries. @throws InputError.
    void parse_parameters(dealii::ParameterHandler &prm);
    /// Whether 'Postprocessors' (with the older entries) lists @p name.
    bool lists(const std::string &name) const;
    /// Adds @p name to the list where it is missing, or takes it out (@p listed false).
    void set_listed(const std::string &name, bool listed);
    /// Checks that the directory exists and a file can be written in it, or that it can be created
    /// (its nearest existing ancestor is a writable directory), without creating anything or
    /// touching existing files: a run whose input is refused leaves nothing on disk.
    /// @throws InputError naming 'Output/Directory' otherwise.
    void check_writable() const;
    /// Creates the directory if it is missing (once the input is accepted, before the first output).
    /// @throws InputError naming 'Output/Directory' if that fails.
    void create_directory() const;
  };
} // namespace percussion::Postprocess

#endif
