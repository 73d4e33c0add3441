#!/usr/bin/env python3
"""Figures of a ball_on_block run against Hertz' impact theory, and a plot.

    /usr/bin/python3 analyse_ball_on_block.py [OUTPUT_DIRECTORY] [--output FILE.png] [--no-plot]

Reads statistics.csv, bodies.csv and parameters.prm of the run (default directory: output). The
ball is body 1 (material id 1), the block body 2. Printed: the contact interval (steps with a
non-zero contact_normal_force), the peak force, the impulse against the ball's momentum change, the
ball's rebound velocity, the energy figures, and Hertz' values for a sphere of the mesh's mass
(bodies.csv) and radius R on an elastic half-space (K. L. Johnson, Contact Mechanics, Cambridge
University Press 1985, section 11.4), with 1/E* = (1 - nu1^2)/E1 + (1 - nu2^2)/E2:

    delta_max = (15 m v0^2 / (16 E* R^(1/2)))^(2/5),   F_max = (4/3) E* R^(1/2) delta_max^(3/2),
    t_c = 2.94 delta_max / v0,

the quasi-static solution, in which the ball leaves at v0 (no energy goes into waves). The force
history of that solution, m delta'' = -(4/3) E* R^(1/2) delta^(3/2), is integrated here (RK4) for
the plot. Panels: contact force, the ball's mean vertical velocity, active and sticking contacts.
The picture goes to ball_on_block.png in OUTPUT_DIRECTORY unless --output names another file
(`--output ball_on_block.png` regenerates the README's picture).
"""
import argparse
import collections
import csv
import math
import os
import re
import sys

RADIUS = 0.01  # the ball's radius in make_ball_on_block.py [m]


def read_parameters(path):
    text = open(path).read()

    def entry(name):
        m = re.search(r"^\s*set\s+" + re.escape(name) + r"\s*=\s*(.*?)\s*(#.*)?$", text, re.M)
        if not m:
            sys.exit("analyse_ball_on_block: error: '%s' not found in %s" % (name, path))
        return m.group(1)

    def values(name):
        return [float(v) for v in entry(name).split(",")]

    constants = dict(kv.split("=") for kv in entry("Function constants").replace(" ", "").split(","))
    E, nu = values("Young's modulus"), values("Poisson's ratio")
    E, nu = (E * 2)[:2], (nu * 2)[:2]  # one value for both bodies, or one each
    return {"E": E, "nu": nu, "rho": values("Density")[0], "v0": float(constants["v0"]),
            "h": float(entry("Time step"))}


