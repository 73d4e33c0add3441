#include <percussion/contact/mortar_integration.h>

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/lac/full_matrix.h>

#include <algorithm>
#include <cmath>

namespace percussion
{
  namespace Contact
  {
    namespace
    {
      /** x(ξ) and the tangents ∂x/∂ξ_j of a facet interpolated by @p fe. */
      template <int dim>
      void evaluate(const dealii::FE_Q<dim - 1> &fe, const std::vector<dealii::Point<dim>> &nodes,
                    const dealii::Point<dim - 1> &xi, dealii::Point<dim> &x,
                    std::array<dealii::Tensor<1, dim>, dim - 1> &tangents)
      {
        x = dealii::Point<dim>();
        for (auto &t : tangents)
          t = dealii::Tensor<1, dim>();
        for (unsigned int b = 0; b < nodes.size(); ++b)
          {
            x += fe.shape_value(b, xi) * nodes[b];
            const dealii::Tensor<1, dim - 1> g = fe.shape_grad(b, xi);
            for (unsigned int j = 0; j < dim - 1; ++j)
              tangents[j] += g[j] * nodes[b];
          }
      }

      /** Parametric normal (not normalised): ∂x/∂ξ rotated by −90° in 2D, ∂x/∂ξ1 × ∂x/∂ξ2 in 3D. */
      template <int dim>
      dealii::Tensor<1, dim> parametric_normal(const std::array<dealii::Tensor<1, dim>, dim - 1> &t)
      {
        dealii::Tensor<1, dim> n;
        if constexpr (dim == 2)
          {
            n[0] = t[0][1];
            n[1] = -t[0][0];
          }
        else
          n = dealii::cross_product_3d(t[0], t[1]);
        return n;
      }

      /**
       * The auxiliary plane of a slave facet (Popp et al. 2010 §3.3): its center x₀, unit normal
       * n₀ out of the slave body and an orthonormal in-plane basis e_i, so that a point x has the
       * plane coordinates s_i = e_i·(x − x₀).
       */
      template <int dim>
      struct AuxiliaryPlane
      {
        dealii::Point<dim> center;
        dealii::Tensor<1, dim> normal;
        std::array<dealii::Tensor<1, dim>, dim - 1> basis;

        dealii::Point<dim - 1> coordinates(const dealii::Point<dim> &x) const
        {
          dealii::Point<dim - 1> s;
          for (unsigned int i = 0; i < dim - 1; ++i)
            s[i] = basis[i] * (x - center);
          return s;
        }
      };

      /**
       * ξ ∈ [0,1]^{dim−1} of the facet point whose projection along the plane normal has plane
       * coordinates @p s: Newton's method on e_i·(x(ξ) − x₀) = s_i (linear for straight Q1
       * segments, bilinear for Q1 quadrilaterals). Clamped to the facet: the overlap polygons are
       * built from the projected vertices, so a point is at most round-off outside.
       */
      template <int dim>
      dealii::Point<dim - 1> inverse_map(const dealii::FE_Q<dim - 1> &fe, const std::vector<dealii::Point<dim>> &nodes,
                                         const AuxiliaryPlane<dim> &plane, const dealii::Point<dim - 1> &s)
      {
        dealii::Point<dim - 1> xi;
        for (unsigned int j = 0; j < dim - 1; ++j)
          xi[j] = 0.5;
        dealii::Point<dim> x;
        std::array<dealii::Tensor<1, dim>, dim - 1> t;
        for (unsigned int iteration = 0; iteration < 30; ++iteration)
          {
            evaluate<dim>(fe, nodes, xi, x, t);
            const dealii::Tensor<1, dim - 1> r = s - plane.coordinates(x);
            double J[2][2] = {{0., 0.}, {0., 0.}};
            for (unsigned int i = 0; i < dim - 1; ++i)
              for (unsigned int j = 0; j < dim - 1; ++j)
                J[i][j] = plane.basis[i] * t[j];
            double step[2] = {0., 0.};
            if constexpr (dim == 2)
              step[0] = r[0] / J[0][0];
            else
              {
                const double det = J[0][0] * J[1][1] - J[0][1] * J[1][0];
                step[0] = (J[1][1] * r[0] - J[0][1] * r[1]) / det;
                step[1] = (-J[1][0] * r[0] + J[0][0] * r[1]) / det;
              }
            double change = 0.;
            for (unsigned int j = 0; j < dim - 1; ++j)
              {
                xi[j] += step[j];
                change = std::max(change, std::abs(step[j]));
              }
            if (!(change > 1e-15))
              break;
          }
        for (unsigned int j = 0; j < dim - 1; ++j)
          xi[j] = std::min(1., std::max(0., xi[j]));
        return xi;
      }

