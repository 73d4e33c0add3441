#!/usr/bin/env python3
"""Checks a two_bars run against the exact wave solution and plots it.

    /usr/bin/python3 plot_two_bars.py [OUTPUT_DIRECTORY] [--output FILE.png] [--no-plot]

Reads statistics.csv, bodies.csv and probes.csv of the run (default directory: output) and its
parameters.prm (E, rho, A, v0, L, gap), prints the measured figures beside the exact ones, and draws
three panels against time: the two bars' mean velocities (bodies.csv), the velocity at the two probe
points (the bars' midpoints, probes.csv) and the contact force (statistics.csv), each with the exact
solution of two equal bars of length L (bar speed c = sqrt(E/rho)), the striker moving at v0:

  * contact from t0 = gap / v0 to t0 + 2L/c, force rho c A v0 / 2;
  * mean velocities linear in time during the contact: striker v0 -> 0, struck bar 0 -> v0;
  * at distance d from the contact end, the velocity changes by -v0/2 (striker) or +v0/2 (struck bar)
    when the compression front passes (t0 + d/c) and again when the unloading front reflected at the
    free end passes (t0 + (2L - d)/c).

The picture goes to two_bars.png in OUTPUT_DIRECTORY unless --output names another file
(`--output two_bars.png` regenerates the README's picture).

Needs python3-matplotlib for the plot (the numbers are printed without it with --no-plot).
"""
import argparse
import collections
import csv
import math
import os
import re
import sys


