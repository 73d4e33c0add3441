// FCLIB reader and writer: round trip, a known public file, and the bad-file diagnostics.
#define BOOST_TEST_MODULE contact_solvers.fclib_io
#include <percussion/contact_solvers/fclib_reader.h>
#include <percussion/contact_solvers/fclib_writer.h>
#include <percussion/contact_solvers/solve.h>

#include <percussion/core/exceptions.h>

#include <boost/test/unit_test.hpp>

#include <hdf5.h>

#include <cstdio>
#include <fstream>
#include <string>

using namespace percussion::ContactSolvers;

namespace
{
  const std::string public_dir = std::string(PERCUSSION_TEST_DATA_DIR) + "/fclib/";

  LocalProblem small_problem()
  {
    LocalProblem p;
    p.dimension = 3;
    p.number_of_contacts = 2;
    p.W_dense = DenseMatrix(6, 6);
    for (int i = 0; i < 6; ++i)
      p.W_dense(i, i) = 1.0 + i;
    p.W_dense(0, 3) = p.W_dense(3, 0) = 0.25;
    p.q = {-1.0, 0.5, 0.25, -2.0, 0.0, 1.0};
    p.mu = {0.3, 0.7};
    return p;
  }

  /** The message of the InputError thrown by reading @p file ("" if none is thrown). */
  std::string read_error(const std::string &file)
  {
    try
      {
        read_fclib_file(file);
      }
    catch (const percussion::InputError &e)
      {
        return e.what();
      }
    return "";
  }

