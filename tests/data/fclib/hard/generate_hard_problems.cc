// generate_hard_problems OUTPUT_DIRECTORY   (created if missing; build target generate_fclib_hard_problems)
//
// Writes the hard FCLIB set of tests/data/fclib/hard (README.md there): frictional contact problems
// whose Delassus operator W = Hᵀ M⁻¹ H is singular because they have more contact unknowns (d m)
// than degrees of freedom (n). Each is built in global form (M, H, f, w, μ: FCLIB fclib_global,
// global_problem.h) from a small mechanical model, condensed with condense_to_local() and written in
// local form; the file's description records n and d m.
//
// Models (velocities in m/s, masses in kg, time step h = 1e-3 s, gravity 9.81 m/s² along −y (2D)
// or −z (3D); u = Hᵀ v + w with w = 0: every listed contact is closed at the start of the step):
//  - rigid boxes on the ground with a k × k grid of contact points on each contact face (a stack:
//    box on box on the ground), sliding and spinning (rigid_box_*);
//  - a coarse deformable plate (a 3 × 3 node grid, lumped mass, springs between neighbours and
//    across diagonals, M̂ = M + h²K) on a rigid support, touched at a fine 10 × 10 grid of slave
//    points whose velocities are bilinear in the plate's nodal velocities — the finite-element case
//    of many slave nodes on a coarse master face (coarse_plate_fine_contact);
//  - random heaps with μ = 1: a 2D pyramid of disks (x, y, θ per disk) and a 3D square pyramid of
//    spheres (6 DoFs each) in a face-centred cubic stacking, every neighbour pair and the ground in
//    contact, random initial velocities (heap2d_*, heap3d_*).
// Randomness: std::mt19937_64 with fixed seeds and our own uniform mapping (the standard
// distributions are not the same across standard libraries), so that the files are reproducible.

#include <percussion/contact_solvers/fclib_writer.h>
#include <percussion/contact_solvers/global_problem.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

using namespace percussion::ContactSolvers;

namespace
{
  constexpr double time_step = 1e-3;
  constexpr double gravity = 9.81;

  /** Uniform in [−1, 1) from the 53 high bits of the generator. */
  double symmetric_uniform(std::mt19937_64 &generator)
  {
    return 2.0 * static_cast<double>(generator() >> 11) * 0x1.0p-53 - 1.0;
  }

  using Vec3 = std::array<double, 3>;

  Vec3 cross(const Vec3 &a, const Vec3 &b)
  {
    return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
  }

  /** Assembles M, H, f of a model; contacts are added one by one. */
  struct Builder
  {
    int dimension;
    int dofs;
    std::vector<int> m_rows, m_cols, h_rows, h_cols;
    std::vector<double> m_values, h_values, f, mu;
    int contacts = 0;

    Builder(int d, int n)
      : dimension(d)
      , dofs(n)
      , f(n, 0.0)
    {
    }

    void add_mass(int i, int j, double value)
    {
      m_rows.push_back(i);
      m_cols.push_back(j);
      m_values.push_back(value);
    }

    /** Column `column` of H gets `value` at dof `dof` (u_column = Σ H(dof, column) v_dof + w). */
    void add_h(int dof, int column, double value)
    {
      h_rows.push_back(dof);
      h_cols.push_back(column);
      h_values.push_back(value);
    }

    /** The contact's frame: normal first, then the tangent(s). Returns the contact index. */
    int new_contact(double friction)
    {
      mu.push_back(friction);
      return contacts++;
    }

    /**
     * A rigid body (3D: dofs first..first+5 = v, ω; 2D: first..first+2 = v_x, v_y, ω) seen from a
     * contact point at lever arm ρ (point − centre): u_e += sign e·(v + ω × ρ) for each frame vector e.
     */
    void add_rigid_body(int contact, int first, const Vec3 &lever, const std::vector<Vec3> &frame, double sign)
    {
      const int d = dimension;
      for (int c = 0; c < d; ++c)
        {
          const int column = contact * d + c;
          const Vec3 &e = frame[c];
          if (d == 3)
            {
              const Vec3 moment = cross(lever, e); // e·(ω × ρ) = ω·(ρ × e)
              for (int i = 0; i < 3; ++i)
                {
                  add_h(first + i, column, sign * e[i]);
                  add_h(first + 3 + i, column, sign * moment[i]);
                }
            }
          else
            {
              add_h(first, column, sign * e[0]);
              add_h(first + 1, column, sign * e[1]);
              add_h(first + 2, column, sign * (lever[0] * e[1] - lever[1] * e[0]));
            }
        }
    }

