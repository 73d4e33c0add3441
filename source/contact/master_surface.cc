#include <percussion/contact/master_surface.h>
#include <percussion/contact_solvers/plain_all_gather.h>

#include <deal.II/base/mpi.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>

namespace percussion
{
  namespace Contact
  {
    namespace
    {
      /// How far (relative to the facet size) a penetrated node may lie beside a master facet's
      /// edge and still be in contact with it (the facet's plane extended that far).
      constexpr double boundary_extension = 0.25;
      /// How far beside the edge a node counts as flush with it whatever its depth (a block's
      /// corner resting on the edge of another moves that little by round-off and strain).
      constexpr double flush_extension = 0.01;

      /// A slave face within this angle of facing a master facet (normals opposed) is parallel to it.
      const double parallel_faces_cosine = std::cos(5. * M_PI / 180.);

      /** Whether one of the @p slave_normals is opposed to the master normal @p n (faces parallel). */
      template <int dim>
      bool faces_a_slave_facet(const dealii::Tensor<1, dim> &n,
                               const std::vector<dealii::Tensor<1, dim>> &slave_normals)
      {
        return std::any_of(slave_normals.begin(), slave_normals.end(),
                           [&n](const dealii::Tensor<1, dim> &m) { return -(m * n) >= parallel_faces_cosine; });
      }

      /** Parametric normal of a facet from its tangent vectors ∂x/∂ξ_j. */
      template <int dim>
      dealii::Tensor<1, dim> parametric_normal(const std::array<dealii::Tensor<1, dim>, dim - 1> &tangents)
      {
        dealii::Tensor<1, dim> n;
        if constexpr (dim == 2)
          {
            n[0] = tangents[0][1];
            n[1] = -tangents[0][0];
          }
        else
          n = dealii::cross_product_3d(tangents[0], tangents[1]);
        return n;
      }

      /** x(ξ), ∂x/∂ξ_j and ∂²x/∂ξ_j∂ξ_k of a facet. */
      template <int dim>
      struct FacetEvaluation
      {
        dealii::Point<dim> x;
        std::array<dealii::Tensor<1, dim>, dim - 1> tangents;
        std::array<std::array<dealii::Tensor<1, dim>, dim - 1>, dim - 1> second;
      };

      template <int dim>
      FacetEvaluation<dim> evaluate(const FacetShapeFunctions<dim - 1> &shapes,
                                    const std::vector<dealii::Point<dim>> &nodes, const dealii::Point<dim - 1> &xi,
                                    const bool with_second)
      {
        constexpr unsigned int m = dim - 1;
        shapes.evaluate(xi, with_second);
        const std::vector<double> &value = shapes.values(), &first = shapes.first(), &second = shapes.second();
        FacetEvaluation<dim> e;
        for (unsigned int b = 0; b < nodes.size(); ++b)
          {
            e.x += value[b] * nodes[b];
            for (unsigned int j = 0; j < m; ++j)
              e.tangents[j] += first[b * m + j] * nodes[b];
            if (with_second)
              for (unsigned int j = 0; j < m; ++j)
                for (unsigned int k = 0; k < m; ++k)
                  e.second[j][k] += second[(b * m + j) * m + k] * nodes[b];
          }
        return e;
      }

