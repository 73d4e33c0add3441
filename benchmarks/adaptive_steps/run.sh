#!/usr/bin/env bash
# Adaptive time steps against the fixed smallest step: for each case the number of steps, the wall
# time and the peak memory (the log's summary) of both runs, and what the case measures (contact
# time and peak force, bounce times, E_end/E_0), each adaptive run from h0 = 16 x the fixed step.
#   hertz_sphere  the example (3 refinements, h = 0.5 us) 0.5 mm above the plane: 0.5 ms of flight
#                 before and about 0.5 ms after a contact of 52 us
#   bouncing_ball this folder's ball bouncing five times (h = 25 us)
#   dominoes      the example's first 0.12 s (h = 0.1 ms): many bodies, contacts opening and
#                 closing all the time (E_end/(E_0 + W_ext): the energy left of what gravity gave)
#
# Usage: benchmarks/adaptive_steps/run.sh [BUILD_DIR] [--ranks N]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$here/../lib.sh"
percussion_benchmark_arguments "$root" "$@"
percussion_benchmark_setup "$build" "$ranks"

# name | directory | parameter file | fixed step | overrides
cases=(
  "hertz_sphere|$root/applications/hertz_sphere|hertz_sphere.prm|5e-7|Mesh/Center=0, 0, 0.0105;Time integration/End time=1.072e-3;Output/VTU interval=0"
  "bouncing_ball|$here|bouncing_ball.prm|2.5e-5|"
  "dominoes|$root/applications/dominoes|dominoes.prm|1e-4|Time integration/End time=0.12;Output/VTU interval=0"
)
printf '%-14s %-9s %8s %9s %10s %10s  %s\n' case steps_by steps wall_s memory_MiB factors_MiB measure
for entry in "${cases[@]}"; do
  IFS='|' read -r name directory file step overrides <<<"$entry"
  for mode in fixed adaptive; do
    out=$work/$name-$mode
    args=(--set "Output/Directory=$out" --set "Output/Progress interval=0")
    IFS=';' read -ra sets <<<"$overrides"
    for s in "${sets[@]}"; do [ -n "$s" ] && args+=(--set "$s"); done
    if [ "$mode" = fixed ]; then
      args+=(--set "Time integration/Time step=$step")
    else
      h0=$(/usr/bin/python3 -c "print(repr(16 * $step))")
      args+=(--set "Time integration/Time step=$h0" --set "Time integration/Adaptive steps=true"
             --set "Time integration/Smallest step=$step")
    fi
    (cd "$directory" && "${run[@]}" "$file" "${args[@]}" >"$work/$name-$mode.log" 2>&1) ||
      { echo "$name $mode failed:"; tail -5 "$work/$name-$mode.log"; continue; }
    /usr/bin/python3 - "$out" "$name" "$mode" "$work/$name-$mode.log" <<'PYTHON'
import csv, os, re, sys
out, name, mode, log = sys.argv[1:5]
rows = list(csv.DictReader(open(os.path.join(out, "statistics.csv"))))
text = open(log).read()
wall = float(re.search(r"done: \d+ steps in ([0-9.e+-]+) s", text).group(1))
memory = float(re.search(r"peak memory ([0-9.e+-]+) MiB \(all ranks\)", text).group(1))
# (The adaptive run's summary states the memory of the factors it kept, one per step size.)
factors = re.search(r"the factors kept: ([0-9.e+-]+) MiB", text)
factors = "%10.4g" % float(factors.group(1)) if factors else "%10s" % "-"
force = [float(r["contact_normal_force"]) for r in rows]
h = [float(r["time_step"]) for r in rows]
time = [float(r["time"]) for r in rows]
contact_time = sum(h[k] for k in range(1, len(rows)) if force[k] > 0)
starts = [time[k - 1] for k in range(1, len(rows)) if force[k] > 0 and force[k - 1] == 0]
energy = [float(r["total_energy"]) for r in rows]
if name == "hertz_sphere":
    measure = "contact time %.4g s, peak force %.5g N" % (contact_time, max(force))
elif name == "bouncing_ball":
    measure = "bounces at " + ", ".join("%.6g" % t for t in starts[:5]) + " s"
else:
    external = float(rows[-1]["external_work"])
    measure = "E_end/(E_0 + W_ext) %.6g, bodies.csv last row %s" % (
        energy[-1] / (energy[0] + external), "step %s" % rows[-1]["step"])
print("%-14s %-9s %8d %9.3g %10.4g %s  %s" % (name, mode, len(rows) - 1, wall, memory, factors, measure))
PYTHON
  done
done
