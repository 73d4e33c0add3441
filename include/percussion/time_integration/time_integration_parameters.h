#ifndef PERCUSSION_TIME_INTEGRATION_TIME_INTEGRATION_PARAMETERS_H
#define PERCUSSION_TIME_INTEGRATION_TIME_INTEGRATION_PARAMETERS_H

#include <deal.II/base/parameter_handler.h>

#include <percussion/time_integration/scheme.h>

#include <string>
#include <vector>

namespace percussion::TimeIntegration
{
  /// 'Energy creation policy': what a step that created energy beyond the tolerance does.
  enum class EnergyCreationPolicy
  {
    automatic,   ///< "auto": stop for the Frémond scheme inside its dissipation range, else continue
    stop,        ///< "stop": write the step's row and output, exit as a numerical failure
    retry,       ///< "retry": take the step back and redo it as two steps of h/2 (Moreau–Jean schemes)
    continue_run ///< "continue": report it (log, events.csv, summary) and go on
  };

  /// `subsection Time integration`.
  struct TimeIntegrationParameters
  {
    /**
     * The energy guard: a step with (E + algorithmic energy)_{k+1} − (…)_k − W_ext above this
     * times the energy scale (Postprocess::EnergyAudit::guard_scale()) created energy: an
     * `energy_created` event that follows energy_creation_policy.
     */
    double energy_creation_tolerance = 1e-5;
    EnergyCreationPolicy energy_creation_policy = EnergyCreationPolicy::automatic;
    /// With the retry policy: how many times a step may be halved ('Energy retry halvings').
    unsigned int energy_retry_halvings = 3;
    /// The scheme (parsed once from its name; see Scheme).
    Scheme scheme = Scheme::moreau_jean_fremond;
    /// θ of the Moreau–Jean schemes; with `Theta = auto` resolved by resolve_auto_theta().
    double theta = 0.5;
    /// Whether 'Theta' is auto (until resolve_auto_theta() has set theta).
    bool theta_is_auto = false;
    /**
     * `Theta = auto`: ½ without contact (second order, no numerical damping of the smooth
     * dynamics); with contact min(0.55, 1/(1 + max e)), just above ½ inside the Frémond range
     * [½, 1/(1+e)] of Proposition 1, which damps the modes the step leaves unresolved so that
     * contacts that last come to rest (doc/contact.md, "Lasting contact"); ½ again where max e = 1.
     */
    void resolve_auto_theta(const std::vector<double> &restitution_coefficients);
    /// The largest of @p restitution_coefficients (0 without contact): ē of Proposition 1.
    static double largest_restitution(const std::vector<double> &restitution_coefficients);
    /**
     * Whether the scheme provably dissipates energy (Proposition 1): the Frémond scheme with
     * ½ ≤ θ ≤ 1/(1 + ē), ē = largest_restitution() (the upper end within round-off, where the
     * proposition holds with equality); without contact ½ ≤ θ.
     */
    bool provably_dissipative(const std::vector<double> &restitution_coefficients) const;
    /// Newmark's γ and β ("nonsmooth Newmark").
    double gamma = 0.5, beta = 0.25;
    /// HHT's α ∈ [0, ⅓] ("nonsmooth HHT"; weight of the old step in (81)).
    double hht_alpha = 0.1;
    /// Spectral radius at infinite frequency ρ∞ ∈ [0, 1] ("nonsmooth generalized-alpha").
    double spectral_radius = 0.8;
    /// β ∈ [0, ½] of the stiffness weighting of "Schatzman-Paoli" (0: explicit central difference).
    double schatzman_paoli_beta = 0.25;

    /// Whether the scheme is one of the nonsmooth generalized-α family.
    bool is_generalized_alpha() const { return TimeIntegration::is_generalized_alpha(scheme); }
    /// The family's parameters for the chosen scheme (Newmark: α_m = α_f = 0; HHT: α_m = 0,
    /// α_f = α, γ = ½ + α, β = (1+α)²/4; generalized-α (Chung–Hulbert 1993):
    /// α_m = (2ρ∞−1)/(ρ∞+1), α_f = ρ∞/(ρ∞+1), γ = ½ − α_m + α_f, β = (1 − α_m + α_f)²/4).
    double newmark_gamma() const;
    double newmark_beta() const;
    double alpha_m() const;
    double alpha_f() const;
    double time_step = 1e-3;
    /**
     * 'Adaptive steps': dyadic adaptive steps h₀/2^k, k = 0 … adaptive_levels (AdaptiveStepPolicy),
     * h₀ = time_step and h₀/2^adaptive_levels = 'Smallest step'; 'Quiet steps' before a step
     * doubles; 'Quiet force change', the relative change of the contact force a quiet step allows.
     */
    bool adaptive_steps = false;
    unsigned int adaptive_levels = 0;
    unsigned int quiet_steps = 8;
    double quiet_force_change = 1e-3;
    /// 'Dissipation tolerance': the error indicator's bound on a step's numerical dissipation over
    /// the energy scale; 0: none.
    double dissipation_tolerance = 0;
    double start_time = 0;
    double end_time = 1;

    /// Number of steps: end time reached to within a millionth of a step.
    unsigned int n_steps() const;

    static void declare_parameters(dealii::ParameterHandler &prm);
    /// @throws InputError for θ outside [0, 1], h ≤ 0 or end time ≤ start time.
    void parse_parameters(dealii::ParameterHandler &prm);
  };
} // namespace percussion::TimeIntegration

#endif
