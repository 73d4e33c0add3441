#ifndef PERCUSSION_BODY_BODY_PARAMETERS_H
#define PERCUSSION_BODY_BODY_PARAMETERS_H

#include <deal.II/base/parameter_handler.h>

#include <percussion/core/function_parsing.h>

#include <map>
#include <string>
#include <vector>

namespace percussion::Body
{
  /**
   * Isotropic linear (visco)elastic material (plane strain in 2D, uniaxial stress E in 1D). The
   * viscous parts (doc/theory.md, "Linear viscoelasticity") share the shape of the elastic law:
   * a Kelvin–Voigt stress τ_KV σ(ε̇) and Maxwell branches whose relaxation modulus is
   * E(t) = E∞ + Σᵢ Eᵢ exp(−t/τᵢ) with ν constant, E∞ = youngs_modulus (Simo & Hughes,
   * Computational Inelasticity, ch. 10).
   */
  struct Material
  {
    double youngs_modulus; ///< E∞, the long-term (equilibrium) modulus
    double poissons_ratio;
    double density;
    /// Kelvin–Voigt retardation time τ_KV [s]: C_m = τ_KV K_m on this material's cells.
    double kelvin_voigt_time = 0;
    /// The Prony series: Maxwell branch i has modulus prony_moduli[i] = Eᵢ and relaxation time
    /// prony_times[i] = τᵢ (same size, at most max_prony_terms).
    std::vector<double> prony_moduli;
    std::vector<double> prony_times;

    static constexpr unsigned int max_prony_terms = 8;

    double lame_lambda() const
    {
      return youngs_modulus * poissons_ratio / ((1 + poissons_ratio) * (1 - 2 * poissons_ratio));
    }
    double lame_mu() const { return youngs_modulus / (2 * (1 + poissons_ratio)); }
    /// E(0) = E∞ + Σ Eᵢ: the instantaneous modulus (the wave speed of a viscoelastic material).
    double instantaneous_modulus() const
    {
      double E = youngs_modulus;
      for (const double Ei : prony_moduli)
        E += Ei;
      return E;
    }
  };

  /// `Kinematics/Formulation`: how the bodies move (see BodyParameters::kinematics_formulation).
  enum class KinematicsFormulation
  {
    /// Large rotations with the Moreau–Jean schemes in 2D/3D, small displacements otherwise.
    automatic,
    /// x = X + q, linear in the rotation.
    small_displacements,
    /// A frame per body follows its rigid motion exactly; the strain, linear, is measured in it.
    large_rotations
  };

  /// A set of boundary ids with the displacement components they constrain.
  struct ConstrainedBoundary
  {
    unsigned int boundary_id;
    std::vector<bool> components; ///< size dim
  };

  /**
   * The deformable bodies: `subsection Materials`, `Damping`, `Loads`, `Boundary conditions` and
   * `Initial conditions`. All functions are of (x, t) with the named `Function constants`
   * (see FunctionExpression), vector-valued with dim components.
   */
  struct BodyParameters
  {
    std::map<unsigned int, Material> materials; ///< by material id
    /// Whether some material has a Kelvin–Voigt time or Maxwell branches.
    bool has_kelvin_voigt() const;
    bool has_maxwell_branches() const;

    /// Rayleigh damping C = αM + βK (paper eq. (1c)); β is also the Kelvin–Voigt viscosity time.
    double rayleigh_alpha = 0;
    double rayleigh_beta = 0;

    std::vector<double> gravity;   ///< acceleration, dim components
    FunctionExpression body_force; ///< force per unit volume
    std::vector<unsigned int> traction_boundary_ids;
    FunctionExpression traction; ///< force per unit area

    std::vector<ConstrainedBoundary> fixed_boundaries;
    std::vector<ConstrainedBoundary> prescribed_boundaries;
    FunctionExpression prescribed_displacement;

    FunctionExpression initial_displacement;
    FunctionExpression initial_velocity;

    std::map<std::string, double> function_constants;

    /**
     * `subsection Kinematics`: small displacements (x = X + q, linear in the rotation), large
     * rotations (a frame per body, exact rigid motion with linear strain in it: BodyFrames), or
     * automatic (large rotations where the scheme supports them: the Moreau–Jean schemes in 2D/3D).
     */
    KinematicsFormulation kinematics_formulation = KinematicsFormulation::automatic;
    /// A body's frame is taken anew when its rigid fit has turned more than this (rad) from it.
    double frame_update_angle = 1e-4;
    /// Moreau–Jean with θ > ½: the step in a basis turning with each body (doc/theory.md, "A spin at θ > ½").
    bool turning_step_basis = true;
    /// With small displacements: a warning and an event when a body's rotation exceeds this (rad).
    double rotation_warning_angle = 0.05;

    static void declare_parameters(dealii::ParameterHandler &prm);
    /// @throws InputError naming the entry for malformed or inadmissible values.
    void parse_parameters(dealii::ParameterHandler &prm, unsigned int dim,
                          const std::map<std::string, double> &constants);
  };
} // namespace percussion::Body

#endif
