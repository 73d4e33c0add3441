#!/usr/bin/env bash
# The energy figures of the cases where position projections and frames used to create energy.
# For each case: the exit status, E_end/E_0, E_end/(E_0 + W_ext) (the pressed blocks start at
# rest), the energy the projections and the frames changed in all (projection_energy,
# frame_energy), the largest energy one step created relative to the energy scale (the energy
# guard's measure, from statistics.csv), the largest E_k − E_0 − W_ext,k relative to the scale,
# the projections (all / taken in the quasi-static metric instead of the impulse response /
# scaled back) and the steps whose contact problem was not solved.
#
# Usage: benchmarks/energy_guard/run.sh [BUILD_DIR] [--ranks N]
# (runs from a temporary directory; the brick wall and dominoes use applications/' files, the
# pressed blocks this folder's, the brick stack and the Hertz sphere their examples')
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$here/../lib.sh"
percussion_benchmark_arguments "$root" "$@"
percussion_benchmark_setup "$build" "$ranks"

# name | directory | parameter file | overrides
cases=(
  "brick_wall|$root/applications/brick_wall|brick_wall.prm|Output/VTU interval=0"
  "dominoes|$root/applications/dominoes|dominoes.prm|Output/VTU interval=0"
  "brick_stack|$root/applications/brick_stack|brick_stack.prm|Output/VTU interval=0"
  "hertz_sphere|$root/applications/hertz_sphere|hertz_sphere.prm|Output/VTU interval=0"
  "pressed_block_plane_2d|$here|pressed_block_plane_2d.prm|Time integration/Theta=auto"
  "pressed_block_on_block_2d|$here|pressed_block_on_block_2d.prm|Time integration/Theta=auto"
)
printf '%-26s %6s %12s %12s %12s %12s %10s %10s %14s %7s\n' case exit E_end/E_0 "E/(E0+Wext)" projection frame created \
  excess "projections" unsolved
for entry in "${cases[@]}"; do
  IFS='|' read -r name directory file overrides <<<"$entry"
  out=$work/$name
  args=(--set "Output/Directory=$out" --set "Output/Progress interval=0")
  IFS=';' read -ra sets <<<"$overrides"
  for s in "${sets[@]}"; do args+=(--set "$s"); done
  status=0
  (cd "$directory" && "${run[@]}" "$file" "${args[@]}" >"$work/$name.log" 2>&1) || status=$?
  /usr/bin/python3 - "$out" "$name" "$status" <<'EOF'
import csv, os, sys
out, name, status = sys.argv[1], sys.argv[2], sys.argv[3]
rows = list(csv.DictReader(open(os.path.join(out, "statistics.csv"))))
energy = [float(r["total_energy"]) + float(r["algorithmic_energy"]) for r in rows]
external = [float(r["external_work"]) for r in rows]
scale, created = abs(energy[0]), 0.0
for k in range(1, len(rows)):
    scale = max(scale, abs(energy[k]), abs(external[k]))
    created = max(created, (energy[k] - energy[k - 1] - (external[k] - external[k - 1])) / scale)
excess = max(e - energy[0] - w for e, w in zip(energy, external)) / scale
events = list(csv.DictReader(open(os.path.join(out, "events.csv"))))
projections = [e for e in events if e["event"] == "position_projection"]
replaced = sum("would have added" in e["detail"] for e in projections)
scaled = sum("scaled back" in e["detail"] for e in projections)
unsolved = sum(e["event"] == "contact_not_solved" for e in events)
ratio = "%.6g" % (energy[-1] / energy[0]) if energy[0] > 0 else "-"
print("%-26s %6s %12s %12.6g %12.3g %12.3g %10.2e %10.2e %6d/%3d/%3d %7d" % (
    name, status, ratio, energy[-1] / (energy[0] + external[-1]), float(rows[-1]["projection_energy"]),
    float(rows[-1]["frame_energy"]), created, excess, len(projections), replaced, scaled, unsolved))
EOF
done
echo "projections: all / taken in the quasi-static metric instead of the impulse response / scaled back"