      /**
       * The parameters ξ ∈ [0,1]^{dim−1} of the point of a facet (@p nodes) closest to @p x:
       * Newton's method for min ½|x − x(ξ)|², the bounds handled by fixing the coordinates that
       * sit on a bound and whose gradient pushes outward (projected Newton).
       */
      template <int dim>
      dealii::Point<dim - 1> closest_parameters(const FacetShapeFunctions<dim - 1> &shapes,
                                                const std::vector<dealii::Point<dim>> &nodes,
                                                const dealii::Point<dim> &x)
      {
        constexpr int m = dim - 1;
        dealii::Point<m> xi;
        for (unsigned int j = 0; j < m; ++j)
          xi[j] = 0.5;
        for (unsigned int iteration = 0; iteration < 50; ++iteration)
          {
            const auto e = evaluate<dim>(shapes, nodes, xi, true);
            const dealii::Tensor<1, dim> d = x - e.x;
            double gradient[m], hessian[m][m], gauss_newton[m][m];
            bool free_coordinate[m];
            for (unsigned int j = 0; j < m; ++j)
              {
                gradient[j] = -(e.tangents[j] * d);
                for (unsigned int k = 0; k < m; ++k)
                  {
                    gauss_newton[j][k] = e.tangents[j] * e.tangents[k];
                    hessian[j][k] = gauss_newton[j][k] - d * e.second[j][k];
                  }
                free_coordinate[j] = !((xi[j] <= 0. && gradient[j] > 0.) || (xi[j] >= 1. && gradient[j] < 0.));
              }
            // Solve the reduced system on the free coordinates; fall back to Gauss–Newton if the
            // Hessian is not positive definite there (strongly curved facet, far point).
            double step[m] = {};
            for (unsigned int attempt = 0; attempt < 2; ++attempt)
              {
                const auto &A = (attempt == 0) ? hessian : gauss_newton;
                bool ok = true;
                if (m == 1 || !free_coordinate[1] || !free_coordinate[0])
                  {
                    for (unsigned int j = 0; j < m; ++j)
                      {
                        step[j] = 0.;
                        if (free_coordinate[j])
                          {
                            if (A[j][j] > 0.)
                              step[j] = -gradient[j] / A[j][j];
                            else
                              ok = false;
                          }
                      }
                  }
                else
                  {
                    const double det = A[0][0] * A[1][1] - A[0][1] * A[1][0];
                    if (A[0][0] > 0. && det > 0.)
                      {
                        step[0] = -(A[1][1] * gradient[0] - A[0][1] * gradient[m - 1]) / det;
                        step[m - 1] = -(-A[1][0] * gradient[0] + A[0][0] * gradient[m - 1]) / det;
                      }
                    else
                      ok = false;
                  }
                if (ok)
                  break;
              }
            double change = 0.;
            for (unsigned int j = 0; j < m; ++j)
              {
                const double updated = std::min(1., std::max(0., xi[j] + step[j]));
                change = std::max(change, std::abs(updated - xi[j]));
                xi[j] = updated;
              }
            if (change < 1e-15)
              break;
          }
        return xi;
      }

      /** A facet's projection accepted by MasterSurface::project(), with what the choice needs. */
      template <int dim>
      struct AcceptedProjection
      {
        MasterProjection<dim> projection;
        double distance;
        /** How much farther than the closest it may be and still be chosen (1 % of its size on a
         *  surface the node belongs to, 0 otherwise). */
        double band;
        /** Whether its normal is opposed to one of the slave node's own faces (faces flush). */
        bool faces;
      };

      /**
       * The closest facets (within their band on a surface the node belongs to; exact ties
       * otherwise, as a node exactly above a shared facet node), facing ones first, then the
       * closest, then the lower facet index. @p closest: the smallest distance of @p accepted.
       */
      template <int dim>
      const MasterProjection<dim> &choose_projection(const std::vector<AcceptedProjection<dim>> &accepted,
                                                     const double closest)
      {
        const auto eligible = [&](const AcceptedProjection<dim> &a) { return a.distance <= closest + a.band; };
        const bool any_facing = std::any_of(accepted.begin(), accepted.end(),
                                            [&](const AcceptedProjection<dim> &a) { return eligible(a) && a.faces; });
        const AcceptedProjection<dim> *chosen = nullptr;
        for (const AcceptedProjection<dim> &a : accepted)
          if (eligible(a) && (a.faces || !any_facing) &&
              (chosen == nullptr || a.distance < chosen->distance ||
               (a.distance == chosen->distance && a.projection.facet < chosen->projection.facet)))
            chosen = &a;
        return chosen->projection;
      }
    } // namespace

    template <int dim>
    MasterSurface<dim>::MasterSurface(const dealii::FiniteElement<dim> &fe, BoundaryIds boundary_ids)
      : boundary_ids(std::move(boundary_ids))
      , layout(fe)
    {
    }