    GlobalProblem finish(const std::vector<double> &w_normal_velocity = {}) const
    {
      GlobalProblem p;
      p.dimension = dimension;
      p.number_of_contacts = contacts;
      p.M = CsrMatrix::from_triplets(dofs, dofs, m_rows, m_cols, m_values, "M");
      p.H = CsrMatrix::from_triplets(dofs, dimension * contacts, h_rows, h_cols, h_values, "H");
      p.f = f;
      p.w.assign(dimension * contacts, 0.0);
      for (std::size_t a = 0; a < w_normal_velocity.size(); ++a)
        p.w[a * dimension] = w_normal_velocity[a];
      p.mu = mu;
      validate(p, "generate_hard_problems");
      return p;
    }
  };

  std::vector<Vec3> frame_3d(const Vec3 &n)
  {
    // n is a coordinate axis or close to one here; t1 ⟂ n from the least aligned axis.
    Vec3 axis = std::abs(n[0]) < 0.9 ? Vec3{1.0, 0.0, 0.0} : Vec3{0.0, 1.0, 0.0};
    Vec3 t1 = cross(n, axis);
    double l = std::sqrt(t1[0] * t1[0] + t1[1] * t1[1] + t1[2] * t1[2]);
    for (double &x : t1)
      x /= l;
    return {n, t1, cross(n, t1)};
  }

  /** Rigid-body mass block: m on the translations, the principal moments on the rotations. */
  void add_rigid_mass_3d(Builder &b, int first, double mass, const Vec3 &inertia, const Vec3 &v, const Vec3 &omega)
  {
    for (int i = 0; i < 3; ++i)
      {
        b.add_mass(first + i, first + i, mass);
        b.add_mass(first + 3 + i, first + 3 + i, inertia[i]);
        // f = M v⁻ + h F_ext (the Moreau–Jean free impulse)
        b.f[first + i] = mass * v[i] - (i == 2 ? time_step * mass * gravity : 0.0);
        b.f[first + 3 + i] = inertia[i] * omega[i];
      }
  }

  /** A stack of `boxes` cubes of side 0.1 m on the ground, k × k contact points per face. */
  GlobalProblem rigid_box_stack(int boxes, int k, double friction, std::uint64_t seed, double sliding = 0.5)
  {
    std::mt19937_64 generator(seed);
    const double side = 0.1, mass = 1.0, inertia = mass * side * side / 6.0;
    Builder b(3, 6 * boxes);
    for (int box = 0; box < boxes; ++box)
      {
        const Vec3 v{sliding * (1.0 + 0.4 * symmetric_uniform(generator)), 0.6 * sliding * symmetric_uniform(generator),
                     -0.2};
        const Vec3 omega{0.5 * symmetric_uniform(generator), 0.5 * symmetric_uniform(generator),
                         2.0 * symmetric_uniform(generator)};
        add_rigid_mass_3d(b, 6 * box, mass, {inertia, inertia, inertia}, v, omega);
      }
    const auto frame = frame_3d({0.0, 0.0, 1.0});
    for (int box = 0; box < boxes; ++box)
      for (int i = 0; i < k; ++i)
        for (int j = 0; j < k; ++j)
          {
            // Points of the bottom face of `box` (on the ground or on the top face of box − 1).
            const double x = side * ((i + 0.5) / k - 0.5), y = side * ((j + 0.5) / k - 0.5);
            const int a = b.new_contact(friction);
            b.add_rigid_body(a, 6 * box, {x, y, -0.5 * side}, frame, 1.0);
            if (box > 0)
              b.add_rigid_body(a, 6 * (box - 1), {x, y, 0.5 * side}, frame, -1.0);
          }
    return b.finish();
  }

