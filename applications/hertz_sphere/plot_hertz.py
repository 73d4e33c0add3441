#!/usr/bin/env python3
"""Contact force against time of the refinement study's runs (percussion_study.py output) beside
Hertz' quasi-static impact solution for each run's finite-element mass m (bodies.csv):
m δ'' = −(4/3) E* √R δ^{3/2}, δ(0) = 0, δ'(0) = v0, F = (4/3) E* √R δ^{3/2}, integrated here with
a fourth-order Runge–Kutta scheme (step t_c / 20000).

    python3 plot_hertz.py STUDY_DIRECTORY [--output FILE.png]

The picture goes to hertz_sphere.png in STUDY_DIRECTORY unless --output names another file
(`--output hertz_sphere.png` regenerates the README's picture).
"""
import argparse
import csv
import glob
import math
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

E, NU, R, V0 = 210e9, 0.3, 0.01, 1.0
E_STAR = E / (1 - NU * NU)
K = 4.0 / 3.0 * E_STAR * math.sqrt(R)


def hertz_history(m, t_end, n=20000):
    """(t, F) of the Hertz impact from the first touch, until the force vanishes."""
    dt = t_end / n
    t, d, v = 0.0, 0.0, V0
    ts, fs = [0.0], [0.0]

    def acc(x):
        return -K * max(x, 0.0) ** 1.5 / m

    while True:
        k1 = (v, acc(d))
        k2 = (v + 0.5 * dt * k1[1], acc(d + 0.5 * dt * k1[0]))
        k3 = (v + 0.5 * dt * k2[1], acc(d + 0.5 * dt * k2[0]))
        k4 = (v + dt * k3[1], acc(d + dt * k3[0]))
        d += dt / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
        v += dt / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
        t += dt
        if d <= 0:
            break
        ts.append(t)
        fs.append(K * d ** 1.5)
    return ts, fs


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("study")
    parser.add_argument("--output", default=None, help="PNG file (default: hertz_sphere.png in STUDY_DIRECTORY)")
    args = parser.parse_args()
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for level_dir in sorted(glob.glob(os.path.join(args.study, "level_*"))):
        with open(os.path.join(level_dir, "statistics.csv")) as f:
            rows = list(csv.DictReader(f))
        with open(os.path.join(level_dir, "bodies.csv")) as f:
            mass = float(next(csv.DictReader(f))["mass"])
        with open(os.path.join(level_dir, "parameters.prm")) as f:
            text = f.read()
        refinements = text.split("set Global refinements")[1].split("=")[1].split()[0]
        t = [float(r["time"]) for r in rows]
        force = [float(r["contact_normal_force"]) for r in rows]
        # The touch lies within the step before the first force: centre on the Hertz start g0/v0.
        t0 = 2e-6 / V0
        line, = ax.plot([(x - t0) * 1e6 for x in t], force, "-", linewidth=1.2,
                        label="FE, %s refinements (m = %.4f kg)" % (refinements, mass))
        ts, fs = hertz_history(mass, 1.2e-4)
        ax.plot([x * 1e6 for x in ts], fs, ":", color=line.get_color(), linewidth=1.2)
    ax.plot([], [], "k:", label="Hertz for the same m")
    ax.set_xlim(-5, 65)
    ax.set_xlabel("time from the first touch [µs]")
    ax.set_ylabel("contact force [N]")
    ax.set_title("Steel sphere R = 1 cm on a rigid plane at 1 m/s")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    output = args.output or os.path.join(args.study, "hertz_sphere.png")
    fig.savefig(output, dpi=100)
    print("plot: " + output)


if __name__ == "__main__":
    main()
