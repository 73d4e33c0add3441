#include <percussion/core/exceptions.h>
#include <percussion/core/name_table.h>
#include <percussion/time_integration/time_integration_parameters.h>

#include <deal.II/base/utilities.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace percussion::TimeIntegration
{
  namespace
  {
    constexpr NameTable<EnergyCreationPolicy, 4> energy_creation_policies{
      {{EnergyCreationPolicy::automatic, "auto"},
       {EnergyCreationPolicy::stop, "stop"},
       {EnergyCreationPolicy::retry, "retry"},
       {EnergyCreationPolicy::continue_run, "continue"}}};
  } // namespace

  unsigned int TimeIntegrationParameters::n_steps() const
  {
    return static_cast<unsigned int>(std::floor((end_time - start_time) / time_step + 1e-6));
  }

  double TimeIntegrationParameters::alpha_m() const
  {
    if (scheme == Scheme::nonsmooth_generalized_alpha)
      return (2 * spectral_radius - 1) / (spectral_radius + 1);
    return 0;
  }

  double TimeIntegrationParameters::alpha_f() const
  {
    if (scheme == Scheme::nonsmooth_generalized_alpha)
      return spectral_radius / (spectral_radius + 1);
    if (scheme == Scheme::nonsmooth_hht)
      return hht_alpha;
    return 0;
  }

  double TimeIntegrationParameters::newmark_gamma() const
  {
    if (scheme == Scheme::nonsmooth_newmark)
      return gamma;
    return 0.5 - alpha_m() + alpha_f();
  }

  double TimeIntegrationParameters::newmark_beta() const
  {
    if (scheme == Scheme::nonsmooth_newmark)
      return beta;
    const double s = 1 - alpha_m() + alpha_f();
    return 0.25 * s * s;
  }

  void TimeIntegrationParameters::declare_parameters(dealii::ParameterHandler &prm)
  {
    using namespace dealii::Patterns;
    prm.enter_subsection("Time integration");
    prm.declare_entry("Scheme", "Moreau-Jean Fremond", Selection(scheme_names()),
                      "'Moreau-Jean Fremond': the contact law on u_{k+theta} (paper eq. (63)-(64)), "
                      "energy-dissipating with impact and friction for 1/2 <= theta <= 1/(1+e). "
                      "'Moreau-Jean standard': the contact law on u_{k+1} (eq. (53)). Without contact "
                      "both are the theta-scheme (53a)-(53b). 'nonsmooth Newmark' (Newmark gamma, "
                      "Newmark beta), 'nonsmooth HHT' (HHT alpha) and 'nonsmooth generalized-alpha' "
                      "(Spectral radius): the smooth part of the dynamics collocated and second-order "
                      "accurate, the impulsive part first order, with the velocity-level Newton impact "
                      "law and Coulomb friction on U_{k+1} (talk eq. (52), (81)). 'Schatzman-Paoli' "
                      "(Schatzman-Paoli beta): two-step, position-level impact law "
                      "g((q_{k+1} + e q_{k-1})/(1+e)) >= 0 (talk eq. (28)-(29)), frictionless.");
    prm.declare_entry("Theta", "auto", Anything(),
                      "theta in [0, 1] of the Moreau-Jean schemes, or auto. 1/2 conserves the energy "
                      "of the smooth dynamics, > 1/2 dissipates it (numerical damping, first order), "
                      "< 1/2 creates energy. auto: 1/2 without contact; with contact "
                      "min(0.55, 1/(1 + max e)), inside the Fremond range [1/2, 1/(1+e)], which "
                      "damps the modes the step leaves unresolved so that contacts that last come to "
                      "rest and do not walk (at 1/2 they ring for ever; doc/contact.md). Set 0.5 for "
                      "wave-propagation benchmarks whose energy must be kept.");
    prm.declare_entry("Newmark gamma", "0.5", Double(),
                      "gamma of the nonsmooth Newmark scheme: second order iff 1/2; unconditionally "
                      "stable for 2 beta >= gamma >= 1/2, dissipative for 2 beta > gamma > 1/2.");
    prm.declare_entry("Newmark beta", "0.25", Double(), "beta (> 0) of the nonsmooth Newmark scheme.");
    prm.declare_entry("HHT alpha", "0.1", Double(),
                      "alpha in [0, 1/3] of the nonsmooth HHT scheme (the weight of step k in eq. (81)); "
                      "gamma = 1/2 + alpha, beta = (1 + alpha)^2/4. 0 is Newmark's trapezoidal rule.");
    prm.declare_entry("Spectral radius", "0.8", Double(),
                      "rho_infinity in [0, 1] of the nonsmooth generalized-alpha scheme (Chung-Hulbert "
                      "parameters): the amplification of the highest frequencies; 1 keeps them, 0 "
                      "annihilates them in one step.");
    prm.declare_entry("Schatzman-Paoli beta", "0.25", Double(),
                      "beta in [0, 1/2] of the Schatzman-Paoli scheme: the stiffness force is "
                      "K(beta q_{k+1} + (1 - 2 beta) q_k + beta q_{k-1}); 0 is the explicit central "
                      "difference (stable only for h below 2/omega_max), 1/4 is unconditionally stable.");
    prm.declare_entry("Time step", "1e-3", Double(),
                      "The step size h (> 0), constant; with 'Adaptive steps' the largest step h0.");
    prm.declare_entry("Adaptive steps", "false", Bool(),
                      "Dyadic adaptive time steps (Moreau-Jean schemes): each step is 'Time step'/2^k, "
                      "k = 0 ... K with 'Time step'/2^K = 'Smallest step'. The step halves until it is at "
                      "most half the time in which a candidate contact's gap is predicted (from its gap "
                      "and normal velocity) to close, goes to the smallest one when a contact opens or "
                      "closes or the contact force changes (an impact), and after 'Quiet steps' quiet "
                      "steps doubles, one level at a time, where the time is a multiple of the doubled "
                      "step. The iteration matrix of each step size is factorised once and kept. The step "
                      "of each row is the column time_step of statistics.csv.");
    prm.declare_entry("Smallest step", "0", Double(0),
                      "With 'Adaptive steps': the smallest step, 'Time step'/2^K with K = 1 ... 20; 0: "
                      "'Time step'/16.");
    prm.declare_entry("Quiet steps", "8", Integer(1),
                      "With 'Adaptive steps': how many quiet steps (no contact opening or closing, none "
                      "predicted to close within two steps of the doubled size, the total contact force "
                      "changing by less than 'Quiet force change') a level takes before the step doubles "
                      "while a contact is active; in flight (no active contact) one quiet step suffices.");
    prm.declare_entry("Quiet force change", "1e-3", Double(0),
                      "With 'Adaptive steps': a step with contact is quiet only where the total normal "
                      "contact force and the Euclidean norm of the contacts' normal forces changed by "
                      "less than this fraction of themselves over the step (an impact under way, or "
                      "bodies passing their load from contact to contact, keep the smallest step; a body "
                      "resting on another does not).");
    prm.declare_entry("Dissipation tolerance", "0", Double(0),
                      "With 'Adaptive steps': the error indicator. A step whose numerical dissipation (the "
                      "theta-scheme's, theta > 1/2) exceeds this fraction of the energy scale (the "
                      "energy guard's) is not quiet, and the next step is half its size. 0: no such "
                      "rule (the step follows the contacts alone).");
    prm.declare_entry("Start time", "0", Double(), "Time of the initial conditions.");
    prm.declare_entry("End time", "1", Double(),
                      "The run takes floor((End time - Start time)/Time step) steps (with 'Adaptive "
                      "steps', steps of several sizes to the same time); when that does not reach End time "
                      "exactly, the run says so at the start.");
    prm.declare_entry("Energy creation tolerance", "1e-5", Double(0),
                      "The energy guard: a step whose total energy (kinetic + strain + viscoelastic, "
                      "with the generalized-alpha family's algorithmic energy) exceeds the previous "
                      "step's plus the loads' work by more than this times the energy scale (the "
                      "largest energy and cumulated work of the run so far) created energy, which "
                      "no term of a dissipative scheme can do: an event 'energy_created' that "
                      "follows 'Energy creation policy'.");
    prm.declare_entry("Energy creation policy", "auto", Selection(names_pattern(energy_creation_policies)),
                      "What a step that created energy does: 'auto' (default): stop for the Fremond "
                      "Moreau-Jean scheme with 1/2 <= theta <= 1/(1+max e), which provably dissipates "
                      "(any energy created there is an error), continue with a warning for the "
                      "schemes and thetas that may create energy by design (theta < 1/2, the "
                      "standard Moreau-Jean scheme, the generalized-alpha family, Schatzman-Paoli); "
                      "'stop' the run as a numerical failure "
                      "(exit status 2; that step's statistics row and output are written, no "
                      "checkpoint of its state); 'retry': take the step back and redo it as two "
                      "steps of h/2 (the iteration matrix of h/2 factorised once and kept), each "
                      "retried the same way down to h/2^'Energy retry halvings', then stop "
                      "(Moreau-Jean schemes); or 'continue' with a warning. Each event names the "
                      "step, the energy created and the term of the balance that created it, and "
                      "the summary gives the total.");
    prm.declare_entry("Energy retry halvings", "3", Integer(1, 10),
                      "With 'Energy creation policy' = retry: how many times a step may be halved.");
    prm.leave_subsection();
  }

  void TimeIntegrationParameters::parse_parameters(dealii::ParameterHandler &prm)
  {
    prm.enter_subsection("Time integration");
    scheme = scheme_from_name(prm.get("Scheme"));
    {
      const std::string text = dealii::Utilities::trim(prm.get("Theta"));
      theta_is_auto = text == "auto";
      if (theta_is_auto)
        theta = 0.5;
      else
        {
          std::size_t used = 0;
          try
            {
              theta = std::stod(text, &used);
            }
          catch (const std::exception &)
            {
              used = 0;
            }
          if (used == 0 || used != text.size())
            throw InputError("Parameter 'Time integration/Theta' = '" + text +
                             "': expected auto or a number in [0, 1].");
        }
    }
    gamma = prm.get_double("Newmark gamma");
    beta = prm.get_double("Newmark beta");
    hht_alpha = prm.get_double("HHT alpha");
    spectral_radius = prm.get_double("Spectral radius");
    schatzman_paoli_beta = prm.get_double("Schatzman-Paoli beta");
    time_step = prm.get_double("Time step");
    adaptive_steps = prm.get_bool("Adaptive steps");
    const double smallest_step = prm.get_double("Smallest step");
    quiet_steps = prm.get_integer("Quiet steps");
    quiet_force_change = prm.get_double("Quiet force change");
    dissipation_tolerance = prm.get_double("Dissipation tolerance");
    start_time = prm.get_double("Start time");
    end_time = prm.get_double("End time");
    energy_creation_tolerance = prm.get_double("Energy creation tolerance");
    energy_creation_policy =
      value_of(energy_creation_policies, prm.get("Energy creation policy"), "Time integration/Energy creation policy");
    energy_retry_halvings = prm.get_integer("Energy retry halvings");
    prm.leave_subsection();
    if (!(theta >= 0 && theta <= 1))
      throw InputError("Parameter 'Time integration/Theta' must lie in [0, 1] (got " + std::to_string(theta) + ").");
    if (scheme == Scheme::nonsmooth_newmark && !(gamma > 0 && gamma <= 1))
      throw InputError("Parameter 'Time integration/Newmark gamma' must lie in (0, 1] (got " + std::to_string(gamma) +
                       ").");
    if (scheme == Scheme::nonsmooth_newmark && !(beta > 0 && beta <= 1))
      throw InputError("Parameter 'Time integration/Newmark beta' must lie in (0, 1] (got " + std::to_string(beta) +
                       "): the scheme is implicit.");
    if (scheme == Scheme::nonsmooth_hht && !(hht_alpha >= 0 && hht_alpha <= 1.0 / 3.0))
      throw InputError("Parameter 'Time integration/HHT alpha' must lie in [0, 1/3] (got " + std::to_string(hht_alpha) +
                       ").");
    if (scheme == Scheme::nonsmooth_generalized_alpha && !(spectral_radius >= 0 && spectral_radius <= 1))
      throw InputError("Parameter 'Time integration/Spectral radius' must lie in [0, 1] (got " +
                       std::to_string(spectral_radius) + ").");
    if (scheme == Scheme::schatzman_paoli && !(schatzman_paoli_beta >= 0 && schatzman_paoli_beta <= 0.5))
      throw InputError("Parameter 'Time integration/Schatzman-Paoli beta' must lie in [0, 1/2] (got " +
                       std::to_string(schatzman_paoli_beta) + ").");
    if (!(time_step > 0))
      throw InputError("Parameter 'Time integration/Time step' must be positive (got " + std::to_string(time_step) +
                       ").");
    if (adaptive_steps)
      {
        // h₀/h_min must be 2^K: the levels' steps nest, and the time stays an exact binary fraction.
        const double ratio = smallest_step > 0 ? time_step / smallest_step : 16.0;
        const double levels = std::log2(ratio);
        if (!(levels >= 0.5 && levels <= 20.5) || std::abs(levels - std::round(levels)) > 1e-9 * levels)
          throw InputError(
            "Parameter 'Time integration/Smallest step' = " + std::to_string(smallest_step) +
            " must be 'Time step'/2^K with K = 1 ... 20 (here 'Time step' = " + std::to_string(time_step) + ").");
        adaptive_levels = static_cast<unsigned int>(std::lround(levels));
      }
    if (!(end_time > start_time))
      throw InputError("Parameter 'Time integration/End time' must be larger than 'Start time'.");
    if (n_steps() == 0)
      throw InputError("Parameter 'Time integration/Time step' is larger than End time - Start time: no step to take.");
  }

  void TimeIntegrationParameters::resolve_auto_theta(const std::vector<double> &restitution_coefficients)
  {
    if (!theta_is_auto)
      return;
    theta_is_auto = false;
    if (restitution_coefficients.empty())
      {
        theta = 0.5;
        return;
      }
    // (A θ exactly at the range's end 1/(1+e) is inside it: Proposition 1 holds with equality.)
    theta = std::max(0.5, std::min(0.55, 1.0 / (1.0 + largest_restitution(restitution_coefficients))));
  }

  double TimeIntegrationParameters::largest_restitution(const std::vector<double> &restitution_coefficients)
  {
    double largest = 0;
    for (const double e : restitution_coefficients)
      largest = std::max(largest, e);
    return largest;
  }

  bool TimeIntegrationParameters::provably_dissipative(const std::vector<double> &restitution_coefficients) const
  {
    return scheme == Scheme::moreau_jean_fremond && theta >= 0.5 &&
           theta <= 1.0 / (1.0 + largest_restitution(restitution_coefficients)) + 1e-14;
  }
} // namespace percussion::TimeIntegration
