#!/usr/bin/env bash
# What the ParaView output costs in the default example (applications/impact_3d: 2 187 DoFs,
# 500 steps, VTU every 10 steps = 51 records): for each 'Output/VTU compression', the run's wall
# time, the time spent writing output (the log's `timing: ... output X s`), its share, and the size
# of the output directory; then the same on 2 ranks with one file per record and one per rank.
# Usage: bash benchmarks/output/run.sh [BUILD_DIR] [--default-only]   (prints a table; writes under /tmp)
#   --default-only: the default case alone (the figure benchmarks/performance/run.sh reports)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build; default_only=0
for arg in "$@"; do
  case $arg in
    --default-only) default_only=1 ;;
    -*) echo "unknown option $arg (usage: run.sh [BUILD_DIR] [--default-only])" >&2; exit 2 ;;
    *) build=$arg ;;
  esac
done
case $build in /*) ;; *) build=$(pwd)/$build ;; esac   # a relative BUILD_DIR is taken from the repository root
exe=$build/applications/percussion/percussion
[ -x "$exe" ] || { echo "no percussion executable at $exe (build first)" >&2; exit 1; }
prm=$(pwd)/applications/impact_3d/impact_3d.prm
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
work=$(mktemp -d /tmp/percussion_output_bench.XXXX)
repeats=${REPEATS:-3}

measure() { # label ranks settings...
  local label=$1 ranks=$2; shift 2
  local best_total=1e9 best_output=0 size=0
  for r in $(seq "$repeats"); do
    local out=$work/$label.$r
    local args=("$prm" --set "Output/Directory=$out" --set "Output/Progress interval=0")
    for s in "$@"; do args+=(--set "$s"); done
    local log
    if [ "$ranks" = 1 ]; then log=$("$exe" "${args[@]}" 2>&1); else log=$(mpirun -np "$ranks" --oversubscribe "$exe" "${args[@]}" 2>&1); fi
    local total output
    total=$(sed -n 's/^done: [0-9]* steps in \([0-9.e+-]*\) s.*/\1/p' <<<"$log")
    output=$(sed -n 's/^timing: .*output \([0-9.e+-]*\) s;.*/\1/p' <<<"$log")
    if python3 -c "import sys; sys.exit(0 if $total < $best_total else 1)"; then best_total=$total; best_output=$output; fi
    size=$(du -sk "$out" | cut -f1)
  done
  python3 -c "print('%-34s %5d %9.3f %9.3f %7.1f %% %8.1f MB' % ('$label', $ranks, $best_total, $best_output, 100*$best_output/$best_total, $size/1024))"
}

echo "fastest of $repeats runs each; share = output / (whole run: set-up, steps and output)"
printf '%-34s %5s %9s %9s %9s %11s\n' case ranks "run [s]" "output [s]" share size
measure "best speed (default)" 1
if [ "$default_only" = 1 ]; then rm -rf "$work"; exit 0; fi
measure "best compression" 1 "Output/VTU compression=best compression"
measure "none" 1 "Output/VTU compression=none"
measure "no VTU at all" 1 "Output/VTU interval=0"
measure "2 ranks, a file per rank" 2
measure "2 ranks, one file per record" 2 "Output/VTU files per record=1"
rm -rf "$work"
