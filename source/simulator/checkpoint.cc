#include <deal.II/base/mpi.h>
#include <deal.II/base/utilities.h>
#include <deal.II/dofs/dof_accessor.h>

#include <percussion/core/exceptions.h>
#include <percussion/simulator/checkpoint.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

namespace percussion::Checkpoint
{
  using dealii::types::global_dof_index;

  namespace
  {
    const char *format_line = "percussion checkpoint, format 1";
    const char *dofs_magic = "PERCUSSION-CHECKPOINT-DOFS-1";
    const char *history_magic = "PERCUSSION-CHECKPOINT-HISTORY-1";
    const char *cache_magic = "CACHE-STATE-1";

    // Binary files are written and read in the machine's byte order: a checkpoint continues a run
    // on the same kind of machine (the header records nothing that would let another one convert).
    class Writer
    {
    public:
      explicit Writer(const std::string &name)
        : name(name)
        , out(name, std::ios::binary)
      {
        if (!out)
          throw InputError("Cannot write the checkpoint file '" + name + "': " + std::strerror(errno));
      }
      template <typename T>
      void put(const T &value)
      {
        out.write(reinterpret_cast<const char *>(&value), sizeof(T));
      }
      void put_bytes(const void *data, const std::size_t n) { out.write(static_cast<const char *>(data), n); }
      void close()
      {
        out.close();
        if (!out)
          throw InputError("Cannot write the checkpoint file '" + name + "' (disk full?).");
      }

    private:
      std::string name;
      std::ofstream out;
    };

    class Reader
    {
    public:
      explicit Reader(const std::string &name)
        : name(name)
        , in(name, std::ios::binary)
      {
        if (!in)
          throw InputError("Cannot read the checkpoint file '" + name + "': " + std::strerror(errno));
        in.seekg(0, std::ios::end);
        size = in.tellg();
        in.seekg(0);
      }
      template <typename T>
      T get()
      {
        T value;
        read(&value, sizeof(T));
        return value;
      }
      void read(void *data, const std::size_t n)
      {
        // Every length read from the file is checked against what is left, so that a damaged file
        // cannot make a huge allocation.
        if (n > remaining())
          damaged("it ends early (truncated)");
        in.read(static_cast<char *>(data), n);
        if (!in)
          damaged("it cannot be read");
      }
      std::uint64_t remaining() { return size - static_cast<std::uint64_t>(in.tellg()); }
      [[noreturn]] void damaged(const std::string &why) const
      {
        throw InputError("The checkpoint file '" + name + "' is damaged: " + why + ".");
      }
      void expect_magic(const char *magic)
      {
        std::string text(std::strlen(magic), '\0');
        if (std::strlen(magic) > remaining())
          damaged("it is not a percussion checkpoint file");
        read(text.data(), text.size());
        if (text != magic)
          damaged("it is not a percussion checkpoint file of this version");
      }

    private:
      std::string name;
      std::ifstream in;
      std::uint64_t size = 0;
    };

    std::uint64_t fnv1a(const void *data, const std::size_t n, std::uint64_t hash)
    {
      const auto *bytes = static_cast<const unsigned char *>(data);
      for (std::size_t i = 0; i < n; ++i)
        {
          hash ^= bytes[i];
          hash *= 1099511628211ull;
        }
      return hash;
    }

    /// Old → new index of each of @p old_dofs that some rank owns (@p owned_dof_map is this
    /// rank's part of the translation): every rank translates its own, then all gather. Collective.
    std::map<unsigned long long, unsigned long long>
    translated_dofs(const std::vector<unsigned long long> &old_dofs,
                    const std::unordered_map<global_dof_index, global_dof_index> &owned_dof_map, MPI_Comm communicator)
    {
      std::vector<std::pair<unsigned long long, unsigned long long>> own;
      for (const unsigned long long dof : old_dofs)
        if (const auto it = owned_dof_map.find(dof); it != owned_dof_map.end())
          own.emplace_back(dof, it->second);
      std::map<unsigned long long, unsigned long long> map;
      for (const auto &part : dealii::Utilities::MPI::all_gather(communicator, own))
        map.insert(part.begin(), part.end());
      return map;
    }
  } // namespace

  std::string dofs_file(const unsigned int rank)
  {
    return "dofs-" + std::to_string(rank) + ".bin";
  }

  void Header::set(const std::string &key, const std::string &value)
  {
    if (values.count(key) == 0)
      order.push_back(key);
    values[key] = value;
  }

