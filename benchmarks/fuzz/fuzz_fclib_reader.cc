// libFuzzer harness for percussion's FCLIB reader (run by run.sh, not in CI).
// Each input is written to a file and read with ContactSolvers::read_fclib_file: malformed input
// must end in percussion::InputError (or HDF5's refusal, reported the same way), never in a crash,
// a hang or a memory error (AddressSanitizer).
#include <percussion/contact_solvers/fclib_reader.h>
#include <percussion/core/exceptions.h>

#include <hdf5.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
  static const bool quiet = [] {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); // HDF5's own error stack printing
    return true;
  }();
  (void)quiet;
  static const std::string file = "/tmp/percussion_fuzz_fclib_" + std::to_string(getpid()) + ".hdf5";
  if (std::FILE *f = std::fopen(file.c_str(), "wb"))
    {
      std::fwrite(data, 1, size, f);
      std::fclose(f);
    }
  try
    {
      const auto problem = percussion::ContactSolvers::read_fclib_file(file);
      (void)problem;
    }
  catch (const percussion::InputError &)
    {
      // refused with a message: what must happen to bad input
    }
  return 0;
}
