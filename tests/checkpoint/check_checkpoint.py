#!/usr/bin/env python3
"""Checkpoint/restart, through the percussion executable:

1. A frictional impact (block_on_plane_2d.prm) with checkpoints every 200 steps: resumed on 1 rank
   from the checkpoint of step 400, statistics.csv, bodies.csv and probes.csv of steps 401-600 equal
   the uninterrupted run's to the last digit, and so do the last VTU file and solution.pvd's records.
   Resumed on 2 ranks from the same 1-rank checkpoint: equal to round-off (1e-9 of each column's
   largest value; the balance residual and the solver's residual are round-off themselves and are
   checked against their own bounds).
2. A block resting on another block (block_on_block_2d.prm; a body pair, whose contact history is
   keyed by slave DoFs): written on 2 ranks, resumed on 2 ranks (exact) and on 1 rank (round-off).
   A disk rolling on a plane (rolling_disk_2d.prm; large rotations): its checkpoint at step 340
   keeps the Delassus columns' support as the two batches it was solved in (contact_history.bin);
   resumed on 1 rank (exact) and on 2 ranks (1e-6: the disk chatters, and each landing amplifies
   a difference of round-off; two 2-rank runs of this disk already differ, see doc/user_guide.md).
   The same disk viscoelastic (its Maxwell branch held in its frame): resumed on 1 rank, exact.
3. The 1D impacting bar with every other scheme (Moreau-Jean standard, nonsmooth Newmark and
   generalized-alpha, Schatzman-Paoli), checkpoint in the middle of the contact: exact. The retry
   policy (tests/robustness/contact_retry.prm, whose first step is halved): exact.
4. SIGTERM: the run stops with a checkpoint, is resumed in place with --resume <Output/Directory>,
   and its statistics.csv then equals an uninterrupted run's (the `events` column counts the
   interruption, so it is left out).
5. Refusals, each with exit status 1, a message naming the difference, and the existing
   statistics.csv untouched: another mesh, element degree, step size, scheme, a missing checkpoint, a truncated
   part file, a damaged header.

Usage: check_checkpoint.py PERCUSSION_EXECUTABLE SOURCE_DIRECTORY WORK_DIRECTORY"""
import csv
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree

exe, source, work = sys.argv[1], sys.argv[2], sys.argv[3]
failures = []


def check(condition, message):
    print(("ok:   " if condition else "FAIL: ") + message)
    if not condition:
        failures.append(message)


def run(prm, directory, ranks=1, settings=(), resume=None, expect=0):
    command = [exe, prm, "--set", "Output/Directory=" + directory]
    for s in settings:
        command += ["--set", s]
    if resume is not None:
        command += ["--resume", resume]
    if ranks > 1:
        command = ["mpirun", "-np", str(ranks), "--oversubscribe"] + command
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    text = result.stdout + result.stderr
    if (result.returncode == 0) != (expect == 0) or (expect != 0 and ranks == 1 and result.returncode != expect):
        print(text[-3000:])
    return result.returncode, text


def rows(path):
    with open(path) as f:
        return list(csv.reader(f))


def by_step(path):
    table = rows(path)
    return table[0], table[1:]


def compare_exact(reference, resumed, label, skip=()):
    """The resumed file's rows equal the reference's rows of the same steps, to the last digit."""
    names, ref_rows = by_step(reference)
    names_b, res_rows = by_step(resumed)
    check(names == names_b, "%s: the same columns" % label)
    steps = set(r[0] for r in res_rows)
    ref_part = [r for r in ref_rows if r[0] in steps]
    keep = [i for i, n in enumerate(names) if n not in skip and n not in CACHE_COST_COLUMNS]
    same = len(ref_part) == len(res_rows) and all([a[i] for i in keep] == [b[i] for i in keep]
                                                   for a, b in zip(ref_part, res_rows))
    if not same:
        for a, b in zip(ref_part, res_rows):
            if [a[i] for i in keep] != [b[i] for i in keep]:
                print("  first difference at step", a[0], [(names[i], a[i], b[i]) for i in keep if a[i] != b[i]][:4])
                break
    check(same and len(res_rows) > 0, "%s: %d rows (steps %s-%s) equal the uninterrupted run's exactly"
          % (label, len(res_rows), res_rows[0][0] if res_rows else "-", res_rows[-1][0] if res_rows else "-"))


