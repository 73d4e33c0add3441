#!/usr/bin/env python3
"""Refinement study: runs one percussion parameter file over several refinement levels and/or time
steps, collects quantities of interest, and writes a convergence table (CSV and markdown) with
observed orders, and PNG plots (matplotlib).

    scripts/percussion_study.py BASE.prm [--levels 0 1 2 3] [--vary both|time|mesh]
        [--time-step H0] [--ranks N] [--exact NAME=VALUE ...] [--probe-time T ...]
        [--set "Section/Entry=value" ...] [--output DIR] [--executable PATH] [--no-plots]

Level l runs BASE.prm with
  --vary time:  Time integration/Time step = H0 / 2^l (mesh as in the file);
  --vary mesh:  Mesh/Global refinements = R0 + l (time step as in the file);
  --vary both:  both (fixed Courant number; the default).
H0 and R0 are the file's values, or those of --time-step and of --set "Time integration/Time step=..."
and --set "Mesh/Global refinements=..." (which set level 0 rather than every run).

Quantities (columns of the table; those a run does not have are left empty):
  energy_ratio          E_end / E_0 (total_energy of statistics.csv)
  contact_start         time of the first step with an active contact
  contact_duration      time step x number of steps with an active contact
  peak_contact_force    largest contact_normal_force
  mean_contact_force    mean contact_normal_force over the steps with contact
  final_velocity_x...   mean velocity of the first body at the end (bodies.csv), e.g. the rebound
  u_x(p1,t=T)...        displacement of probe p at time T (with --probe-time and Output/Probe points;
                        linear interpolation between steps)
Errors: with --exact NAME=VALUE, |Q_l - exact| and the order log2(e_l / e_{l+1}) between levels;
otherwise the difference |Q_l - Q_{l+1}| to the next level (the finest pair included) and the
observed order from three consecutive levels, log2(|Q_l - Q_{l+1}| / |Q_{l+1} - Q_{l+2}|) (step and
mesh sizes halve from level to level). No order where an error or a difference lies below 1e-9 of
the quantity's size (its note column says 'round-off'); a negative order is noted 'not converging'.
Runs with mpirun when --ranks > 1. The runs, tables and plots go to --output (default: study in the
current directory).
Only Python's standard library is needed for the tables; plots need python3-matplotlib (Debian).
"""
import argparse
import csv
import math
import os
import re
import shutil
import subprocess
import sys
import time


def fail(message):
    print("percussion_study: error: " + message, file=sys.stderr)
    sys.exit(1)


def read_entry(prm_path, section_path, entry):
    """The value of `set ENTRY = value` inside `subsection` SECTION_PATH (a list) of a .prm file,
    or None. Comments (#) are ignored; continuation lines are not supported."""
    stack = []
    with open(prm_path) as f:
        for line in f:
            text = line.split("#", 1)[0].strip()
            if not text:
                continue
            m = re.match(r"subsection\s+(.*)$", text)
            if m:
                stack.append(m.group(1).strip())
                continue
            if text == "end":
                if stack:
                    stack.pop()
                continue
            m = re.match(r"set\s+(.*?)\s*=\s*(.*)$", text)
            if m and stack == section_path and m.group(1) == entry:
                return m.group(2).strip()
    return None


def read_csv(path):
    if not os.path.exists(path):
        return None
    with open(path) as f:
        rows = list(csv.DictReader(f))
    return rows


def quantities(directory, h, probe_times):
    """Quantities of interest of one run (dict name -> float)."""
    q = {}
    stats = read_csv(os.path.join(directory, "statistics.csv"))
    if not stats:
        fail("no statistics.csv in " + directory)
    e0 = float(stats[0]["total_energy"])
    if e0 != 0:
        q["energy_ratio"] = float(stats[-1]["total_energy"]) / e0
    if "contact_active" in stats[0]:
        contact = [r for r in stats if float(r["contact_active"]) > 0]
        if contact:
            q["contact_start"] = float(contact[0]["time"])
            q["contact_duration"] = h * len(contact)
            forces = [float(r["contact_normal_force"]) for r in contact]
            q["peak_contact_force"] = max(forces)
            q["mean_contact_force"] = sum(forces) / len(forces)
    bodies = read_csv(os.path.join(directory, "bodies.csv"))
    if bodies:
        first = bodies[0]["body"]
        last = [r for r in bodies if r["body"] == first][-1]
        for key in last:
            if key.startswith("mean_velocity_"):
                q["final_velocity_" + key[len("mean_velocity_"):]] = float(last[key])
    probes = read_csv(os.path.join(directory, "probes.csv"))
    if probes and probe_times:
        fields = [k for k in probes[0] if re.match(r"[uv]_[xyz]$", k)]
        by_probe = {}
        for r in probes:
            by_probe.setdefault(r["probe"], []).append(r)
        for p, rows in by_probe.items():
            times = [float(r["time"]) for r in rows]
            for t in probe_times:
                if not times[0] <= t <= times[-1] + 1e-12 * abs(times[-1]):
                    fail("probe time %g lies outside the run [%g, %g] (%s)" % (t, times[0], times[-1], directory))
                k = max(i for i in range(len(times)) if times[i] <= t + 1e-12 * max(1.0, abs(t)))
                k = min(k, len(times) - 2) if len(times) > 1 else 0
                for field in fields:
                    if len(times) == 1:
                        value = float(rows[0][field])
                    else:
                        w = (t - times[k]) / (times[k + 1] - times[k])
                        value = (1 - w) * float(rows[k][field]) + w * float(rows[k + 1][field])
                    q["%s(p%s,t=%g)" % (field, p, t)] = value
    return q


