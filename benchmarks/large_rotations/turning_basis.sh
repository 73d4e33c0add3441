#!/usr/bin/env bash
# The turning step basis (doc/theory.md, "A spin at θ > ½"): what it costs and what it changes.
# Runs the examples that turn with 'Kinematics/Turning step basis' = false (the fixed basis) and =
# true (the default with θ > ½; the examples' θ is the default 'auto', 0.55 with contact) and
# prints the time per step (the run's own 'time per step' line: without set-up and output; best of
# N runs), their ratio, and E_end/E_0 of both. The dominoes and the brick wall run for the first
# part of their time (--set 'Time integration/End time').
#
# Usage: benchmarks/large_rotations/turning_basis.sh [BUILD_DIR] [--repeat N]
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

# The best of N runs: "time_per_step energy_ratio".
measure() {
  local prm=$1 turning=$2 end_time=$3 best="" line extra=()
  [ -n "$end_time" ] && extra=(--set "Time integration/End time=$end_time")
  for _ in $(seq "$repeat"); do
    line=$(cd "$(dirname "$prm")" && "$exe" "$prm" --set "Kinematics/Turning step basis=$turning" "${extra[@]}" \
             --set "Output/Directory=$work/out" --set "Output/VTU interval=0" --set "Output/Progress interval=0" 2>&1 |
           awk '/time per step/ {for (i = 1; i <= NF; ++i) if ($i == "step") t = $(i + 1); gsub(",", "", t)}
                /^done:/ {for (i = 1; i <= NF; ++i) if ($i == "E_end/E_0") e = $(i + 2); gsub(",", "", e)}
                END {print t, e}')
    if [ -z "$best" ] || awk -v a="${line%% *}" -v b="${best%% *}" 'BEGIN{exit !(a < b)}'; then best=$line; fi
  done
  echo "$best"
}

printf '%-14s %-14s %-14s %-7s %-13s %-13s\n' example "fixed [s/step]" "turning [s/step]" ratio "fixed E/E0" "turning E/E0"
for entry in impact_3d/impact_3d: ball_on_block/ball_on_block: brick_stack/brick_stack: tilted_bar/tilted_bar: \
             dominoes/dominoes:0.05 brick_wall/brick_wall:0.002; do
  example=${entry%%:*}
  end_time=${entry#*:}
  prm=$root/applications/$example.prm
  fixed=$(measure "$prm" false "$end_time")
  turning=$(measure "$prm" true "$end_time")
  read -r tf ef <<< "$fixed"
  read -r tt et <<< "$turning"
  printf '%-14s %-14s %-14s %-7s %-13s %-13s\n' "$(basename "$example")" "$tf" "$tt" \
    "$(awk -v a="$tt" -v b="$tf" 'BEGIN{printf "%.3f", a / b}')" "$ef" "$et"
done