  void Header::set_real(const std::string &key, const double value)
  {
    // Hexadecimal floating point: the value reads back to the last bit.
    char text[64];
    std::snprintf(text, sizeof(text), "%a", value);
    set(key, text);
  }

  void Header::set_count(const std::string &key, const unsigned long long value)
  {
    set(key, std::to_string(value));
  }

  const std::string &Header::get(const std::string &key) const
  {
    const auto it = values.find(key);
    if (it == values.end())
      throw InputError("The checkpoint header '" + file + "' has no entry '" + key + "'.");
    return it->second;
  }

  double Header::get_real(const std::string &key) const
  {
    const std::string &text = get(key);
    char *end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0')
      throw InputError("The checkpoint header '" + file + "': '" + key + " = " + text + "' is not a number.");
    return value;
  }

  unsigned long long Header::get_count(const std::string &key) const
  {
    const std::string &text = get(key);
    char *end = nullptr;
    errno = 0;
    const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
    if (text.empty() || text[0] == '-' || end == text.c_str() || *end != '\0' || errno != 0)
      throw InputError("The checkpoint header '" + file + "': '" + key + " = " + text + "' is not a count.");
    return value;
  }

  void Header::write(const std::string &file_name) const
  {
    std::ofstream out(file_name);
    out << format_line << '\n';
    for (const std::string &key : order)
      out << key << " = " << values.at(key) << '\n';
    out.close();
    if (!out)
      throw InputError("Cannot write the checkpoint header '" + file_name + "'.");
  }

  Header Header::read(const std::string &file_name)
  {
    std::ifstream in(file_name);
    if (!in)
      throw InputError("Cannot read the checkpoint header '" + file_name + "': " + std::strerror(errno) + ".");
    Header header;
    header.file = file_name;
    std::string line;
    if (!std::getline(in, line) || line != format_line)
      throw InputError("'" + file_name + "' is not a percussion checkpoint header (its first line is not '" +
                       format_line + "').");
    for (unsigned int number = 2; std::getline(in, line); ++number)
      {
        const auto equals = line.find(" = ");
        if (equals == std::string::npos || equals == 0)
          throw InputError("The checkpoint header '" + file_name + "', line " + std::to_string(number) +
                           ": expected 'key = value', found '" + line.substr(0, 80) + "'.");
        header.set(line.substr(0, equals), line.substr(equals + 3));
      }
    return header;
  }

  template <int dim>
  void write_dof_values(const std::string &file_name, const dealii::DoFHandler<dim> &dof_handler,
                        const std::vector<const dealii::PETScWrappers::MPI::Vector *> &vectors)
  {
    const unsigned int dofs_per_cell = dof_handler.get_fe().n_dofs_per_cell();
    std::uint64_t n_cells = 0;
    for (const auto &cell : dof_handler.active_cell_iterators())
      n_cells += cell->is_locally_owned() ? 1 : 0;
    Writer out(file_name);
    out.put_bytes(dofs_magic, std::strlen(dofs_magic));
    out.put<std::uint64_t>(n_cells);
    out.put<std::uint32_t>(dofs_per_cell);
    out.put<std::uint32_t>(vectors.size());
    std::vector<global_dof_index> dofs(dofs_per_cell);
    std::vector<double> values(dofs_per_cell);
    for (const auto &cell : dof_handler.active_cell_iterators())
      if (cell->is_locally_owned())
        {
          const std::string id = cell->id().to_string();
          out.put<std::uint32_t>(id.size());
          out.put_bytes(id.data(), id.size());
          cell->get_dof_indices(dofs);
          for (const global_dof_index dof : dofs)
            out.put<std::uint64_t>(dof);
          for (const auto *vector : vectors)
            {
              for (unsigned int i = 0; i < dofs_per_cell; ++i)
                values[i] = (*vector)(dofs[i]);
              out.put_bytes(values.data(), sizeof(double) * dofs_per_cell);
            }
        }
    out.close();
  }