def hertz_history(m, k, v0, dt):
    """Quasi-static Hertz impact: m d'' = -k d^(3/2), d(0) = 0, d'(0) = v0; (t, force, velocity of the ball)."""
    def rhs(d, v):
        return v, -k * max(d, 0.0) ** 1.5 / m

    t, d, v = 0.0, 0.0, v0
    out = [(0.0, 0.0, -v0)]
    while True:
        k1 = rhs(d, v)
        k2 = rhs(d + 0.5 * dt * k1[0], v + 0.5 * dt * k1[1])
        k3 = rhs(d + 0.5 * dt * k2[0], v + 0.5 * dt * k2[1])
        k4 = rhs(d + dt * k3[0], v + dt * k3[1])
        d += dt / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
        v += dt / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
        t += dt
        if d <= 0:
            out.append((t, 0.0, -v))
            return out
        out.append((t, k * d ** 1.5, -v))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", nargs="?", default="output")
    parser.add_argument("--output", default=None, help="PNG file (default: ball_on_block.png in the output directory)")
    parser.add_argument("--no-plot", action="store_true")
    args = parser.parse_args()
    d = args.directory
    for name in ("statistics.csv", "bodies.csv", "parameters.prm"):
        if not os.path.isfile(os.path.join(d, name)):
            sys.exit("analyse_ball_on_block: error: %s not found in '%s'" % (name, d))
    p = read_parameters(os.path.join(d, "parameters.prm"))
    h, v0 = p["h"], p["v0"]
    stats = list(csv.DictReader(open(os.path.join(d, "statistics.csv"))))
    t = [float(r["time"]) for r in stats]
    force = [float(r["contact_normal_force"]) for r in stats]
    bodies = collections.defaultdict(lambda: collections.defaultdict(list))
    for r in csv.DictReader(open(os.path.join(d, "bodies.csv"))):
        b = bodies[int(r["body"])]
        for k, v in r.items():
            b[k].append(float(v))
    ball, block = bodies[1], bodies[2]
    m = ball["mass"][0]

    Estar = 1.0 / sum((1 - nu * nu) / E for E, nu in zip(p["E"], p["nu"]))
    kh = 4.0 / 3.0 * Estar * math.sqrt(RADIUS)
    dmax = (15 * m * v0 ** 2 / (16 * Estar * math.sqrt(RADIUS))) ** 0.4
    fmax = kh * dmax ** 1.5
    tc = 2.94 * dmax / v0
    a = math.sqrt(RADIUS * dmax)
    ball_volume_mass = p["rho"] * 4.0 / 3.0 * math.pi * RADIUS ** 3
    E1, nu1 = p["E"][0], p["nu"][0]
    cp = math.sqrt(E1 * (1 - nu1) / (p["rho"] * (1 + nu1) * (1 - 2 * nu1)))
    history = hertz_history(m, kh, v0, tc / 4000)
    print("Hertz (m = %.5g kg from bodies.csv, the ball's %.5g kg; R = %g m, E* = %.5g Pa): delta_max = %.4g m, "
          "contact radius a = %.3g m, F_max = %.5g N, t_c = 2.94 delta_max/v0 = %.5g s (integrated: %.5g s)"
          % (m, ball_volume_mass, RADIUS, Estar, dmax, a, fmax, tc, history[-1][0]))
    print("the ball's dilatational wave round trip 4R/c_p = %.3g s (c_p = %.5g m/s), %.1f %% of t_c"
          % (4 * RADIUS / cp, cp, 100 * 4 * RADIUS / cp / tc))

    steps = [k for k in range(1, len(stats)) if force[k] > 0]
    if not steps:
        sys.exit("analyse_ball_on_block: no contact force in the run")
    n = len(steps)
    kpk = max(steps, key=lambda k: force[k])
    impulse = sum(f * h for f in force)
    print("contact: %d steps with a force, steps %d-%d (t = %.4g ... %.4g s): duration %.5g s (%+.1f %% of t_c)"
          % (n, steps[0], steps[-1], t[steps[0] - 1], t[steps[-1]], n * h, 100 * (n * h / tc - 1)))
    print("peak force %.5g N at t = %.4g s, i.e. %.4g s after the contact started (%+.1f %% of F_max; Hertz: at t_c/2 = %.4g s)"
          % (force[kpk], t[kpk], t[kpk] - t[steps[0] - 1], 100 * (force[kpk] / fmax - 1), tc / 2))
    print("impulse sum(F h) = %.6g N s; the ball's momentum change %.6g N s"
          % (impulse, ball["momentum_z"][-1] - ball["momentum_z"][0]))
    print("active contacts at most %d, sticking at most %d, sliding at most %d"
          % (max(int(r["contact_active"]) for r in stats), max(int(r["contact_sticking"]) for r in stats),
             max(int(r["contact_sliding"]) for r in stats)))
    print("ball at the end: mean velocity (%.3g, %.3g, %.6f) m/s (rebound %.5f v0), kinetic energy %.6g J"
          % (ball["mean_velocity_x"][-1], ball["mean_velocity_y"][-1], ball["mean_velocity_z"][-1],
             ball["mean_velocity_z"][-1] / v0, ball["kinetic_energy"][-1]))
    print("block at the end: mean velocity (%.3g, %.3g, %.3g) m/s, kinetic energy %.3g J"
          % (block["mean_velocity_x"][-1], block["mean_velocity_y"][-1], block["mean_velocity_z"][-1],
             block["kinetic_energy"][-1]))
    E0, Eend = float(stats[0]["total_energy"]), float(stats[-1]["total_energy"])
    res = max(abs(float(r["energy_balance_residual"])) for r in stats)
    print("energy: E_0 = %.6g J, E_end = %.6g J (E_end/E_0 = %.7f), impact dissipation %.4g J, friction dissipation %.3g J, "
          "|residual| <= %.3g J (%.2g of E_0); steps with contact_positive_work_count > 0: %d"
          % (E0, Eend, Eend / E0, float(stats[-1]["impact_dissipation"]), float(stats[-1]["friction_dissipation"]),
             res, res / E0, sum(1 for r in stats if int(r["contact_positive_work_count"]) > 0)))
    print("the ball's rebound kinetic energy / E_0 = %.5f; the rest: impact dissipation %.3g, vibration of ball and block %.3g (of E_0)"
          % (ball["kinetic_energy"][-1] / E0, float(stats[-1]["impact_dissipation"]) / E0,
             (Eend - ball["kinetic_energy"][-1]) / E0))
    if args.no_plot:
        return

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    us = 1e6
    t_start = t[steps[0] - 1]
    fig, axes = plt.subplots(3, 1, figsize=(7, 7.5), sharex=True, gridspec_kw={"height_ratios": [3, 2, 1.3]})
    axes[0].plot([us * (t_start + s) for s, _, _ in history], [f for _, f, _ in history], "k--", lw=1,
                 label="Hertz, quasi-static (same mass)")
    axes[0].step([us * x for x in t], force, where="pre", lw=1.3, color="C3", label="contact_normal_force")
    axes[0].set_ylabel("contact force [N]")
    axes[0].legend(fontsize=8, loc="upper right")
    axes[0].set_title("ball_on_block: steel ball R = %g mm at %g m/s on a clamped steel block" % (1e3 * RADIUS, v0))
    axes[1].plot([us * (t_start + s) for s, _, _ in history], [v for _, _, v in history], "k--", lw=1, label="Hertz")
    axes[1].plot([us * x for x in ball["time"]], ball["mean_velocity_z"], lw=1.3, label="ball, mean $v_z$ (bodies.csv)")
    axes[1].plot([us * x for x in block["time"]], block["mean_velocity_z"], lw=1.0, label="block, mean $v_z$")
    axes[1].set_ylabel("velocity [m/s]")
    axes[1].legend(fontsize=8, loc="lower right")
    axes[2].step([us * x for x in t], [int(r["contact_active"]) for r in stats], where="pre", lw=1.0, color="k",
                 label="active")
    axes[2].step([us * x for x in t], [int(r["contact_sticking"]) for r in stats], where="pre", lw=1.0,
                 color="C2", ls=":", label="sticking")
    axes[2].set_ylabel("contacts")
    axes[2].set_xlabel("time [µs]")
    axes[2].legend(fontsize=8, loc="upper right")
    for ax in axes:
        ax.grid(True, lw=0.3)
    fig.tight_layout()
    output = args.output or os.path.join(args.directory, "ball_on_block.png")
    fig.savefig(output, dpi=80)
    print("wrote %s" % output)


if __name__ == "__main__":
    main()
