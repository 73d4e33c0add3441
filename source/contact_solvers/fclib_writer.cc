#include <percussion/contact_solvers/fclib_writer.h>

#include <percussion/core/exceptions.h>

#include <hdf5.h>

#include <string>
#include <vector>

namespace percussion::ContactSolvers
{
  namespace
  {
    class Writer
    {
    public:
      explicit Writer(const std::string &filename)
        : filename_(filename)
      {
        // Our messages replace HDF5's error stack printing; the previous handler is restored at the end.
        H5Eget_auto2(H5E_DEFAULT, &saved_handler_, &saved_data_);
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
        file_ = H5Fcreate(filename.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        if (file_ < 0)
          {
            H5Eset_auto2(H5E_DEFAULT, saved_handler_, saved_data_);
            throw InputError(filename + ": cannot create the file");
          }
      }
      ~Writer()
      {
        if (file_ >= 0)
          H5Fclose(file_);
        H5Eset_auto2(H5E_DEFAULT, saved_handler_, saved_data_);
      }

      void group(const std::string &path)
      {
        const hid_t g = H5Gcreate2(file_, path.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (g < 0)
          fail(path);
        H5Gclose(g);
      }

      template <typename T>
      void array(const std::string &path, hid_t file_type, hid_t memory_type, const std::vector<T> &values)
      {
        const hsize_t n = values.size();
        const hid_t space = H5Screate_simple(1, &n, nullptr);
        const hid_t ds = H5Dcreate2(file_, path.c_str(), file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        const bool ok =
          ds >= 0 && (n == 0 || H5Dwrite(ds, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0);
        if (ds >= 0)
          H5Dclose(ds);
        H5Sclose(space);
        if (!ok)
          fail(path);
      }

      void integer(const std::string &path, int value)
      {
        array(path, H5T_STD_I32LE, H5T_NATIVE_INT, std::vector<int>{value});
      }

      void reals(const std::string &path, const std::vector<double> &v)
      {
        array(path, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v);
      }

      void text(const std::string &path, const std::string &value)
      {
        // A fixed-length scalar string, as FCLIB's own writer stores its info fields.
        const hid_t type = H5Tcopy(H5T_C_S1);
        H5Tset_size(type, value.size() + 1);
        const hid_t space = H5Screate(H5S_SCALAR);
        const hid_t ds = H5Dcreate2(file_, path.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        const bool ok = ds >= 0 && H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, value.c_str()) >= 0;
        if (ds >= 0)
          H5Dclose(ds);
        H5Sclose(space);
        H5Tclose(type);
        if (!ok)
          fail(path);
      }

    private:
      [[noreturn]] void fail(const std::string &path) { throw InputError(filename_ + ": cannot write " + path); }

      std::string filename_;
      hid_t file_ = -1;
      H5E_auto2_t saved_handler_ = nullptr;
      void *saved_data_ = nullptr;
    };
  } // namespace

  void write_fclib_local(const std::string &filename, const LocalProblem &problem, const std::string &title,
                         const std::string &description, const std::vector<double> *r, const std::vector<double> *u)
  {
    validate(problem, filename);
    const int n = problem.size();
    // W in CSR (FCLIB nz = -2).
    std::vector<int> row_start{0}, column_index;
    std::vector<double> values;
    for (int i = 0; i < n; ++i)
      {
        if (problem.storage == MatrixStorage::dense)
          {
            for (int j = 0; j < n; ++j)
              if (problem.W_dense(i, j) != 0.0)
                {
                  column_index.push_back(j);
                  values.push_back(problem.W_dense(i, j));
                }
          }
        else
          for (int k = problem.W_sparse.row_start[i]; k < problem.W_sparse.row_start[i + 1]; ++k)
            {
              column_index.push_back(problem.W_sparse.column_index[k]);
              values.push_back(problem.W_sparse.values[k]);
            }
        row_start.push_back(static_cast<int>(values.size()));
      }

    Writer out(filename);
    out.group("/fclib_local");
    out.group("/fclib_local/W");
    out.integer("/fclib_local/W/nzmax", static_cast<int>(values.size()));
    out.integer("/fclib_local/W/m", n);
    out.integer("/fclib_local/W/n", n);
    out.integer("/fclib_local/W/nz", -2);
    out.array("/fclib_local/W/p", H5T_STD_I32LE, H5T_NATIVE_INT, row_start);
    out.array("/fclib_local/W/i", H5T_STD_I32LE, H5T_NATIVE_INT, column_index);
    out.reals("/fclib_local/W/x", values);
    out.group("/fclib_local/vectors");
    out.reals("/fclib_local/vectors/q", problem.q);
    out.reals("/fclib_local/vectors/mu", problem.mu);
    out.integer("/fclib_local/spacedim", problem.dimension);
    out.group("/fclib_local/info");
    out.text("/fclib_local/info/title", title);
    out.text("/fclib_local/info/description", description);
    out.text("/fclib_local/info/math_info", "");
    if (r && u)
      {
        if (static_cast<int>(r->size()) != n || static_cast<int>(u->size()) != n)
          throw InputError(filename + ": the solution r, u must have d*m = " + std::to_string(n) + " entries");
        out.group("/solution");
        out.reals("/solution/r", *r);
        out.reals("/solution/u", *u);
      }
  }
} // namespace percussion::ContactSolvers
