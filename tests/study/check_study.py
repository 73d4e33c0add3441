#!/usr/bin/env python3
"""CTest of scripts/percussion_study.py: on small 1D cases the driver reports the
known orders of the schemes -- 2 for Moreau-Jean theta = 1/2 without contact (a probe's displacement,
observed order from three levels, tolerance 0.05), 1 with impact (the first contact time against
its exact value g0/|v0| = 5e-4 s, tolerance 0.05) --, gives the finest pair's difference without an
order, no order at round-off and notes a negative order as not converging, and writes its CSV and
markdown tables and the PNG plots, one per quantity also for two levels without --exact;
scripts/plot_statistics.py draws a run's statistics. Usage: check_study.py PERCUSSION_EXECUTABLE
WORK_DIRECTORY"""
import csv
import os
import re
import shutil
import subprocess
import sys

exe, work = sys.argv[1], sys.argv[2]
here = os.path.dirname(os.path.abspath(__file__))
driver = os.path.join(here, "..", "..", "scripts", "percussion_study.py")
shutil.rmtree(work, ignore_errors=True)
failures = []


def study(prm, output, *extra):
    command = [sys.executable, driver, os.path.join(here, prm), "--vary", "time", "--output", output,
               "--executable", exe] + list(extra)
    run = subprocess.run(command, capture_output=True, text=True)
    print(run.stdout)
    if run.returncode != 0:
        print(run.stderr)
        sys.exit("the driver failed on " + prm)
    with open(os.path.join(output, "study.csv")) as f:
        return list(csv.DictReader(f))


def check(condition, message):
    print(("ok:   " if condition else "FAIL: ") + message)
    if not condition:
        failures.append(message)


smooth_dir = os.path.join(work, "smooth")
rows = study("smooth_bar.prm", smooth_dir, "--levels", "0", "1", "2", "3", "--probe-time", "0.7")
orders = [float(r["u_x(p1,t=0.7) order"]) for r in rows if r.get("u_x(p1,t=0.7) order")]
check(len(orders) == 2 and all(abs(p - 2) <= 0.05 for p in orders), "theta = 1/2 without contact: orders %s ~ 2" % orders)
check(all(not r.get("energy_ratio order") for r in rows), "no order for a conserved energy (differences at round-off)")
check([r.get("energy_ratio note") for r in rows[:2]] == ["round-off"] * 2, "the orders left out at round-off are noted")
check(bool(rows[2].get("u_x(p1,t=0.7) difference")) and not rows[2].get("u_x(p1,t=0.7) order"),
      "the finest pair of levels: its difference, without an order")
check(os.path.exists(os.path.join(smooth_dir, "study.md")), "markdown table written")
check(os.path.exists(os.path.join(smooth_dir, "u_x_p1_t=0.7_.png")), "convergence plot written")

impact_dir = os.path.join(work, "impact")
rows = study("impacting_bar.prm", impact_dir, "--levels", "0", "1", "2", "3", "--exact", "contact_start=5e-4")
orders = [float(r["contact_start order"]) for r in rows if r.get("contact_start order")]
check(len(orders) == 3 and all(abs(p - 1) <= 0.05 for p in orders), "with impact: contact start orders %s ~ 1" % orders)
# Every negative order, and only those, is noted as not converging (the impact's peak force has one).
signs = [(float(r[c]) < 0, r.get(c[:-len(" order")] + " note") == "not converging")
         for r in rows for c in r if c.endswith(" order") and r[c]]
check(any(n for n, _ in signs) and all(n == m for n, m in signs), "negative orders noted 'not converging'")
check(os.path.exists(os.path.join(impact_dir, "contact_start.png")), "convergence plot written")

# Two levels without --exact (no order): still one PNG per quantity (its values against the time step),
# when matplotlib can be imported; otherwise the driver says why there are none.
two_dir = os.path.join(work, "two_levels")
rows = study("smooth_bar.prm", two_dir, "--levels", "0", "1", "--probe-time", "0.7")
names = [c for c in rows[0] if c not in ("level", "time_step", "refinements", "dofs")
         and not c.endswith((" error", " difference", " order"))]
pngs = [os.path.join(two_dir, re.sub(r"[^A-Za-z0-9_.=-]+", "_", n) + ".png") for n in names]
try:
    import matplotlib  # noqa: F401 (only whether it can be imported)
    check(len(names) >= 2 and all(os.path.getsize(p) > 5000 for p in pngs if os.path.exists(p))
          and all(map(os.path.exists, pngs)), "two levels: one plot per quantity (%s)" % ", ".join(names))
except ImportError:
    print("skipped: the plots of the two-level study (matplotlib cannot be imported)")

# scripts/plot_statistics.py draws a run's statistics.csv; a file that is not one is refused.
plotter = os.path.join(here, "..", "..", "scripts", "plot_statistics.py")
png = os.path.join(work, "impact_statistics.png")
plot = subprocess.run([sys.executable, plotter, os.path.join(impact_dir, "level_1", "statistics.csv"), "--output", png],
                      capture_output=True, text=True)
check(plot.returncode == 0 and os.path.getsize(png) > 10000 if os.path.exists(png) else False,
      "plot_statistics.py writes the statistics plot")
wrong = subprocess.run([sys.executable, plotter, os.path.join(impact_dir, "study.md")], capture_output=True, text=True)
check(wrong.returncode != 0 and "not a percussion statistics.csv" in wrong.stderr, "plot_statistics.py refuses another file")

# A bad request is refused with a message and a non-zero exit.
bad = subprocess.run([sys.executable, driver, os.path.join(here, "smooth_bar.prm"), "--exact", "nonexistent=1",
                      "--levels", "0", "1", "--output", os.path.join(work, "bad"), "--executable", exe, "--no-plots"],
                     capture_output=True, text=True)
check(bad.returncode == 1 and "no run has" in bad.stderr, "an unknown --exact quantity is refused")
sys.exit(1 if failures else 0)