ROUND_OFF_COLUMNS = {"energy_balance_residual", "contact_solver_error"}
# What rebuilding the caches costs (a resumed run solves again the Delassus columns and the bodies'
# compliances the uninterrupted run had kept): not part of the run's state.
CACHE_COST_COLUMNS = {"contact_column_solves"}
# Parts of the energy that can stay far below it (the frames' re-measured strain energy, the kinetic
# energy of a small rigid rotation, what a position projection takes from a rolling disk): judged
# against the total energy's scale, not their own.
ENERGY_PART_COLUMNS = {"frame_energy", "kinetic_energy_rotation", "kinetic_energy_translation",
                       "projection_energy"}
# Lengths that a contact held at position level keeps at 0 to round-off (a resting contact's end
# gap): judged against 1e-6 m (the bodies' size is ~1 m), not their own round-off-sized values.
LENGTH_COLUMNS = {"min_gap"}


def compare_round_off(reference, resumed, label, tolerance=1e-9):
    names, ref_rows = by_step(reference)
    _, res_rows = by_step(resumed)
    ref = {r[0]: r for r in ref_rows}
    worst, where = 0.0, ""
    total_column = names.index("total_energy")
    energy_scale = max(abs(float(ref[r[0]][total_column])) for r in res_rows) or 1.0
    for c, name in enumerate(names):
        if name in ROUND_OFF_COLUMNS or name in CACHE_COST_COLUMNS:
            continue
        scale = max(abs(float(ref[r[0]][c])) for r in res_rows) or 1.0
        if name in ENERGY_PART_COLUMNS:
            scale = max(scale, energy_scale)
        if name in LENGTH_COLUMNS:
            scale = max(scale, 1e-6)
        for r in res_rows:
            d = abs(float(r[c]) - float(ref[r[0]][c])) / scale
            if d > worst:
                worst, where = d, "%s at step %s" % (name, r[0])
    check(len(res_rows) > 0 and worst <= tolerance,
          "%s: %d rows agree with the uninterrupted run to %.1e of each column's scale (worst %.1e, %s)"
          % (label, len(res_rows), tolerance, worst, where))
    c = names.index("energy_balance_residual")
    total = names.index("total_energy")
    residual = max(abs(float(r[c])) / max(abs(float(r[total])), 1e-300) for r in res_rows)
    check(residual < 1e-9, "%s: the energy balance residual stays round-off (%.1e of the energy)" % (label, residual))


def pvd_records(path):
    root = ElementTree.parse(path).getroot()
    return [(d.get("timestep"), d.get("file")) for d in root.iter("DataSet")]


shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)

# 1. Frictional impact on a plane.
plane = os.path.join(source, "block_on_plane_2d.prm")
full = os.path.join(work, "plane_full")
status, text = run(plane, full)
check(status == 0, "plane: the uninterrupted run succeeds")
kept = sorted(os.listdir(os.path.join(full, "checkpoints")))
check(kept == ["step-0000000400", "step-0000000600"],
      "plane: the newest two checkpoints are kept (%s)" % ", ".join(kept))
check(len(re.findall(r"checkpoint: ", text)) == 3, "plane: three checkpoints are logged (steps 200, 400, 600)")
checkpoint = os.path.join(full, "checkpoints", "step-0000000400")
resumed = os.path.join(work, "plane_resumed")
status, text = run(plane, resumed, resume=checkpoint)
check(status == 0 and "resuming from" in text and "200 after resuming at step 400" in text,
      "plane: the resumed run succeeds and says where it resumed")
for name in ("statistics.csv", "bodies.csv", "probes.csv"):
    compare_exact(os.path.join(full, name), os.path.join(resumed, name), "plane, 1 rank -> 1 rank, " + name)
check(pvd_records(os.path.join(full, "solution.pvd")) == pvd_records(os.path.join(resumed, "solution.pvd")),
      "plane: solution.pvd lists the same records")
last_vtu = pvd_records(os.path.join(full, "solution.pvd"))[-1][1].replace(".pvtu", ".0.vtu")


def vtu_without_date(path):
    with open(path, "rb") as f:
        return re.sub(rb"generated by the deal.II library on [^\n]*", b"", f.read())


check(vtu_without_date(os.path.join(full, last_vtu)) == vtu_without_date(os.path.join(resumed, last_vtu)),
      "plane: the final state (%s) is the same file, but for its date" % last_vtu)
resumed2 = os.path.join(work, "plane_resumed_2_ranks")
status, text = run(plane, resumed2, ranks=2, resume=checkpoint)
check(status == 0, "plane: resumed on 2 ranks from a 1-rank checkpoint")
compare_round_off(os.path.join(full, "statistics.csv"), os.path.join(resumed2, "statistics.csv"), "plane, 1 rank -> 2 ranks")

