#include <deal.II/base/mpi.h>

#include <percussion/contact_step/position_projector.h>
#include <percussion/core/petsc_access.h>

#include <algorithm>
#include <limits>

namespace percussion::ContactStep
{
  using ContactLaws::ActiveContact;
  using dealii::PETScWrappers::MPI::Vector;
  using PetscAccess::reinit_like;

  PositionProjector::PositionProjector(const ContactDynamicsParameters &parameters, const unsigned int dim,
                                       MPI_Comm communicator)
    : parameters(parameters)
    , dim(dim)
    , communicator(communicator)
  {
  }

  double PositionProjector::end_of_step_gaps(const dealii::PETScWrappers::MPI::SparseMatrix &H, const Vector &w,
                                             const std::vector<OwnedContactPoint> &points,
                                             const Vector &displacement_increment, const double time_step)
  {
    const unsigned int d = dim;
    // g_{k+1} to first order: the gap's derivative is the normal row of Hᵀ (plus the obstacle's
    // motion h w_N): exact for planes, O(|Δq|²/R) for curved obstacles and master surfaces.
    reinit_like(gap_increment, w, communicator);
    H.Tvmult(gap_increment, displacement_increment);
    normal_rows.resize(points.size());
    for (unsigned int i = 0; i < points.size(); ++i)
      normal_rows[i] = d * points[i].global_index;
    increments.resize(points.size());
    w_normal.resize(points.size());
    end_gap.resize(points.size());
    gap_increment.extract_subvector_to(normal_rows, increments);
    w.extract_subvector_to(normal_rows, w_normal);
    double min_gap = std::numeric_limits<double>::infinity();
    for (unsigned int i = 0; i < points.size(); ++i)
      {
        end_gap[i] = points[i].gap + increments[i] + time_step * w_normal[i];
        min_gap = std::min(min_gap, end_gap[i]);
      }
    return dealii::Utilities::MPI::min(min_gap, communicator);
  }

  PositionProjectionResult PositionProjector::project(SchemeInterface &scheme,
                                                      const dealii::PETScWrappers::MPI::SparseMatrix &H,
                                                      const Vector &w, const std::vector<OwnedContactPoint> &points,
                                                      const Vector &displacement_increment, const bool project,
                                                      const double tolerance, const double allowed_energy,
                                                      const ProjectionContext &step)
  {
    PositionProjectionResult result;
    result.min_gap_before = result.min_gap = end_of_step_gaps(H, w, points, displacement_increment, scheme.time_step());
    if (!project || !(result.min_gap_before < -tolerance))
      return result;

    // The adaptive metric: the impulse response where an impact left the penetration beside a
    // contact in lasting contact (impact_beside_lasting_contact()), else the quasi-static one.
    const bool impulse_metric =
      scheme.projection_is_impulse_response() || (parameters.projection_metric == ProjectionMetric::adaptive &&
                                                  impact_beside_lasting_contact(points, step.lasting_keys, tolerance));
    result.impulse_metric = impulse_metric;
    // A metric of its own (quasi-static): its columns are made for this projection's contacts
    // only and not kept. Projections are rare (impact steps), and columns kept from an earlier
    // projection would make a run resumed from a checkpoint differ from the uninterrupted one in
    // the last bits (another set of right-hand sides per solve).
    metric_operator.reset();
    const int rank = dealii::Utilities::MPI::this_mpi_process(communicator);
    // A pass may push a contact outside the problem below −tolerance through the coupling of W:
    // a few passes, each with the contacts then within the tolerance of penetration.
    for (unsigned int pass = 0; pass < 3 && result.min_gap < -tolerance; ++pass)
      {
        local.clear();
        for (unsigned int i = 0; i < points.size(); ++i)
          if (end_gap[i] < tolerance)
            {
              ActiveContact a;
              a.point = points[i].global_index;
              a.key = points[i].key;
              a.gap = end_gap[i];
              a.owner_rank = rank;
              a.owner_index = static_cast<int>(i);
              a.position = points[i].position;
              local.push_back(a);
            }
        // (Each pass spends what the passes before it left of the allowance.)
        const Vector &response =
          energy_safe_correction(scheme, H, w, local, impulse_metric,
                                 std::max(0.0, allowed_energy - result.energy_change), step, result);
        result.energy_change += scheme.correct_displacement(response);

        // The gaps after the pass, for every candidate.
        H.Tvmult(gap_increment, response);
        gap_increment.extract_subvector_to(normal_rows, increments);
        double min_gap = std::numeric_limits<double>::infinity();
        for (unsigned int i = 0; i < points.size(); ++i)
          {
            end_gap[i] += increments[i];
            min_gap = std::min(min_gap, end_gap[i]);
          }
        result.min_gap = dealii::Utilities::MPI::min(min_gap, communicator);
        if (result.scale < 1)
          break; // a further pass would meet the same energy bound
      }
    return result;
  }

  const Vector &PositionProjector::projected_response(SchemeInterface &scheme,
                                                      const dealii::PETScWrappers::MPI::SparseMatrix &H,
                                                      const Vector &w, std::vector<ActiveContact> &contacts,
                                                      const bool impulse_metric, const ProjectionContext &step,
                                                      PositionProjectionResult &result)
  {
    DelassusOperator &metric = projection_operator(contacts, impulse_metric, step);
    // (The quasi-static metric's columns are computed for every pass's contacts.)
    const OperatorContext context{scheme, H, step.columns_like, w.size() / dim, step.operator_moves || !impulse_metric};
    const Vector &response = metric.project(context, contacts, step.options, result.solver, result.n_contacts);
    if (step.probed && &metric != step.probed)
      step.probed->forget_warm_start(); // its vectors are no longer the last accepted Hp and 𝒯Hp
    return response;
  }