      /** The vertices of a facet in the plane coordinates, counterclockwise in 3D. */
      template <int dim>
      std::vector<dealii::Point<dim - 1>> projected_vertices(const std::vector<dealii::Point<dim>> &nodes,
                                                             const AuxiliaryPlane<dim> &plane)
      {
        // FE_Q<dim-1> numbers the vertices first: 0, 1 in 2D; (0,0), (1,0), (0,1), (1,1) in 3D.
        std::vector<dealii::Point<dim - 1>> polygon;
        if constexpr (dim == 2)
          polygon = {plane.coordinates(nodes[0]), plane.coordinates(nodes[1])};
        else
          {
            polygon = {plane.coordinates(nodes[0]), plane.coordinates(nodes[1]), plane.coordinates(nodes[3]),
                       plane.coordinates(nodes[2])};
            double twice_area = 0.;
            for (unsigned int i = 0; i < 4; ++i)
              {
                const auto &a = polygon[i], &b = polygon[(i + 1) % 4];
                twice_area += a[0] * b[1] - a[1] * b[0];
              }
            if (twice_area < 0.)
              std::reverse(polygon.begin(), polygon.end());
          }
        return polygon;
      }

      /** A quadrature rule on the overlap of the projected slave and master facets, in plane coordinates. */
      template <int dim>
      void overlap_quadrature(const std::vector<dealii::Point<dim - 1>> &slave_polygon,
                              const std::vector<dealii::Point<dim - 1>> &master_polygon, const unsigned int n_gauss,
                              std::vector<dealii::Point<dim - 1>> &points, std::vector<double> &weights,
                              dealii::Point<dim - 1> &centroid)
      {
        points.clear();
        weights.clear();
        if constexpr (dim == 2)
          {
            // Segment clipping: the intersection of the two projected intervals.
            const double a = std::max(std::min(slave_polygon[0][0], slave_polygon[1][0]),
                                      std::min(master_polygon[0][0], master_polygon[1][0]));
            const double b = std::min(std::max(slave_polygon[0][0], slave_polygon[1][0]),
                                      std::max(master_polygon[0][0], master_polygon[1][0]));
            const double slave_length = std::abs(slave_polygon[1][0] - slave_polygon[0][0]);
            if (!(b - a > 1e-12 * slave_length))
              return;
            const dealii::QGauss<1> gauss(n_gauss);
            for (unsigned int q = 0; q < gauss.size(); ++q)
              {
                points.push_back(dealii::Point<1>(a + (b - a) * gauss.point(q)[0]));
                weights.push_back((b - a) * gauss.weight(q));
              }
            centroid = dealii::Point<1>(0.5 * (a + b));
          }
        else
          {
            const std::vector<dealii::Point<2>> clipped = clip_polygon(master_polygon, slave_polygon);
            if (clipped.size() < 3)
              return;
            double twice_area = 0., twice_slave_area = 0.;
            for (unsigned int i = 0; i < clipped.size(); ++i)
              {
                const auto &p = clipped[i], &q = clipped[(i + 1) % clipped.size()];
                twice_area += p[0] * q[1] - p[1] * q[0];
              }
            for (unsigned int i = 0; i < slave_polygon.size(); ++i)
              {
                const auto &p = slave_polygon[i], &q = slave_polygon[(i + 1) % slave_polygon.size()];
                twice_slave_area += p[0] * q[1] - p[1] * q[0];
              }
            if (!(twice_area > 1e-12 * twice_slave_area))
              return;
            // The clip polygon is convex: a fan of triangles around its vertex average.
            centroid = dealii::Point<2>();
            for (const auto &p : clipped)
              centroid += p / double(clipped.size());
            // Collapsed (Duffy) Gauss rule on each triangle: (a, b) ∈ [0,1]² ↦ (a(1 − b), ab) with
            // Jacobian a, exact for polynomials of total degree 2 n_gauss − 2 (deal.II 9.4's
            // QGaussSimplex stops at 4 points per direction).
            const dealii::QGauss<2> gauss(n_gauss);
            for (unsigned int i = 0; i < clipped.size(); ++i)
              {
                const dealii::Tensor<1, 2> e1 = clipped[i] - centroid,
                                           e2 = clipped[(i + 1) % clipped.size()] - centroid;
                const double det = std::abs(e1[0] * e2[1] - e1[1] * e2[0]);
                if (!(det > 0.))
                  continue;
                for (unsigned int q = 0; q < gauss.size(); ++q)
                  {
                    const double a = gauss.point(q)[0], b = gauss.point(q)[1];
                    points.push_back(centroid + a * (1. - b) * e1 + a * b * e2);
                    weights.push_back(gauss.weight(q) * a * det);
                  }
              }
          }
      }
    } // namespace

