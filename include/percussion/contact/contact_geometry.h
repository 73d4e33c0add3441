#ifndef PERCUSSION_CONTACT_CONTACT_GEOMETRY_H
#define PERCUSSION_CONTACT_CONTACT_GEOMETRY_H

#include <percussion/contact/contact_parameters.h>
#include <percussion/contact/contact_point.h>
#include <percussion/contact/master_surface.h>
#include <percussion/contact/mortar_integration.h>
#include <percussion/contact/rigid_obstacle.h>
#include <percussion/core/connected_bodies.h>
#include <percussion/core/petsc_handle.h>

#include <deal.II/base/index_set.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/lac/petsc_sparse_matrix.h>
#include <deal.II/lac/petsc_vector.h>

#include <map>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace percussion
{
  namespace Contact
  {
    /**
     * The contact geometry layer: who touches whom, where, in which frame, and the operator H.
     *
     * Contact points are the nodes (support points) of each pair's slave surface: the vertices for
     * Q1, all support points on the surface for Q2 (mid-side and face-center nodes included, so
     * that they cannot penetrate either). A slave node is a *candidate* of a pair (a column block
     * of H) when its gap is at most the search distance (and, for body pairs, when it projects on
     * the master surface). Each candidate is owned by the rank that owns its slave DoFs; the
     * columns of H are numbered by owning rank, dim per point, in the order (n, t1, t2).
     *
     * H(q) (paper eq. (53a)/(53c), doc/theory.md) is an n_dofs × dim·m PETSc matrix:
     *   H[slave dof of component c, dim·α + k]      = frame_k[c],
     *   H[master dof of node b, comp. c, dim·α + k] = −N_b(ξ*) frame_k[c]   (body pairs),
     * so that u_α = Hᵀ_α v + w_α with w_α = −frame·V for an obstacle moving with velocity V.
     * The normal row of Hᵀ is the derivative of the gap: d g_α/dt = u_{N,α}.
     *
     * Body pairs with `Formulation = integrated` (2D, 3D; Q1, Q2) replace the projection of each
     * slave node by the dual mortar integrals of integrate_slave_facet() (Wohlmuth 2000; Puso &
     * Laursen 2004; Popp et al. 2010): with D_jj = ∫ Ψ_j dΓ, M_jm = ∫ Ψ_j N_m dΓ, g̃_j = ∫ Ψ_j g dΓ
     * over the overlap of the projected slave and master facets, slave node j is a candidate with
     *   g_j = g̃_j / D_jj,   n_j = averaged nodal normal (toward the slave),
     *   H[slave dof, dim·α + k] = frame_k[c],   H[master dof of node m, dim·α + k] = −(M_jm / D_jj) frame_k[c],
     * so that its impulse r_j is a nodal force resultant and p_j = r_N / (h D_jj) its pressure
     * (doc/contact.md, "Integrated (mortar) formulation"). A slave node whose support is less
     * than half overlapped (D_jj < ½ ∫ N_j dΓ, at the edge of the master surface) is not a
     * candidate: the dual basis function would weigh a small, possibly negative, area.
     *
     * 1D (a bar, FESystem(FE_Q(p), 1)): the boundary "faces" are vertices, so every slave surface
     * is one node per boundary vertex with the slave id and the frame is (n) alone, n = ±1. A plane
     * obstacle is a point wall at `Point` with `Normal` = ±1 (toward the slave), g = (x_s − x_wall)·n;
     * a sphere or cylinder is the exterior of [c − r, c + r] (a wall at c ± r). Body pairs are
     * node-to-node: the slave end node against the closest master end node whose outward normal
     * is opposite to the slave's, n = master outward normal, g = (x_s − x_m)·n, H[slave, α] = n,
     * H[master, α] = −n (two bars as disjoint parts of one mesh facing each other).
     *
     * The class depends only on deal.II; it does not know about time integration.
     */
    template <int dim>
    class ContactGeometry
    {
    public:
      /**
       * Set up the slave nodes of every pair. @p dof_handler must have distributed
       * FESystem(FE_Q(p), dim) DoFs (p = 1, 2) on any Triangulation (serial, parallel::shared,
       * parallel::distributed; in 1D serial or parallel::shared). Throws InputError if a boundary id of a pair does not
       * exist in the mesh or any parameter is invalid (message names the pair).
       */
      ContactGeometry(const dealii::DoFHandler<dim> &dof_handler, const ContactParameters &parameters);

      /**
       * Recompute candidates, gaps, frames, H and w for the configuration x = X + q at @p time.
       * @p displacement is partitioned like the DoFHandler, with or without ghost entries: the
       * geometry imports the locally relevant DoFs itself when it needs them (body pairs) and the
       * vector has none. Collective.
       * H is only reassembled, as a new PETSc matrix, if its sparsity, partition or values changed
       * on some rank (e.g. never for fixed or translating plane obstacles after the first call); w and the
       * vectors of the column partition are only reallocated when that partition changes.
       */
      void update(const dealii::PETScWrappers::MPI::Vector &displacement, double time);

      /** True if the last update() changed H (or it was the first update). */
      bool operator_changed() const { return h_changed; }

      /** H: rows partitioned like the DoFHandler, columns by contact-point owner. */
      const dealii::PETScWrappers::MPI::SparseMatrix &contact_operator() const { return H; }

      /** w: local velocity offset of moving obstacles (dim entries per point, (n, t1, t2)). */
      const dealii::PETScWrappers::MPI::Vector &obstacle_velocity_offset() const { return w; }

      /** u = Hᵀ v + w (eq. 53c). @p v: non-ghosted, partitioned like the DoFHandler. */
      void local_velocity(const dealii::PETScWrappers::MPI::Vector &v, dealii::PETScWrappers::MPI::Vector &u) const;

      /**
       * The same u = Hᵀ v + w, in a vector the geometry keeps (valid until the next update() or
       * call of this function): no allocation per time step.
       */
      const dealii::PETScWrappers::MPI::Vector &local_velocity(const dealii::PETScWrappers::MPI::Vector &v);

      const std::vector<ContactPoint<dim>> &owned_points() const { return points; }
      unsigned int n_owned_points() const { return points.size(); }
      /** Number of candidates over all ranks. */
      dealii::types::global_dof_index n_global_points() const { return n_points_global; }
      /** Per owned point: the gap g_N. */
      std::vector<double> gaps() const;

      const ContactParameters &get_parameters() const { return parameters; }
      MPI_Comm get_communicator() const { return communicator; }

    private:
      struct SlaveNode
      {
        std::array<dealii::types::global_dof_index, dim> dofs;
        dealii::Point<dim> reference;
        /** 1D only: outward normal (±1) of the bar end, to pair it with a facing master end. */
        double outward = 0.;
        /** dim > 1: the tributary area ∫ N_j dΓ over the slave faces, reference configuration. */
        double area = 0.;
        /** The material id of the (first) slave cell it is a node of ('Friction by materials'). */
        unsigned int material = 0;
      };
      /** 1D body pairs: an end node of the master bar in the current configuration. */
      struct MasterNode
      {
        dealii::types::global_dof_index dof;
        double position;
        double outward;
        /** The bar (ConnectedBodies) the end belongs to: Type = bodies never pairs a bar's two ends. */
        unsigned int body;
        /** The material id of its cell ('Friction by materials'). */
        unsigned int material = 0;
      };
      /** There is no (dim−1)-dimensional master surface in 1D (FE_Q<0> does not exist):
       *  body pairs use master_nodes instead, and MasterSurface<1> is never instantiated. */
      struct NoMasterSurface
      {
      };
      using MasterSurfaceType = std::conditional_t<dim == 1, NoMasterSurface, MasterSurface<dim>>;
      struct Entry
      {
        dealii::types::global_dof_index row, column;
        double value;
        bool operator==(const Entry &o) const { return row == o.row && column == o.column && value == o.value; }
      };

      void collect_slave_nodes();
      /** dim > 1: slave nodes from the support points of the slave faces (FaceNodeLayout). */
      void collect_slave_nodes_of_faces();
      /** 1D: all-gather the current positions of the master end nodes of every body pair. */
      void collect_master_nodes(const dealii::PETScWrappers::MPI::Vector &ghosted_displacement);
      /**
       * 1D: the master end of pair @p p closest to the end at @p position (outward normal
       * @p outward, DoF @p dof, body @p body) among those facing it, or master_nodes.size() if
       * there is none.
       */
      unsigned int closest_facing_master_end(unsigned int p, double position, double outward,
                                             dealii::types::global_dof_index dof, unsigned int body) const;
      /** 1D: closest facing master end node of pair @p p; false if there is none. */
      bool project_on_master_node(unsigned int p, const ContactPoint<dim> &point, const SlaveNode &node,
                                  MasterProjection<dim> &projection, dealii::types::global_dof_index &master_dof) const;
      /**
       * Type = bodies: whether slave node @p node at @p node_position, projected with
       * @p projection on the surface of another body, leaves its contact to a mutual node. Both
       * directions test every node, so two nodes that face each other (each the nearest master node
       * of the other's projection, within a tenth of a facet's diagonal, as on a conforming
       * interface) would give two copies of one constraint, which makes W singular.
       * One of the two is kept: the one whose projection is along its facet's normal if only one
       * is (the other meets an edge or corner), else the one whose master normal's largest
       * component is positive (on a stack, the upper block's bottom node: a rule of the geometry,
       * the same for every partition); in 1D the end whose master end faces −x. Every rank decides
       * alike without communication: the other node's projection is computed from the gathered
       * master surface.
       */
      bool yields_to_mutual_node(unsigned int p, const SlaveNode &node, const dealii::Point<dim> &node_position,
                                 const MasterProjection<dim> &projection) const;
      void check_boundary_ids() const;
      /** A contact point of pair @p p at slave node @p node: pair, coefficients, positions, DoFs. */
      ContactPoint<dim> point_of_slave_node(unsigned int p, const SlaveNode &node,
                                            const dealii::PETScWrappers::MPI::Vector &ghosted_displacement) const;
      /** Formulation = integrated: the candidates of body pair @p p from the mortar integrals. */
      void add_integrated_points(unsigned int p, const dealii::PETScWrappers::MPI::Vector &ghosted_displacement,
                                 const dealii::Tensor<1, dim> &reference_direction,
                                 std::vector<ContactPoint<dim>> &new_points) const;
      /** Node-to-surface: the candidates of pair @p p at its slave nodes within the search distance. */
      void add_node_points(unsigned int p, const dealii::PETScWrappers::MPI::Vector &ghosted_displacement, double time,
                           const dealii::Tensor<1, dim> &reference_direction,
                           std::vector<ContactPoint<dim>> &new_points) const;
      /**
       * The gap, the normal and the obstacle velocity or master DoFs of @p point (slave node
       * @p node of pair @p p) at @p time; false if a body pair's master surface has no projection.
       */
      bool project_point(unsigned int p, const SlaveNode &node, double time, ContactPoint<dim> &point,
                         dealii::Tensor<1, dim> &normal) const;
      /**
       * MasterSurface::project() of the node whose x-DoF is @p dof at @p x on pair @p p's master
       * surface, or nullptr if no facet is accepted; kept for the update under way (general
       * contact asks for a node's projection as its own contact and again as the other node of a
       * mutual pair: the second costs a look-up). A different @p x (the node's position from
       * another source) is projected anew.
       */
      const MasterProjection<dim> *projection_of_node(unsigned int p, const dealii::Point<dim> &x,
                                                      dealii::types::global_dof_index dof, unsigned int body) const;
      /** projection_of_node()'s results of the pair under way, by x-DoF (cleared per pair and update). */
      mutable std::map<dealii::types::global_dof_index,
                       std::pair<dealii::Point<dim>, std::optional<MasterProjection<dim>>>>
        node_projections;
      /**
       * Numbers @p new_points by owning rank (this rank's after those of lower ranks), makes them
       * the current points and repartitions the columns of H, w and u if the counts per rank
       * changed. @return whether they changed (the same on every rank).
       */
      bool number_points(std::vector<ContactPoint<dim>> &&new_points);
      /** The entries of H: column k of a point is its frame vector k on the slave DoFs and minus the
       *  master weights times it on the master DoFs. */
      std::vector<Entry> operator_entries() const;
      /** The owned entries of w: −(frame vector k · obstacle velocity) per point and direction k. */
      std::vector<double> obstacle_velocity_terms() const;
      void assemble_operator(const std::vector<Entry> &entries);
      /** @p displacement itself if it has ghost entries or none are needed, else a ghosted copy. */
      const dealii::PETScWrappers::MPI::Vector &
      with_needed_ghosts(const dealii::PETScWrappers::MPI::Vector &displacement);

      const dealii::DoFHandler<dim> *dof_handler;
      ContactParameters parameters;
      MPI_Comm communicator;

      std::vector<std::unique_ptr<RigidObstacle<dim>>> obstacles;
      std::vector<std::unique_ptr<MasterSurfaceType>> masters;
      /** The mesh's connected bodies (with body pairs): a node is never paired with its own body. */
      std::unique_ptr<ConnectedBodies<dim>> mesh_bodies;
      std::vector<std::vector<MasterNode>> master_nodes;
      std::vector<std::vector<SlaveNode>> slave_nodes;
      /** Integrated pairs: the slave facets (reference node positions) with an owned node. */
      std::vector<std::vector<SlaveFacet<dim>>> slave_facets;

      std::vector<ContactPoint<dim>> points;
      dealii::types::global_dof_index first_point = 0;
      dealii::types::global_dof_index n_points_global = 0;
      dealii::IndexSet owned_columns;

      std::vector<Entry> previous_entries;
      bool h_changed = true;
      bool initialized = false;
      /// deal.II's wrapper around a matrix made with PETSc directly (9.4 has no constructor from a Mat).
      class AdoptedMatrix : public dealii::PETScWrappers::MPI::SparseMatrix
      {
      public:
        /// Takes over the matrix of @p m; the previous matrix is destroyed.
        void adopt(MatHandle m)
        {
          std::swap(matrix, *m.address()); // (m takes the previous matrix along when it goes)
          last_action = dealii::VectorOperation::unknown;
        }
      };
      AdoptedMatrix H;
      dealii::PETScWrappers::MPI::Vector w;
      /** The owned entries of w as last written, to skip the (collective) write when unchanged. */
      std::vector<double> previous_w_values;
      /** Candidates per rank at the last update(): the column partition of H, w and u. */
      std::vector<dealii::types::global_dof_index> previous_counts;
      /** Storage of local_velocity(v). */
      dealii::PETScWrappers::MPI::Vector local_velocity_storage;
      /** Body pairs read master DoFs that may be ghosts here; rigid obstacles only owned slave DoFs. */
      bool needs_ghosts = false;
      dealii::IndexSet relevant_dofs;
      dealii::PETScWrappers::MPI::Vector ghosted_displacement;
    };
  } // namespace Contact
} // namespace percussion

#endif