    template <int dim>
    void MasterSurface<dim>::collect_own_facets(const dealii::DoFHandler<dim> &dof_handler,
                                                const ConnectedBodies<dim> &bodies)
    {
      own_facets.clear();
      for (const auto &cell : dof_handler.active_cell_iterators())
        if (cell->is_locally_owned())
          for (const unsigned int f : cell->face_indices())
            if (cell->face(f)->at_boundary() && boundary_ids.contains(cell->face(f)->boundary_id()))
              {
                const auto face = cell->face(f);
                OwnFacet facet;
                layout.get_nodes(face, facet.node_dofs, facet.reference);
                // The orientation is a property of the reference configuration: with small
                // strains the parametric normal never turns over.
                dealii::Point<dim - 1> center;
                for (unsigned int j = 0; j < dim - 1; ++j)
                  center[j] = 0.5;
                const auto e = evaluate<dim>(layout.facet_shapes(), facet.reference, center, false);
                const double side = parametric_normal<dim>(e.tangents) * (face->center() - cell->center());
                facet.orientation = side >= 0. ? 1. : -1.;
                facet.body = bodies.body_of_cell(cell);
                facet.material = cell->material_id();
                own_facets.push_back(std::move(facet));
              }
      own_facets_handler = &dof_handler;
      own_facets_n_dofs = dof_handler.n_dofs();
    }

    template <int dim>
    void MasterSurface<dim>::build(const dealii::DoFHandler<dim> &dof_handler,
                                   const dealii::PETScWrappers::MPI::Vector &ghosted_displacement,
                                   const double search_distance, const ConnectedBodies<dim> &bodies)
    {
      // The facets of the mesh once (a walk over all cells at every step costs more than the
      // search of a many-body surface), their current nodes at every build.
      if (own_facets_handler != &dof_handler || own_facets_n_dofs != dof_handler.n_dofs())
        collect_own_facets(dof_handler, bodies);
      const unsigned int n_nodes = layout.nodes_per_face();
      std::vector<double> local_coordinates;
      std::vector<dealii::types::global_dof_index> local_dofs;
      local_coordinates.reserve(own_facets.size() * (n_nodes * dim + 3));
      local_dofs.reserve(own_facets.size() * n_nodes * dim);
      for (const OwnFacet &facet : own_facets)
        {
          for (unsigned int b = 0; b < n_nodes; ++b)
            for (unsigned int c = 0; c < dim; ++c)
              {
                local_coordinates.push_back(facet.reference[b][c] + ghosted_displacement(facet.node_dofs[b][c]));
                local_dofs.push_back(facet.node_dofs[b][c]);
              }
          local_coordinates.push_back(facet.orientation);
          local_coordinates.push_back(static_cast<double>(facet.body));
          local_coordinates.push_back(static_cast<double>(facet.material));
        }

      const MPI_Comm comm = dof_handler.get_triangulation().get_communicator();
      // Plain bytes in rank order (deal.II's all_gather() compresses each rank's vector: a third
      // of a many-body step's geometry).
      std::vector<double> all_coordinates;
      std::vector<dealii::types::global_dof_index> all_dofs;
      ContactSolvers::plain_all_gather(local_coordinates, all_coordinates, comm);
      ContactSolvers::plain_all_gather(local_dofs, all_dofs, comm);

      facets.clear();
      const unsigned int doubles_per_facet = n_nodes * dim + 3;
      const std::size_t n_facets = all_coordinates.size() / doubles_per_facet;
      facets.reserve(n_facets);
      for (std::size_t i = 0; i < n_facets; ++i)
        {
          MasterFacet<dim> facet;
          facet.nodes.resize(n_nodes);
          facet.dofs.resize(n_nodes);
          for (unsigned int b = 0; b < n_nodes; ++b)
            for (unsigned int c = 0; c < dim; ++c)
              {
                facet.nodes[b][c] = all_coordinates[i * doubles_per_facet + b * dim + c];
                facet.dofs[b][c] = all_dofs[i * n_nodes * dim + b * dim + c];
              }
          facet.orientation = all_coordinates[i * doubles_per_facet + n_nodes * dim];
          facet.body = static_cast<unsigned int>(all_coordinates[i * doubles_per_facet + n_nodes * dim + 1]);
          facet.material = static_cast<unsigned int>(all_coordinates[i * doubles_per_facet + n_nodes * dim + 2]);
          facets.push_back(std::move(facet));
        }

      // The surface's topology (which sides are free, which facets a node belongs to) is that of
      // the mesh: computed again only if the gathered facets are not those of the last build.
      std::vector<dealii::types::global_dof_index> signature;
      signature.reserve(facets.size() * n_nodes);
      for (const auto &facet : facets)
        for (const auto &node : facet.dofs)
          signature.push_back(node[0]);
      if (signature != topology_signature)
        {
          mark_free_sides();
          facets_of_node.clear();
          for (unsigned int i = 0; i < facets.size(); ++i)
            for (const auto &node : facets[i].dofs)
              facets_of_node[node[0]].push_back(i);
          topology_signature = std::move(signature);
        }
      dealii::Point<dim - 1> center;
      for (unsigned int j = 0; j < dim - 1; ++j)
        center[j] = 0.5;
      for (unsigned int i = 0; i < facets.size(); ++i)
        {
          const auto e = evaluate<dim>(layout.facet_shapes(), facets[i].nodes, center, false);
          dealii::Tensor<1, dim> n = parametric_normal<dim>(e.tangents);
          facets[i].center_normal = (facets[i].orientation / n.norm()) * n;
        }

      // Bounding boxes of the current facets; project() walks them by increasing distance.
      std::vector<std::pair<dealii::BoundingBox<dim>, unsigned int>> boxes;
      boxes.reserve(facets.size());
      for (unsigned int i = 0; i < facets.size(); ++i)
        boxes.emplace_back(dealii::BoundingBox<dim>(facets[i].nodes), i);
      this->search_distance = search_distance;
      tree = dealii::pack_rtree(boxes);
    }

