#!/usr/bin/env python3
"""Tangential contact work of the tilted bar with the standard and the Frémond Moreau–Jean
schemes: the work of each step (top, zoomed on the first impacts) and the cumulated work (bottom)
against time, from the statistics.csv of two runs of tilted_bar.prm; prints the figures of the
energy audit of each run, and the bar's turn and kinetic energy of rotation at the end.

    /usr/bin/python3 plot_tilted_bar.py STANDARD_OUTPUT FREMOND_OUTPUT [--output FILE.png]

The picture goes to tilted_bar.png in FREMOND_OUTPUT unless --output names another file; its title
names the runs' kinematics (Kinematics/Formulation of FREMOND_OUTPUT/parameters.prm).
"""
import argparse
import csv
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def read(directory):
    with open(os.path.join(directory, "statistics.csv")) as f:
        rows = list(csv.DictReader(f))
    return {name: [float(r[name]) for r in rows] for name in rows[0]}


def read_bodies(directory):
    """The last row of bodies.csv (Output/Write bodies), or None."""
    path = os.path.join(directory, "bodies.csv")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return list(csv.DictReader(f))[-1]


def kinematics(directory):
    """'small displacements' or 'large rotations' (what 'auto' gives a 2D Moreau–Jean run)."""
    section = []
    with open(os.path.join(directory, "parameters.prm")) as f:
        for line in f:
            text = line.split("#", 1)[0].strip()
            if text.startswith("subsection "):
                section.append(text[len("subsection "):].strip())
            elif text == "end":
                section.pop()
            elif section == ["Kinematics"] and text.startswith("set Formulation"):
                value = text.split("=", 1)[1].strip()
                return "large rotations" if value == "auto" else value
    return "large rotations"


def per_step(column):
    return [0.0] + [column[k] - column[k - 1] for k in range(1, len(column))]


def report(label, s, bodies):
    wt = per_step(s["contact_work_tangential"])
    wn = per_step(s["contact_work_normal"])
    k = max(range(1, len(wt)), key=lambda i: wt[i])
    print("%s:" % label)
    print("  E_0 = %.6g, E_end = %.6g, E_end - E_0 = %.6g (external work %.6g, tangential contact work %.6g,"
          " normal contact work %.2g, residual %.2g)"
          % (s["total_energy"][0], s["total_energy"][-1], s["total_energy"][-1] - s["total_energy"][0],
             s["external_work"][-1], s["contact_work_tangential"][-1], s["contact_work_normal"][-1],
             s["energy_balance_residual"][-1]))
    print("  largest tangential contact work in a step: %.6g (step %d, t = %g s); largest normal: %.2g"
          % (wt[k], int(s["step"][k]), s["time"][k], max(wn[1:])))
    print("  steps with contact_positive_work_count > 0: %s"
          % [int(s["step"][i]) for i in range(len(wt)) if s["contact_positive_work_count"][i] > 0])
    print("  steps with a contact impulse: %s"
          % ", ".join("%d (W_T %.4g)" % (int(s["step"][i]), wt[i])
                      for i in range(len(wt)) if s["contact_normal_force"][i] > 0))
    if bodies is not None:
        print("  at the end: turned by %.4f rad; kinetic energy of rotation %.4g, of translation %.4g"
              % (float(bodies["rotation_angle"]), s["kinetic_energy_rotation"][-1], s["kinetic_energy_translation"][-1]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("standard")
    parser.add_argument("fremond")
    parser.add_argument("--output", default=None, help="PNG file (default: tilted_bar.png in FREMOND_OUTPUT)")
    args = parser.parse_args()
    runs = [("Moreau–Jean standard", read(args.standard), "tab:red"),
            ("Moreau–Jean Frémond", read(args.fremond), "tab:blue")]
    for (label, s, _), directory in zip(runs, (args.standard, args.fremond)):
        report(label, s, read_bodies(directory))

    fig, (ax_step, ax_cum) = plt.subplots(2, 1, figsize=(7, 6.5))
    h = runs[0][1]["time"][1] - runs[0][1]["time"][0]
    width = 0.35 * h * 1e3
    for i, (label, s, colour) in enumerate(runs):
        t = [x * 1e3 for x in s["time"]]
        wt = per_step(s["contact_work_tangential"])
        shift = (i - 0.5) * width
        ax_step.bar([x - 0.5 * h * 1e3 + shift for x in t], wt, width=width, color=colour, label=label)
        for x, w, n in zip(t, wt, s["contact_positive_work_count"]):
            if w > 0:
                ax_step.annotate("+%.4f J/m\n(%d contact with positive work)" % (w, n), (x - 0.5 * h * 1e3, w),
                                 xytext=(8, 2), textcoords="offset points", fontsize=8, color=colour)
        ax_cum.plot(t, s["contact_work_tangential"], "-", drawstyle="steps-post", color=colour, linewidth=1.6,
                    label=label)
    ax_step.axhline(0, color="k", linewidth=0.6)
    ax_step.set_xlim(0, 8)
    ax_step.set_ylim(-0.1, 0.06)
    # The first impact's work is far below the zoomed axis: its value goes into the label.
    first = [min(k for k, f in enumerate(s["contact_normal_force"]) if f > 0) for _, s, _ in runs]
    works = ["%.2f" % per_step(s["contact_work_tangential"])[k] for (_, s, _), k in zip(runs, first)]
    same = len(set(first)) == 1 and len(set(works)) == 1
    label = "step %d (first impact): %s J/m, both schemes" % (first[0], works[0]) if same else \
        "first impact: " + ", ".join("step %d %s J/m" % (k, w) for k, w in zip(first, works))
    ax_step.annotate(label.replace("-", "−"), (1.5, -0.1), xytext=(2.2, -0.085), fontsize=8,
                     arrowprops={"arrowstyle": "->", "linewidth": 0.6})
    ax_step.set_xlabel("time [ms] (bar over the step's interval)")
    ax_step.set_ylabel("tangential contact work\nof the step [J/m]")
    ax_step.set_title("Tilted bar (135°) falling onto a floor, e = 1, μ = 0.1, θ = ½, h = 1 ms\n%s"
                      % kinematics(args.fremond), fontsize=10)
    ax_step.legend(fontsize=8, loc="upper left")
    ax_cum.axhline(0, color="k", linewidth=0.6)
    ax_cum.set_xlabel("time [ms]")
    ax_cum.set_ylabel("cumulated tangential\ncontact work [J/m]")
    ax_cum.legend(fontsize=8)
    for ax in (ax_step, ax_cum):
        ax.grid(alpha=0.3)
    fig.tight_layout()
    output = args.output or os.path.join(args.fremond, "tilted_bar.png")
    fig.savefig(output, dpi=90)
    print("plot: " + output)


if __name__ == "__main__":
    main()