# Wall-clock checkpoints: with 'Checkpoint minutes' far below a step's time, one after every step;
# 'Checkpoints kept' = 3 keeps the last three.
clock = os.path.join(work, "plane_clock")
status, text = run(plane, clock, settings=["Time integration/End time=2.5e-5", "Output/Checkpoint interval=0",
                                           "Output/Checkpoint minutes=1e-9", "Output/Checkpoints kept=3"])
kept = sorted(os.listdir(os.path.join(clock, "checkpoints")))
check(status == 0 and len(re.findall(r"checkpoint: ", text)) == 50 and
      kept == ["step-0000000048", "step-0000000049", "step-0000000050"],
      "plane: 'Checkpoint minutes' writes one per step here, the newest three are kept (%s)" % ", ".join(kept))

# 2. A body pair, written on 2 ranks.
blocks = os.path.join(source, "block_on_block_2d.prm")
full = os.path.join(work, "blocks_full")
status, _ = run(blocks, full, ranks=2)
check(status == 0, "blocks: the uninterrupted 2-rank run succeeds")
checkpoint = os.path.join(full, "checkpoints", "step-0000000200")
for ranks, exact in ((2, True), (1, False)):
    out = os.path.join(work, "blocks_resumed_%d" % ranks)
    status, _ = run(blocks, out, ranks=ranks, resume=checkpoint)
    check(status == 0, "blocks: resumed on %d rank(s)" % ranks)
    label = "blocks, 2 ranks -> %d rank(s)" % ranks
    if exact:
        compare_exact(os.path.join(full, "statistics.csv"), os.path.join(out, "statistics.csv"), label)
    else:
        compare_round_off(os.path.join(full, "statistics.csv"), os.path.join(out, "statistics.csv"), label, 1e-8)



def support_batch_ends(path):
    """The Delassus columns' support batches (their ends) in a contact_history.bin."""
    data = open(path, "rb").read()
    magic = b"PERCUSSION-CHECKPOINT-HISTORY-1"
    offset = len(magic)
    (n,) = struct.unpack_from("<Q", data, offset)
    offset += 8
    for _ in range(n):
        _, components = struct.unpack_from("<QI", data, offset)
        offset += 12 + 8 * components
    (n,) = struct.unpack_from("<Q", data, offset)
    offset += 8 + 16 * n
    if data[offset:offset + 13] != b"CACHE-STATE-1":
        return None
    offset += 14
    (n,) = struct.unpack_from("<Q", data, offset)
    offset += 8 + 8 * n
    (n,) = struct.unpack_from("<Q", data, offset)
    return list(struct.unpack_from("<%dQ" % n, data, offset + 8))


disk = os.path.join(source, "rolling_disk_2d.prm")
full = os.path.join(work, "disk_full")
status, _ = run(disk, full)
check(status == 0, "disk: the uninterrupted run succeeds")
checkpoint = os.path.join(full, "checkpoints", "step-0000000340")
ends = support_batch_ends(os.path.join(checkpoint, "contact_history.bin")) if status == 0 else None
check(ends is not None and len(ends) >= 2,
      "disk: the checkpoint keeps the support's batches, more than one (%s)" % ends)
for ranks in (1, 2):
    out = os.path.join(work, "disk_resumed_%d" % ranks)
    status, _ = run(disk, out, ranks=ranks, resume=checkpoint)
    check(status == 0, "disk: resumed on %d rank(s)" % ranks)
    label = "disk, 1 rank -> %d rank(s)" % ranks
    if ranks == 1:
        compare_exact(os.path.join(full, "statistics.csv"), os.path.join(out, "statistics.csv"), label)
    else:
        # The disk chatters on the plane and each landing with a position projection amplifies a
        # difference (tests/regression/test_large_rotations.cc): whole 1- and 2-rank runs of this
        # disk agree to 1e-7; resumed at step 340 it agrees to 1e-6 (checked).
        compare_round_off(os.path.join(full, "statistics.csv"), os.path.join(out, "statistics.csv"), label, 1e-6)

# The same disk viscoelastic (a Maxwell branch and a Kelvin-Voigt time): its branches, held in the
# disk's frame, are restored with the frames (resumed on 1 rank: exact).
visco_disk = os.path.join(work, "viscoelastic_disk.prm")
with open(disk) as f:
    text = f.read()
with open(visco_disk, "w") as f:
    f.write(text.replace("  set Young's modulus = 1e8\n",
                         "  set Young's modulus = 1e8\n  set Prony moduli = 5e7\n  set Prony times = 1e-3\n"
                         "  set Kelvin-Voigt time = 1e-5\n"))
