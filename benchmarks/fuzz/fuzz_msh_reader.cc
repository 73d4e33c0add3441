// libFuzzer harness for 'Mesh/Type = gmsh' (run by run.sh, not in CI): each input
// is written to a file and read by percussion's generate_mesh (its own check of the file, then
// deal.II's GridIn::read_msh). Malformed input must end in percussion::InputError, never in a
// crash, a hang or a memory error (AddressSanitizer).
#include <deal.II/base/exceptions.h>
#include <deal.II/grid/tria.h>

#include <percussion/core/exceptions.h>
#include <percussion/core/mesh_generator.h>
#include <percussion/core/mesh_parameters.h>

#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
  static const bool quiet = [] {
    dealii::deal_II_exceptions::disable_abort_on_exception();
    dealii::deal_II_exceptions::suppress_stacktrace_in_exceptions();
    return true;
  }();
  (void)quiet;
  static const std::string file = "/tmp/percussion_fuzz_msh_" + std::to_string(getpid()) + ".msh";
  {
    std::ofstream out(file, std::ios::binary);
    out.write(reinterpret_cast<const char *>(data), static_cast<std::streamsize>(size));
  }
  percussion::MeshParameters parameters;
  parameters.type = percussion::MeshType::gmsh;
  parameters.file_name = file;
  dealii::Triangulation<3> triangulation;
  try
    {
      percussion::generate_mesh<3>(parameters, triangulation);
    }
  catch (const percussion::InputError &)
    {
      // refused with a message: what must happen to bad input
    }
  return 0;
}
