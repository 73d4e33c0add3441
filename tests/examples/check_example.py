#!/usr/bin/env python3
"""CTest of one example parameter file (applications/<example>/<name>.prm): runs it with the
overrides of its line

    # brief run: Section/Entry=value; Section/Entry=value

(a shorter end time for the long examples, only output settings for those whose whole run takes
seconds) from the example's directory, with the output in WORK_DIRECTORY/output, and checks each of
its lines

    # check: QUANTITY = VALUE +- TOLERANCE      (|measured - VALUE| <= TOLERANCE)
    # check: QUANTITY <= VALUE                  (an upper bound, e.g. the README's "<= N iterations")
    # check: QUANTITY >= VALUE                  (a lower bound, e.g. the smallest gap a run may leave)

against the output. The VALUEs are the figures of the example's README.md (for the run that the '# brief run:'
line describes); each TOLERANCE is stated on its line, wide enough for the round-off and solver
tolerance differences between machines and rank counts, narrow enough to catch a changed result.
QUANTITY is one of

    energy_ratio          E_end / E_0 (total_energy of statistics.csv, last row over first)
    contact_steps         steps with a non-zero contact_normal_force (the READMEs' contact duration / h)
    active_steps          steps with contact_active > 0 (percussion_study.py's contact_duration / h)
    plateau_force         mean contact_normal_force over those steps without their first and last tenth
    F(COLUMN)             F = first, last, max, min or sum of a column of statistics.csv over the steps
    F(FILE:COLUMN)        the same in FILE (bodies.csv, probes.csv: the rows of its first body or probe)
    F(FILE:COLUMN, KEY=V) ... the rows whose column KEY is V (e.g. body=2, probe=1)
    energy_created        the largest energy a step created, (E + algorithmic energy)_k
                          − (...)_(k−1) − (W_ext,k − W_ext,(k−1)), relative to the largest |E| and |W_ext| up to step k
                          (the energy guard's check, from the table): <= 0 up to round-off for a
                          dissipative run
    energy_excess         max over the steps of (E_k − E_0 − W_ext,k) / max(E_0, max |W_ext|): the run
                          never holds more energy than it was given
    events(NAME)          the number of rows of events.csv whose event is NAME (e.g. contact_not_solved)

With --full the whole run is made (only the brief run's Output/ overrides) and checked against the
lines '# full check: ...' instead (the README's figures of the whole run).

Usage: check_example.py PERCUSSION_EXECUTABLE EXAMPLE.prm WORK_DIRECTORY [--ranks N] [--full]
An example with a brief-run line and no check line fails: every example asserts something."""
import csv
import os
import re
import shutil
import subprocess
import sys

exe, prm, work = sys.argv[1], os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
exe = os.path.abspath(exe) if os.path.exists(exe) else exe  # (the run starts in the example's directory)
ranks = int(sys.argv[sys.argv.index("--ranks") + 1]) if "--ranks" in sys.argv else 1

full = "--full" in sys.argv
check_prefix = "# full check:" if full else "# check:"
overrides, checks = None, []
with open(prm) as f:
    for line in f:
        if line.startswith("# brief run:"):
            overrides = [o.strip() for o in line[len("# brief run:"):].split(";") if o.strip()]
        elif line.startswith(check_prefix):
            checks.append(line[len(check_prefix):].strip())
if overrides is None:
    sys.exit("%s has no '# brief run:' line" % prm)
if full:
    overrides = [o for o in overrides if o.startswith("Output/")]
if not checks:
    sys.exit("%s has no '%s' line: an example's test must assert a figure of its README" % (prm, check_prefix.strip()))

shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
output = os.path.join(work, "output")
command = ([exe] if ranks == 1 else ["mpirun", "-np", str(ranks), "--oversubscribe", exe]) + [prm]
for o in overrides + ["Output/Directory=" + output, "Output/Progress interval=0"]:
    command += ["--set", o]
