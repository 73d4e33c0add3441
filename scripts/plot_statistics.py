#!/usr/bin/env python3
"""Plots a run's statistics.csv against time: energies and works, the energy balance residual,
the contact force and the contact counts (active, sticking, sliding), one panel each (the contact
panels only when the run has contact columns with contact).

    scripts/plot_statistics.py OUTPUT_DIRECTORY/statistics.csv [--output statistics.png] [--title TEXT]

Needs python3-matplotlib (Debian). Column meanings: doc/user_guide.md, "statistics.csv".
"""
import argparse
import csv
import os
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("statistics", help="a statistics.csv written by percussion")
    parser.add_argument("--output", help="PNG file (default: statistics.png beside the CSV)")
    parser.add_argument("--title", default=None)
    args = parser.parse_args()
    if not os.path.isfile(args.statistics):
        sys.exit("plot_statistics: error: '%s' not found" % args.statistics)
    with open(args.statistics) as f:
        rows = list(csv.DictReader(f))
    if not rows or "time" not in rows[0]:
        sys.exit("plot_statistics: error: '%s' is not a percussion statistics.csv (no rows or no 'time' column)"
                 % args.statistics)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot_statistics: error: needs matplotlib (Debian: apt-get install python3-matplotlib)")

    def column(name):
        return [float(r[name]) for r in rows] if name in rows[0] else None

    t = column("time")
    has_contact = "contact_active" in rows[0] and any(v > 0 for v in column("contact_active"))
    panels = 4 if has_contact else 2
    fig, axes = plt.subplots(panels, 1, figsize=(7, 2.4 * panels), sharex=True)

    ax = axes[0]
    for name, label in (("kinetic_energy", "kinetic"), ("strain_energy", "strain"), ("total_energy", "total E"),
                        ("external_work", "external work"), ("damping_work", "damping work"),
                        ("contact_work_normal", "contact work (normal)"),
                        ("contact_work_tangential", "contact work (tangential)"),
                        ("numerical_dissipation", "numerical dissipation")):
        values = column(name)
        if values is not None and any(v != 0 for v in values):
            ax.plot(t, values, label=label)
    ax.set_ylabel("energy, work [J]")
    ax.legend(fontsize=7, ncol=2)
    ax.grid(alpha=0.3)

    ax = axes[1]
    residual = column("energy_balance_residual")
    if residual is not None:
        ax.plot(t, residual, color="k")
    ax.set_ylabel("balance residual [J]")
    ax.grid(alpha=0.3)

    if has_contact:
        ax = axes[2]
        ax.plot(t, column("contact_normal_force"), color="tab:red")
        ax.set_ylabel("contact force [N]")
        ax.grid(alpha=0.3)
        ax = axes[3]
        for name, label in (("contact_active", "active"), ("contact_sticking", "sticking"), ("contact_sliding", "sliding")):
            ax.step(t, column(name), where="post", label=label)
        ax.set_ylabel("contacts")
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
    axes[-1].set_xlabel("time [s]")
    if args.title:
        fig.suptitle(args.title)
    fig.tight_layout()
    output = args.output or os.path.join(os.path.dirname(os.path.abspath(args.statistics)), "statistics.png")
    fig.savefig(output, dpi=100)
    print("plot: " + output)


if __name__ == "__main__":
    main()