  /** Replace a dataset of an existing file by a real vector (to build broken files). */
  void replace_dataset(const std::string &file, const std::string &path, const std::vector<double> &values)
  {
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    BOOST_REQUIRE(f >= 0);
    H5Ldelete(f, path.c_str(), H5P_DEFAULT);
    const hsize_t n = values.size();
    const hid_t sp = H5Screate_simple(1, &n, nullptr);
    const hid_t ds = H5Dcreate2(f, path.c_str(), H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
    H5Dclose(ds);
    H5Sclose(sp);
    H5Fclose(f);
  }
} // namespace

BOOST_AUTO_TEST_CASE(round_trip)
{
  const std::string file = "round_trip.hdf5";
  const LocalProblem p = small_problem();
  std::vector<double> r, u;
  solve(p, r, u);
  write_fclib_local(file, p, "round trip", "a test problem", &r, &u);
  const FclibProblem back = read_fclib_file(file);
  BOOST_TEST(!back.is_global);
  BOOST_TEST(back.title == "round trip");
  BOOST_TEST(back.description == "a test problem");
  const LocalProblem &q = back.local;
  BOOST_TEST(q.dimension == 3);
  BOOST_TEST(q.number_of_contacts == 2);
  BOOST_TEST(q.mu == p.mu);
  BOOST_TEST(q.q == p.q);
  BOOST_TEST(static_cast<int>(q.storage) == static_cast<int>(MatrixStorage::sparse));
  BOOST_TEST(q.W_sparse.number_of_entries() == 8); // 6 diagonal entries and the coupling pair
  for (int i = 0; i < 6; ++i)
    for (int k = q.W_sparse.row_start[i]; k < q.W_sparse.row_start[i + 1]; ++k)
      BOOST_TEST(q.W_sparse.values[k] == p.W_dense(i, q.W_sparse.column_index[k]));
  std::remove(file.c_str());
}

BOOST_AUTO_TEST_CASE(known_public_files)
{
  // FrictionContact3D_1c: one 3D contact, μ = 0.1 (README table).
  const FclibProblem one = read_fclib_file(public_dir + "FrictionContact3D_1c.hdf5");
  BOOST_TEST(!one.is_global);
  BOOST_TEST(one.local.dimension == 3);
  BOOST_TEST(one.local.number_of_contacts == 1);
  BOOST_TEST(one.local.mu[0] == 0.1);
  // A 2D file.
  const FclibProblem two = read_fclib_file(public_dir + "FrictionContactProblem00071.hdf5");
  BOOST_TEST(two.local.dimension == 2);
  BOOST_TEST(two.local.number_of_contacts == 89);
  // A global file with triplet M and H: CubeH8, 162 dofs, 1 contact; H has 162 rows and 3 columns
  // (the triplet i holds the row: reading p as the row would fail the range check).
  const FclibProblem cube = read_fclib_file(public_dir + "CubeH8.hdf5");
  BOOST_TEST(cube.is_global);
  BOOST_TEST(cube.global.number_of_dofs() == 162);
  BOOST_TEST(cube.global.number_of_contacts == 1);
  BOOST_TEST(cube.global.H.rows == 162);
  BOOST_TEST(cube.global.H.cols == 3);
  BOOST_TEST(cube.global.mu[0] == 0.3);
}

BOOST_AUTO_TEST_CASE(bad_files)
{
  // Missing file.
  const std::string missing = read_error("no_such_file.hdf5");
  BOOST_TEST(missing.find("no_such_file.hdf5") != std::string::npos);
  // Not HDF5.
  {
    std::ofstream("not_hdf5.hdf5") << "this is text\n";
    const std::string msg = read_error("not_hdf5.hdf5");
    BOOST_TEST(msg.find("not_hdf5.hdf5") != std::string::npos);
    BOOST_TEST(msg.find("not an HDF5 file") != std::string::npos);
    std::remove("not_hdf5.hdf5");
  }
  // HDF5 but not FCLIB.
  {
    const hid_t f = H5Fcreate("not_fclib.hdf5", H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    H5Fclose(f);
    const std::string msg = read_error("not_fclib.hdf5");
    BOOST_TEST(msg.find("not an FCLIB file") != std::string::npos);
    std::remove("not_fclib.hdf5");
  }
  // Negative μ.
  {
    write_fclib_local("negative_mu.hdf5", small_problem());
    replace_dataset("negative_mu.hdf5", "/fclib_local/vectors/mu", {0.3, -0.2});
    const std::string msg = read_error("negative_mu.hdf5");
    BOOST_TEST(msg.find("negative_mu.hdf5") != std::string::npos);
    BOOST_TEST(msg.find("/fclib_local/vectors/mu") != std::string::npos);
    BOOST_TEST(msg.find("negative") != std::string::npos);
    std::remove("negative_mu.hdf5");
  }
  // A corrupt size (found by benchmarks/fuzz): a dataset declaring 4e13 entries, never written (the
  // file stays small), is refused before anything is allocated, not with std::bad_alloc.
  {
    write_fclib_local("huge_q.hdf5", small_problem());
    const hid_t f = H5Fopen("huge_q.hdf5", H5F_ACC_RDWR, H5P_DEFAULT);
    BOOST_REQUIRE(f >= 0);
    H5Ldelete(f, "/fclib_local/vectors/q", H5P_DEFAULT);
    const hsize_t n = 42880953483324ull;
    const hid_t sp = H5Screate_simple(1, &n, nullptr);
    const hid_t ds = H5Dcreate2(f, "/fclib_local/vectors/q", H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dclose(ds);
    H5Sclose(sp);
    H5Fclose(f);
    const std::string msg = read_error("huge_q.hdf5");
    BOOST_TEST(msg.find("/fclib_local/vectors/q declares 42880953483324 entries") != std::string::npos, msg);
    std::remove("huge_q.hdf5");
  }
  // Files the fuzzer made (tests/data/fclib/corrupt/README.md): HDF5 itself, or the CSR arrays,
  // would have crashed or taken gigabytes.
  {
    const std::string folder = std::string(PERCUSSION_SOURCE_DIR) + "/tests/data/fclib/corrupt/";
    const std::string compact = read_error(folder + "compact_without_data.hdf5");
    BOOST_TEST(compact.find("/fclib_local/W/i holds no data for its 121 entries") != std::string::npos, compact);
    const std::string size = read_error(folder + "matrix_size_beyond_file.hdf5");
    BOOST_TEST(size.find("exceeds what a file of 33000 bytes can hold") != std::string::npos, size);
  }
  // Inconsistent sizes: q shorter than W.
  {
    write_fclib_local("short_q.hdf5", small_problem());
    replace_dataset("short_q.hdf5", "/fclib_local/vectors/q", {1.0, 2.0});
    const std::string msg = read_error("short_q.hdf5");
    BOOST_TEST(msg.find("/fclib_local/vectors/q") != std::string::npos);
    BOOST_TEST(msg.find("expected 6") != std::string::npos);
    std::remove("short_q.hdf5");
  }
  // A missing dataset.
  {
    write_fclib_local("no_mu.hdf5", small_problem());
    const hid_t f = H5Fopen("no_mu.hdf5", H5F_ACC_RDWR, H5P_DEFAULT);
    H5Ldelete(f, "/fclib_local/vectors/mu", H5P_DEFAULT);
    H5Fclose(f);
    const std::string msg = read_error("no_mu.hdf5");
    BOOST_TEST(msg.find("/fclib_local/vectors/mu is missing") != std::string::npos);
    std::remove("no_mu.hdf5");
  }
  // The writer refuses an inconsistent problem.
  LocalProblem bad = small_problem();
  bad.mu[0] = -1.0;
  BOOST_CHECK_THROW(write_fclib_local("bad.hdf5", bad), percussion::InputError);
}