    std::vector<dealii::Point<2>> clip_polygon(const std::vector<dealii::Point<2>> &subject,
                                               const std::vector<dealii::Point<2>> &clip)
    {
      // Sutherland–Hodgman: clip the subject successively by the half-plane left of each edge of
      // the (convex, counterclockwise) clip polygon. A point on an edge counts as inside, so that
      // facets sharing an edge or coinciding give their full overlap.
      std::vector<dealii::Point<2>> output = subject;
      double scale = 0.;
      for (const auto &p : clip)
        scale = std::max({scale, std::abs(p[0]), std::abs(p[1])});
      for (const auto &p : subject)
        scale = std::max({scale, std::abs(p[0]), std::abs(p[1])});
      const double tolerance = 1e-14 * scale * scale;
      for (unsigned int e = 0; e < clip.size() && !output.empty(); ++e)
        {
          const dealii::Point<2> &a = clip[e], &b = clip[(e + 1) % clip.size()];
          auto side = [&](const dealii::Point<2> &p) {
            return (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]);
          };
          const std::vector<dealii::Point<2>> input = std::move(output);
          output.clear();
          for (unsigned int i = 0; i < input.size(); ++i)
            {
              const dealii::Point<2> &p = input[i], &q = input[(i + 1) % input.size()];
              const double sp = side(p), sq = side(q);
              const bool p_in = sp >= -tolerance, q_in = sq >= -tolerance;
              if (p_in)
                output.push_back(p);
              if (p_in != q_in)
                {
                  // Clamped: with the tolerance, p may count as inside while sp < 0 (both ends on
                  // the outer side within round-off); the unclamped ratio would then extrapolate
                  // beyond the segment (seen with a master vertex 1e-15 outside a slave edge).
                  const double t = std::min(1., std::max(0., sp / (sp - sq)));
                  output.push_back(p + t * (q - p));
                }
            }
        }
      // Drop repeated vertices (a subject vertex on a clip edge is both kept and intersected).
      std::vector<dealii::Point<2>> result;
      for (const auto &p : output)
        if (result.empty() || p.distance(result.back()) > 1e-14 * std::max(scale, 1e-300))
          result.push_back(p);
      while (result.size() > 1 && result.front().distance(result.back()) <= 1e-14 * std::max(scale, 1e-300))
        result.pop_back();
      return result;
    }

    template <int dim>
    dealii::Tensor<1, dim> facet_unit_normal(const dealii::FE_Q<dim - 1> &fe,
                                             const std::vector<dealii::Point<dim>> &nodes,
                                             const dealii::Point<dim - 1> &xi)
    {
      dealii::Point<dim> x;
      std::array<dealii::Tensor<1, dim>, dim - 1> t;
      evaluate<dim>(fe, nodes, xi, x, t);
      const dealii::Tensor<1, dim> n = parametric_normal<dim>(t);
      return n / n.norm();
    }

    template <int dim>
    std::vector<double> facet_node_areas(const dealii::FE_Q<dim - 1> &fe, const std::vector<dealii::Point<dim>> &nodes)
    {
      const dealii::QGauss<dim - 1> quadrature(fe.degree + 2);
      std::vector<double> areas(nodes.size(), 0.);
      dealii::Point<dim> x;
      std::array<dealii::Tensor<1, dim>, dim - 1> t;
      for (unsigned int q = 0; q < quadrature.size(); ++q)
        {
          evaluate<dim>(fe, nodes, quadrature.point(q), x, t);
          const double JxW = parametric_normal<dim>(t).norm() * quadrature.weight(q);
          for (unsigned int b = 0; b < nodes.size(); ++b)
            areas[b] += fe.shape_value(b, quadrature.point(q)) * JxW;
        }
      return areas;
    }

