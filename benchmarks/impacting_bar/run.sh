#!/usr/bin/env bash
# Impacting bar, doc/theory.md reference problem 1 in 1D with 1000 elements and h = L/(N c): prints the product
# targets' figures — steps per second on one core (target ≥ 36 000), E_end/E_0 (target ≥ 0.9994)
# and the contact-duration error (target ≤ 0.15 %).
# Usage: benchmarks/impacting_bar/run.sh [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
exe=$build/applications/percussion/percussion
[ -x "$exe" ] || { echo "no percussion executable at $exe (build first)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sed -e "s|set Directory = output_1d|set Directory = $work/out|" -e 's|set Progress interval = 0|set Progress interval = 0|' \
  "$here/../../applications/impacting_bar/impacting_bar_1d.prm" > "$work/bar.prm"
log=$("$exe" "$work/bar.prm")
steps=$(echo "$log" | sed -n 's/^done: \([0-9]*\) steps in \([0-9.e+-]*\) s.*/\1/p')
seconds=$(echo "$log" | sed -n 's/^done: \([0-9]*\) steps in \([0-9.e+-]*\) s.*/\2/p')
awk -F, -v steps="$steps" -v seconds="$seconds" '
  NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  NR == 2 { e0 = $col["total_energy"]; next }
  { e = $col["total_energy"]; if ($col["contact_normal_force"] > 0) n++ }
  END {
    c = sqrt(210e9 / 7800); h = 1 / (1000 * c); exact = 2 / c
    printf "steps/s (1 core)      %10.0f   target >= 36000\n", steps / seconds
    printf "E_end/E_0             %10.6f   target >= 0.9994\n", e / e0
    printf "duration error        %9.3f %%   target <= 0.15 %% (%d contact steps, exact %.1f)\n", 100 * (n * h - exact) / exact, n, exact / h
  }' "$work/out/statistics.csv"