  /**
   * A square plate of side 1 m on a rigid support, a coarse 3 × 3 node grid (27 DoFs), lumped mass
   * 10 kg, springs of stiffness `stiffness` N/m between grid neighbours and across cell diagonals
   * (M̂ = M + h² K). The fine k × k slave points interpolate the plate bilinearly.
   */
  GlobalProblem coarse_plate_fine_contact(int k, double stiffness, double friction, std::uint64_t seed)
  {
    std::mt19937_64 generator(seed);
    const int nodes_per_side = 3, nodes = nodes_per_side * nodes_per_side;
    const double spacing = 1.0 / (nodes_per_side - 1), node_mass = 10.0 / nodes;
    Builder b(3, 3 * nodes);
    auto node = [&](int i, int j) { return i * nodes_per_side + j; };
    std::vector<std::vector<double>> K(3 * nodes, std::vector<double>(3 * nodes, 0.0));
    auto add_spring = [&](int p, int q) {
      const int pi = p / nodes_per_side, pj = p % nodes_per_side, qi = q / nodes_per_side, qj = q % nodes_per_side;
      Vec3 e{(qi - pi) * spacing, (qj - pj) * spacing, 0.0};
      const double l = std::hypot(e[0], e[1]);
      for (double &x : e)
        x /= l;
      // Axial spring plus a weaker transverse (bending-like) one, so that K has no mechanism.
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
          {
            const double s = stiffness * (e[r] * e[c] + (r == 2 && c == 2 ? 0.1 : 0.0));
            K[3 * p + r][3 * p + c] += s;
            K[3 * q + r][3 * q + c] += s;
            K[3 * p + r][3 * q + c] -= s;
            K[3 * q + r][3 * p + c] -= s;
          }
    };
    for (int i = 0; i < nodes_per_side; ++i)
      for (int j = 0; j < nodes_per_side; ++j)
        {
          if (i + 1 < nodes_per_side)
            add_spring(node(i, j), node(i + 1, j));
          if (j + 1 < nodes_per_side)
            add_spring(node(i, j), node(i, j + 1));
          if (i + 1 < nodes_per_side && j + 1 < nodes_per_side)
            {
              add_spring(node(i, j), node(i + 1, j + 1));
              add_spring(node(i + 1, j), node(i, j + 1));
            }
        }
    for (int r = 0; r < 3 * nodes; ++r)
      for (int c = 0; c < 3 * nodes; ++c)
        {
          const double value = (r == c ? node_mass : 0.0) + time_step * time_step * K[r][c];
          if (value != 0.0)
            b.add_mass(r, c, value);
        }
    for (int p = 0; p < nodes; ++p)
      {
        // A sliding, slightly twisted, downward velocity field: the support stops the plate.
        const double x = (p / nodes_per_side) * spacing - 0.5, y = (p % nodes_per_side) * spacing - 0.5;
        const Vec3 v{0.3 - 0.4 * y + 0.05 * symmetric_uniform(generator),
                     0.1 + 0.4 * x + 0.05 * symmetric_uniform(generator), -0.5 + 0.1 * symmetric_uniform(generator)};
        for (int r = 0; r < 3; ++r)
          b.f[3 * p + r] = node_mass * v[r] - (r == 2 ? time_step * node_mass * gravity : 0.0);
      }
    const auto frame = frame_3d({0.0, 0.0, 1.0});
    for (int i = 0; i < k; ++i)
      for (int j = 0; j < k; ++j)
        {
          const double x = (i + 0.5) / k, y = (j + 0.5) / k; // in [0, 1]², the plate's reference square
          const int ci = std::min(static_cast<int>(x / spacing), nodes_per_side - 2);
          const int cj = std::min(static_cast<int>(y / spacing), nodes_per_side - 2);
          const double s = x / spacing - ci, t = y / spacing - cj;
          const std::array<std::pair<int, double>, 4> shape{{{node(ci, cj), (1 - s) * (1 - t)},
                                                             {node(ci + 1, cj), s * (1 - t)},
                                                             {node(ci, cj + 1), (1 - s) * t},
                                                             {node(ci + 1, cj + 1), s * t}}};
          const int a = b.new_contact(friction);
          for (int c = 0; c < 3; ++c)
            for (const auto &[n, weight] : shape)
              for (int r = 0; r < 3; ++r)
                if (frame[c][r] != 0.0)
                  b.add_h(3 * n + r, 3 * a + c, weight * frame[c][r]);
        }
    return b.finish();
  }

