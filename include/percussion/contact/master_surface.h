#ifndef PERCUSSION_CONTACT_MASTER_SURFACE_H
#define PERCUSSION_CONTACT_MASTER_SURFACE_H

#include <percussion/contact/contact_parameters.h>
#include <percussion/contact/face_node_layout.h>
#include <percussion/core/connected_bodies.h>

#include <deal.II/base/bounding_box.h>
#include <deal.II/base/point.h>
#include <deal.II/base/tensor.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/lac/petsc_vector.h>
#include <deal.II/numerics/rtree.h>

#include <algorithm>
#include <array>
#include <map>
#include <vector>

namespace percussion
{
  namespace Contact
  {
    /** One facet of a master surface in the current configuration. */
    template <int dim>
    struct MasterFacet
    {
      /** Current node positions x_b = X_b + q_b (FE_Q<dim-1> numbering). */
      std::vector<dealii::Point<dim>> nodes;
      /** DoF indices of the nodes, dim per node by component. */
      std::vector<std::array<dealii::types::global_dof_index, dim>> dofs;
      /** +1 if the parametric normal (∂x/∂ξ rotated by −90° in 2D, ∂x/∂ξ1 × ∂x/∂ξ2 in 3D) points out of the master
       * body, −1 otherwise. */
      double orientation = 1.;
      /** The body (ConnectedBodies) the facet is a face of: never paired with its own body's nodes. */
      unsigned int body = 0;
      /** The material id of its cell ('Friction by materials'). */
      unsigned int material = 0;
      /** The outward unit normal at the facet's centre (current configuration). */
      dealii::Tensor<1, dim> center_normal;
      /** The distance between its first and last nodes (opposite vertices): its size. */
      double diagonal() const { return nodes.front().distance(nodes.back()); }
    };

    /** Closest-point projection of a slave node onto a master surface. */
    template <int dim>
    struct MasterProjection
    {
      /** Signed distance: (x_s − x_m(ξ*))·n, > 0 outside the master body. */
      double gap = 0.;
      /** Unit normal at the projection, out of the master body (toward the slave). */
      dealii::Tensor<1, dim> normal;
      unsigned int facet = 0;
      dealii::Point<dim - 1> xi;
      /** N_b(ξ*): the weight of master node b in x_m(ξ*). */
      std::vector<double> weights;
      /**
       * Whether the normal is the facet's (the projection is orthogonal, or the gap is measured to
       * the facet's plane beside its edge); false where it is the direction from an edge or corner.
       */
      bool along_facet_normal = true;
      /** The master node with the largest weight (the facet node nearest the projection). */
      unsigned int nearest_node() const
      {
        return static_cast<unsigned int>(std::max_element(weights.begin(), weights.end()) - weights.begin());
      }
    };

    /**
     * The master surface of a body-to-body pair (node-to-segment in 2D, node-to-face in 3D).
     *
     * build() collects the facets with the master boundary id on the locally owned cells, in the
     * current configuration x = X + q, and all-gathers them, so that every rank can project its own
     * slave nodes (the master surface is a (dim−1)-dimensional set, its size is O(N^{(dim−1)/dim})).
     * The facets' bounding boxes go into an R-tree (boost::geometry via dealii::pack_rtree); a
     * projection visits the facets by increasing box distance (k-nearest queries) and stops as soon
     * as no unvisited facet can be closer, so a query costs O(log n_facets).
     *
     * The projection minimises |x_s − x_m(ξ)|² over ξ ∈ [0,1]^{dim−1} by Newton's method with
     * bound constraints. At an interior minimiser x_s − x_m ∥ n, so d g/dt = n·(v_s − Σ_b N_b(ξ*) v_b):
     * this is the column of H for the normal direction (large sliding, small strain).
     */
    template <int dim>
    class MasterSurface
    {
    public:
      /// The surface of the boundary faces whose ids are in @p boundary_ids.
      MasterSurface(const dealii::FiniteElement<dim> &fe, BoundaryIds boundary_ids);

      /** Gather the facets with their @p bodies (collective over the DoFHandler's communicator). */
      void build(const dealii::DoFHandler<dim> &dof_handler,
                 const dealii::PETScWrappers::MPI::Vector &ghosted_displacement, double search_distance,
                 const ConnectedBodies<dim> &bodies);