full = os.path.join(work, "viscoelastic_disk_full")
out = os.path.join(work, "viscoelastic_disk_resumed")
status_full, _ = run(visco_disk, full)
status, _ = run(visco_disk, out, resume=os.path.join(full, "checkpoints", "step-0000000340"))
check(status_full == 0 and status == 0, "viscoelastic disk: both runs succeed")
if status_full == 0 and status == 0:
    compare_exact(os.path.join(full, "statistics.csv"), os.path.join(out, "statistics.csv"), "viscoelastic disk")
    names, table = by_step(os.path.join(full, "statistics.csv"))
    frame = [float(r[names.index("frame_energy")]) for r in table]
    psi = [float(r[names.index("viscoelastic_energy")]) for r in table if int(r[0]) == 340]
    check(len(psi) == 1 and psi[0] > 0 and any(x != 0 for x in frame),
          "viscoelastic disk: the branches hold energy at the checkpoint (%s) and the frames turn" % psi)

# 3. The other schemes on the impacting bar (contact from step 50 to 89; checkpoint at 60).
BAR = """set Dimension = 1
subsection Mesh
  set Type = bar
  set Subdivisions = 25
  set Cross section area = 3.14e-4
end
subsection Materials
  set Young's modulus = 210e9
  set Density = 7800
end
subsection Initial conditions
  set Velocity = -0.1
end
subsection Time integration
  set Scheme = {scheme}
  set Time step = 1e-5
  set End time = 1.2e-3
end
subsection Contact
  set Number of pairs = 1
  set Search distance = 1e-3
  subsection Pair 1
    set Type = plane
    set Slave boundary id = 0
    set Point = -5e-5
    set Normal = 1
    set Restitution coefficient = 0.5
  end
end
subsection Output
  set VTU interval = 0
  set Progress interval = 0
  set Checkpoint interval = 60
end
"""
for scheme in ("Moreau-Jean standard", "nonsmooth Newmark", "nonsmooth generalized-alpha", "Schatzman-Paoli"):
    name = scheme.replace(" ", "_")
    prm = os.path.join(work, name + ".prm")
    with open(prm, "w") as f:
        f.write(BAR.replace("{scheme}", scheme))
    full = os.path.join(work, name + "_full")
    out = os.path.join(work, name + "_resumed")
    status_full, _ = run(prm, full)
    status, _ = run(prm, out, resume=os.path.join(full, "checkpoints", "step-0000000060"))
    check(status_full == 0 and status == 0, "bar, %s: both runs succeed" % scheme)
    compare_exact(os.path.join(full, "statistics.csv"), os.path.join(out, "statistics.csv"), "bar, " + scheme)

# A viscoelastic bar (Prony series and Kelvin-Voigt time): the Maxwell branches' internal variables
# are restored with the state (resumed from a 1-rank checkpoint on 1 rank: exact; on 2: round-off).
visco_bar = BAR.replace("{scheme}", "Moreau-Jean Fremond").replace(
    "  set Young's modulus = 210e9\n", "  set Young's modulus = 100e9\n  set Prony moduli = 80e9, 30e9\n"
    "  set Prony times = 2e-5, 3e-4\n  set Kelvin-Voigt time = 2e-8\n")
prm = os.path.join(work, "viscoelastic_bar.prm")
with open(prm, "w") as f:
    f.write(visco_bar)
full = os.path.join(work, "viscoelastic_full")
status_full, _ = run(prm, full)
for ranks in (1, 2):
    out = os.path.join(work, "viscoelastic_resumed_%d" % ranks)
    status, _ = run(prm, out, ranks=ranks, resume=os.path.join(full, "checkpoints", "step-0000000060"))
    check(status_full == 0 and status == 0, "viscoelastic bar: both runs succeed (%d rank(s))" % ranks)
    if ranks == 1:
        compare_exact(os.path.join(full, "statistics.csv"), os.path.join(out, "statistics.csv"), "viscoelastic bar")
    else:
        compare_round_off(os.path.join(full, "statistics.csv"), os.path.join(out, "statistics.csv"),
                          "viscoelastic bar, 2 ranks")
names, table = by_step(os.path.join(full, "statistics.csv"))
psi = [float(r[names.index("viscoelastic_energy")]) for r in table if int(r[0]) == 60]
check(len(psi) == 1 and psi[0] > 0, "viscoelastic bar: the branches hold energy at the checkpoint (%s)" % psi)

