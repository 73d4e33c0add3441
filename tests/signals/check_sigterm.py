#!/usr/bin/env python3
"""SIGTERM mid-run: a scheduler's end-of-slot signal makes percussion finish the
current step, write that step's output (statistics.csv and the VTU record) and exit with
128 + 15 = 143 and a message naming the step; on 2 ranks the signal reaches mpirun, which forwards it
to the ranks, and all stop after the same step. The files are complete: statistics.csv ends with the
step the message names, solution.pvd's last record is that step's time, and its .pvtu exists.

Usage: check_sigterm.py PERCUSSION_EXECUTABLE WORK_DIRECTORY"""
import csv
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree

exe, work = sys.argv[1], sys.argv[2]
failures = []


def check(condition, message):
    print(("ok:   " if condition else "FAIL: ") + message)
    if not condition:
        failures.append(message)


PRM = """set Dimension = 2
subsection Mesh
  set Type = box
  set Lower corner = 0, 0.0001
  set Upper corner = 0.1, 0.0501
  set Subdivisions = 40, 20
end
subsection Materials
  set Young's modulus = 210e9
  set Poisson's ratio = 0.3
  set Density = 7800
end
subsection Initial conditions
  set Velocity = 0.3; -1
end
subsection Time integration
  set Time step = 5e-7
  set End time = 1
end
subsection Contact
  set Number of pairs = 1
  set Search distance = 0.001
  subsection Pair 1
    set Type = plane
    set Point = 0, 0
    set Normal = 0, 1
    set Slave boundary id = 2
    set Friction coefficient = 0.3
  end
end
subsection Output
  set Directory = {directory}
  set VTU interval = 25
  set Progress interval = 0
end
"""


def rows(path):
    try:
        with open(path) as f:
            return list(csv.DictReader(f))
    except (OSError, csv.Error):
        return []


def run(ranks):
    directory = os.path.join(work, "ranks_%d" % ranks)
    output = os.path.join(directory, "output")
    os.makedirs(directory, exist_ok=True)
    prm = os.path.join(directory, "run.prm")
    with open(prm, "w") as f:
        f.write(PRM.replace("{directory}", output))
    command = [exe, prm] if ranks == 1 else ["mpirun", "-np", str(ranks), "--oversubscribe", exe, prm]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # Wait until the run is well into its steps (2e6 of them: it cannot finish first).
    deadline = time.time() + 120
    while time.time() < deadline and len(rows(os.path.join(output, "statistics.csv"))) < 60:
        time.sleep(0.2)
    process.send_signal(signal.SIGTERM)
    try:
        stdout, stderr = process.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        process.kill()
        check(False, "%d rank(s): the run stops within 2 minutes of SIGTERM" % ranks)
        return
    text = stdout + stderr
    print(text[-600:])
    if ranks == 1:
        check(process.returncode == 143, "%d rank(s): exit status %d (expected 128 + 15 = 143)" % (ranks, process.returncode))
    else:
        check(process.returncode != 0, "%d rank(s): mpirun's exit status %d is not 0" % (ranks, process.returncode))
    match = re.search(r"stopped by SIGTERM after step (\d+) of (\d+) \(t = ([0-9.e+-]+)\)", text)
    check(match is not None, "%d rank(s): the message names the signal and the step" % ranks)
    if match is None:
        return
    step = int(match.group(1))
    stats = rows(os.path.join(output, "statistics.csv"))
    check(stats and int(stats[-1]["step"]) == step,
          "%d rank(s): statistics.csv ends with step %s (the message's %d)" % (ranks, stats[-1]["step"] if stats else "-", step))
    root = ElementTree.parse(os.path.join(output, "solution.pvd")).getroot()
    records = [(float(d.get("timestep")), d.get("file")) for d in root.iter("DataSet")]
    last_time, last_file = records[-1]
    check(abs(last_time - float(stats[-1]["time"])) <= 1e-12, "%d rank(s): solution.pvd's last record is that step (t = %g)"
          % (ranks, last_time))
    check(os.path.exists(os.path.join(output, last_file)), "%d rank(s): its file %s exists" % (ranks, last_file))
    return step


shutil.rmtree(work, ignore_errors=True)
run(1)
run(2)
sys.exit(1 if failures else 0)
