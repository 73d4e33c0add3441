#!/usr/bin/env python3
"""Plots a run's statistics.csv against time: the energies, the works and dissipations, the energy
balance residual, the contact force and the contact counts (active, sticking, sliding), one panel
each (the contact panels only when the run has contact columns with contact), and the step size
when it varies (adaptive time steps: column time_step, on a logarithmic axis).

    scripts/plot_statistics.py OUTPUT_DIRECTORY/statistics.csv [--output statistics.png] [--title TEXT]

Every energy, work and dissipation column of the file that is not zero throughout is drawn
(impact_dissipation and friction_dissipation are the contact works with the opposite sign and are
left out). The units follow the run's dimension, read from the parameters.prm that percussion
writes beside statistics.csv: J and N in 1D and 3D, J/m and N/m (per metre of thickness) in 2D.
The picture goes to statistics.png beside the CSV unless --output names another file.

Needs python3-matplotlib (Debian). Column meanings: doc/user_guide.md, "statistics.csv".
"""
import argparse
import csv
import os
import re
import sys

# (column, label) of the energies at the end of each step, then of the cumulated works and
# dissipations; any other column named *_energy, *_work or *_dissipation is drawn too, under its name.
ENERGIES = (("kinetic_energy", "kinetic"), ("kinetic_energy_translation", "kinetic, translation"),
            ("kinetic_energy_rotation", "kinetic, rotation"), ("strain_energy", "strain"),
            ("viscoelastic_energy", "viscoelastic (Maxwell branches)"), ("algorithmic_energy", "algorithmic"),
            ("total_energy", "total E"))
WORKS = (("external_work", "external work"), ("damping_work", "damping work"),
         ("contact_work_normal", "contact work (normal)"), ("contact_work_tangential", "contact work (tangential)"),
         ("numerical_dissipation", "numerical dissipation"), ("viscoelastic_dissipation", "viscoelastic dissipation"),
         ("projection_energy", "projection energy"), ("frame_energy", "frame energy"))
LEFT_OUT = ("impact_dissipation", "friction_dissipation", "energy_balance_residual")


def run_dimension(statistics):
    """The 'Dimension' of the run whose statistics.csv this is, from the parameters.prm written beside
    it, or None when there is none."""
    prm = os.path.join(os.path.dirname(os.path.abspath(statistics)), "parameters.prm")
    if not os.path.isfile(prm):
        return None
    depth = 0
    with open(prm) as f:
        for line in f:
            text = line.split("#", 1)[0].strip()
            if text.startswith("subsection "):
                depth += 1
            elif text == "end":
                depth -= 1
            elif depth == 0:
                m = re.match(r"set\s+Dimension\s*=\s*(\d)", text)
                if m:
                    return int(m.group(1))
    return None


def units(dimension):
    """(energy unit, force unit) of a run of this dimension (None: not known)."""
    if dimension == 2:
        return "J/m", "N/m"
    if dimension in (1, 3):
        return "J", "N"
    return "J (2D: J/m)", "N (2D: N/m)"


def energy_columns(header):
    """The (energies, works) to draw: the known columns the file has, then the other energy-like ones."""
    known = {name for name, _ in ENERGIES + WORKS} | set(LEFT_OUT)
    others = [(name, name) for name in header
              if name not in known and re.search(r"(_energy|_work|_dissipation)$", name)]
    energies = [(n, label) for n, label in ENERGIES if n in header]
    works = [(n, label) for n, label in WORKS if n in header]
    return energies + [o for o in others if o[0].endswith("_energy")], \
        works + [o for o in others if not o[0].endswith("_energy")]


def draw_lines(ax, t, column, names, ylabel):
    drawn = 0
    for name, label in names:
        values = column(name)
        if any(v != 0 for v in values):
            ax.plot(t, values, label=label)
            drawn += 1
    ax.set_ylabel(ylabel)
    if drawn:
        ax.legend(fontsize=7, ncol=2)
    ax.grid(alpha=0.3)


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

    energy_unit, force_unit = units(run_dimension(args.statistics))
    t = column("time")
    has_contact = "contact_active" in rows[0] and any(v > 0 for v in column("contact_active"))
    step = column("time_step")
    adaptive = step is not None and len(set(step[1:])) > 1
    panels = (5 if has_contact else 3) + (1 if adaptive else 0)
    fig, axes = plt.subplots(panels, 1, figsize=(7, 2.4 * panels), sharex=True)

    energies, works = energy_columns(list(rows[0]))
    draw_lines(axes[0], t, column, energies, "energy [%s]" % energy_unit)
    draw_lines(axes[1], t, column, works, "work, dissipation [%s]" % energy_unit)

    ax = axes[2]
    residual = column("energy_balance_residual")
    if residual is not None:
        ax.plot(t, residual, color="k")
    ax.set_ylabel("balance residual [%s]" % energy_unit)
    ax.grid(alpha=0.3)

    if has_contact:
        ax = axes[3]
        ax.plot(t, column("contact_normal_force"), color="tab:red")
        ax.set_ylabel("contact force [%s]" % force_unit)
        ax.grid(alpha=0.3)
        ax = axes[4]
        for name, label in (("contact_active", "active"), ("contact_sticking", "sticking"), ("contact_sliding", "sliding")):
            ax.step(t, column(name), where="post", label=label)
        ax.set_ylabel("contacts")
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
    if adaptive:
        # Each row's step, drawn over the step it covers (it ends at the row's time).
        ax = axes[-1]
        ax.step(t[1:], step[1:], where="pre", color="tab:purple")
        ax.set_yscale("log")
        ax.set_ylabel("time step [s]")
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
