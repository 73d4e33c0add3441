#!/usr/bin/env python3
"""Mean velocity and position of the block along the incline against time, beside the rigid
block's exact motion (Coulomb friction, constant deceleration until it stops, then at rest), and
the measured stopping time and distance.

    /usr/bin/python3 plot_incline.py OUTPUT_DIR [OUTPUT_DIR ...] [--output FILE.png] [--labels ...]

The picture goes to incline_block.png in the first OUTPUT_DIR unless --output names another file
(`--output incline_block.png` regenerates the README's picture).

Each OUTPUT_DIR is the output of a run of incline_block.prm (with any --set overrides): the exact
values are computed from its parameters.prm (gravity (g_t, -g_n) in the incline's frame, the first
pair's friction coefficient mu, the initial velocity v0 along x, theta, h). Along the slope the
rigid block has the acceleration g_t - sign(v0) mu g_n while it slides, so it stops at
t_s = v0 / (sign(v0) mu g_n - g_t) after the distance v0 t_s / 2. The velocity is the block's mean
velocity (bodies.csv: momentum / mass), the position the displacement of the probe at the block's
centre (probes.csv). The stopping time is where the straight line through the last slip step's
mean velocity, with the slope fitted over the slip phase, crosses zero (the velocity changes sign
within the next step, where the block stops and then sticks for the rest of that step).
"""
import argparse
import csv
import math
import os
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def read_parameters(directory):
    with open(os.path.join(directory, "parameters.prm")) as f:
        text = f.read()

    def entry(name):
        return re.search(r"set %s\s*=\s*(.*)" % re.escape(name), text).group(1).strip()

    gravity = [float(x) for x in entry("Gravity").split(",")]
    return {
        "g_t": gravity[0],
        "g_n": -gravity[1],
        "mu": float(entry("Friction coefficient")),  # the first pair's
        "v0": float(entry("Velocity").split(";")[0]),
        "theta": float(entry("Theta")),
        "h": float(entry("Time step")),
    }


def read_csv(directory, name):
    with open(os.path.join(directory, name)) as f:
        return list(csv.DictReader(f))


def analyse(directory):
    p = read_parameters(directory)
    v0 = p["v0"]
    acceleration = p["g_t"] - math.copysign(1.0, v0) * p["mu"] * p["g_n"]
    exact_time = -v0 / acceleration
    exact_distance = 0.5 * v0 * exact_time
    bodies = read_csv(directory, "bodies.csv")
    probes = [r for r in read_csv(directory, "probes.csv") if r["probe"] == "1"]
    stats = read_csv(directory, "statistics.csv")
    t = [float(r["time"]) for r in bodies]
    v = [float(r["mean_velocity_x"]) for r in bodies]
    u = [float(r["u_x"]) for r in probes]
    # The last slip step: the first step whose mean velocity has crossed zero.
    k = next(i for i in range(1, len(v)) if v[i] * v0 <= 0)
    # The deceleration over the slip phase (least squares, skipping the first 10 steps).
    ts, vs = t[10:k], v[10:k]
    mt, mv = sum(ts) / len(ts), sum(vs) / len(vs)
    slope = sum((a - mt) * (b - mv) for a, b in zip(ts, vs)) / sum((a - mt) ** 2 for a in ts)
    stop_time = t[k - 1] - v[k - 1] / slope
    sliding = [int(float(r["contact_sliding"])) for r in stats]
    last_sliding = max(i for i in range(len(sliding)) if sliding[i] > 0)
    after = range(last_sliding + 3, len(t))
    return {
        "directory": directory, "parameters": p, "acceleration": acceleration,
        "exact_time": exact_time, "exact_distance": exact_distance, "t": t, "v": v, "u": u,
        "stop_step": k, "stop_time": stop_time, "fitted_acceleration": slope,
        "distance": u[-1], "last_sliding_step": last_sliding,
        "creep": max(abs(u[i] - u[-1]) for i in after) if after else float("nan"),
        "rest_velocity": max(abs(v[i]) for i in after) if after else float("nan"),
    }