# The retry policy halves steps: checkpoints fall between nominal steps (after the two half steps of
# the first one, statistics' step 2), and the resumed run retries as the uninterrupted one did.
retry = os.path.join(source, "..", "robustness", "contact_retry.prm")
full = os.path.join(work, "retry_full")
out = os.path.join(work, "retry_resumed")
status_full, _ = run(retry, full, settings=["Output/Checkpoint interval=1", "Output/Checkpoints kept=10"])
kept = sorted(os.listdir(os.path.join(full, "checkpoints")))
status, _ = run(retry, out, resume=os.path.join(full, "checkpoints", "step-0000000002"))
check(status_full == 0 and status == 0 and kept[0] == "step-0000000002",
      "retry policy: checkpoints after each nominal step (%s), the resumed run succeeds" % ", ".join(kept))
compare_exact(os.path.join(full, "statistics.csv"), os.path.join(out, "statistics.csv"), "retry policy")

# 4. SIGTERM, then --resume in place.
long_run = os.path.join(work, "sigterm")
process = subprocess.Popen([exe, plane, "--set", "Output/Directory=" + long_run, "--set", "Time integration/End time=1",
                            "--set", "Output/Checkpoint interval=0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
deadline = time.time() + 120
statistics = os.path.join(long_run, "statistics.csv")
while time.time() < deadline and (not os.path.exists(statistics) or len(rows(statistics)) < 150):
    time.sleep(0.1)
process.send_signal(signal.SIGTERM)
stdout, stderr = process.communicate(timeout=120)
match = re.search(r"stopped by SIGTERM after step (\d+)", stdout + stderr)
check(process.returncode == 143 and match is not None and "--resume" in stdout + stderr,
      "sigterm: exit 143, the message names the step and how to resume")
if match:
    step = int(match.group(1))
    check(os.path.exists(os.path.join(long_run, "checkpoints", "step-%010d" % step, "header.txt")),
          "sigterm: the checkpoint of step %d is written" % step)
    end = "Time integration/End time=%.17g" % ((step + 120) * 5e-7)
    status, _ = run(plane, long_run, settings=[end, "Output/Checkpoint interval=0"], resume=long_run)
    reference = os.path.join(work, "sigterm_reference")
    status_reference, _ = run(plane, reference, settings=[end, "Output/Checkpoint interval=0"])
    check(status == 0 and status_reference == 0, "sigterm: the resumed and the reference run succeed")
    compare_exact(os.path.join(reference, "statistics.csv"), statistics, "sigterm, resumed in place", skip=("events",))
    _, resumed_rows = by_step(statistics)
    check(len(resumed_rows) == step + 121, "sigterm: statistics.csv has every step once (%d rows)" % len(resumed_rows))
    check(any(r[2] == "interrupted" for r in rows(os.path.join(long_run, "events.csv"))[1:]),
          "sigterm: events.csv keeps the interruption")

# 5. Refusals: exit 1, a clear message, and nothing already written is touched.
target = os.path.join(work, "refused")
shutil.copytree(os.path.join(work, "plane_resumed"), target)
with open(os.path.join(target, "statistics.csv")) as f:
    before = f.read()
checkpoint = os.path.join(work, "plane_full", "checkpoints", "step-0000000400")
broken = os.path.join(work, "broken_checkpoint")
shutil.copytree(checkpoint, broken)
with open(os.path.join(broken, "dofs-0.bin"), "r+b") as f:
    f.truncate(os.path.getsize(os.path.join(broken, "dofs-0.bin")) // 2)
garbled = os.path.join(work, "garbled_checkpoint")
shutil.copytree(checkpoint, garbled)
with open(os.path.join(garbled, "header.txt"), "w") as f:
    f.write("this is not a header\n")
for label, settings, resume, pattern in (
        ("another mesh", ["Mesh/Subdivisions=20, 12"], checkpoint, r"not of this run.*Mesh"),
        ("another element degree", ["Mesh/Finite element degree=2"], checkpoint,
         r"not of this run: its element_degree.*Mesh/Finite element degree"),
        ("another step size", ["Time integration/Time step=4e-7"], checkpoint, r"not of this run.*Time integration/Time step"),
        ("another scheme", ["Time integration/Scheme=Moreau-Jean standard"], checkpoint, r"not of this run.*Scheme"),
        ("no checkpoint", [], os.path.join(work, "nowhere"), r"no checkpoint there"),
        ("a truncated part file", [], broken, r"is damaged"),
        ("a damaged header", [], garbled, r"not a percussion checkpoint header")):
    status, text = run(plane, target, settings=settings, resume=resume, expect=1)
    check(status == 1 and re.search(pattern, text, re.S) is not None, "refused, %s: exit %d, '%s'" % (
        label, status, (re.search(r"input error: (.*)", text) or re.search("(.*)", "")).group(1)[:150]))
with open(os.path.join(target, "statistics.csv")) as f:
    check(f.read() == before, "refusals leave statistics.csv untouched")

sys.exit(1 if failures else 0)