def quantity_unit(name):
    """The unit of a quantity of the table, for the axis labels (2D runs are per metre of thickness)."""
    if name == "energy_ratio":
        return "[-]"
    if name in ("contact_start", "contact_duration"):
        return "[s]"
    if name.endswith("contact_force"):
        return "[N] (2D: N/m)"
    if name.startswith("final_velocity_") or name.startswith("v_"):
        return "[m/s]"
    if name.startswith("u_"):
        return "[m]"
    return ""


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", help="the parameter file to refine")
    parser.add_argument("--levels", type=int, nargs="+", default=[0, 1, 2, 3])
    parser.add_argument("--vary", choices=["both", "time", "mesh"], default="both")
    parser.add_argument("--time-step", type=float, help="time step at level 0 (default: the file's)")
    parser.add_argument("--ranks", type=int, default=1)
    parser.add_argument("--exact", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--probe-time", type=float, action="append", default=[], metavar="T")
    parser.add_argument("--set", action="append", default=[], metavar="Section/Entry=value",
                        help="an override passed to every run")
    parser.add_argument("--output", default="study",
                        help="directory of the runs, tables and plots (default: ./study)")
    parser.add_argument("--executable", default=None)
    parser.add_argument("--no-plots", action="store_true")
    args = parser.parse_args()
    if not os.path.isfile(args.base):
        fail("parameter file '%s' not found" % args.base)
    if len(args.levels) < 2:
        fail("--levels needs at least two levels")
    return args


def find_executable(args):
    exe = args.executable or shutil.which("percussion")
    if exe is None:
        here = os.path.dirname(os.path.abspath(__file__))
        candidate = os.path.join(here, "..", "build", "applications", "percussion", "percussion")
        exe = candidate if os.path.exists(candidate) else None
    if exe is None or not os.path.exists(exe):
        fail("no percussion executable (give --executable)")
    return exe


def level_zero(args):
    """(H0, R0, whether R0 was overridden, the overrides passed to every run). Overrides of the refined
    entries set the level-0 values (they must not override every level)."""
    passthrough = []
    h0, r0_override = args.time_step, None
    for item in args.set:
        key, _, value = item.partition("=")
        key = "/".join(part.strip() for part in key.split("/"))
        try:
            if key == "Time integration/Time step" and h0 is None:
                h0 = float(value)
                continue
            if key == "Mesh/Global refinements":
                r0_override = int(value)
                continue
        except ValueError:
            fail("--set '%s': not a number" % item)
        passthrough.append(item)
    if h0 is None:
        text = read_entry(args.base, ["Time integration"], "Time step")
        try:
            h0 = float(text)
        except (TypeError, ValueError):
            fail("'Time integration/Time step' of %s is not a plain number (%s): give --time-step" % (args.base, text))
    r0 = 0
    if r0_override is not None:
        r0 = r0_override
    elif args.vary in ("mesh", "both"):
        text = read_entry(args.base, ["Mesh"], "Global refinements")
        try:
            r0 = int(text) if text is not None else 0
        except ValueError:
            fail("'Mesh/Global refinements' of %s is not an integer (%s)" % (args.base, text))
    return h0, r0, r0_override is not None, passthrough


def run_levels(args, exe):
    """Runs every level; a list of {level, time_step, refinements, dofs, q} in the order of --levels."""
    h0, r0, r0_overridden, passthrough = level_zero(args)
    os.makedirs(args.output, exist_ok=True)
    base_dir = os.path.dirname(os.path.abspath(args.base))
    results = []
    for n, level in enumerate(args.levels):
        h = h0 / 2 ** level if args.vary in ("time", "both") else h0
        refinements = r0 + level if args.vary in ("mesh", "both") else r0
        directory = os.path.abspath(os.path.join(args.output, "level_%d" % level))
        overrides = ["Time integration/Time step=%.17g" % h, "Output/Directory=" + directory,
                     "Output/VTU interval=0", "Output/Progress interval=0", "Output/Write bodies=true"]
        if args.vary in ("mesh", "both") or r0_overridden:
            overrides.append("Mesh/Global refinements=%d" % refinements)
        overrides += passthrough
        command = ([exe] if args.ranks <= 1 else ["mpirun", "-np", str(args.ranks), exe]) + [os.path.abspath(args.base)]
        for o in overrides:
            command += ["--set", o]
        start = time.time()
        print("[%d/%d] level %d: time step %.6g, global refinements %d ..." % (n + 1, len(args.levels), level, h, refinements),
              end="", flush=True)
        run = subprocess.run(command, cwd=base_dir, capture_output=True, text=True)
        if run.returncode != 0:
            print(" failed")
            fail("run of level %d failed (exit %d):\n%s" % (level, run.returncode, (run.stderr or run.stdout)[-2000:]))
        dofs = re.search(r"(\d+) DoFs", run.stdout)
        print(" done in %.1f s" % (time.time() - start), flush=True)
        results.append({"level": level, "time_step": h, "refinements": refinements,
                        "dofs": int(dofs.group(1)) if dofs else 0, "q": quantities(directory, h, args.probe_time)})
    return results


# Differences (or errors) below this fraction of a quantity's size are round-off: solver tolerances
# and summation order move the last digits from run to run, and an order computed from them means
# nothing (e.g. a conserved energy, or a velocity component that stays zero).
ROUND_OFF = 1e-9
NOTE_ROUND_OFF = "round-off"
NOTE_NOT_CONVERGING = "not converging"


def order_of(coarse, fine, level_step, floor):
    """(order, note) of two successive errors or differences: no order at round-off, a note on a
    negative order (the finer levels move away from each other, or from the exact value)."""
    if coarse <= floor or fine <= floor:
        return None, NOTE_ROUND_OFF
    order = math.log2(coarse / fine) / level_step
    return order, (NOTE_NOT_CONVERGING if order < 0 else None)


def build_table(results, exact):
    """One row per level: the quantities, their errors (with --exact) or differences to the next
    level (the finest pair included), the orders and their notes."""
    names = []
    for r in results:
        for k in r["q"]:
            if k not in names:
                names.append(k)
    for name in exact:
        if name not in names:
            fail("--exact names '%s', which no run has (quantities: %s)" % (name, ", ".join(names)))

    def family(name):
        return re.sub(r"_[xyz](?=$|\()", "", name)

    # A quantity's size: its largest value over the levels and over the components of its family
    # (a component that stays zero is at round-off relative to the others).
    scale = {}
    for r in results:
        for k, v in r["q"].items():
            scale[family(k)] = max(scale.get(family(k), 0.0), abs(v))
    table = []
    for i, r in enumerate(results):
        row = {"level": r["level"], "time_step": r["time_step"], "refinements": r["refinements"], "dofs": r["dofs"]}
        for name in names:
            row[name] = value = r["q"].get(name)
            if value is not None and name in exact:
                row[name + " error"] = abs(value - exact[name])
            nxt = results[i + 1]["q"].get(name) if i + 1 < len(results) else None
            if value is None or nxt is None:
                continue
            level_step = results[i + 1]["level"] - r["level"]
            floor = ROUND_OFF * max(scale[family(name)], abs(exact.get(name, 0.0)))
            if name in exact:
                order, note = order_of(abs(value - exact[name]), abs(nxt - exact[name]), level_step, floor)
            else:
                row[name + " difference"] = abs(value - nxt)
                after = results[i + 2]["q"].get(name) if i + 2 < len(results) else None
                if after is None:
                    continue
                order, note = order_of(abs(value - nxt), abs(nxt - after), level_step, floor)
            if order is not None:
                row[name + " order"] = order
            if note is not None:
                row[name + " note"] = note
        table.append(row)
    columns = ["level", "time_step", "refinements", "dofs"]
    for name in names:
        columns.append(name)
        for suffix in (" error", " difference", " order", " note"):
            if any(name + suffix in row for row in table):
                columns.append(name + suffix)
    return names, table, columns


def write_tables(args, table, columns):
    csv_path = os.path.join(args.output, "study.csv")
    with open(csv_path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(columns)
        for row in table:
            writer.writerow(["" if row.get(c) is None else ("%.10g" % row[c] if isinstance(row[c], float) else row[c]) for c in columns])
    md_path = os.path.join(args.output, "study.md")
    with open(md_path, "w") as f:
        f.write("Refinement study of `%s` (vary %s, levels %s)\n\n" % (os.path.basename(args.base), args.vary,
                                                                     " ".join(map(str, args.levels))))
        f.write("| " + " | ".join(columns) + " |\n|" + "---|" * len(columns) + "\n")
        for row in table:
            cells = []
            for c in columns:
                v = row.get(c)
                cells.append("" if v is None else ("%.2f" % v if c.endswith(" order") else ("%.6g" % v if isinstance(v, float) else str(v))))
            f.write("| " + " | ".join(cells) + " |\n")
        f.write("\nA difference is |Q_l - Q_l'| to the next level l' (the finest pair included); an order is "
                "log2 of the ratio of two successive errors (--exact) or differences, so the finest level's error "
                "and the finest difference have none. No order where an error or difference lies below %g of the quantity's size "
                "(note '%s'); a negative order is noted '%s'.\n" % (ROUND_OFF, NOTE_ROUND_OFF, NOTE_NOT_CONVERGING))
    print("table: %s, %s" % (csv_path, md_path))
    with open(md_path) as f:
        print(f.read(), end="")


def plot_study(args, names, table, exact):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError as error:
        # The tables are written; say why the plots are not (exit 0: the study itself succeeded).
        print("percussion_study: no plots: matplotlib cannot be imported (%s); on Debian: apt-get install "
              "python3-matplotlib. The tables above are complete." % error, file=sys.stderr)
        return
    # The abscissa: the time step, or with --vary mesh (one time step) the cell size relative to level 0.
    if args.vary == "mesh":
        size = [2.0 ** -(row["level"] - table[0]["level"]) for row in table]
        size_label = "cell size / cell size of level %d [-]" % table[0]["level"]
    else:
        size = [row["time_step"] for row in table]
        size_label = "time step h [s]" + (" (cells refined with h)" if args.vary == "both" else "")
    for name in names:
        key = name + " error" if name in exact else name + " difference"
        points = [(s, row[key]) for s, row in zip(size, table) if row.get(key)]
        unit = quantity_unit(name)
        fig, ax = plt.subplots(figsize=(5, 4))
        if len(points) >= 2:
            # Convergence: the error (or the difference to the next level) with reference slopes.
            xs, ys = zip(*points)
            ax.loglog(xs, ys, "o-", label=name)
            for order, style in ((1, ":"), (2, "--")):
                ax.loglog(xs, [ys[-1] * (x / xs[-1]) ** order for x in xs], "k" + style, linewidth=0.8,
                          label="order %d" % order)
            ax.set_ylabel(("|error| " if name in exact else "|difference to the next level| ") + unit)
        else:
            # Too few levels for a convergence plot: the values themselves.
            values = [(s, row[name]) for s, row in zip(size, table) if row.get(name) is not None]
            if not values:
                plt.close(fig)
                print("no plot for %s: no run has a value" % name)
                continue
            xs, ys = zip(*values)
            ax.semilogx(xs, ys, "o-", label=name)
            if name in exact:
                ax.axhline(exact[name], color="k", linestyle="--", linewidth=0.8, label="exact")
            ax.set_ylabel("%s %s" % (name, unit))
        # The levels' own sizes as ticks (a study spans one or two decades: few powers of ten).
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_xticks(sorted(set(size)))
        ax.set_xticklabels(["%.3g" % x for x in sorted(set(size))])
        ax.set_xlabel(size_label)
        ax.set_title(name)
        ax.legend()
        fig.tight_layout()
        png = os.path.join(args.output, re.sub(r"[^A-Za-z0-9_.=-]+", "_", name) + ".png")
        fig.savefig(png, dpi=100)
        plt.close(fig)
        print("plot: " + png)


def main():
    args = parse_arguments()
    exe = find_executable(args)
    exact = {}
    for item in args.exact:
        name, _, value = item.partition("=")
        try:
            exact[name.strip()] = float(value)
        except ValueError:
            fail("--exact '%s' is not NAME=number" % item)
    results = run_levels(args, exe)
    names, table, columns = build_table(results, exact)
    write_tables(args, table, columns)
    if not args.no_plots:
        plot_study(args, names, table, exact)


if __name__ == "__main__":
    main()