  template <int dim>
  std::unordered_map<global_dof_index, global_dof_index>
  read_dof_values(const std::vector<std::string> &file_names, const dealii::DoFHandler<dim> &dof_handler,
                  const std::vector<dealii::PETScWrappers::MPI::Vector *> &vectors)
  {
    const unsigned int dofs_per_cell = dof_handler.get_fe().n_dofs_per_cell();
    const dealii::IndexSet &owned = dof_handler.locally_owned_dofs();
    std::unordered_map<std::string, typename dealii::DoFHandler<dim>::active_cell_iterator> owned_cells;
    for (const auto &cell : dof_handler.active_cell_iterators())
      if (cell->is_locally_owned())
        owned_cells.emplace(cell->id().to_string(), cell);

    std::unordered_map<global_dof_index, global_dof_index> dof_map;
    std::vector<std::vector<dealii::PETScWrappers::MPI::Vector::size_type>> indices(vectors.size());
    std::vector<std::vector<double>> entries(vectors.size());
    std::vector<global_dof_index> new_dofs(dofs_per_cell);
    std::vector<std::uint64_t> old_dofs(dofs_per_cell);
    std::vector<double> values(dofs_per_cell);
    std::size_t found = 0;
    for (const std::string &file_name : file_names)
      {
        Reader in(file_name);
        in.expect_magic(dofs_magic);
        const auto n_cells = in.get<std::uint64_t>();
        const auto file_dofs_per_cell = in.get<std::uint32_t>();
        const auto n_vectors = in.get<std::uint32_t>();
        if (file_dofs_per_cell != dofs_per_cell || n_vectors != vectors.size())
          throw InputError("The checkpoint file '" + file_name + "' holds " + std::to_string(n_vectors) +
                           " vectors with " + std::to_string(file_dofs_per_cell) + " DoFs per cell; this run has " +
                           std::to_string(vectors.size()) + " with " + std::to_string(dofs_per_cell) +
                           " (another element degree or scheme).");
        const std::uint64_t record_bytes = 8ull * dofs_per_cell * (1 + n_vectors);
        if (n_cells > in.remaining() / (record_bytes + 4))
          in.damaged("it declares more cells than it holds");
        std::string id;
        for (std::uint64_t c = 0; c < n_cells; ++c)
          {
            const auto length = in.get<std::uint32_t>();
            if (length > 4096)
              in.damaged("a cell identifier is " + std::to_string(length) + " bytes long");
            id.resize(length);
            in.read(id.data(), length);
            in.read(old_dofs.data(), 8 * dofs_per_cell);
            const auto cell = owned_cells.find(id);
            if (cell == owned_cells.end())
              {
                for (unsigned int v = 0; v < n_vectors; ++v)
                  in.read(values.data(), sizeof(double) * dofs_per_cell);
                continue;
              }
            ++found;
            cell->second->get_dof_indices(new_dofs);
            for (unsigned int i = 0; i < dofs_per_cell; ++i)
              if (owned.is_element(new_dofs[i]))
                dof_map[old_dofs[i]] = new_dofs[i];
            for (unsigned int v = 0; v < n_vectors; ++v)
              {
                in.read(values.data(), sizeof(double) * dofs_per_cell);
                for (unsigned int i = 0; i < dofs_per_cell; ++i)
                  if (owned.is_element(new_dofs[i]))
                    {
                      indices[v].push_back(new_dofs[i]);
                      entries[v].push_back(values[i]);
                    }
              }
          }
      }
    if (found != owned_cells.size())
      throw InputError("The checkpoint's cells are not this run's mesh: " +
                       std::to_string(owned_cells.size() - std::min(found, owned_cells.size())) +
                       " cell(s) of this rank are not in it (another mesh or refinement).");
    for (unsigned int v = 0; v < vectors.size(); ++v)
      {
        // (A DoF shared by several cells is set once per cell, with the same value.)
        vectors[v]->set(indices[v], entries[v]);
        vectors[v]->compress(dealii::VectorOperation::insert);
      }
    return dof_map;
  }

  template <int dim>
  std::uint64_t mesh_fingerprint(const dealii::DoFHandler<dim> &dof_handler, MPI_Comm communicator)
  {
    std::uint64_t sum = 0;
    for (const auto &cell : dof_handler.active_cell_iterators())
      if (cell->is_locally_owned())
        {
          const std::string id = cell->id().to_string();
          std::uint64_t hash = fnv1a(id.data(), id.size(), 14695981039346656037ull);
          for (const unsigned int v : cell->vertex_indices())
            for (unsigned int d = 0; d < dim; ++d)
              {
                // Single precision: the same mesh made again gives the same bits.
                const float x = static_cast<float>(cell->vertex(v)[d]);
                hash = fnv1a(&x, sizeof(x), hash);
              }
          const auto material = static_cast<std::uint64_t>(cell->material_id());
          sum += fnv1a(&material, sizeof(material), hash);
        }
    // A sum modulo 2^64 of the ranks' sums: the same whatever the partition.
    std::uint64_t total = 0;
    for (const std::uint64_t part : dealii::Utilities::MPI::all_gather(communicator, sum))
      total += part;
    return total;
  }

