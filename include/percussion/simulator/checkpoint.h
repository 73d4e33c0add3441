#ifndef PERCUSSION_SIMULATOR_CHECKPOINT_H
#define PERCUSSION_SIMULATOR_CHECKPOINT_H

#include <deal.II/base/types.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/lac/petsc_vector.h>

#include <percussion/contact_step/frictional_contact_step.h>

#include <mpi.h>

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace percussion::Checkpoint
{
  /**
   * The files of a checkpoint directory (doc/user_guide.md, "Checkpoints and restart"):
   *
   *   header.txt            key = value lines: what the run was (dimension, degree, scheme, step
   *                         size, mesh fingerprint, DoFs), where it was (clock, steps done) and every
   *                         scalar of its state (energy audit, counters), reals in hexadecimal
   *                         floating point (exact);
   *   dofs-<rank>.bin       per locally owned cell: its CellId, its DoF indices and the values of
   *                         the saved vectors there; CellIds do not depend on the partition, so
   *                         another number of ranks can read them;
   *   contact_history.bin   the contact step's warm-start impulses and dissipated energies by key,
   *                         and the Delassus columns' support batches (large rotations).
   */
  inline const char *header_file = "header.txt";
  inline const char *history_file = "contact_history.bin";
  std::string dofs_file(unsigned int rank);

  /// The key = value header. Reading it checks the format line and names the file in every error.
  class Header
  {
  public:
    void set(const std::string &key, const std::string &value);
    void set_real(const std::string &key, double value);
    void set_count(const std::string &key, unsigned long long value);

    bool has(const std::string &key) const { return values.count(key) > 0; }
    /// @throws InputError naming the file and the key if it is missing or not of the type.
    const std::string &get(const std::string &key) const;
    double get_real(const std::string &key) const;
    unsigned long long get_count(const std::string &key) const;

    void write(const std::string &file_name) const;
    /// @throws InputError if the file is missing, not a percussion checkpoint header, or a line is
    /// not `key = value` (the line is named).
    static Header read(const std::string &file_name);

  private:
    std::string file;
    std::vector<std::string> order;
    std::map<std::string, std::string> values;
  };

  /**
   * Writes this rank's part of @p vectors (with ghost entries: a locally owned cell's DoFs may be
   * owned by a neighbour) to @p file_name: every locally owned cell of @p dof_handler.
   */
  template <int dim>
  void write_dof_values(const std::string &file_name, const dealii::DoFHandler<dim> &dof_handler,
                        const std::vector<const dealii::PETScWrappers::MPI::Vector *> &vectors);

  /**
   * Reads every part file @p file_names (written on any number of ranks) and sets the locally
   * owned entries of @p vectors (no ghosts) from the cells this rank owns now. Returns the map from
   * the writing run's DoF index to this run's, for the locally owned DoFs.
   * @throws InputError if a file is truncated or damaged, holds another number of vectors or DoFs
   * per cell, or a locally owned cell is missing (another mesh).
   */
  template <int dim>
  std::unordered_map<dealii::types::global_dof_index, dealii::types::global_dof_index>
  read_dof_values(const std::vector<std::string> &file_names, const dealii::DoFHandler<dim> &dof_handler,
                  const std::vector<dealii::PETScWrappers::MPI::Vector *> &vectors);

  /**
   * A number that changes with the mesh: a sum over the active cells of a hash of the CellId and
   * the vertices (single precision), modulo 2^64: independent of the partition. Collective.
   */
  template <int dim>
  std::uint64_t mesh_fingerprint(const dealii::DoFHandler<dim> &dof_handler, MPI_Comm communicator);

  void write_contact_history(const std::string &file_name, const ContactStep::FrictionalContactStep::History &history);
  /// @throws InputError if the file is truncated or damaged.
  ContactStep::FrictionalContactStep::History read_contact_history(const std::string &file_name);

  /**
   * The contact keys (pair · n_dofs + slave DoF) and the support batches' DoFs of @p history in
   * this run's DoF numbering: @p owned_dof_map is read_dof_values()' map on this rank; every rank
   * translates the DoFs it owns and all gather them. @throws InputError if a key's DoF is not
   * found (support batches with a DoF not found are left out). Collective.
   */
  ContactStep::FrictionalContactStep::History translate_contact_keys(
    const ContactStep::FrictionalContactStep::History &history,
    const std::unordered_map<dealii::types::global_dof_index, dealii::types::global_dof_index> &owned_dof_map,
    dealii::types::global_dof_index n_dofs, MPI_Comm communicator);

  /**
   * The checkpoint @p path designates: @p path itself if it holds a header, else the newest
   * complete `step-*` directory in @p path or in `@p path/checkpoints`. @throws InputError if none.
   */
  std::string locate(const std::string &path);
} // namespace percussion::Checkpoint

#endif