print(" ".join("'%s'" % c if " " in c else c for c in command), flush=True)
run = subprocess.run(command, cwd=os.path.dirname(prm), capture_output=True, text=True)
print(run.stdout + run.stderr)
if run.returncode != 0:
    sys.exit("the example exited with status %d" % run.returncode)


def table(name):
    path = os.path.join(output, name)
    if not os.path.exists(path):
        sys.exit("the example wrote no %s (a check reads it)" % name)
    with open(path) as f:
        return list(csv.DictReader(f))


statistics = table("statistics.csv")


def contact_forces():
    return [float(r["contact_normal_force"]) for r in statistics if float(r["contact_normal_force"]) != 0.0]


def energy_quantity(text):
    energy = [float(r["total_energy"]) + float(r["algorithmic_energy"]) for r in statistics]
    external = [float(r["external_work"]) for r in statistics]
    if text == "energy_excess":
        scale = max([abs(energy[0])] + [abs(w) for w in external])
        return max(e - energy[0] - w for e, w in zip(energy, external)) / scale
    largest, scale = 0.0, abs(energy[0])
    for k in range(1, len(energy)):
        scale = max(scale, abs(energy[k]), abs(external[k]))
        largest = max(largest, (energy[k] - energy[k - 1] - (external[k] - external[k - 1])) / scale)
    return largest


def quantity(text):
    if text in ("energy_created", "energy_excess"):
        return energy_quantity(text)
    if text.startswith("events(") and text.endswith(")"):
        return sum(1 for r in table("events.csv") if r["event"] == text[len("events("):-1])
    if text == "energy_ratio":
        return float(statistics[-1]["total_energy"]) / float(statistics[0]["total_energy"])
    if text == "contact_steps":
        return len(contact_forces())
    if text == "active_steps":
        return sum(1 for r in statistics if float(r["contact_active"]) > 0)
    if text == "plateau_force":
        forces = contact_forces()
        tenth = len(forces) // 10
        plateau = forces[tenth:len(forces) - tenth]
        return sum(plateau) / len(plateau)
    m = re.fullmatch(r"(first|last|max|min|sum)\((?:([\w.]+):)?(\w+)(?:,\s*(\w+)=(\S+))?\)", text)
    if not m:
        sys.exit("unknown quantity '%s' (see check_example.py)" % text)
    function, name, column, key, value = m.groups()
    rows = table(name) if name else statistics
    if name and key is None:
        key = "body" if "body" in rows[0] else "probe" if "probe" in rows[0] else None
        value = rows[0][key] if key else None
    if key is not None:
        rows = [r for r in rows if r[key] == value]
    if not rows or column not in rows[0]:
        sys.exit("no column '%s' (rows %s=%s) in %s" % (column, key, value, name or "statistics.csv"))
    values = [float(r[column]) for r in rows]
    return {"first": values[0], "last": values[-1], "max": max(values), "min": min(values), "sum": sum(values)}[function]


failures = 0
for check in checks:
    m = re.fullmatch(r"(.+?)\s*(=|<=|>=)\s*([-+0-9.eE]+)(?:\s*\+-\s*([0-9.eE+-]+))?", check)
    if not m or (m.group(2) == "=" and m.group(4) is None):
        sys.exit("malformed check '%s' (QUANTITY = VALUE +- TOLERANCE, QUANTITY <= VALUE or QUANTITY >= VALUE)" % check)
    name, operator, expected = m.group(1), m.group(2), float(m.group(3))
    measured = quantity(name)
    if operator == "=":
        tolerance = float(m.group(4))
        ok = abs(measured - expected) <= tolerance
        print("%s %s = %.10g (expected %.10g +- %g, difference %.3g)"
              % ("ok:  " if ok else "FAIL:", name, measured, expected, tolerance, measured - expected))
    else:
        ok = measured <= expected if operator == "<=" else measured >= expected
        print("%s %s = %.10g (expected %s %.10g)" % ("ok:  " if ok else "FAIL:", name, measured, operator, expected))
    failures += not ok
sys.exit(1 if failures else 0)
