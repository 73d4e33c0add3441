#include <deal.II/base/data_out_base.h>
#include <deal.II/base/utilities.h>

#include <percussion/postprocess/time_series.h>

#include <fstream>

namespace percussion::Postprocess
{
  TimeSeries::TimeSeries(const std::string &directory, const std::string &name, MPI_Comm communicator)
    : path(directory + "/" + name + ".pvd")
    , communicator(communicator)
  {
  }

  void TimeSeries::add(const double time, const std::string &file)
  {
    records.emplace_back(time, file);
    write();
  }

  void TimeSeries::restore(std::vector<std::pair<double, std::string>> checkpointed)
  {
    records = std::move(checkpointed);
    write();
  }

  void TimeSeries::write() const
  {
    if (dealii::Utilities::MPI::this_mpi_process(communicator) == 0)
      {
        std::ofstream pvd(path);
        dealii::DataOutBase::write_pvd_record(pvd, records);
      }
  }
} // namespace percussion::Postprocess
