// libFuzzer harness for percussion's checkpoint readers (run by run.sh, not in
// CI). The first byte of an input chooses the file it becomes: 0 the header (Checkpoint::Header::
// read), 1 the contact history (read_contact_history), 2 a DoF part file read onto the mesh of
// tests/checkpoint/block_on_plane_2d.prm (read_dof_values; 20 x 10 Q1 cells, 2D). A damaged
// checkpoint must end in percussion::InputError, never in a crash, a hang, a huge allocation or a
// memory error (AddressSanitizer).
#include <deal.II/base/mpi.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/tria.h>
#include <deal.II/lac/petsc_vector.h>

#include <percussion/core/exceptions.h>
#include <percussion/simulator/checkpoint.h>

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

namespace
{
  std::unique_ptr<dealii::Utilities::MPI::MPI_InitFinalize> mpi;

  struct Mesh
  {
    dealii::Triangulation<2> triangulation;
    dealii::FESystem<2> fe{dealii::FE_Q<2>(1), 2};
    dealii::DoFHandler<2> dof_handler;
    Mesh()
    {
      dealii::GridGenerator::subdivided_hyper_rectangle(triangulation, {20, 10}, dealii::Point<2>(0, 0.0001),
                                                        dealii::Point<2>(0.1, 0.0501));
      dof_handler.reinit(triangulation);
      dof_handler.distribute_dofs(fe);
    }
  };
} // namespace

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  mpi = std::make_unique<dealii::Utilities::MPI::MPI_InitFinalize>(*argc, *argv, 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
  if (size == 0)
    return 0;
  static Mesh mesh;
  static const std::string file = "/tmp/percussion_fuzz_checkpoint_" + std::to_string(getpid());
  if (std::FILE *f = std::fopen(file.c_str(), "wb"))
    {
      std::fwrite(data + 1, 1, size - 1, f);
      std::fclose(f);
    }
  try
    {
      switch (data[0] % 3)
        {
        case 0:
          {
            const auto header = percussion::Checkpoint::Header::read(file);
            (void)header.has("dofs");
            break;
          }
        case 1:
          (void)percussion::Checkpoint::read_contact_history(file);
          break;
        default:
          {
            // Five vectors, as a Moreau-Jean checkpoint holds (q, v, Mv, Kq, F).
            std::vector<dealii::PETScWrappers::MPI::Vector>
              vectors(5, dealii::PETScWrappers::MPI::Vector(mesh.dof_handler.locally_owned_dofs(), MPI_COMM_WORLD));
            std::vector<dealii::PETScWrappers::MPI::Vector *> pointers;
            for (auto &v : vectors)
              pointers.push_back(&v);
            (void)percussion::Checkpoint::read_dof_values<2>({file}, mesh.dof_handler, pointers);
          }
        }
    }
  catch (const percussion::InputError &)
    {
      // refused with a message: what must happen to a damaged checkpoint
    }
  return 0;
}
