#include <percussion/contact/contact_point_output.h>
#include <percussion/core/exceptions.h>

#include <deal.II/base/mpi.h>
#include <deal.II/base/utilities.h>

#include <fstream>
#include <functional>
#include <iomanip>
#include <sstream>

namespace percussion
{
  namespace Contact
  {
    namespace
    {
      struct Field
      {
        std::string name;
        std::string type;
        unsigned int components;
      };

      /** Write one ASCII DataArray whose entries come from @p value(point, component). */
      void write_array(std::ostream &out, const Field &field, const unsigned int n_points,
                       const std::function<double(unsigned int, unsigned int)> &value)
      {
        out << "      <DataArray type=\"" << field.type << "\" Name=\"" << field.name << "\" NumberOfComponents=\""
            << field.components << "\" format=\"ascii\">\n";
        for (unsigned int i = 0; i < n_points; ++i)
          {
            out << "       ";
            for (unsigned int c = 0; c < field.components; ++c)
              out << ' ' << value(i, c);
            out << '\n';
          }
        out << "      </DataArray>\n";
      }

      /** The values of @p value on this rank's @p n_points, gathered on rank 0 in rank order
       *  (empty on the other ranks). Collective. */
      std::vector<double> gather_on_root(const unsigned int n_points, const unsigned int components,
                                         const std::function<double(unsigned int, unsigned int)> &value,
                                         const MPI_Comm comm)
      {
        std::vector<double> local(static_cast<std::size_t>(n_points) * components);
        for (unsigned int i = 0; i < n_points; ++i)
          for (unsigned int c = 0; c < components; ++c)
            local[static_cast<std::size_t>(i) * components + c] = value(i, c);
        const std::vector<std::vector<double>> all = dealii::Utilities::MPI::gather(comm, local, 0);
        std::vector<double> joined;
        for (const auto &part : all)
          joined.insert(joined.end(), part.begin(), part.end());
        return joined;
      }

      using PointValue = std::function<double(unsigned int, unsigned int)>;

      /** One .vtu file of @p n_points vertex cells at @p position with the point @p arrays. */
      void write_points_vtu(const std::string &path, const unsigned int n_points, const PointValue &position,
                            const std::vector<std::pair<Field, PointValue>> &arrays)
      {
        std::ofstream out(path);
        if (!out)
          throw InputError("Contact output: cannot write " + path);
        out << std::setprecision(16);
        out << "<?xml version=\"1.0\"?>\n"
            << "<VTKFile type=\"UnstructuredGrid\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
            << "  <UnstructuredGrid>\n"
            << "    <Piece NumberOfPoints=\"" << n_points << "\" NumberOfCells=\"" << n_points << "\">\n"
            << "    <Points>\n";
        write_array(out, {"position", "Float64", 3}, n_points, position);
        out << "    </Points>\n    <Cells>\n";
        write_array(out, {"connectivity", "Int64", 1}, n_points,
                    [](unsigned int i, unsigned int) { return double(i); });
        write_array(out, {"offsets", "Int64", 1}, n_points, [](unsigned int i, unsigned int) { return double(i + 1); });
        write_array(out, {"types", "UInt8", 1}, n_points, [](unsigned int, unsigned int) { return 1.; });
        out << "    </Cells>\n    <PointData>\n";
        for (const auto &array : arrays)
          write_array(out, array.first, n_points, array.second);
        out << "    </PointData>\n    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n";
      }
    } // namespace

    template <int dim>
    std::vector<double> contact_pressure(const ContactGeometry<dim> &geometry, const std::vector<double> &impulse,
                                         const double h)
    {
      const auto &points = geometry.owned_points();
      if (impulse.size() != dim * points.size())
        throw InputError("Contact pressure: the impulse needs dim entries per contact point");
      std::vector<double> pressure(points.size(), 0.);
      for (unsigned int i = 0; i < points.size(); ++i)
        if (points[i].area > 0. && h > 0.)
          pressure[i] = impulse[dim * i] / (h * points[i].area);
      return pressure;
    }

    namespace
    {
      /** Which of the optional fields are written: decided over all ranks. */
      struct GivenFields
      {
        bool status, reaction, slip, dissipation, active;
      };

