#ifndef PERCUSSION_CORE_CONNECTED_BODIES_H
#define PERCUSSION_CORE_CONNECTED_BODIES_H

#include <deal.II/base/index_set.h>
#include <deal.II/base/types.h>
#include <deal.II/dofs/dof_handler.h>

#include <vector>

namespace percussion
{
  /**
   * The bodies of a mesh as its connected parts: two cells belong to one body when a chain of
   * cells sharing DoFs joins them (bodies touch only through contact, never through a node). Every
   * rank knows the body of each DoF it can see (locally relevant) and of each cell that is not
   * artificial; bodies are numbered 0, 1, … by the smallest DoF index in them, the same on every
   * rank and for every partition.
   *
   * Computed by label propagation: each rank joins the DoFs of its cells (union–find), every part
   * takes the smallest label it holds, and owners and ghosts exchange labels (minimum) until no
   * label changes — as many rounds as the number of ranks a body spans, plus one. Collective.
   */
  template <int dim>
  class ConnectedBodies
  {
  public:
    explicit ConnectedBodies(const dealii::DoFHandler<dim> &dof_handler);

    unsigned int n_bodies() const { return n; }
    /// The body of a locally relevant DoF.
    unsigned int body_of_dof(dealii::types::global_dof_index dof) const;
    /// The body of a cell that is not artificial.
    unsigned int body_of_cell(const typename dealii::DoFHandler<dim>::active_cell_iterator &cell) const;

  private:
    dealii::IndexSet relevant;
    std::vector<unsigned int> body_of_relevant;                  ///< by index within `relevant`
    std::vector<dealii::types::global_dof_index> cell_first_dof; ///< by active cell index
    unsigned int n = 0;
  };
} // namespace percussion

#endif