def read_parameters(path):
    """The few entries of parameters.prm this script needs (deal.II ParameterHandler text format)."""
    text = open(path).read()

    def entry(name):
        m = re.search(r"^\s*set\s+" + re.escape(name) + r"\s*=\s*(.*?)\s*(#.*)?$", text, re.M)
        if not m:
            sys.exit("plot_two_bars: error: '%s' not found in %s" % (name, path))
        return m.group(1)

    constants = dict(kv.split("=") for kv in entry("Function constants").replace(" ", "").split(","))
    boxes = [[float(v) for v in b.split(":")] for b in entry("Boxes").split(";")]
    return {
        "E": float(entry("Young's modulus").split(",")[0]),
        "rho": float(entry("Density").split(",")[0]),
        "A": float(entry("Cross section area")),
        "v0": float(constants["v0"]),
        "L": boxes[0][1] - boxes[0][0],
        "gap": boxes[1][0] - boxes[0][1],
        "h": float(entry("Time step")),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", nargs="?", default="output")
    parser.add_argument("--output", default=None, help="PNG file (default: two_bars.png in the output directory)")
    parser.add_argument("--no-plot", action="store_true", help="print the figures only")
    args = parser.parse_args()
    d = args.directory
    for name in ("statistics.csv", "bodies.csv", "probes.csv", "parameters.prm"):
        if not os.path.isfile(os.path.join(d, name)):
            sys.exit("plot_two_bars: error: %s not found in '%s'" % (name, d))
    p = read_parameters(os.path.join(d, "parameters.prm"))
    E, rho, A, v0, L, gap, h = p["E"], p["rho"], p["A"], p["v0"], p["L"], p["gap"], p["h"]
    c = math.sqrt(E / rho)
    t0, T = gap / v0, 2 * L / c
    force_exact = rho * c * A * v0 / 2

    stats = list(csv.DictReader(open(os.path.join(d, "statistics.csv"))))
    t = [float(r["time"]) for r in stats]
    force = [float(r["contact_normal_force"]) for r in stats]
    bodies = collections.defaultdict(lambda: collections.defaultdict(list))
    for r in csv.DictReader(open(os.path.join(d, "bodies.csv"))):
        b = bodies[int(r["body"])]
        for k in ("time", "mass", "momentum_x", "mean_velocity_x", "kinetic_energy"):
            b[k].append(float(r[k]))
    probes = collections.defaultdict(lambda: collections.defaultdict(list))
    for r in csv.DictReader(open(os.path.join(d, "probes.csv"))):
        q = probes[int(r["probe"])]
        for k in ("time", "x", "v_x"):
            q[k].append(float(r[k]))

    # Contact: the steps with a non-zero force (row k covers (t_{k-1}, t_k]).
    steps = [k for k in range(1, len(stats)) if force[k] > 0]
    n = len(steps)
    duration = n * h
    plateau = [force[k] for k in steps[n // 10: n - n // 10]] if n >= 10 else [force[k] for k in steps]
    impulse = sum(f * h for f in force)
    mom = [b0 + b1 for b0, b1 in zip(bodies[0]["momentum_x"], bodies[1]["momentum_x"])]
    mom0 = mom[0]
    E0 = float(stats[0]["total_energy"])
    print("exact: t0 = %.6e s, 2L/c = %.6e s (%.2f steps), force rho c A v0/2 = %.6g N, impulse rho A L v0 = %.6g N s"
          % (t0, T, T / h, force_exact, rho * A * L * v0))
    if n:
        print("contact: %d steps, first step %d (ends at t = %.6e s), last step %d (ends at t = %.6e s)"
              % (n, steps[0], t[steps[0]], steps[-1], t[steps[-1]]))
        print("duration %d h = %.6e s (%+.3f %% of 2L/c)" % (n, duration, 100 * (duration / T - 1)))
        print("force: plateau mean (contact steps without the first and last tenth) %.6g N (%+.4f %%), range %.6g ... %.6g N, peak %.6g N"
              % (sum(plateau) / len(plateau), 100 * (sum(plateau) / len(plateau) / force_exact - 1),
                 min(plateau), max(plateau), max(force)))
    print("impulse sum(F h) = %.6g N s (%+.3f %%)" % (impulse, 100 * (impulse / (rho * A * L * v0) - 1)))
    for b, name, exact in ((0, "striker", 0.0), (1, "struck bar", v0)):
        print("%s: mass %.6g kg, final mean velocity %.6g m/s (exact %g), final momentum %.6g kg m/s, final kinetic energy %.6g J"
              % (name, bodies[b]["mass"][-1], bodies[b]["mean_velocity_x"][-1], exact,
                 bodies[b]["momentum_x"][-1], bodies[b]["kinetic_energy"][-1]))
    print("total momentum: initial %.12g, largest relative deviation over the run %.3e"
          % (mom0, max(abs(m - mom0) for m in mom) / abs(mom0)))
    res = [abs(float(r["energy_balance_residual"])) for r in stats]
    print("energy: E_0 = %.6g J, E_end = %.6g J, E_end/E_0 = %.7f, impact dissipation %.4g J, |residual| <= %.3g J (%.2g of E_0), positive contact work in %d steps"
          % (E0, float(stats[-1]["total_energy"]), float(stats[-1]["total_energy"]) / E0,
             float(stats[-1]["impact_dissipation"]), max(res), max(res) / E0,
             sum(1 for r in stats if int(r["contact_positive_work_count"]) > 0)))
    for i in sorted(probes):
        q = probes[i]
        x = q["x"][0]
        dist = abs(x - L) if x < L else x - (L + gap)
        fronts = [0.0, t0 + dist / c, t0 + (2 * L - dist) / c, q["time"][-1]]
        parts = []
        for a, b in zip(fronts[:-1], fronts[1:]):
            # the interval between two fronts without 25 steps after each front (the scheme's ringing)
            v = [vv for tt, vv in zip(q["time"], q["v_x"]) if a + 25 * h < tt < b - 2 * h or (a == 0 and tt < b - 2 * h)]
            ex = probe_exact(0.5 * (a + b), x, L, gap, t0, c, v0)
            parts.append("(%.4g, %.4g) ms: exact %g, mean %.5f, largest deviation %.3g"
                         % (1e3 * a, 1e3 * b, ex, sum(v) / len(v), max(abs(vv - ex) for vv in v)))
        print("probe %d at x = %g m, velocity [m/s], 25 steps after each front left out: %s" % (i, x, "; ".join(parts)))
    if args.no_plot:
        return

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    ms = 1e3
    fig, axes = plt.subplots(3, 1, figsize=(7, 7.5), sharex=True)
    te = [0, t0, t0 + T, t[-1]]
    axes[0].plot([ms * x for x in te], [v0, v0, 0, 0], "k--", lw=1, label="exact")
    axes[0].plot([ms * x for x in te], [0, 0, v0, v0], "k--", lw=1)
    axes[0].plot([ms * x for x in bodies[0]["time"]], bodies[0]["mean_velocity_x"], lw=1.5, label="striker (bar 0)")
    axes[0].plot([ms * x for x in bodies[1]["time"]], bodies[1]["mean_velocity_x"], lw=1.5, label="struck bar (bar 1)")
    axes[0].set_ylabel("mean velocity [m/s]")
    axes[0].legend(fontsize=8, loc="center right")
    axes[0].set_title("two_bars: equal steel bars, v0 = %g m/s, L = %g m" % (v0, L))
    fine = [t[-1] * k / 4000 for k in range(4001)]
    for i, color in zip(sorted(probes), ("C0", "C1")):
        q = probes[i]
        x = q["x"][0]
        axes[1].plot([ms * s for s in fine], [probe_exact(s, x, L, gap, t0, c, v0) for s in fine], "k--", lw=1)
        axes[1].plot([ms * s for s in q["time"]], q["v_x"], color=color, lw=1.0,
                     label="x = %g m (%s midpoint)" % (x, "striker" if x < L else "struck bar"))
    axes[1].set_ylabel("velocity at probe [m/s]")
    axes[1].legend(fontsize=8, loc="center right")
    axes[2].step([ms * x for x in [0, t0, t0 + T, t[-1]]], [0, force_exact, 0, 0], "k--", where="post", lw=1,
                 label="exact $\\rho c A v_0/2$")
    axes[2].step([ms * x for x in t], force, where="pre", lw=1.2, color="C3", label="contact_normal_force")
    axes[2].set_ylabel("contact force [N]")
    axes[2].set_xlabel("time [ms]")
    axes[2].legend(fontsize=8, loc="upper right")
    for ax in axes:
        ax.grid(True, lw=0.3)
    fig.tight_layout()
    output = args.output or os.path.join(args.directory, "two_bars.png")
    fig.savefig(output, dpi=80)
    print("wrote %s" % output)


def probe_exact(t, x, L, gap, t0, c, v0):
    """Exact velocity at x (reference configuration) at time t; the striker is [0, L]."""
    if x <= L:
        d = L - x
        if t < t0 + d / c:
            return v0
        return v0 / 2 if t < t0 + (2 * L - d) / c else 0.0
    d = x - (L + gap)
    if t < t0 + d / c:
        return 0.0
    return v0 / 2 if t < t0 + (2 * L - d) / c else v0


if __name__ == "__main__":
    main()