def exact_motion(r, t):
    v0, a, ts = r["parameters"]["v0"], r["acceleration"], r["exact_time"]
    tt = min(t, ts)
    return v0 + a * tt, v0 * tt + 0.5 * a * tt * tt


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directories", nargs="+")
    parser.add_argument("--output", default=None,
                        help="PNG file (default: incline_block.png in the first output directory)")
    parser.add_argument("--labels", nargs="*", help="one legend label per directory")
    args = parser.parse_args()
    runs = [analyse(d) for d in args.directories]
    labels = args.labels or [r["directory"] for r in runs]

    for r, label in zip(runs, labels):
        p = r["parameters"]
        shift = (p["theta"] - 0.5) * p["h"] * p["v0"]
        print("%s: v0 = %g m/s, acceleration along the slope while sliding %.8g m/s^2 (exact %.8g)"
              % (label, p["v0"], r["fitted_acceleration"], r["acceleration"]))
        k = r["stop_step"]
        print("  stopping time  %.6f s (exact %.6f s, %+.4f %%); the velocity changes sign in step %d, (%g, %g] s;"
              " last step with a sliding contact: %d"
              % (r["stop_time"], r["exact_time"], 100 * (r["stop_time"] / r["exact_time"] - 1),
                 k, r["t"][k - 1], r["t"][k], r["last_sliding_step"]))
        print("  distance       %.6f m (exact %.6f m, %+.3f %%; exact minus (theta - 1/2) h v0 = %.6f m)"
              % (r["distance"], r["exact_distance"], 100 * (r["distance"] / r["exact_distance"] - 1),
                 r["exact_distance"] - shift))
        print("  after the last sliding step + 2: |mean velocity| <= %.2g m/s, |u - u_end| <= %.2g m"
              % (r["rest_velocity"], r["creep"]))

    fig, (ax_v, ax_u, ax_e) = plt.subplots(3, 1, figsize=(7, 7.5), sharex=True,
                                           gridspec_kw={"height_ratios": [3, 3, 2]})
    for r, label in zip(runs, labels):
        t_end = r["t"][-1]
        n = 400
        te = [t_end * i / n for i in range(n + 1)]
        exact = [exact_motion(r, x) for x in te]
        line, = ax_v.plot(r["t"], r["v"], "-", linewidth=1.6, label="FE, " + label)
        ax_v.plot(te, [e[0] for e in exact], "k:", linewidth=1.2)
        ax_u.plot(r["t"], [x * 1e3 for x in r["u"]], "-", color=line.get_color(), linewidth=1.6)
        ax_u.plot(te, [e[1] * 1e3 for e in exact], "k:", linewidth=1.2)
        ax_e.plot(r["t"], [(x - exact_motion(r, s)[1]) * 1e3 for s, x in zip(r["t"], r["u"])], "-",
                  color=line.get_color(), linewidth=1.4)
        p = r["parameters"]
        ax_e.axhline(-(p["theta"] - 0.5) * p["h"] * p["v0"] * 1e3, color=line.get_color(), linestyle=":",
                     linewidth=1)
        for ax in (ax_v, ax_u, ax_e):
            ax.axvline(r["exact_time"], color=line.get_color(), linestyle="--", linewidth=0.8)
        ax_v.annotate("t_s = %.4f s" % r["exact_time"], (r["exact_time"], 0),
                      xytext=(4, 6 if r["parameters"]["v0"] > 0 else -14), textcoords="offset points",
                      fontsize=8, color=line.get_color())
    ax_v.plot([], [], "k:", label="rigid block, exact")
    ax_v.plot([], [], "k--", linewidth=0.8, label="exact stopping time")
    ax_v.axhline(0, color="0.6", linewidth=0.6)
    ax_v.set_ylabel("mean velocity along x [m/s]")
    ax_v.legend(fontsize=8)
    ax_u.axhline(0, color="0.6", linewidth=0.6)
    ax_u.set_ylabel("displacement of the centre [mm]")
    ax_e.set_ylabel("FE − exact [mm]")
    ax_e.set_xlabel("time [s]")
    ax_e.text(0.99, 0.4, "dotted: −(θ − ½) h v0", transform=ax_e.transAxes, ha="right", fontsize=8)
    ax_v.set_title("Block on a 20° incline, μ = 0.5 (x down the slope)")
    for ax in (ax_v, ax_u, ax_e):
        ax.grid(alpha=0.3)
    fig.tight_layout()
    output = args.output or os.path.join(args.directories[0], "incline_block.png")
    fig.savefig(output, dpi=90)
    print("plot: " + output)


if __name__ == "__main__":
    main()