    template <int dim>
    dealii::FullMatrix<double> dual_basis_coefficients(const dealii::FE_Q<dim - 1> &fe,
                                                       const std::vector<dealii::Point<dim>> &nodes)
    {
      const unsigned int n = nodes.size();
      const dealii::QGauss<dim - 1> quadrature(fe.degree + 2);
      dealii::FullMatrix<double> mass(n, n), inverse(n, n), A(n, n);
      dealii::Point<dim> x;
      std::array<dealii::Tensor<1, dim>, dim - 1> t;
      for (unsigned int q = 0; q < quadrature.size(); ++q)
        {
          evaluate<dim>(fe, nodes, quadrature.point(q), x, t);
          const double JxW = parametric_normal<dim>(t).norm() * quadrature.weight(q);
          for (unsigned int j = 0; j < n; ++j)
            for (unsigned int k = 0; k < n; ++k)
              mass(j, k) += fe.shape_value(j, quadrature.point(q)) * fe.shape_value(k, quadrature.point(q)) * JxW;
        }
      inverse.invert(mass);
      for (unsigned int j = 0; j < n; ++j)
        {
          double row_sum = 0.;
          for (unsigned int k = 0; k < n; ++k)
            row_sum += mass(j, k);
          for (unsigned int k = 0; k < n; ++k)
            A(j, k) = row_sum * inverse(j, k);
        }
      return A;
    }

    namespace
    {
      /** The rows of @p rows for the nodes of @p slave (null for a node the caller does not own). */
      template <int dim>
      std::vector<MortarNode<dim> *>
      rows_of_slave_nodes(const SlaveFacet<dim> &slave,
                          std::map<dealii::types::global_dof_index, MortarNode<dim>> &rows)
      {
        std::vector<MortarNode<dim> *> row_of_node(slave.nodes.size(), nullptr);
        for (unsigned int b = 0; b < slave.nodes.size(); ++b)
          {
            const auto it = rows.find(slave.dofs[b][0]);
            if (it != rows.end())
              row_of_node[b] = &it->second;
          }
        return row_of_node;
      }

      /** Adds the facet's support areas ∫ N_b dΓ and unit outward normals at its nodes to their rows
       *  (the normals are averaged over the facets of a node). */
      template <int dim>
      void add_support_areas_and_normals(const dealii::FE_Q<dim - 1> &fe, const SlaveFacet<dim> &slave,
                                         const std::vector<MortarNode<dim> *> &row_of_node)
      {
        const std::vector<double> areas = facet_node_areas<dim>(fe, slave.nodes);
        const auto &unit_points = fe.get_unit_support_points();
        dealii::Point<dim> x;
        std::array<dealii::Tensor<1, dim>, dim - 1> t;
        for (unsigned int b = 0; b < slave.nodes.size(); ++b)
          if (row_of_node[b])
            {
              row_of_node[b]->support_area += areas[b];
              evaluate<dim>(fe, slave.nodes, unit_points[b], x, t);
              const dealii::Tensor<1, dim> n = parametric_normal<dim>(t);
              row_of_node[b]->normal_sum += slave.orientation / n.norm() * n;
            }
      }

      /** The facet's center ξ = (½, …, ½) in reference coordinates. */
      template <int dim>
      dealii::Point<dim - 1> reference_center()
      {
        dealii::Point<dim - 1> center;
        for (unsigned int j = 0; j < dim - 1; ++j)
          center[j] = 0.5;
        return center;
      }

      /** The auxiliary plane of @p slave: through its center, normal n₀ its outward unit normal there,
       *  with an orthonormal in-plane basis. */
      template <int dim>
      AuxiliaryPlane<dim> auxiliary_plane(const dealii::FE_Q<dim - 1> &fe, const SlaveFacet<dim> &slave)
      {
        AuxiliaryPlane<dim> plane;
        std::array<dealii::Tensor<1, dim>, dim - 1> t;
        evaluate<dim>(fe, slave.nodes, reference_center<dim>(), plane.center, t);
        plane.normal = parametric_normal<dim>(t);
        plane.normal *= slave.orientation / plane.normal.norm();
        if constexpr (dim == 2)
          {
            plane.basis[0][0] = -plane.normal[1];
            plane.basis[0][1] = plane.normal[0];
          }
        else
          {
            plane.basis[0] = t[0] - (t[0] * plane.normal) * plane.normal;
            plane.basis[0] /= plane.basis[0].norm();
            plane.basis[1] = dealii::cross_product_3d(plane.normal, plane.basis[0]);
          }
        return plane;
      }