  /** A 2D pyramid of `rows` rows of disks (radius 5 mm, density of a 2D disk of 1 g), μ = friction. */
  GlobalProblem heap_2d(int rows, double friction, std::uint64_t seed)
  {
    std::mt19937_64 generator(seed);
    const double radius = 5e-3, mass = 1e-3, inertia = 0.5 * mass * radius * radius;
    std::vector<std::array<double, 2>> centre;
    std::vector<std::vector<int>> index(rows);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < rows - i; ++j)
        {
          index[i].push_back(static_cast<int>(centre.size()));
          centre.push_back({radius * (1.0 + i + 2.0 * j), radius * (1.0 + std::sqrt(3.0) * i)});
        }
    const int disks = static_cast<int>(centre.size());
    Builder b(2, 3 * disks);
    for (int p = 0; p < disks; ++p)
      {
        const double vx = 0.2 * symmetric_uniform(generator), vy = -0.3 + 0.2 * symmetric_uniform(generator);
        const double omega = 20.0 * symmetric_uniform(generator);
        b.add_mass(3 * p, 3 * p, mass);
        b.add_mass(3 * p + 1, 3 * p + 1, mass);
        b.add_mass(3 * p + 2, 3 * p + 2, inertia);
        b.f[3 * p] = mass * vx;
        b.f[3 * p + 1] = mass * vy - time_step * mass * gravity;
        b.f[3 * p + 2] = inertia * omega;
      }
    auto contact_between = [&](int p, int q) { // normal from q to p
      Vec3 n{centre[p][0] - centre[q][0], centre[p][1] - centre[q][1], 0.0};
      const double l = std::hypot(n[0], n[1]);
      n = {n[0] / l, n[1] / l, 0.0};
      const std::vector<Vec3> frame{n, {-n[1], n[0], 0.0}};
      const int a = b.new_contact(friction);
      b.add_rigid_body(a, 3 * p, {-radius * n[0], -radius * n[1], 0.0}, frame, 1.0);
      b.add_rigid_body(a, 3 * q, {radius * n[0], radius * n[1], 0.0}, frame, -1.0);
    };
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < rows - i; ++j)
        {
          const int p = index[i][j];
          if (i == 0)
            {
              const int a = b.new_contact(friction);
              b.add_rigid_body(a, 3 * p, {0.0, -radius, 0.0}, {{0.0, 1.0, 0.0}, {-1.0, 0.0, 0.0}}, 1.0);
            }
          else
            {
              contact_between(p, index[i - 1][j]);
              contact_between(p, index[i - 1][j + 1]);
            }
          if (j > 0)
            contact_between(p, index[i][j - 1]);
        }
    return b.finish();
  }

  /** A 3D square pyramid of spheres (radius 5 mm, 1 g), base `base` × `base`, FCC stacking. */
  GlobalProblem heap_3d(int base, double friction, std::uint64_t seed)
  {
    std::mt19937_64 generator(seed);
    const double radius = 5e-3, mass = 1e-3, inertia = 0.4 * mass * radius * radius;
    std::vector<Vec3> centre;
    std::vector<std::vector<std::vector<int>>> index(base);
    for (int layer = 0; layer < base; ++layer)
      {
        const int k = base - layer;
        index[layer].assign(k, std::vector<int>(k));
        for (int i = 0; i < k; ++i)
          for (int j = 0; j < k; ++j)
            {
              index[layer][i][j] = static_cast<int>(centre.size());
              centre.push_back({radius * (1.0 + layer + 2.0 * i), radius * (1.0 + layer + 2.0 * j),
                                radius * (1.0 + std::sqrt(2.0) * layer)});
            }
      }
    const int spheres = static_cast<int>(centre.size());
    Builder b(3, 6 * spheres);
    for (int p = 0; p < spheres; ++p)
      {
        const Vec3 v{0.2 * symmetric_uniform(generator), 0.2 * symmetric_uniform(generator),
                     -0.3 + 0.2 * symmetric_uniform(generator)};
        const Vec3 omega{20.0 * symmetric_uniform(generator), 20.0 * symmetric_uniform(generator),
                         20.0 * symmetric_uniform(generator)};
        add_rigid_mass_3d(b, 6 * p, mass, {inertia, inertia, inertia}, v, omega);
      }
    auto contact_between = [&](int p, int q) {
      Vec3 n{centre[p][0] - centre[q][0], centre[p][1] - centre[q][1], centre[p][2] - centre[q][2]};
      const double l = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
      for (double &x : n)
        x /= l;
      const auto frame = frame_3d(n);
      const int a = b.new_contact(friction);
      b.add_rigid_body(a, 6 * p, {-radius * n[0], -radius * n[1], -radius * n[2]}, frame, 1.0);
      b.add_rigid_body(a, 6 * q, {radius * n[0], radius * n[1], radius * n[2]}, frame, -1.0);
    };
    const auto ground = frame_3d({0.0, 0.0, 1.0});
    for (int layer = 0; layer < base; ++layer)
      {
        const int k = base - layer;
        for (int i = 0; i < k; ++i)
          for (int j = 0; j < k; ++j)
            {
              const int p = index[layer][i][j];
              if (layer == 0)
                {
                  const int a = b.new_contact(friction);
                  b.add_rigid_body(a, 6 * p, {0.0, 0.0, -radius}, ground, 1.0);
                }
              else
                for (int di = 0; di < 2; ++di)
                  for (int dj = 0; dj < 2; ++dj)
                    contact_between(p, index[layer - 1][i + di][j + dj]);
              if (i > 0)
                contact_between(p, index[layer][i - 1][j]);
              if (j > 0)
                contact_between(p, index[layer][i][j - 1]);
            }
      }
    return b.finish();
  }

  void write(const std::string &directory, const std::string &name, const GlobalProblem &global,
             const std::string &what)
  {
    const LocalProblem local = condense_to_local(global);
    const std::string description =
      what + "; condensed from a global problem with n = " + std::to_string(global.number_of_dofs()) +
      " degrees of freedom and d m = " + std::to_string(local.size()) +
      " contact unknowns (W = H^T M^-1 H is singular); tests/data/fclib/hard/generate_hard_problems.cc";
    write_fclib_local(directory + "/" + name, local, "percussion hard set: " + name, description);
    std::printf("%s: %d contacts, d m = %d, n = %d\n", name.c_str(), local.number_of_contacts, local.size(),
                global.number_of_dofs());
  }
} // namespace

