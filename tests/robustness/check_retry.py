#!/usr/bin/env python3
"""'Contact solver/Non-convergence policy = retry': contact_retry.prm's impact step
is not solved with its 5 NSGS sweeps (the policy continue leaves it unsolved, a contact_not_solved
row of events.csv). With the policy retry: NSGS with 50 sweeps fails too, the step is replaced by two
half steps (the factor of h/2 made once), which are solved; every retry is a row of events.csv
(retry_nsgs, retry_half_steps), the statistics column `events` counts them, the run ends exactly at
the end time (half steps add up to whole ones to the last bit), and the energy balance of every
step, half steps included, closes (relative residual <= 1e-12).
Usage: check_retry.py PERCUSSION_EXECUTABLE PRM WORK_DIRECTORY"""
import csv
import os
import re
import shutil
import subprocess
import sys

exe, prm, work = sys.argv[1], sys.argv[2], sys.argv[3]
failures = []


def check(condition, message):
    print(("ok:   " if condition else "FAIL: ") + message)
    if not condition:
        failures.append(message)


def run(policy):
    output = os.path.join(work, policy)
    result = subprocess.run([exe, prm, "--set", "Contact solver/Non-convergence policy=" + policy,
                             "--set", "Output/Directory=" + output, "--set", "Output/VTU interval=0"],
                            capture_output=True, text=True)
    print(result.stdout[-400:], result.stderr[-400:])
    unsolved = re.search(r"steps whose contact problem was not solved (\d+)", result.stdout)
    residual = re.search(r"largest per-step energy-balance residual \(relative\) = ([0-9.e+-]+)", result.stdout)
    with open(os.path.join(output, "statistics.csv")) as f:
        stats = list(csv.DictReader(f))
    with open(os.path.join(output, "events.csv")) as f:
        events = list(csv.DictReader(f))
    return result.returncode, int(unsolved.group(1)) if unsolved else -1, float(residual.group(1)) if residual else 1.0, stats, events


shutil.rmtree(work, ignore_errors=True)
status, unsolved_retry, residual, stats, events = run("retry")
check(status == 0, "retry: exit status %d" % status)
kinds = [e["event"] for e in events]
check("retry_nsgs" in kinds and "retry_half_steps" in kinds, "retry: events.csv has retry_nsgs and retry_half_steps rows")
check(float(stats[-1]["events"]) == len(events), "retry: the statistics column events (%s) counts the rows (%d)"
      % (stats[-1]["events"], len(events)))
check(float(stats[-1]["time"]) == 0.2, "retry: the run ends at t = %r (End time 0.2)" % float(stats[-1]["time"]))
steps = [int(r["step"]) for r in stats]
check(steps[-1] > len(stats) - 1, "retry: %d steps taken for %d rows of whole steps (half steps)" % (steps[-1], len(stats) - 1))
check(residual <= 1e-12, "retry: largest relative energy-balance residual %g <= 1e-12" % residual)
check(unsolved_retry == 0 and "contact_not_solved" not in kinds, "retry: every step solved (%d unsolved)" % unsolved_retry)
status, unsolved_continue, _, _, events_continue = run("continue")
kinds_continue = [e["event"] for e in events_continue]
check(status == 0 and unsolved_continue >= 1 and kinds_continue.count("contact_not_solved") == unsolved_continue,
      "continue leaves %d step(s) unsolved, each a contact_not_solved row" % unsolved_continue)
check(not any(e["event"].startswith("retry") for e in events_continue), "continue: no retry events")
sys.exit(1 if failures else 0)
