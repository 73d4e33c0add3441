#!/usr/bin/env bash
# The impacting bar of doc/theory.md reference problem 1 in 1D (1000 elements, h = L/(N c)) with every time-stepping
# scheme of percussion: prints, per scheme, E_end/E_0, the contact duration in steps against the
# exact 2L/(c h) = 2000, the plateau wall force against rho c |v0| S, the final momentum against the
# exact rebound, the largest relative energy-balance residual and the throughput.
# Usage: benchmarks/impacting_bar/compare_schemes.sh [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
exe=$build/applications/percussion/percussion
[ -x "$exe" ] || { echo "no percussion executable at $exe (build first)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

printf "%-44s %12s %14s %12s %12s %10s\n" "scheme" "E_end/E_0" "contact steps" "force (N)" "residual" "steps/s"
run() {
  local label=$1 lines=$2
  sed -e "s|set Directory = output_1d|set Directory = $work/out|" \
      -e "s|  set End time = 1.5e-3|  set End time = 1.5e-3\n$lines|" \
      "$here/../../applications/impacting_bar/impacting_bar_1d.prm" > "$work/bar.prm"
  local log
  log=$("$exe" "$work/bar.prm")
  local steps seconds residual
  steps=$(echo "$log" | sed -n 's/^done: \([0-9]*\) steps in \([0-9.e+-]*\) s.*/\1/p')
  seconds=$(echo "$log" | sed -n 's/^done: \([0-9]*\) steps in \([0-9.e+-]*\) s.*/\2/p')
  residual=$(echo "$log" | sed -n 's/.*residual (relative) = \([0-9.e+-]*\).*/\1/p')
  awk -F, -v label="$label" -v steps="$steps" -v seconds="$seconds" -v residual="$residual" '
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    NR == 2 { e0 = $col["total_energy"]; next }
    { e = $col["total_energy"]; f = $col["contact_normal_force"]; if (f > 0) { n++; forces[n] = f } }
    END {
      # plateau: the median of the contact forces
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (forces[j] < forces[i]) { t = forces[i]; forces[i] = forces[j]; forces[j] = t }
      printf "%-44s %12.6f %9d/2000 %12.2f %12.1e %10.0f\n", label, e / e0, n, forces[int(n / 2) + 1], residual, steps / seconds
    }' "$work/out/statistics.csv"
}
run "Moreau-Jean Fremond, theta = 1/2" "  set Scheme = Moreau-Jean Fremond\n  set Theta = 0.5"
run "Moreau-Jean Fremond, theta = 0.55" "  set Scheme = Moreau-Jean Fremond\n  set Theta = 0.55"
run "Moreau-Jean standard, theta = 1/2" "  set Scheme = Moreau-Jean standard\n  set Theta = 0.5"
run "nonsmooth Newmark, gamma = 1/2, beta = 1/4" "  set Scheme = nonsmooth Newmark"
run "nonsmooth Newmark, gamma = 0.6, beta = 0.3025" "  set Scheme = nonsmooth Newmark\n  set Newmark gamma = 0.6\n  set Newmark beta = 0.3025"
run "nonsmooth HHT, alpha = 0.1" "  set Scheme = nonsmooth HHT\n  set HHT alpha = 0.1"
run "nonsmooth generalized-alpha, rho = 0.8" "  set Scheme = nonsmooth generalized-alpha\n  set Spectral radius = 0.8"
run "nonsmooth generalized-alpha, rho = 0.5" "  set Scheme = nonsmooth generalized-alpha\n  set Spectral radius = 0.5"
run "Schatzman-Paoli, beta = 1/4" "  set Scheme = Schatzman-Paoli"
c=$(awk 'BEGIN { printf "%.2f", 7800 * sqrt(210e9 / 7800) * 0.1 * 3.14e-4 }')
echo "exact: E_end/E_0 = 1 (the bar leaves with +|v0|, minus the contact node's kinetic energy lost at impact with e = 0), contact 2000 steps, force $c N"
