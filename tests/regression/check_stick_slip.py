#!/usr/bin/env python3
"""No walking at rest: the stick-slip block of benchmarks/lasting_contact (a stiff block, E = 1e9, on
a rigid plane under gravity, pushed by F0 sin(2 pi t / T) with F0 = 1.5 mu m g, h = 1e-3 s leaving
every elastic mode unresolved) against the exact rigid-block solution: stick/slip interval
boundaries within 1 % of the period and stick positions within 1 % of the slip distance
(rigid_block_stick_slip.py --tolerance 0.01), in 2D and 3D, with the default settings (Theta = auto,
which is 0.55 here: e = 0), with theta = 1, with theta = 1/2 and a material damping (stiffness-
proportional beta = 1e-5 s: 7 % of critical on the lowest elastic mode, omega ~ 1.4e4 rad/s), and
in 3D on 2 ranks. Theta = 1/2 without damping is run and reported: nothing then damps the
unresolved modes that each stick-slip transition excites, and the block walks (doc/contact.md,
"Lasting contact").
Usage: check_stick_slip.py PERCUSSION_EXECUTABLE BENCHMARK_DIRECTORY WORK_DIRECTORY"""
import os
import shutil
import subprocess
import sys

exe, bench, work = sys.argv[1], sys.argv[2], sys.argv[3]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
script = os.path.join(bench, "rigid_block_stick_slip.py")
failures = []


def run(dim, label, settings, ranks=1, required=True):
    out = os.path.join(work, "%dd_%s" % (dim, label))
    command = [exe, os.path.join(bench, "stick_slip_%dd.prm" % dim), "--set", "Output/Directory=" + out]
    for s in settings:
        command += ["--set", s]
    if ranks > 1:
        command = ["mpirun", "-np", str(ranks)] + command
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        print(result.stdout[-2000:], result.stderr[-2000:])
        failures.append("%dD %s: the run failed" % (dim, label))
        return
    check = subprocess.run([sys.executable, script, "--run", out, "--tolerance", "0.01"], capture_output=True, text=True)
    summary = [line for line in check.stdout.splitlines() if line.startswith(("largest errors", "PASS", "FAIL"))]
    print("%dD, %s%s: %s" % (dim, label, "" if ranks == 1 else " (%d ranks)" % ranks, "; ".join(summary)))
    if required and check.returncode != 0:
        failures.append("%dD %s: stick/slip of the rigid block not within 1 %%" % (dim, label))


for dim in (2, 3):
    run(dim, "default", [])
    run(dim, "theta_1", ["Time integration/Theta=1"])
    run(dim, "theta_half_damped", ["Time integration/Theta=0.5", "Damping/Stiffness proportional coefficient=1e-5"])
    run(dim, "theta_half", ["Time integration/Theta=0.5"], required=False)
run(3, "default_2ranks", [], ranks=2)
for f in failures:
    print("FAIL: " + f)
sys.exit(1 if failures else 0)
