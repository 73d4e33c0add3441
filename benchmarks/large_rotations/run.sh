#!/usr/bin/env bash
# Large-rotation kinematics benchmark (cost target: ≤ 15 % over small displacements on
# the impact examples). Runs each example with 'Kinematics/Formulation' = small displacements and
# = large rotations and prints the time per step (the run's own 'time per step' line, which leaves
# out set-up and output), the ratio, the peak memory and E_end/E_0 of both. The 1D bar has no
# rotation: it runs the same code with either setting and is shown for the record.
#
# Usage: benchmarks/large_rotations/run.sh [BUILD_DIR] [--repeat N]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
shift || true
repeat=3
while [ $# -gt 0 ]; do
  case $1 in
    --repeat) repeat=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 1 ;;
  esac
  shift
done
source "$here/../lib.sh"
percussion_benchmark_setup "$build"

# The best of N runs (the machine is shared): "time_per_step peak_MiB energy_ratio".
measure() {
  local prm=$1 kinematics=$2 best="" line
  for _ in $(seq "$repeat"); do
    line=$(cd "$(dirname "$prm")" && "$exe" "$prm" --set "Kinematics/Formulation=$kinematics" \
             --set "Output/Directory=$work/out" --set "Output/VTU interval=0" --set "Output/Progress interval=0" 2>&1 |
           awk '/time per step/ {for (i = 1; i <= NF; ++i) { if ($i == "step") t = $(i + 1); if ($i == "memory") m = $(i + 1) } }
                /^done:/ {for (i = 1; i <= NF; ++i) if ($i == "E_end/E_0") e = $(i + 2); gsub(",", "", e)}
                END {print t, m, e}')
    if [ -z "$best" ] || awk -v a="${line%% *}" -v b="${best%% *}" 'BEGIN{exit !(a < b)}'; then best=$line; fi
  done
  echo "$best"
}

printf '%-16s %-14s %-14s %-7s %-10s %-10s %-13s %-13s\n' example "small [s/step]" "large [s/step]" ratio "small MiB" "large MiB" "small E/E0" "large E/E0"
for example in impact_3d/impact_3d ball_on_block/ball_on_block brick_stack/brick_stack impacting_bar/impacting_bar_1d; do
  prm=$root/applications/$example.prm
  if [[ $example == *_1d ]]; then
    small=$(measure "$prm" "small displacements"); large=$small
  else
    small=$(measure "$prm" "small displacements"); large=$(measure "$prm" "large rotations")
  fi
  read -r ts ms es <<< "$small"
  read -r tl ml el <<< "$large"
  printf '%-16s %-14s %-14s %-7s %-10s %-10s %-13s %-13s\n' "$(basename "$example")" "$ts" "$tl" \
    "$(awk -v a="$tl" -v b="$ts" 'BEGIN{printf "%.3f", a / b}')" "$ms" "$ml" "$es" "$el"
done
