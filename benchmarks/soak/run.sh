#!/usr/bin/env bash
# Soak test: a 3D multi-body impact run for many thousand steps; reports the
# memory growth of the process (its resident set, sampled every second: none is allowed once the
# run is past its set-up), the worst per-step energy-balance residual, and the events the run
# reported (steps with positive contact work, contact problems not solved, position projections).
# Figures, not pass/fail; exits 1 if the run fails or its memory grows by more than 5 % after the
# first tenth of the run (largest resident set of the second half against the first).
# Usage: benchmarks/soak/run.sh [BUILD_DIR] [STEPS]     (default: 5000 steps)
#   PRM=file.prm (default: applications/brick_stack/brick_stack.prm), RANKS=2 for mpirun.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
steps=${2:-5000}
exe=$build/applications/percussion/percussion
prm=$(realpath "${PRM:-$here/../../applications/brick_stack/brick_stack.prm}")
[ -x "$exe" ] || { echo "no percussion executable at $exe (build first)" >&2; exit 1; }
[ -f "$prm" ] || { echo "no parameter file $prm" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
ranks=${RANKS:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The step size of the file (a plain number), and the end time for STEPS steps.
h=$(sed -n 's/^[[:space:]]*set Time step[[:space:]]*=[[:space:]]*\([0-9.eE+-]*\).*/\1/p' "$prm" | head -1)
[ -n "$h" ] || { echo "cannot read 'Time step' from $prm" >&2; exit 1; }
end=$(awk -v h="$h" -v n="$steps" 'BEGIN{printf "%.10e", (n + 0.5) * h}')
cd "$(dirname "$prm")"
if [ "$ranks" -gt 1 ]; then launcher=(mpirun -np "$ranks" --oversubscribe); else launcher=(); fi
"${launcher[@]}" "$exe" "$prm" --set "Time integration/End time=$end" --set "Output/Directory=$work/output" \
  --set "Output/VTU interval=0" --set "Output/Progress interval=0" ${SOAK_SETTINGS:+--set "$SOAK_SETTINGS"} > "$work/log" 2>&1 &
pid=$!
start=$(date +%s)
: > "$work/rss"
while kill -0 "$pid" 2>/dev/null; do
  # the resident set of percussion's processes (all ranks), in MiB
  total=0
  for p in $(pgrep -f "$exe" || true); do
    kb=$(awk '/^VmRSS/ {print $2}' "/proc/$p/status" 2>/dev/null || echo 0)
    total=$((total + ${kb:-0}))
  done
  echo "$(( $(date +%s) - start )) $((total / 1024))" >> "$work/rss"
  sleep 1
done
status=0
wait "$pid" || status=$?
if [ "$status" -ne 0 ]; then
  echo "the run failed (exit $status):"; tail -5 "$work/log"; exit 1
fi
elapsed=$(( $(date +%s) - start ))
residual=$(sed -n 's/.*largest per-step energy-balance residual (relative) = \([0-9.e+-]*\).*/\1/p' "$work/log")
events=$(sed -n 's/^contact: .*steps with positive contact work \([0-9]*\), steps whose contact problem was not solved \([0-9]*\).*/positive-work steps \1, unsolved steps \2/p' "$work/log")
projection=$(sed -n 's/^contact positions: \(.*\)/\1/p' "$work/log")
awk -v steps="$steps" -v ranks="$ranks" -v elapsed="$elapsed" -v residual="$residual" -v events="$events" -v projection="$projection" '
  { t[NR] = $1; m[NR] = $2 }
  END {
    if (NR < 3) { print "run too short to sample the memory"; exit 0 }
    first = int(NR / 10) + 1; if (first < 2) first = 2
    mid = int((first + NR) / 2)
    early = 0; late = 0
    for (i = first; i <= mid; i++) if (m[i] > early) early = m[i]
    for (i = mid + 1; i <= NR; i++) if (m[i] > late) late = m[i]
    growth = late - early
    printf "soak: %d steps on %d rank(s) in %d s (%d memory samples)\n", steps, ranks, elapsed, NR
    printf "largest resident memory (all ranks) in the first half after set-up: %d MiB, in the second half: %d MiB, growth %d MiB (%.2f %%)\n", early, late, growth, 100 * growth / early
    printf "worst per-step energy-balance residual (relative): %s\n", residual
    printf "events: %s; %s\n", events, projection
    if (growth > 0.05 * m[first]) { print "memory grows: FAIL"; exit 1 }
  }' "$work/rss"