      /** Whether @p master and @p slave have a node in common (neighbours on one surface). */
      template <int dim>
      bool shares_a_node(const MasterFacet<dim> &master, const SlaveFacet<dim> &slave)
      {
        bool shares = false;
        for (const auto &m : master.dofs)
          for (const auto &s : slave.dofs)
            shares = shares || m[0] == s[0];
        return shares;
      }

      /** Whether @p master faces the slave side of @p plane (its outward normal at its center
       *  points against n₀). */
      template <int dim>
      bool faces_slave(const dealii::FE_Q<dim - 1> &fe, const MasterFacet<dim> &master,
                       const AuxiliaryPlane<dim> &plane)
      {
        dealii::Point<dim> xm;
        std::array<dealii::Tensor<1, dim>, dim - 1> tm;
        evaluate<dim>(fe, master.nodes, reference_center<dim>(), xm, tm);
        return master.orientation * (parametric_normal<dim>(tm) * plane.normal) < 0.;
      }

      /** Whether the facets are at most @p search_distance apart along n₀ at the plane point
       *  @p centroid. */
      template <int dim>
      bool within_search_distance(const dealii::FE_Q<dim - 1> &fe, const SlaveFacet<dim> &slave,
                                  const MasterFacet<dim> &master, const AuxiliaryPlane<dim> &plane,
                                  const dealii::Point<dim - 1> &centroid, const double search_distance)
      {
        dealii::Point<dim> xs, xm;
        std::array<dealii::Tensor<1, dim>, dim - 1> ts, tm;
        const auto xi = inverse_map<dim>(fe, slave.nodes, plane, centroid);
        const auto eta = inverse_map<dim>(fe, master.nodes, plane, centroid);
        evaluate<dim>(fe, slave.nodes, xi, xs, ts);
        evaluate<dim>(fe, master.nodes, eta, xm, tm);
        return !(std::abs(plane.normal * (xm - xs)) > search_distance);
      }

      /**
       * Adds to the rows of the slave nodes the integrals over the overlap of @p slave and @p master
       * (quadrature @p points, @p weights in the auxiliary plane): the weighted area ∫ Ψ_j dΓ, the
       * weighted gap ∫ Ψ_j g dΓ and the coupling entries ∫ Ψ_j N_m dΓ, with Ψ_j = Σ_k A_jk N_k.
       */
      template <int dim>
      void add_overlap_integrals(const dealii::FE_Q<dim - 1> &fe, const SlaveFacet<dim> &slave,
                                 const MasterFacet<dim> &master, const AuxiliaryPlane<dim> &plane,
                                 const dealii::FullMatrix<double> &A, const std::vector<dealii::Point<dim - 1>> &points,
                                 const std::vector<double> &weights, const std::vector<MortarNode<dim> *> &row_of_node)
      {
        const unsigned int n_slave = slave.nodes.size();
        std::vector<double> N(n_slave);
        dealii::Point<dim> xs, xm;
        std::array<dealii::Tensor<1, dim>, dim - 1> ts, tm;
        for (unsigned int q = 0; q < points.size(); ++q)
          {
            const auto xi = inverse_map<dim>(fe, slave.nodes, plane, points[q]);
            const auto eta = inverse_map<dim>(fe, master.nodes, plane, points[q]);
            evaluate<dim>(fe, slave.nodes, xi, xs, ts);
            evaluate<dim>(fe, master.nodes, eta, xm, tm);
            // Both points project to the same plane point, so x_m − x_s ∥ n₀.
            const double gap = plane.normal * (xm - xs);
            dealii::Tensor<1, dim> ns = parametric_normal<dim>(ts);
            const double dGamma = weights[q] / std::abs(ns * plane.normal / ns.norm());
            for (unsigned int k = 0; k < n_slave; ++k)
              N[k] = fe.shape_value(k, xi);
            for (unsigned int j = 0; j < n_slave; ++j)
              {
                if (!row_of_node[j])
                  continue;
                double psi = 0.;
                for (unsigned int k = 0; k < n_slave; ++k)
                  psi += A(j, k) * N[k];
                MortarNode<dim> &row = *row_of_node[j];
                row.weighted_area += psi * dGamma;
                row.weighted_gap += psi * gap * dGamma;
                for (unsigned int m = 0; m < master.nodes.size(); ++m)
                  {
                    auto &entry = row.master[master.dofs[m][0]];
                    entry.first = master.dofs[m];
                    entry.second += psi * fe.shape_value(m, eta) * dGamma;
                  }
              }
          }
      }
    } // namespace

