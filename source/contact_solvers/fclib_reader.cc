#include <percussion/contact_solvers/fclib_reader.h>

#include <percussion/core/exceptions.h>

#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace percussion::ContactSolvers
{
  namespace
  {
    /** Closes an HDF5 handle on scope exit. */
    struct Handle
    {
      hid_t id;
      herr_t (*close)(hid_t);
      ~Handle()
      {
        if (id >= 0)
          close(id);
      }
    };

    class Reader
    {
    public:
      explicit Reader(const std::string &filename)
        : filename_(filename)
      {
        // HDF5's own error stack printing would bury our message; we report ourselves. The previous
        // handler is restored on destruction (other code in the process may rely on it).
        H5Eget_auto2(H5E_DEFAULT, &saved_handler_, &saved_data_);
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
        if (!std::ifstream(filename).good())
          fail_open(filename + ": cannot open the file (missing or unreadable)");
        if (H5Fis_hdf5(filename.c_str()) <= 0)
          fail_open(filename + ": not an HDF5 file");
        file_ = H5Fopen(filename.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
        if (file_ < 0)
          fail_open(filename + ": HDF5 cannot open the file");
        std::error_code error;
        file_size_ = std::filesystem::file_size(filename, error);
        if (error)
          file_size_ = 0;
      }
      ~Reader()
      {
        H5Fclose(file_);
        H5Eset_auto2(H5E_DEFAULT, saved_handler_, saved_data_);
      }

      /** A constructor failure: the destructor will not run, so restore the handler here. */
      [[noreturn]] void fail_open(const std::string &message)
      {
        H5Eset_auto2(H5E_DEFAULT, saved_handler_, saved_data_);
        throw InputError(message);
      }

      bool exists(const std::string &path) const
      {
        // Check every prefix: H5Lexists fails on a path whose parent is missing.
        std::size_t pos = 0;
        while (true)
          {
            pos = path.find('/', pos + 1);
            const std::string sub = path.substr(0, pos);
            if (H5Lexists(file_, sub.c_str(), H5P_DEFAULT) <= 0)
              return false;
            if (pos == std::string::npos)
              return true;
          }
      }

      std::string where(const std::string &path) const { return filename_ + ": dataset " + path; }

      template <typename T>
      std::vector<T> read(const std::string &path, hid_t memory_type) const
      {
        if (!exists(path))
          throw InputError(where(path) + " is missing");
        Handle ds{H5Dopen2(file_, path.c_str(), H5P_DEFAULT), H5Dclose};
        if (ds.id < 0)
          throw InputError(where(path) + " cannot be opened (not a dataset?)");
        Handle space{H5Dget_space(ds.id), H5Sclose};
        const hssize_t count = H5Sget_simple_extent_npoints(space.id);
        if (count < 0)
          throw InputError(where(path) + ": cannot read its size");
        Handle type{H5Dget_type(ds.id), H5Tclose};
        const auto cls = H5Tget_class(type.id);
        const bool want_int = memory_type == H5T_NATIVE_INT;
        if ((want_int && cls != H5T_INTEGER) || (!want_int && cls != H5T_FLOAT && cls != H5T_INTEGER))
          throw InputError(where(path) + " has the wrong type (expected " + (want_int ? "integers" : "reals") + ")");
        // A corrupt header can declare any size: refuse what could not fit in memory before
        // allocating it (found by benchmarks/fuzz: a dataset of ~1e18 entries, std::bad_alloc).
        const double bytes = static_cast<double>(count) * sizeof(T);
        const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
        if (pages > 0 && page_size > 0 && bytes > 0.5 * static_cast<double>(pages) * static_cast<double>(page_size))
          throw InputError(where(path) + " declares " + std::to_string(count) + " entries (" +
                           std::to_string(bytes / 1073741824.0) +
                           " GiB), more than half this computer's memory: the file is corrupt or too large");
        // HDF5 trusts the stored layout: a compact or contiguous dataset whose raw data does not
        // have the size its dataspace and type declare makes H5Dread read from nowhere (a
        // segmentation fault inside HDF5, found by benchmarks/fuzz). Checked here; chunked data
        // (possibly compressed) is left to HDF5's own checks.
        {
          Handle plist{H5Dget_create_plist(ds.id), H5Pclose};
          const H5D_layout_t layout = plist.id >= 0 ? H5Pget_layout(plist.id) : H5D_LAYOUT_ERROR;
          const size_t element = H5Tget_size(type.id);
          const hsize_t stored = H5Dget_storage_size(ds.id);
          if (layout == H5D_LAYOUT_ERROR || element == 0)
            throw InputError(where(path) + ": cannot read its layout");
          if ((layout == H5D_COMPACT || layout == H5D_CONTIGUOUS) && stored != 0 &&
              stored != static_cast<hsize_t>(count) * element)
            throw InputError(where(path) + " stores " + std::to_string(stored) + " bytes for " + std::to_string(count) +
                             " entries of " + std::to_string(element) + " bytes: the file is corrupt");
          if (layout == H5D_COMPACT && stored == 0 && count > 0)
            throw InputError(where(path) + " holds no data for its " + std::to_string(count) +
                             " entries: the file is corrupt");
        }
        std::vector<T> values(static_cast<std::size_t>(count));
        if (count > 0 && H5Dread(ds.id, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0)
          throw InputError(where(path) + " cannot be read");
        return values;
      }

      int read_int(const std::string &path) const
      {
        const auto v = read<int>(path, H5T_NATIVE_INT);
        if (v.size() != 1)
          throw InputError(where(path) + " should hold one integer, holds " + std::to_string(v.size()));
        return v[0];
      }

      std::vector<double> read_reals(const std::string &path, std::size_t expected) const
      {
        auto v = read<double>(path, H5T_NATIVE_DOUBLE);
        if (v.size() != expected)
          throw InputError(where(path) + " has " + std::to_string(v.size()) + " entries, expected " +
                           std::to_string(expected));
        for (std::size_t k = 0; k < v.size(); ++k)
          if (!std::isfinite(v[k]))
            throw InputError(where(path) + ": entry " + std::to_string(k) + " is not finite");
        return v;
      }

      std::string read_string(const std::string &path) const
      {
        if (!exists(path))
          return "";
        Handle ds{H5Dopen2(file_, path.c_str(), H5P_DEFAULT), H5Dclose};
        Handle type{H5Dget_type(ds.id), H5Tclose};
        if (ds.id < 0 || H5Tget_class(type.id) != H5T_STRING)
          return "";
        if (H5Tis_variable_str(type.id) > 0)
          {
            char *data = nullptr;
            Handle mem{H5Tcopy(H5T_C_S1), H5Tclose};
            H5Tset_size(mem.id, H5T_VARIABLE);
            if (H5Dread(ds.id, mem.id, H5S_ALL, H5S_ALL, H5P_DEFAULT, &data) < 0 || !data)
              return "";
            std::string s(data);
            H5free_memory(data);
            return s;
          }
        const std::size_t size = H5Tget_size(type.id);
        std::string s(size, '\0');
        Handle mem{H5Tcopy(H5T_C_S1), H5Tclose};
        H5Tset_size(mem.id, size);
        if (H5Dread(ds.id, mem.id, H5S_ALL, H5S_ALL, H5P_DEFAULT, s.data()) < 0)
          return "";
        return s.substr(0, s.find('\0'));
      }

      /** An FCLIB matrix group (nzmax, m, n, nz, p, i, x) as CSR. */
      CsrMatrix read_matrix(const std::string &group) const
      {
        if (!exists(group))
          throw InputError(filename_ + ": matrix group " + group + " is missing");
        const int nzmax = read_int(group + "/nzmax");
        const int rows = read_int(group + "/m");
        const int cols = read_int(group + "/n");
        const int nz = read_int(group + "/nz");
        if (rows < 0 || cols < 0 || nzmax < 0)
          throw InputError(where(group) + ": negative size (m = " + std::to_string(rows) +
                           ", n = " + std::to_string(cols) + ", nzmax = " + std::to_string(nzmax) + ")");
        // Every row and column of a consistent problem has entries in the file's vectors (q, or
        // f and w): a declared size beyond the file's size in bytes is a corrupt header, refused
        // before the CSR arrays are allocated (found by benchmarks/fuzz: 1.6e9 rows, 6.6 GB).
        if (file_size_ > 0 && static_cast<std::uintmax_t>(std::max(rows, cols)) > file_size_)
          throw InputError(where(group) + ": size m = " + std::to_string(rows) + ", n = " + std::to_string(cols) +
                           " exceeds what a file of " + std::to_string(file_size_) +
                           " bytes can hold: the file is corrupt");
        const auto p = read<int>(group + "/p", H5T_NATIVE_INT);
        const auto i = read<int>(group + "/i", H5T_NATIVE_INT);
        auto x = read<double>(group + "/x", H5T_NATIVE_DOUBLE);
        for (std::size_t k = 0; k < x.size(); ++k)
          if (!std::isfinite(x[k]))
            throw InputError(where(group + "/x") + ": entry " + std::to_string(k) + " is not finite");
        if (nz >= 0)
          {
            // Triplets: i = row, p = column (CSparse convention, README).
            if (p.size() < static_cast<std::size_t>(nz) || i.size() < static_cast<std::size_t>(nz) ||
                x.size() < static_cast<std::size_t>(nz))
              throw InputError(where(group) + ": triplet arrays shorter than nz = " + std::to_string(nz));
            return CsrMatrix::from_triplets(rows, cols, std::vector<int>(i.begin(), i.begin() + nz),
                                            std::vector<int>(p.begin(), p.begin() + nz),
                                            std::vector<double>(x.begin(), x.begin() + nz), where(group).c_str());
          }
        const bool csr = nz == -2;
        if (nz != -1 && nz != -2)
          throw InputError(where(group + "/nz") + " = " + std::to_string(nz) +
                           " (expected -2 CSR, -1 CSC or >= 0 triplets)");
        const int outer = csr ? rows : cols;
        const int inner = csr ? cols : rows;
        if (p.size() != static_cast<std::size_t>(outer) + 1)
          throw InputError(where(group + "/p") + " has " + std::to_string(p.size()) + " entries, expected " +
                           std::to_string(outer + 1));
        if (p[0] != 0)
          throw InputError(where(group + "/p") + " does not start at 0");
        for (int k = 0; k < outer; ++k)
          if (p[k + 1] < p[k])
            throw InputError(where(group + "/p") + " decreases at " + std::to_string(k));
        const std::size_t count = p[outer];
        if (i.size() < count || x.size() < count)
          throw InputError(where(group) + ": i or x shorter than p[end] = " + std::to_string(count));
        std::vector<int> outer_index(count), inner_index(i.begin(), i.begin() + count);
        for (int k = 0; k < outer; ++k)
          for (int e = p[k]; e < p[k + 1]; ++e)
            outer_index[e] = k;
        for (std::size_t e = 0; e < count; ++e)
          if (inner_index[e] < 0 || inner_index[e] >= inner)
            throw InputError(where(group + "/i") + ": index " + std::to_string(inner_index[e]) + " out of range [0, " +
                             std::to_string(inner) + ")");
        x.resize(count);
        return csr ? CsrMatrix::from_triplets(rows, cols, outer_index, inner_index, x, where(group).c_str())
                   : CsrMatrix::from_triplets(rows, cols, inner_index, outer_index, x, where(group).c_str());
      }

      std::vector<double> read_mu(const std::string &path, int contacts) const
      {
        auto mu = read_reals(path, contacts);
        for (int a = 0; a < contacts; ++a)
          if (mu[a] < 0.0)
            throw InputError(where(path) + ": mu[" + std::to_string(a) + "] = " + std::to_string(mu[a]) +
                             " is negative (friction coefficients must be >= 0)");
        return mu;
      }

      int read_dimension(const std::string &path) const
      {
        const int d = read_int(path);
        if (d != 2 && d != 3)
          throw InputError(where(path) + " = " + std::to_string(d) + " (expected 2 or 3)");
        return d;
      }

      const std::string &filename() const { return filename_; }

    private:
      std::string filename_;
      std::uintmax_t file_size_ = 0; ///< bytes, bounds the sizes a header may declare
      hid_t file_ = -1;
      H5E_auto2_t saved_handler_ = nullptr;
      void *saved_data_ = nullptr;
    };
  } // namespace

  FclibProblem read_fclib_file(const std::string &filename)
  {
    Reader in(filename);
    FclibProblem result;
    if (in.exists("/fclib_local"))
      {
        LocalProblem &p = result.local;
        p.dimension = in.read_dimension("/fclib_local/spacedim");
        p.storage = MatrixStorage::sparse;
        p.W_sparse = in.read_matrix("/fclib_local/W");
        if (p.W_sparse.rows != p.W_sparse.cols)
          throw InputError(in.where("/fclib_local/W") + " is not square (" + std::to_string(p.W_sparse.rows) + " x " +
                           std::to_string(p.W_sparse.cols) + ")");
        if (p.W_sparse.rows % p.dimension != 0)
          throw InputError(in.where("/fclib_local/W") + ": size " + std::to_string(p.W_sparse.rows) +
                           " is not a multiple of spacedim " + std::to_string(p.dimension));
        p.number_of_contacts = p.W_sparse.rows / p.dimension;
        p.q = in.read_reals("/fclib_local/vectors/q", p.size());
        p.mu = in.read_mu("/fclib_local/vectors/mu", p.number_of_contacts);
        result.title = in.read_string("/fclib_local/info/title");
        result.description = in.read_string("/fclib_local/info/description");
        validate(p, filename);
      }
    else if (in.exists("/fclib_global"))
      {
        result.is_global = true;
        GlobalProblem &p = result.global;
        p.dimension = in.read_dimension("/fclib_global/spacedim");
        p.M = in.read_matrix("/fclib_global/M");
        p.H = in.read_matrix("/fclib_global/H");
        if (p.M.rows != p.M.cols)
          throw InputError(in.where("/fclib_global/M") + " is not square");
        if (p.H.rows != p.M.rows)
          throw InputError(in.where("/fclib_global/H") + " has " + std::to_string(p.H.rows) + " rows, M has " +
                           std::to_string(p.M.rows));
        if (p.H.cols % p.dimension != 0)
          throw InputError(in.where("/fclib_global/H") + ": " + std::to_string(p.H.cols) +
                           " columns, not a multiple of spacedim " + std::to_string(p.dimension));
        p.number_of_contacts = p.H.cols / p.dimension;
        p.f = in.read_reals("/fclib_global/vectors/f", p.M.rows);
        p.w = in.read_reals("/fclib_global/vectors/w", p.H.cols);
        p.mu = in.read_mu("/fclib_global/vectors/mu", p.number_of_contacts);
        result.title = in.read_string("/fclib_global/info/title");
        result.description = in.read_string("/fclib_global/info/description");
        validate(p, filename);
      }
    else
      throw InputError(filename + ": not an FCLIB file (neither /fclib_local nor /fclib_global is present)");
    return result;
  }
} // namespace percussion::ContactSolvers