    template <int dim>
    void MasterSurface<dim>::mark_free_sides()
    {
      // A side is named by the DoFs of its vertices (the first 2^{dim-1} nodes of a facet are its
      // vertices, vertex i + 2j at ξ = (i, j)); two facets of the surface share it iff they name it
      // alike. Facets of different bodies never share DoFs, so each body's outline is free.
      constexpr unsigned int n_sides = 2 * (dim - 1);
      const auto side_vertices = [](const unsigned int side) -> std::vector<unsigned int> {
        if constexpr (dim == 2)
          return {side};
        else
          {
            const unsigned int j = side / 2, end = side % 2;
            return j == 0 ? std::vector<unsigned int>{end, end + 2} : std::vector<unsigned int>{2 * end, 2 * end + 1};
          }
      };
      const auto side_key = [&](const MasterFacet<dim> &facet, const unsigned int side) {
        std::vector<dealii::types::global_dof_index> key;
        for (const unsigned int v : side_vertices(side))
          key.push_back(facet.dofs[v][0]);
        std::sort(key.begin(), key.end());
        return key;
      };
      std::map<std::vector<dealii::types::global_dof_index>, unsigned int> count;
      for (const auto &facet : facets)
        for (unsigned int side = 0; side < n_sides; ++side)
          ++count[side_key(facet, side)];
      free_sides.assign(facets.size(), {});
      for (unsigned int i = 0; i < facets.size(); ++i)
        for (unsigned int side = 0; side < n_sides; ++side)
          free_sides[i][side] = count[side_key(facets[i], side)] == 1;
    }

    template <int dim>
    std::vector<dealii::Tensor<1, dim>>
    MasterSurface<dim>::slave_facet_normals(const dealii::types::global_dof_index slave_dof) const
    {
      std::vector<dealii::Tensor<1, dim>> normals;
      const auto found = facets_of_node.find(slave_dof);
      if (found == facets_of_node.end())
        return normals;
      for (const unsigned int i : found->second)
        normals.push_back(facets[i].center_normal);
      return normals;
    }