      /**
       * The optional fields some rank gives (collective): a rank without contact points has empty
       * arrays, but its piece must list the same arrays as the .pvtu written by rank 0.
       * @throws InputError when a given field does not match this rank's @p n_points.
       */
      GivenFields given_fields(const ContactPointFields &fields, const unsigned int n_points, const unsigned int dim,
                               const MPI_Comm comm)
      {
        int given[5] = {!fields.status.empty(), !fields.reaction.empty(), !fields.slip_velocity.empty(),
                        !fields.dissipated_energy.empty(), !fields.in_problem.empty()};
        const int ierr = MPI_Allreduce(MPI_IN_PLACE, given, 5, MPI_INT, MPI_MAX, comm);
        AssertThrowMPI(ierr);
        const GivenFields has{given[0] != 0, given[1] != 0, given[2] != 0, given[3] != 0, given[4] != 0};
        if (has.active && fields.in_problem.size() != n_points)
          throw InputError("Contact output: active has " + std::to_string(fields.in_problem.size()) + " entries for " +
                           std::to_string(n_points) + " contact points");
        if (has.status && fields.status.size() != n_points)
          throw InputError("Contact output: status has " + std::to_string(fields.status.size()) + " entries for " +
                           std::to_string(n_points) + " contact points");
        if (has.reaction && fields.reaction.size() != dim * n_points)
          throw InputError("Contact output: reaction needs dim entries per contact point");
        if (has.slip && fields.slip_velocity.size() != dim * n_points)
          throw InputError("Contact output: slip velocity needs dim entries per contact point");
        if (has.dissipation && fields.dissipated_energy.size() != n_points)
          throw InputError("Contact output: dissipated energy has " + std::to_string(fields.dissipated_energy.size()) +
                           " entries for " + std::to_string(n_points) + " contact points");
        return has;
      }

      /** Component @p c of @p v padded to 3 components, as VTK expects. */
      template <int dim>
      double padded_component(const dealii::Tensor<1, dim> &v, const unsigned int c)
      {
        return c < dim ? v[c] : 0.;
      }

      /**
       * The point arrays of the contact points @p points: geometry and coefficients always, the
       * fields of @p has from @p fields. The values are read when the arrays are written: @p points,
       * @p fields and @p pressure (the contact pressure, when written) must outlive the arrays.
       */
      template <int dim>
      std::vector<std::pair<Field, PointValue>> point_arrays(const std::vector<ContactPoint<dim>> &points,
                                                             const ContactPointFields &fields, const GivenFields &has,
                                                             const std::vector<double> &pressure)
      {
        std::vector<std::pair<Field, PointValue>> arrays;
        arrays.push_back({{"gap", "Float64", 1}, [&points](unsigned int i, unsigned int) { return points[i].gap; }});
        arrays.push_back({{"normal", "Float64", 3}, [&points](unsigned int i, unsigned int c) {
                            return padded_component<dim>(points[i].frame.vectors[0], c);
                          }});
        // The frame is (n) alone in 1D: no tangent arrays (vectors[1] does not exist).
        if constexpr (dim >= 2)
          arrays.push_back({{"tangent1", "Float64", 3}, [&points](unsigned int i, unsigned int c) {
                              return padded_component<dim>(points[i].frame.vectors[1], c);
                            }});
        if constexpr (dim == 3)
          arrays.push_back({{"tangent2", "Float64", 3}, [&points](unsigned int i, unsigned int c) {
                              return padded_component<dim>(points[i].frame.vectors[dim - 1], c);
                            }});
        arrays.push_back(
          {{"pair", "Int32", 1}, [&points](unsigned int i, unsigned int) { return double(points[i].pair + 1); }});
        arrays.push_back({{"friction", "Float64", 1},
                          [&points](unsigned int i, unsigned int) { return points[i].friction_coefficient; }});
        arrays.push_back({{"restitution", "Float64", 1},
                          [&points](unsigned int i, unsigned int) { return points[i].restitution_coefficient; }});
        if (has.active)
          arrays.push_back({{"active", "Int32", 1},
                            [&fields](unsigned int i, unsigned int) { return fields.in_problem[i] ? 1. : 0.; }});
        if (has.status)
          arrays.push_back({{"status", "Int32", 1}, [&fields](unsigned int i, unsigned int) {
                              return double(static_cast<int>(fields.status[i]));
                            }});
        if (has.reaction)
          {
            arrays.push_back({{"reaction", "Float64", 3}, [&fields](unsigned int i, unsigned int c) {
                                return c < dim ? fields.reaction[dim * i + c] : 0.;
                              }});
            arrays.push_back({{"reaction_vector", "Float64", 3}, [&points, &fields](unsigned int i, unsigned int c) {
                                dealii::Tensor<1, dim> r;
                                for (unsigned int k = 0; k < dim; ++k)
                                  r += fields.reaction[dim * i + k] * points[i].frame.vectors[k];
                                return padded_component<dim>(r, c);
                              }});
          }
        if (has.reaction && fields.time_step > 0.)
          arrays.push_back(
            {{"pressure", "Float64", 1}, [&pressure](unsigned int i, unsigned int) { return pressure[i]; }});
        if (has.slip)
          arrays.push_back({{"slip_velocity", "Float64", 3}, [&fields](unsigned int i, unsigned int c) {
                              return c < dim ? fields.slip_velocity[dim * i + c] : 0.;
                            }});
        if (has.dissipation)
          arrays.push_back({{"dissipated_energy", "Float64", 1},
                            [&fields](unsigned int i, unsigned int) { return fields.dissipated_energy[i]; }});
        return arrays;
      }