    template <int dim>
    void integrate_slave_facet(const dealii::FE_Q<dim - 1> &fe, const SlaveFacet<dim> &slave,
                               const std::vector<MasterFacet<dim>> &master_facets,
                               const std::vector<unsigned int> &candidates, const double search_distance,
                               std::map<dealii::types::global_dof_index, MortarNode<dim>> &rows)
    {
      // The rows this facet contributes to (the slave nodes owned by the caller).
      const std::vector<MortarNode<dim> *> row_of_node = rows_of_slave_nodes<dim>(slave, rows);
      if (std::none_of(row_of_node.begin(), row_of_node.end(),
                       [](const MortarNode<dim> *row) { return row != nullptr; }))
        return;
      add_support_areas_and_normals<dim>(fe, slave, row_of_node);

      const AuxiliaryPlane<dim> plane = auxiliary_plane<dim>(fe, slave);
      const std::vector<dealii::Point<dim - 1>> slave_polygon = projected_vertices<dim>(slave.nodes, plane);
      const dealii::FullMatrix<double> A = dual_basis_coefficients<dim>(fe, slave.nodes);
      // Ψ_j N_m has degree 2p per direction on straight facets (total degree 4p in 3D): p + 3
      // points per direction integrate it exactly on segments (2D) and on the Duffy-collapsed
      // triangles (3D, exact to total degree 2p + 4 ≥ 4p for p ≤ 2).
      const unsigned int n_gauss = fe.degree + 3;

      std::vector<dealii::Point<dim - 1>> points;
      std::vector<double> weights;
      dealii::Point<dim - 1> centroid;
      for (const unsigned int index : candidates)
        {
          const MasterFacet<dim> &master = master_facets[index];
          // Only master facets facing the slave facet.
          if (shares_a_node<dim>(master, slave) || !faces_slave<dim>(fe, master, plane))
            continue;
          const std::vector<dealii::Point<dim - 1>> master_polygon = projected_vertices<dim>(master.nodes, plane);
          overlap_quadrature<dim>(slave_polygon, master_polygon, n_gauss, points, weights, centroid);
          if (points.empty())
            continue;
          // A facet farther away than the search distance along n₀ (e.g. the far side of a thin
          // master body) is not a contact partner.
          if (!within_search_distance<dim>(fe, slave, master, plane, centroid, search_distance))
            continue;
          add_overlap_integrals<dim>(fe, slave, master, plane, A, points, weights, row_of_node);
        }
    }

    template dealii::Tensor<1, 2> facet_unit_normal<2>(const dealii::FE_Q<1> &, const std::vector<dealii::Point<2>> &,
                                                       const dealii::Point<1> &);
    template dealii::Tensor<1, 3> facet_unit_normal<3>(const dealii::FE_Q<2> &, const std::vector<dealii::Point<3>> &,
                                                       const dealii::Point<2> &);
    template std::vector<double> facet_node_areas<2>(const dealii::FE_Q<1> &, const std::vector<dealii::Point<2>> &);
    template std::vector<double> facet_node_areas<3>(const dealii::FE_Q<2> &, const std::vector<dealii::Point<3>> &);
    template dealii::FullMatrix<double> dual_basis_coefficients<2>(const dealii::FE_Q<1> &,
                                                                   const std::vector<dealii::Point<2>> &);
    template dealii::FullMatrix<double> dual_basis_coefficients<3>(const dealii::FE_Q<2> &,
                                                                   const std::vector<dealii::Point<3>> &);
    template void integrate_slave_facet<2>(const dealii::FE_Q<1> &, const SlaveFacet<2> &,
                                           const std::vector<MasterFacet<2>> &, const std::vector<unsigned int> &,
                                           double, std::map<dealii::types::global_dof_index, MortarNode<2>> &);
    template void integrate_slave_facet<3>(const dealii::FE_Q<2> &, const SlaveFacet<3> &,
                                           const std::vector<MasterFacet<3>> &, const std::vector<unsigned int> &,
                                           double, std::map<dealii::types::global_dof_index, MortarNode<3>> &);
  } // namespace Contact
} // namespace percussion
