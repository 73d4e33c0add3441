#!/usr/bin/env python3
"""Runs viscoelastic_ball.prm three times — the viscoelastic ball, the same ball elastic with
E = E_inf (the long-term modulus) and elastic with E = E_inf + E1 + E2 (the instantaneous modulus) —,
prints the figures of README.md's "Measured" table and plots the contact force and the energy
columns of statistics.csv against time.

    python3 plot_viscoelastic_ball.py [--percussion ../../build/applications/percussion/percussion]
                                      [--output FILE.png] [--no-run]

Each run writes to output_<case>/ in this directory (no VTU); --no-run reads existing ones. The
picture goes to output_viscoelastic/viscoelastic_ball.png unless --output names another file
(`--output viscoelastic_ball.png` regenerates the README's picture).
"""
import argparse
import csv
import os
import subprocess

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

HERE = os.path.dirname(os.path.abspath(__file__))
ELASTIC = ["Materials/Prony moduli=", "Materials/Prony times="]
CASES = [("viscoelastic", "viscoelastic (E∞ = 10 MPa, E₁ = 20 MPa, E₂ = 10 MPa)", []),
         ("elastic_long", "elastic, E = E∞ = 10 MPa", ELASTIC),
         ("elastic_instantaneous", "elastic, E = E∞ + E₁ + E₂ = 40 MPa",
          ELASTIC + ["Materials/Young's modulus=40e6"])]


def table(path):
    with open(path) as f:
        return [{k: float(v) for k, v in r.items()} for r in csv.DictReader(f)]


def figures(directory):
    s = table(os.path.join(directory, "statistics.csv"))
    b = table(os.path.join(directory, "bodies.csv"))
    h = s[1]["time"] - s[0]["time"]
    contact = [r for r in s if r["contact_normal_force"] != 0.0]
    return {"E_end/E_0": s[-1]["total_energy"] / s[0]["total_energy"],
            "rebound v_z [m/s]": b[-1]["mean_velocity_z"],
            "e = v_z/v0": b[-1]["mean_velocity_z"] / -b[0]["mean_velocity_z"],
            "peak force [N]": max(r["contact_normal_force"] for r in s),
            "contact duration [ms]": len(contact) * h * 1e3,
            "viscoelastic dissipation [mJ]": s[-1]["viscoelastic_dissipation"] * 1e3,
            "impact dissipation [mJ]": s[-1]["impact_dissipation"] * 1e3,
            "largest |residual| / E_0": max(abs(r["energy_balance_residual"]) for r in s) / s[0]["total_energy"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--percussion", default=os.path.join(HERE, "../../build/applications/percussion/percussion"))
    parser.add_argument("--output", default=os.path.join(HERE, "output_viscoelastic", "viscoelastic_ball.png"),
                        help="PNG file (default: output_viscoelastic/viscoelastic_ball.png in this directory)")
    parser.add_argument("--no-run", action="store_true")
    args = parser.parse_args()

    fig, (ax_force, ax_energy) = plt.subplots(1, 2, figsize=(13.5, 4.5))
    for (name, label, overrides), colour in zip(CASES, ["C3", "C0", "C2"]):
        directory = os.path.join(HERE, "output_" + name)
        if not args.no_run:
            command = [args.percussion, "viscoelastic_ball.prm"]
            for o in overrides + ["Output/Directory=" + directory, "Output/VTU interval=0",
                                  "Output/Progress interval=0"]:
                command += ["--set", o]
            subprocess.run(command, cwd=HERE, check=True, stdout=subprocess.DEVNULL)
        print(name)
        for key, value in figures(directory).items():
            print("  %-32s %.6g" % (key, value))
        s = table(os.path.join(directory, "statistics.csv"))
        t = [r["time"] * 1e3 for r in s]
        ax_force.plot(t, [r["contact_normal_force"] for r in s], colour, label=label)
        if name == "elastic_instantaneous":
            continue
        style = "-" if name == "viscoelastic" else "--"
        ax_energy.plot(t, [r["kinetic_energy"] * 1e3 for r in s], colour + style, label="kinetic, " + name)
        ax_energy.plot(t, [r["strain_energy"] * 1e3 for r in s], colour + style, alpha=0.5,
                       label="strain, " + name)
        if name == "viscoelastic":
            ax_energy.plot(t, [r["viscoelastic_energy"] * 1e3 for r in s], "C1-", label="viscoelastic (branches)")
            ax_energy.plot(t, [r["viscoelastic_dissipation"] * 1e3 for r in s], "k-", label="viscoelastic dissipation")
            ax_energy.plot(t, [r["total_energy"] * 1e3 for r in s], "C3:", label="total, viscoelastic")
    ax_force.set_xlabel("time [ms]")
    ax_force.set_ylabel("contact normal force [N]")
    ax_force.set_title("contact force")
    ax_force.legend(fontsize=8)
    ax_energy.set_xlabel("time [ms]")
    ax_energy.set_ylabel("energy [mJ]")
    ax_energy.set_title("energies (statistics.csv)")
    ax_energy.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    if os.path.dirname(args.output):
        os.makedirs(os.path.dirname(args.output), exist_ok=True)
    fig.savefig(args.output, dpi=110)
    print("wrote", args.output)


if __name__ == "__main__":
    main()