      /**
       * One file @p path for all ranks: the points are few (a boundary's nodes), so rank 0 writes
       * them all after a gather, in rank order. Collective.
       */
      void write_gathered_vtu(const std::string &path, const unsigned int n_points, const PointValue &position,
                              const std::vector<std::pair<Field, PointValue>> &arrays, const MPI_Comm comm)
      {
        const std::vector<double> positions = gather_on_root(n_points, 3, position, comm);
        std::vector<std::vector<double>> values;
        for (const auto &array : arrays)
          values.push_back(gather_on_root(n_points, array.first.components, array.second, comm));
        if (dealii::Utilities::MPI::this_mpi_process(comm) != 0)
          return;
        std::vector<std::pair<Field, PointValue>> gathered;
        for (std::size_t a = 0; a < arrays.size(); ++a)
          {
            const unsigned int components = arrays[a].first.components;
            gathered.push_back({arrays[a].first, [&values, a, components](unsigned int i, unsigned int c) {
                                  return values[a][components * i + c];
                                }});
          }
        write_points_vtu(
          path, positions.size() / 3, [&](unsigned int i, unsigned int c) { return positions[3 * i + c]; }, gathered);
      }

      /** The .pvtu file @p prefix @p stem.pvtu that lists the @p n_ranks pieces and their @p arrays. */
      void write_pvtu_index(const std::string &prefix, const std::string &stem, const unsigned int n_ranks,
                            const std::vector<std::pair<Field, PointValue>> &arrays)
      {
        std::ofstream out(prefix + stem + ".pvtu");
        if (!out)
          throw InputError("Contact output: cannot write " + prefix + stem + ".pvtu");
        out << "<?xml version=\"1.0\"?>\n"
            << "<VTKFile type=\"PUnstructuredGrid\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
            << "  <PUnstructuredGrid GhostLevel=\"0\">\n    <PPointData>\n";
        for (const auto &array : arrays)
          out << "      <PDataArray type=\"" << array.first.type << "\" Name=\"" << array.first.name
              << "\" NumberOfComponents=\"" << array.first.components << "\"/>\n";
        out << "    </PPointData>\n    <PPoints>\n"
            << "      <PDataArray type=\"Float64\" NumberOfComponents=\"3\"/>\n    </PPoints>\n";
        for (unsigned int r = 0; r < n_ranks; ++r)
          out << "    <Piece Source=\"" << stem << "." << dealii::Utilities::int_to_string(r, 4) << ".vtu\"/>\n";
        out << "  </PUnstructuredGrid>\n</VTKFile>\n";
      }
    } // namespace

    template <int dim>
    std::string write_contact_points_vtu(const ContactGeometry<dim> &geometry, const ContactPointFields &fields,
                                         const std::string &directory, const std::string &basename,
                                         const unsigned int step, const bool single_file)
    {
      const auto &points = geometry.owned_points();
      const unsigned int n_points = points.size();
      const MPI_Comm comm = geometry.get_communicator();
      const GivenFields has = given_fields(fields, n_points, dim, comm);

      const unsigned int rank = dealii::Utilities::MPI::this_mpi_process(comm);
      const unsigned int n_ranks = dealii::Utilities::MPI::n_mpi_processes(comm);
      const std::string stem = basename + "-" + dealii::Utilities::int_to_string(step, 5);
      const std::string piece_name =
        (n_ranks == 1) ? stem + ".vtu" : stem + "." + dealii::Utilities::int_to_string(rank, 4) + ".vtu";
      const std::string prefix = directory.empty() ? std::string() : directory + "/";

      std::vector<double> pressure;
      if (has.reaction && fields.time_step > 0.)
        // Empty on a rank without points, like the other arrays.
        pressure = fields.reaction.empty() ? std::vector<double>()
                                           : contact_pressure(geometry, fields.reaction, fields.time_step);
      const std::vector<std::pair<Field, PointValue>> arrays = point_arrays<dim>(points, fields, has, pressure);

      const PointValue position = [&](unsigned int i, unsigned int c) { return c < dim ? points[i].position[c] : 0.; };
      if (single_file && n_ranks > 1)
        {
          write_gathered_vtu(prefix + stem + ".vtu", n_points, position, arrays, comm);
          return stem + ".vtu";
        }

      write_points_vtu(prefix + piece_name, n_points, position, arrays);

      if (n_ranks == 1)
        return piece_name;
      if (rank == 0)
        write_pvtu_index(prefix, stem, n_ranks, arrays);
      return stem + ".pvtu";
    }

    template std::vector<double> contact_pressure<1>(const ContactGeometry<1> &, const std::vector<double> &, double);
    template std::string write_contact_points_vtu<1>(const ContactGeometry<1> &, const ContactPointFields &,
                                                     const std::string &, const std::string &, unsigned int, bool);
    template std::vector<double> contact_pressure<2>(const ContactGeometry<2> &, const std::vector<double> &, double);
    template std::string write_contact_points_vtu<2>(const ContactGeometry<2> &, const ContactPointFields &,
                                                     const std::string &, const std::string &, unsigned int, bool);
    template std::vector<double> contact_pressure<3>(const ContactGeometry<3> &, const std::vector<double> &, double);
    template std::string write_contact_points_vtu<3>(const ContactGeometry<3> &, const ContactPointFields &,
                                                     const std::string &, const std::string &, unsigned int, bool);
  } // namespace Contact
} // namespace percussion