    template <int dim>
    bool MasterSurface<dim>::project_on_facet(const dealii::Point<dim> &x, const unsigned int facet_index,
                                              const std::vector<dealii::Tensor<1, dim>> &slave_normals,
                                              MasterProjection<dim> &projection, double &distance) const
    {
      const MasterFacet<dim> &facet = facets[facet_index];
      constexpr int m = dim - 1;

      const dealii::Point<m> xi = closest_parameters<dim>(layout.facet_shapes(), facet.nodes, x);

      const auto e = evaluate<dim>(layout.facet_shapes(), facet.nodes, xi, false);
      const dealii::Tensor<1, dim> d = x - e.x;
      dealii::Tensor<1, dim> n = parametric_normal<dim>(e.tangents);
      n *= facet.orientation / n.norm();
      double size = 0.;
      for (unsigned int j = 0; j < m; ++j)
        size = std::max(size, e.tangents[j].norm());
      distance = d.norm();
      const double normal_part = d * n;
      const double tangential = (d - normal_part * n).norm();
      // The point is beyond the sides where ξ sits on a bound and the residual points outward; it
      // is beside the surface's edge if all those sides are free.
      bool beyond_free_sides_only = true;
      for (unsigned int j = 0; j < m; ++j)
        {
          const double outward = d * e.tangents[j];
          if ((xi[j] <= 0. && outward < 0. && !free_sides[facet_index][2 * j]) ||
              (xi[j] >= 1. && outward > 0. && !free_sides[facet_index][2 * j + 1]))
            beyond_free_sides_only = false;
        }
      if (tangential <= 1e-10 * std::max(distance, size))
        {
          // The usual case: the projection is orthogonal, the gap is the normal distance.
          projection.normal = n;
          projection.gap = normal_part;
        }
      else if (normal_part < 0. && tangential <= boundary_extension * size &&
               tangential <= std::max(-normal_part, flush_extension * size))
        {
          // Behind the facet and just outside its extent: a penetrated node at the edge of the
          // master surface (e.g. the corner of a block resting flush on another), or at the joint
          // of two facets of a convex surface. Its gap is measured to the facet's plane extended a
          // little beyond the edge: dropping it would leave a penetrated contact without any
          // constraint. Only as far beyond the edge as it is deep (or 1 % of the facet, flush): a
          // point farther out beside the facet than behind its plane is beside the master body (closer to the face
          // across the edge), and measuring it to the extended plane would make a penetration of a node that touches
          // nothing (a domino's face node beside the next domino's edge).
          projection.normal = n;
          projection.gap = normal_part;
        }
      else if (normal_part < 0.)
        // Behind the facet and outside its extent: beside the master body, not a contact.
        return false;
      else if ((beyond_free_sides_only || faces_a_slave_facet(n, slave_normals)) &&
               tangential <= flush_extension * size)
        {
          // In front of the surface's edge, or of an edge where a face of the slave lies parallel
          // to this facet, and flush with it (a block on a block of the same footprint, whose
          // strain moves the edge nodes apart by round-off or Poisson's ratio; a brick's corner on
          // another's corner, where the distance to the edge would point sideways):
          // the gap is measured to the extended plane, as behind it, so that it stays continuous
          // when the node crosses the plane. The distance to the edge would give a normal that
          // turns horizontal as the gap closes, then a jump to the penetration measured behind.
          projection.normal = n;
          projection.gap = normal_part;
        }
      else
        {
          // In front of a facet edge or corner: the closest point is on the facet boundary and
          // the distance function's gradient is the direction from that point.
          projection.normal = d / distance;
          projection.gap = distance;
        }
      projection.along_facet_normal = (projection.normal == n);
      projection.facet = facet_index;
      projection.xi = xi;
      projection.weights.resize(facet.nodes.size());
      // (the values at ξ: the last evaluation was at ξ)
      const std::vector<double> &values = layout.facet_shapes().values();
      projection.weights.assign(values.begin(), values.end());
      return true;
    }