      /**
       * Project @p x on the closest facet (facets farther than the search distance are ignored
       * unless a closer one was found), skipping facets that have
       * @p slave_dof among their DoFs (self contact of adjacent surfaces) and the facets of the slave
       * node's own body @p slave_body (a body's faces are never paired with each other: a brick's
       * bottom node is not a contact of its own top face, whatever the search distance). A facet is
       * rejected if the point lies behind it outside its extent (beside the master body). Returns
       * false if no facet is accepted. Among accepted facets the one with the smallest distance wins,
       * ties to the lower facet index; where the slave node is a node of this surface too (general
       * contact), a facet within 1 % of its diagonal of the closest that faces one of the node's own
       * faces (slave_facet_normals(), normals opposed) wins over those that do not (a box's corner
       * on another's corner: the bottom and the side faces meet there).
       */
      bool project(const dealii::Point<dim> &x, dealii::types::global_dof_index slave_dof, unsigned int slave_body,
                   MasterProjection<dim> &projection) const;

      /**
       * Indices of the facets whose bounding boxes intersect @p box (the mortar integration's
       * candidates for one slave facet), sorted by the current position of their first node so
       * that the order, and hence the round-off of the sums over them, does not depend on the
       * partition.
       */
      std::vector<unsigned int> facets_in_box(const dealii::BoundingBox<dim> &box) const;

      const std::vector<MasterFacet<dim>> &get_facets() const { return facets; }

      const FaceNodeLayout<dim> &get_layout() const { return layout; }

    private:
      /**
       * Closest point on one facet; returns true if the projection is accepted. @p slave_normals:
       * slave_facet_normals() of the node at @p x (a face of the slave parallel to the facet makes
       * the gap beside the facet's edge the distance to its plane, as at a free edge).
       */
      bool project_on_facet(const dealii::Point<dim> &x, unsigned int facet_index,
                            const std::vector<dealii::Tensor<1, dim>> &slave_normals, MasterProjection<dim> &projection,
                            double &distance) const;

      /** Set free_sides from the facets' shared vertex DoFs. */
      void mark_free_sides();
      /** This rank's facets as the mesh gives them (own_facets), for @p dof_handler. */
      void collect_own_facets(const dealii::DoFHandler<dim> &dof_handler, const ConnectedBodies<dim> &bodies);

      /** A facet of this rank as the mesh gives it: the same at every build() on one DoFHandler. */
      struct OwnFacet
      {
        std::vector<std::array<dealii::types::global_dof_index, dim>> node_dofs;
        std::vector<dealii::Point<dim>> reference;
        double orientation = 1.;
        unsigned int body = 0;
        unsigned int material = 0;
      };
      std::vector<OwnFacet> own_facets;
      /** The DoFHandler (and its number of DoFs) own_facets were collected on. */
      const dealii::DoFHandler<dim> *own_facets_handler = nullptr;
      dealii::types::global_dof_index own_facets_n_dofs = 0;
      /**
       * The outward unit normals, at their centres, of the facets of this surface that the node
       * whose x-DoF is @p slave_dof is a node of (none if it is not on this surface).
       */
      std::vector<dealii::Tensor<1, dim>> slave_facet_normals(dealii::types::global_dof_index slave_dof) const;

      BoundaryIds boundary_ids;
      FaceNodeLayout<dim> layout;
      std::vector<MasterFacet<dim>> facets;
      /** The facets each node (by its x-DoF) is a node of. */
      std::map<dealii::types::global_dof_index, std::vector<unsigned int>> facets_of_node;
      /** The x-DoFs of the facets' nodes in order, when the topology below was computed. */
      std::vector<dealii::types::global_dof_index> topology_signature;
      /**
       * Per facet, whether each of its sides is an edge of the surface (no other facet of the
       * surface shares it): side 2j is ξ_j = 0, side 2j+1 is ξ_j = 1. A node in front of a free
       * side, flush with the facet, measures its gap to the facet's plane; beside a shared side the
       * neighbouring facet measures it. Kept between builds with the topology.
       */
      std::vector<std::array<bool, 2 * (dim - 1)>> free_sides;
      dealii::RTree<std::pair<dealii::BoundingBox<dim>, unsigned int>> tree;
      double search_distance = 0.;
    };
  } // namespace Contact
} // namespace percussion

#endif