  void write_contact_history(const std::string &file_name, const ContactStep::FrictionalContactStep::History &history)
  {
    Writer out(file_name);
    out.put_bytes(history_magic, std::strlen(history_magic));
    out.put<std::uint64_t>(history.impulses.size());
    for (const auto &[key, impulse] : history.impulses)
      {
        out.put<std::uint64_t>(key);
        out.put<std::uint32_t>(impulse.size());
        out.put_bytes(impulse.data(), sizeof(double) * impulse.size());
      }
    out.put<std::uint64_t>(history.dissipation.size());
    for (const auto &[key, energy] : history.dissipation)
      {
        out.put<std::uint64_t>(key);
        out.put<double>(energy);
      }
    // The state of the contact step's caches that decides how the next steps compute their
    // operator (whether H changed at the last solve; the Delassus columns' support batches), so
    // that a resumed run takes the same paths. A section of its own, which older files lack.
    out.put_bytes(cache_magic, std::strlen(cache_magic));
    out.put<std::uint8_t>(history.operator_changed ? 1 : 0);
    const auto &batches = history.support_batches;
    out.put<std::uint64_t>(batches.dofs.size());
    out.put_bytes(batches.dofs.data(), sizeof(std::uint64_t) * batches.dofs.size());
    out.put<std::uint64_t>(batches.ends.size());
    out.put_bytes(batches.ends.data(), sizeof(std::uint64_t) * batches.ends.size());
    out.close();
  }

