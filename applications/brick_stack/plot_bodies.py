#!/usr/bin/env python3
"""Plots the bricks' mean velocities (bodies.csv) and the active contacts (statistics.csv) of a
brick_stack run against time.

    /usr/bin/python3 plot_bodies.py [OUTPUT_DIRECTORY] [--output FILE.png]

The picture goes to brick_stack_bodies.png in OUTPUT_DIRECTORY unless --output names another file
(`--output brick_stack_bodies.png` regenerates the README's picture).

Panels: the mean vertical velocity of each brick (momentum_z / mass), its mean horizontal velocity
along x and y, and the number of active contacts of the step. Needs python3-matplotlib.
"""
import argparse
import collections
import csv
import os
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", nargs="?", default="output",
                        help="the run's output directory (default: output)")
    parser.add_argument("--output", default=None,
                        help="PNG file (default: brick_stack_bodies.png in the output directory)")
    args = parser.parse_args()
    bodies_csv = os.path.join(args.directory, "bodies.csv")
    statistics_csv = os.path.join(args.directory, "statistics.csv")
    for path in (bodies_csv, statistics_csv):
        if not os.path.isfile(path):
            sys.exit("plot_bodies: error: '%s' not found (run with Output/Write bodies = true)" % path)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series = collections.defaultdict(lambda: collections.defaultdict(list))
    with open(bodies_csv) as f:
        for row in csv.DictReader(f):
            s = series[int(row["body"])]
            s["t"].append(1e3 * float(row["time"]))
            for c in "xyz":
                s[c].append(float(row["mean_velocity_" + c]))
    with open(statistics_csv) as f:
        rows = list(csv.DictReader(f))
    t = [1e3 * float(r["time"]) for r in rows]
    active = [int(r["contact_active"]) for r in rows]

    fig, axes = plt.subplots(4, 1, figsize=(7.5, 8.5), sharex=True,
                             gridspec_kw={"height_ratios": [3, 1.6, 1.6, 1.6]})
    for body in sorted(series):
        s = series[body]
        label = "brick %d" % body
        axes[0].plot(s["t"], s["z"], lw=1.2, label=label)
        axes[1].plot(s["t"], s["x"], lw=1.2, label=label)
        axes[2].plot(s["t"], s["y"], lw=1.2, label=label)
    axes[0].set_ylabel("mean $v_z$ [m/s]")
    axes[0].legend(loc="lower right", ncol=4, fontsize=8)
    axes[0].set_title("brick_stack: mean velocities of the bricks (bodies.csv)")
    axes[1].set_ylabel("mean $v_x$ [m/s]")
    axes[2].set_ylabel("mean $v_y$ [m/s]")
    axes[3].step(t, active, where="post", lw=1.0, color="k")
    axes[3].set_ylabel("active contacts")
    axes[3].set_xlabel("time [ms]")
    for ax in axes:
        ax.grid(True, lw=0.3)
    fig.tight_layout()
    output = args.output or os.path.join(args.directory, "brick_stack_bodies.png")
    fig.savefig(output, dpi=80)
    print("wrote %s" % output)


if __name__ == "__main__":
    main()