int main(int argc, char **argv)
{
  if (argc != 2)
    {
      std::fprintf(stderr, "usage: %s OUTPUT_DIRECTORY\n", argv[0]);
      return 1;
    }
  const std::string directory = argv[1];
  try
    {
      std::filesystem::create_directories(directory);
      write(directory, "rigid_box_64_contacts.hdf5", rigid_box_stack(1, 8, 0.5, 1),
            "a rigid box sliding on the ground, 8 x 8 contact points, mu = 0.5");
      write(directory, "rigid_box_stack_5_boxes_125_contacts.hdf5", rigid_box_stack(5, 5, 1.0, 9, 0.5),
            "five rigid boxes stacked on the ground, 5 x 5 contact points per face, mu = 1");
      write(directory, "rigid_box_stack_8_boxes_128_contacts.hdf5", rigid_box_stack(8, 4, 1.0, 9, 0.5),
            "eight rigid boxes stacked on the ground, 4 x 4 contact points per face, mu = 1");
      write(directory, "coarse_plate_fine_contact_100.hdf5", coarse_plate_fine_contact(10, 1e6, 0.3, 3),
            "a coarse 3 x 3-node elastic plate on a rigid support touched at 10 x 10 slave points, mu = 0.3");
      write(directory, "heap2d_mu1_590_contacts.hdf5", heap_2d(20, 1.0, 4),
            "a 2D pyramid of 210 disks on the ground, mu = 1");
      write(directory, "heap3d_mu1_225_contacts.hdf5", heap_3d(5, 1.0, 5),
            "a 3D square pyramid of 55 spheres on the ground, mu = 1");
    }
  catch (const std::exception &e)
    {
      std::fprintf(stderr, "generate_hard_problems: %s\n", e.what());
      return 1;
    }
  return 0;
}