  ContactStep::FrictionalContactStep::History read_contact_history(const std::string &file_name)
  {
    Reader in(file_name);
    in.expect_magic(history_magic);
    ContactStep::FrictionalContactStep::History history;
    const auto n_impulses = in.get<std::uint64_t>();
    if (n_impulses > in.remaining() / 12)
      in.damaged("it declares more contacts than it holds");
    for (std::uint64_t i = 0; i < n_impulses; ++i)
      {
        const auto key = in.get<std::uint64_t>();
        const auto n = in.get<std::uint32_t>();
        if (n > 3)
          in.damaged("an impulse has " + std::to_string(n) + " components");
        std::vector<double> impulse(n);
        in.read(impulse.data(), sizeof(double) * n);
        history.impulses.emplace(key, std::move(impulse));
      }
    const auto n_dissipation = in.get<std::uint64_t>();
    if (n_dissipation > in.remaining() / 16)
      in.damaged("it declares more contacts than it holds");
    for (std::uint64_t i = 0; i < n_dissipation; ++i)
      {
        const auto key = in.get<std::uint64_t>();
        history.dissipation[key] = in.get<double>();
      }
    if (in.remaining() != 0)
      {
        in.expect_magic(cache_magic);
        const auto operator_changed = in.get<std::uint8_t>();
        if (operator_changed > 1)
          in.damaged("its operator flag is neither 0 nor 1");
        history.operator_changed = operator_changed == 1;
        auto &batches = history.support_batches;
        const auto n_support = in.get<std::uint64_t>();
        if (n_support > in.remaining() / 8)
          in.damaged("it declares more support DoFs than it holds");
        batches.dofs.resize(n_support);
        in.read(batches.dofs.data(), sizeof(std::uint64_t) * n_support);
        const auto n_batches = in.get<std::uint64_t>();
        if (n_batches > in.remaining() / 8)
          in.damaged("it declares more support batches than it holds");
        batches.ends.resize(n_batches);
        in.read(batches.ends.data(), sizeof(std::uint64_t) * n_batches);
        // Distinct DoFs, batch ends strictly increasing from above 0 to the number of DoFs.
        std::vector<unsigned long long> sorted = batches.dofs;
        std::sort(sorted.begin(), sorted.end());
        const auto &ends = batches.ends;
        const bool ends_consistent =
          std::adjacent_find(ends.begin(), ends.end(), std::greater_equal<>()) == ends.end() &&
          (ends.empty() ? n_support == 0 : ends.front() > 0 && ends.back() == n_support);
        if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end() || !ends_consistent)
          in.damaged("its support batches are inconsistent");
      }
    if (in.remaining() != 0)
      in.damaged("it has data after its end");
    return history;
  }

  ContactStep::FrictionalContactStep::History
  translate_contact_keys(const ContactStep::FrictionalContactStep::History &history,
                         const std::unordered_map<global_dof_index, global_dof_index> &owned_dof_map,
                         const global_dof_index n_dofs, MPI_Comm communicator)
  {
    // A key is pair · n_dofs + the first slave DoF; the support batches name DoFs. One
    // translation of all of them.
    std::vector<unsigned long long> old_dofs = history.support_batches.dofs;
    for (const auto &entry : history.impulses)
      old_dofs.push_back(entry.first % n_dofs);
    for (const auto &entry : history.dissipation)
      old_dofs.push_back(entry.first % n_dofs);
    const auto dof_map = translated_dofs(old_dofs, owned_dof_map, communicator);
    const auto new_key = [&](const unsigned long long key) {
      const auto it = dof_map.find(key % n_dofs);
      if (it == dof_map.end())
        throw InputError("The checkpoint's contact history names DoF " + std::to_string(key % n_dofs) +
                         ", which this run's mesh does not have.");
      return (key / n_dofs) * n_dofs + it->second;
    };
    ContactStep::FrictionalContactStep::History result;
    result.operator_changed = history.operator_changed;
    for (const auto &[key, impulse] : history.impulses)
      result.impulses[new_key(key)] = impulse;
    for (const auto &[key, energy] : history.dissipation)
      result.dissipation[new_key(key)] = energy;
    // The support DoFs, in their order; where one has no counterpart (cannot happen for a mesh
    // that passed the checks above) the batches are left out: they only decide how the
    // resumed run groups its solves.
    const auto &support = history.support_batches.dofs;
    if (std::all_of(support.begin(), support.end(),
                    [&](const unsigned long long dof) { return dof_map.count(dof) > 0; }))
      {
        result.support_batches.ends = history.support_batches.ends;
        for (const unsigned long long dof : support)
          result.support_batches.dofs.push_back(dof_map.at(dof));
      }
    return result;
  }

  std::string locate(const std::string &path)
  {
    namespace fs = std::filesystem;
    if (fs::exists(fs::path(path) / header_file))
      return path;
    for (const fs::path &directory : {fs::path(path), fs::path(path) / "checkpoints"})
      {
        std::error_code error;
        if (!fs::is_directory(directory, error))
          continue;
        // The newest complete checkpoint: step-NNNNNNNNNN names sort by step; a directory still
        // being written is named *.partial and has no header until it is complete.
        std::string newest;
        for (const auto &entry : fs::directory_iterator(directory, error))
          {
            const std::string name = entry.path().filename().string();
            if (name.rfind("step-", 0) == 0 && name.find('.') == std::string::npos &&
                fs::exists(entry.path() / header_file) && name > newest)
              newest = name;
          }
        if (!newest.empty())
          return (directory / newest).string();
      }
    throw InputError("--resume " + path + ": no checkpoint there (neither a " + header_file +
                     " nor a complete step-* directory in it or in its checkpoints/ folder).");
  }

  template void write_dof_values<1>(const std::string &, const dealii::DoFHandler<1> &,
                                    const std::vector<const dealii::PETScWrappers::MPI::Vector *> &);
  template void write_dof_values<2>(const std::string &, const dealii::DoFHandler<2> &,
                                    const std::vector<const dealii::PETScWrappers::MPI::Vector *> &);
  template void write_dof_values<3>(const std::string &, const dealii::DoFHandler<3> &,
                                    const std::vector<const dealii::PETScWrappers::MPI::Vector *> &);
  template std::unordered_map<global_dof_index, global_dof_index>
  read_dof_values<1>(const std::vector<std::string> &, const dealii::DoFHandler<1> &,
                     const std::vector<dealii::PETScWrappers::MPI::Vector *> &);
  template std::unordered_map<global_dof_index, global_dof_index>
  read_dof_values<2>(const std::vector<std::string> &, const dealii::DoFHandler<2> &,
                     const std::vector<dealii::PETScWrappers::MPI::Vector *> &);
  template std::unordered_map<global_dof_index, global_dof_index>
  read_dof_values<3>(const std::vector<std::string> &, const dealii::DoFHandler<3> &,
                     const std::vector<dealii::PETScWrappers::MPI::Vector *> &);
  template std::uint64_t mesh_fingerprint<1>(const dealii::DoFHandler<1> &, MPI_Comm);
  template std::uint64_t mesh_fingerprint<2>(const dealii::DoFHandler<2> &, MPI_Comm);
  template std::uint64_t mesh_fingerprint<3>(const dealii::DoFHandler<3> &, MPI_Comm);
} // namespace percussion::Checkpoint