  const Vector &PositionProjector::energy_safe_correction(SchemeInterface &scheme,
                                                          const dealii::PETScWrappers::MPI::SparseMatrix &H,
                                                          const Vector &w, std::vector<ActiveContact> &contacts,
                                                          const bool impulse_metric, const double allowed_energy,
                                                          const ProjectionContext &step,
                                                          PositionProjectionResult &result)
  {
    // The energy guarantee of the projection (doc/contact.md, "Position projection"): the
    // correction δq may not add more than allowed_energy after the velocity has given up what it
    // holds along δq. The impulse response's δq is concentrated on the contact nodes, so its strain
    // energy ½δqᵀKδq grows with the local stiffness times the penetration squared and can exceed by
    // far what the step's velocity holds there (a stiff body struck at speed); the quasi-static
    // metric moves the body as a whole and stores little. So: the impulse response where it adds
    // no energy; else the quasi-static metric where it does better; and the correction of either
    // scaled back to the largest fraction that adds at most allowed_energy. What remains of the
    // penetration is held by the lasting-contact law (its gap does not decrease) and corrected
    // later where the energy allows.
    const Vector &first = projected_response(scheme, H, w, contacts, impulse_metric, step, result);
    double scale = scheme.position_correction_cost(first).largest_scale(allowed_energy);
    const Vector *chosen = &first;
    // (Only where the impulse response can be applied by less than half: the quasi-static metric
    // lifts a loaded body, which then falls back, and dissipates more than a local correction:
    // a viscoelastic ball's impact dissipation 0.44 -> 8.4 µJ where it replaced impulse responses
    // scaled back by a few per cent.)
    if (scale < 0.5 && impulse_metric && parameters.projection_metric == ProjectionMetric::adaptive &&
        !scheme.projection_is_impulse_response() &&
        &projection_operator(contacts, false, step) != &projection_operator(contacts, true, step))
      {
        // (The impulse response's δq is kept in the dense operator's vectors, the quasi-static
        // one's in metric_operator's: both stay valid.)
        PositionProjectionResult alternative;
        const Vector &second = projected_response(scheme, H, w, contacts, false, step, alternative);
        const double second_scale = scheme.position_correction_cost(second).largest_scale(allowed_energy);
        if (second_scale > scale && alternative.solver.status == ContactSolvers::SolverStatus::converged)
          {
            chosen = &second;
            scale = second_scale;
            result.solver = alternative.solver;
            result.metric_replaced = true;
          }
      }
    result.scale = std::min(result.scale, scale);
    if (scale == 1)
      return *chosen;
    reinit_like(scaled_correction, *chosen, communicator);
    scaled_correction.equ(scale, *chosen);
    return scaled_correction;
  }

  bool PositionProjector::impact_beside_lasting_contact(const std::vector<OwnedContactPoint> &points,
                                                        const std::vector<unsigned long long> &lasting_keys,
                                                        const double tolerance) const
  {
    // A contact that lands (not in lasting contact at this step: it touched down within the step
    // or the step before, or the active set missed it) beside one that carries load (in lasting
    // contact, closed) is corrected as the step's impulse response moves the body (𝒯, local): its
    // penetration is what the impact law leaves within a step (h(1 − θ)|u_N,k|), what an earlier
    // impulse would have prevented. Otherwise (a first landing, or the drift of contacts in
    // lasting contact under load) the quasi-static metric moves the body as a whole where it can
    // and as a static load would where it cannot. The quasi-static metric alone lifts a loaded
    // body off its support to correct a contact that lands beside it, and the load then does its
    // work into that gap again (doc/contact.md, "Position projection").
    bool impact = false, loaded = false;
    for (unsigned int i = 0; i < points.size(); ++i)
      {
        const bool lasting = std::binary_search(lasting_keys.begin(), lasting_keys.end(), points[i].key);
        impact = impact || (end_gap[i] < -tolerance && !lasting);
        loaded = loaded || (end_gap[i] < tolerance && lasting);
      }
    return dealii::Utilities::MPI::logical_or(impact, communicator) &&
           dealii::Utilities::MPI::logical_or(loaded, communicator);
  }

  DelassusOperator &PositionProjector::projection_operator(const std::vector<ActiveContact> &contacts,
                                                           const bool impulse_metric, const ProjectionContext &step)
  {
    // Many contacts (the step's problem took the probed operator): the projection's problem is
    // solved by the same distributed outer iteration in the impulse response's metric, also where
    // the metric is quasi-static but its dense columns would pass 'Delassus column limit'.
    const bool many =
      dealii::Utilities::MPI::sum(static_cast<unsigned long long>(contacts.size()), communicator) * dim >
      parameters.delassus_column_limit;
    if (step.step_was_distributed && dim > 1 && (impulse_metric || many))
      return *step.probed;
    if (impulse_metric)
      return step.dense;
    // The quasi-static metric's operator is made at a projection's first use of it (see project()).
    if (!metric_operator)
      metric_operator = std::make_unique<DenseDelassusOperator>(dim, parameters.delassus_column_limit, communicator,
                                                                DelassusColumns::Response::projection);
    return *metric_operator;
  }
} // namespace percussion::ContactStep
