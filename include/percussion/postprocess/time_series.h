#ifndef PERCUSSION_POSTPROCESS_TIME_SERIES_H
#define PERCUSSION_POSTPROCESS_TIME_SERIES_H

#include <mpi.h>

#include <string>
#include <utility>
#include <vector>

namespace percussion::Postprocess
{
  /**
   * A ParaView time series: `DIRECTORY/NAME.pvd`, listing (time, file) records, rewritten by rank 0
   * after every record so that an interrupted run leaves a readable series. Used for the solution
   * (`solution.pvd`) and the contact points (`contact.pvd`).
   */
  class TimeSeries
  {
  public:
    TimeSeries(const std::string &directory, const std::string &name, MPI_Comm communicator);

    /// Adds @p file (relative to the directory) at @p time and rewrites the .pvd file.
    void add(double time, const std::string &file);
    /// The number of records so far (the index of the next output file).
    unsigned int size() const { return records.size(); }
    const std::vector<std::pair<double, std::string>> &written() const { return records; }
    /// A resumed run: the records of its checkpoint replace these, and the .pvd file is rewritten
    /// with them (the records of output written after the checkpoint are dropped).
    void restore(std::vector<std::pair<double, std::string>> checkpointed);

  private:
    /// Rank 0 rewrites the .pvd file.
    void write() const;

    std::string path;
    MPI_Comm communicator;
    std::vector<std::pair<double, std::string>> records;
  };
} // namespace percussion::Postprocess

#endif
