#ifndef PERCUSSION_CONTACT_MORTAR_INTEGRATION_H
#define PERCUSSION_CONTACT_MORTAR_INTEGRATION_H

#include <percussion/contact/master_surface.h>

#include <deal.II/base/point.h>
#include <deal.II/base/tensor.h>
#include <deal.II/base/types.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/lac/full_matrix.h>

#include <array>
#include <map>
#include <vector>

namespace percussion
{
  namespace Contact
  {
    /** One facet of a slave surface in the current configuration (integrated formulation). */
    template <int dim>
    struct SlaveFacet
    {
      /** Current node positions, FE_Q<dim-1> numbering (FaceNodeLayout). */
      std::vector<dealii::Point<dim>> nodes;
      /** DoF indices of the nodes, dim per node by component. */
      std::vector<std::array<dealii::types::global_dof_index, dim>> dofs;
      /** +1 if the parametric normal points out of the slave body, −1 otherwise. */
      double orientation = 1.;
    };

    /**
     * The mortar quantities of one slave node j, summed over the slave facets around it
     * (doc/contact.md, "Integrated (mortar) formulation"; Wohlmuth 2000, Popp et al. 2010 eqs. (20)–(24)):
     *   D_jj = Σ_k ∫_Γc Ψ_j N_k dΓ = ∫_Γc Ψ_j dΓ            (row-sum lumped; = ∫ N_j dΓ on a fully overlapped support),
     *   M_jm = ∫_Γc Ψ_j N_m^master dΓ,
     *   g̃_j = ∫_Γc Ψ_j g dΓ,
     * where Γc is the part of the slave facets whose projection overlaps the master facets and Ψ_j
     * the dual shape functions, biorthogonal to the slave trace shape functions N_k on each facet:
     * ∫_e Ψ_j N_k dΓ = δ_jk ∫_e N_j dΓ. Because Σ_j Ψ_j = 1, Σ_m M_jm = D_jj.
     */
    template <int dim>
    struct MortarNode
    {
      /** D_jj (the weighted area of the node). */
      double weighted_area = 0.;
      /** ∫ N_j dΓ over the whole slave support of the node (overlapped or not). */
      double support_area = 0.;
      /** g̃_j. */
      double weighted_gap = 0.;
      /** Sum of the unit outward normals of the slave facets around the node, at the node. */
      dealii::Tensor<1, dim> normal_sum;
      /** M_jm by master node, keyed by the master node's first DoF: (DoFs of the node, M_jm). */
      std::map<dealii::types::global_dof_index, std::pair<std::array<dealii::types::global_dof_index, dim>, double>>
        master;
    };

    /** Unit parametric normal of a facet at ξ (∂x/∂ξ rotated by −90° in 2D, ∂x/∂ξ1 × ∂x/∂ξ2 in 3D). */
    template <int dim>
    dealii::Tensor<1, dim> facet_unit_normal(const dealii::FE_Q<dim - 1> &fe,
                                             const std::vector<dealii::Point<dim>> &nodes,
                                             const dealii::Point<dim - 1> &xi);

    /**
     * Integral of each shape function over a facet, ∫_e N_b dΓ (the nodal areas of the consistent
     * load vector of a uniform pressure), for the facet with nodes @p nodes interpolated by @p fe.
     */
    template <int dim>
    std::vector<double> facet_node_areas(const dealii::FE_Q<dim - 1> &fe, const std::vector<dealii::Point<dim>> &nodes);

    /**
     * Coefficients A of the dual basis Ψ_j = Σ_k A_jk N_k of one facet: A = D_e M_e⁻¹ with the
     * facet's consistent mass matrix M_e,jk = ∫_e N_j N_k dΓ and D_e = diag(Σ_k M_e,jk)
     * (Wohlmuth 2000, eq. (3.4); Popp et al. 2010, eq. (25)). Well defined for FE_Q(1) and the
     * Lagrange FE_Q(2) (all ∫_e N_j > 0); Σ_j Ψ_j = 1 follows from the symmetry of M_e.
     */
    template <int dim>
    dealii::FullMatrix<double> dual_basis_coefficients(const dealii::FE_Q<dim - 1> &fe,
                                                       const std::vector<dealii::Point<dim>> &nodes);

    /**
     * Add the contributions of slave facet @p slave to the MortarNode entries of @p rows (only the
     * slave nodes that have an entry are accumulated; the caller inserts the nodes it owns).
     *
     * Segment / polygon clipping (Puso & Laursen 2004; Popp et al. 2010 §3.3): the slave facet and
     * each candidate master facet (@p candidates, indices into @p master_facets) are projected
     * along the slave facet's unit normal n₀ at its center onto the plane through its center (an
     * auxiliary line in 2D). In 2D the projected segments are intersected, in 3D the projected
     * master quadrilateral is clipped by the projected slave quadrilateral (Sutherland–Hodgman),
     * the clip polygon is split into triangles around its centroid, and Gauss quadrature runs on
     * the segments / triangles. Each quadrature point is mapped back to the slave and master
     * facets (Newton on the in-plane coordinates), where g = n₀·(x_m − x_s) (> 0 when apart,
     * measured along n₀, the projection direction) and dΓ = dA / |n_s·n₀| (the slave surface
     * element). Master facets that do not face the slave facet (n_m·n₀ ≥ 0), share a DoF with it,
     * or whose gap at the overlap's centroid exceeds @p search_distance in magnitude are skipped.
     * Also adds the node's support area and its share of the averaged nodal normal.
     */
    template <int dim>
    void integrate_slave_facet(const dealii::FE_Q<dim - 1> &fe, const SlaveFacet<dim> &slave,
                               const std::vector<MasterFacet<dim>> &master_facets,
                               const std::vector<unsigned int> &candidates, double search_distance,
                               std::map<dealii::types::global_dof_index, MortarNode<dim>> &rows);

    /**
     * Sutherland–Hodgman clipping of polygon @p subject by the convex polygon @p clip, both given
     * counterclockwise in a plane. Returns the (possibly empty) counterclockwise intersection.
     */
    std::vector<dealii::Point<2>> clip_polygon(const std::vector<dealii::Point<2>> &subject,
                                               const std::vector<dealii::Point<2>> &clip);
  } // namespace Contact
} // namespace percussion

#endif