    template <int dim>
    bool MasterSurface<dim>::project(const dealii::Point<dim> &x, const dealii::types::global_dof_index slave_dof,
                                     const unsigned int slave_body, MasterProjection<dim> &projection) const
    {
      namespace bgi = boost::geometry::index;
      // The facets are visited by increasing distance of their bounding boxes: a facet cannot be
      // closer than its box, so the walk stops at the first box farther than the best facet found
      // so far (plus its band), or farther than the search distance when none has been accepted
      // yet. The boxes within the search distance come from one box query (most nodes of a
      // many-body surface have none: they are done without a projection); only if the walk must
      // go farther (an accepted facet beyond the search distance) does it continue with the k
      // nearest boxes, k growing geometrically.
      auto box_distance = [&x](const dealii::BoundingBox<dim> &box) {
        double squared = 0.;
        for (unsigned int d = 0; d < dim; ++d)
          {
            const double outside =
              std::max({0., box.get_boundary_points().first[d] - x[d], x[d] - box.get_boundary_points().second[d]});
            squared += outside * outside;
          }
        return std::sqrt(squared);
      };
      // General contact: the slave node is a node of this surface. Among the facets within 1 % of
      // a facet's size of the closest, one that faces a face of the slave (normals opposed: two
      // faces flush) wins over one that does not; a brick's corner resting on another's corner is
      // as close to the bottom face as to the side faces, and only the first carries the load.
      // The accepted facets are kept and chosen from after the walk, so that the choice does not
      // depend on the order of the visit (which depends on the partition through the facets'
      // indices).
      const std::vector<dealii::Tensor<1, dim>> slave_normals = slave_facet_normals(slave_dof);
      const bool on_surface = !slave_normals.empty();
      std::vector<AcceptedProjection<dim>> accepted;
      double best_distance = 0., widest_band = 0.;
      MasterProjection<dim> candidate;
      // The facets of the node's own body are never candidates: the queries skip them (they are
      // the nearest boxes of every node of the body).
      const auto of_other_body = [this, slave_body](const std::pair<dealii::BoundingBox<dim>, unsigned int> &box) {
        return facets[box.second].body != slave_body;
      };
      const auto limit = [&]() { return accepted.empty() ? search_distance : best_distance + widest_band; };
      std::vector<unsigned int> visited;
      // Visits @p ordered (sorted by box distance) until a box beyond the limit: returns whether
      // one was met (the walk is then complete).
      const auto visit = [&](const std::vector<std::pair<double, unsigned int>> &ordered) {
        for (const auto &[distance_to_box, facet_index] : ordered)
          {
            if (distance_to_box > limit())
              return true;
            // (a later round returns the earlier rounds' facets again: few, a linear search)
            if (std::find(visited.begin(), visited.end(), facet_index) != visited.end())
              continue;
            visited.push_back(facet_index);
            const MasterFacet<dim> &facet = facets[facet_index];
            bool adjacent = false;
            for (const auto &node : facet.dofs)
              for (const auto dof : node)
                if (dof == slave_dof)
                  adjacent = true;
            double distance = 0.;
            if (adjacent || !project_on_facet(x, facet_index, slave_normals, candidate, distance))
              continue;
            const bool faces = faces_a_slave_facet(candidate.normal, slave_normals);
            const double band = on_surface ? flush_extension * facet.diagonal() : 0.;
            best_distance = accepted.empty() ? distance : std::min(best_distance, distance);
            widest_band = std::max(widest_band, band);
            accepted.push_back({candidate, distance, band, faces});
          }
        return false;
      };

      std::vector<std::pair<dealii::BoundingBox<dim>, unsigned int>> hits;
      std::vector<std::pair<double, unsigned int>> ordered;
      const auto sort_hits = [&]() {
        ordered.clear();
        for (const auto &hit : hits)
          ordered.emplace_back(box_distance(hit.first), hit.second);
        std::sort(ordered.begin(), ordered.end());
      };
      dealii::BoundingBox<dim> near(std::make_pair(x, x));
      near.extend(search_distance);
      tree.query(bgi::intersects(near) && bgi::satisfies(of_other_body), std::back_inserter(hits));
      sort_hits();
      // Every box within the search distance intersects `near`: the walk is complete if it
      // stopped, or if it needs no box beyond the search distance.
      if (!visit(ordered) && limit() > search_distance)
        for (unsigned int k = (dim == 2 ? 4 : 8);; k *= 4)
          {
            hits.clear();
            tree.query(bgi::nearest(x, k) && bgi::satisfies(of_other_body), std::back_inserter(hits));
            sort_hits();
            if (visit(ordered) || hits.size() < k)
              break;
          }
      if (accepted.empty())
        return false;
      projection = choose_projection(accepted, best_distance);
      return true;
    }

    template <int dim>
    std::vector<unsigned int> MasterSurface<dim>::facets_in_box(const dealii::BoundingBox<dim> &box) const
    {
      namespace bgi = boost::geometry::index;
      std::vector<std::pair<dealii::BoundingBox<dim>, unsigned int>> hits;
      tree.query(bgi::intersects(box), std::back_inserter(hits));
      std::vector<unsigned int> result;
      for (const auto &hit : hits)
        result.push_back(hit.second);
      std::stable_sort(result.begin(), result.end(), [this](const unsigned int a, const unsigned int b) {
        // Lexicographic in the node positions (facets sharing their first node differ later).
        for (unsigned int i = 0; i < facets[a].nodes.size(); ++i)
          for (unsigned int d = 0; d < dim; ++d)
            if (facets[a].nodes[i][d] != facets[b].nodes[i][d])
              return facets[a].nodes[i][d] < facets[b].nodes[i][d];
        return false;
      });
      return result;
    }

    template class MasterSurface<2>;
    template class MasterSurface<3>;
  } // namespace Contact
} // namespace percussion
