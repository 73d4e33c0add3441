#ifndef PERCUSSION_CONTACT_FACE_NODE_LAYOUT_H
#define PERCUSSION_CONTACT_FACE_NODE_LAYOUT_H

#include <percussion/contact/facet_shape_functions.h>
#include <percussion/core/exceptions.h>

#include <deal.II/base/point.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe.h>
#include <deal.II/fe/fe_q.h>

#include <array>
#include <string>
#include <vector>

namespace percussion
{
  namespace Contact
  {
    /**
     * How the vector-valued FE_Q^dim DoFs of one face are grouped into nodes (support points).
     *
     * For an FESystem of dim copies of FE_Q(p), face DoF i belongs to component c and to the
     * scalar face node b = face_system_to_component_index(i).second. The scalar face numbering of
     * FE_Q<dim> (vertices, then lines, then the interior) is the numbering of FE_Q<dim-1>(p), so
     * node b sits at FE_Q<dim-1>(p)'s unit support point b and the face geometry in the current
     * configuration is x(ξ) = Σ_b N_b(ξ) x_b with the FE_Q<dim-1>(p) shape functions N_b — the
     * exact trace of the displacement field on a straight-sided (MappingQ1) face.
     * Reference node positions are the FE_Q<dim-1>(1) (multilinear) image of these unit points,
     * i.e. the support points of MappingQ1.
     */
    template <int dim>
    class FaceNodeLayout
    {
    public:
      explicit FaceNodeLayout(const dealii::FiniteElement<dim> &fe)
        : facet_element(check_degree(fe))
        , linear_element(1)
        , shapes(facet_element)
        , n_nodes(facet_element.n_dofs_per_cell())
      {
        const unsigned int n_face_dofs = fe.n_dofs_per_face(0);
        node_of_face_dof.resize(n_face_dofs);
        component_of_face_dof.resize(n_face_dofs);
        for (unsigned int i = 0; i < n_face_dofs; ++i)
          {
            const auto ci = fe.face_system_to_component_index(i, 0);
            component_of_face_dof[i] = ci.first;
            node_of_face_dof[i] = ci.second;
          }
        face_dofs.resize(n_face_dofs);
      }

      /** The scalar FE_Q<dim-1>(p) that interpolates the face geometry. */
      const dealii::FE_Q<dim - 1> &facet_fe() const { return facet_element; }

      /** Fast evaluation of facet_fe()'s shape functions (the contact search's Newton iterations). */
      const FacetShapeFunctions<dim - 1> &facet_shapes() const { return shapes; }
      unsigned int nodes_per_face() const { return n_nodes; }

      /**
       * DoF indices (dim per node, by component) and reference positions of the nodes of
       * @p face, in FE_Q<dim-1> numbering.
       */
      template <typename FaceIterator>
      void get_nodes(const FaceIterator &face, std::vector<std::array<dealii::types::global_dof_index, dim>> &node_dofs,
                     std::vector<dealii::Point<dim>> &reference_positions) const
      {
        face->get_dof_indices(face_dofs);
        node_dofs.resize(n_nodes);
        for (unsigned int i = 0; i < face_dofs.size(); ++i)
          node_dofs[node_of_face_dof[i]][component_of_face_dof[i]] = face_dofs[i];
        reference_positions.assign(n_nodes, dealii::Point<dim>());
        const auto &unit_points = facet_element.get_unit_support_points();
        for (unsigned int b = 0; b < n_nodes; ++b)
          for (unsigned int v = 0; v < linear_element.n_dofs_per_cell(); ++v)
            reference_positions[b] += linear_element.shape_value(v, unit_points[b]) * face->vertex(v);
      }

    private:
      static unsigned int check_degree(const dealii::FiniteElement<dim> &fe)
      {
        if (fe.n_components() != dim || fe.n_base_elements() != 1 || fe.base_element(0).get_name().find("FE_Q<") != 0)
          throw InputError("Contact: the displacement element must be FESystem(FE_Q(p), dim), got " + fe.get_name());
        return fe.base_element(0).degree;
      }

      dealii::FE_Q<dim - 1> facet_element;
      dealii::FE_Q<dim - 1> linear_element;
      FacetShapeFunctions<dim - 1> shapes;
      unsigned int n_nodes;
      std::vector<unsigned int> node_of_face_dof;
      std::vector<unsigned int> component_of_face_dof;
      mutable std::vector<dealii::types::global_dof_index> face_dofs;
    };
  } // namespace Contact
} // namespace percussion

#endif
