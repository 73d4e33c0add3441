#!/usr/bin/env bash
# 3D impact step-cost benchmark (product target): an elastic steel ball hitting a rigid
# plane obliquely with friction (Frémond Moreau–Jean, θ = ½, h = cell size / wave speed), at
# increasing refinement. Prints per size: DoFs, contact candidates, steps, time per step and its
# parts — contact geometry, free-velocity solve (one solve with the stored factor of Ŵ), contact step
# (Delassus columns, local problem, solve, impulse), contact solver alone — and the ratios the
# target is stated in: step / free-velocity solve (target ≤ 2) and contact share (target < 30 %).
#
# Usage: benchmarks/impact_3d/run_step_cost.sh [BUILD_DIR] [--large] [--ranks N] [--solver direct|cg]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
shift || true
large=0; ranks=1; solver=direct
while [ $# -gt 0 ]; do
  case $1 in
    --large) large=1 ;;
    --ranks) ranks=$2; shift ;;
    --solver) solver=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 1 ;;
  esac
  shift
done
source "$here/../lib.sh"
percussion_benchmark_setup "$build"

levels="2 3"
[ $large = 1 ] && levels="$levels 4"
printf '%-6s %-9s %-10s %-6s %-11s %-10s %-10s %-10s %-10s %-11s %-9s\n' level DoFs candidates steps "step [s]" "geom [s]" "free [s]" "contact[s]" "solver[s]" "step/free" "contact%"
for level in $levels; do
  # ball radius 0.05 m: the coarse mesh has cells of about R/2, halved per refinement
  h=$(awk -v l=$level 'BEGIN{printf "%.4g", 0.05/2/2^l/5900}')
  end=$(awk -v h=$h 'BEGIN{printf "%.6g", 150*h}')
  cat > "$work/ball.prm" <<PRM
set Dimension = 3
subsection Mesh
  set Type = ball
  set Center = 0, 0, 0.05
  set Radius = 0.05
  set Global refinements = $level
  set Translation = 0, 0, 2e-6
end
subsection Materials
  set Young's modulus = 210e9
  set Poisson's ratio = 0.3
  set Density = 7800
end
subsection Initial conditions
  set Velocity = 1; 0; -2
end
subsection Time integration
  set Time step = $h
  set End time = $end
end
subsection Linear solver
  set Type = $solver
end
subsection Contact
  set Number of pairs = 1
  set Search distance = 0.005
  subsection Pair 1
    set Type = plane
    set Slave boundary id = 0
    set Point = 0, 0, 0
    set Normal = 0, 0, 1
    set Friction coefficient = 0.3
  end
end
subsection Output
  set Directory = $work/out
  set VTU interval = 0
  set Progress interval = 0
end
PRM
  log=$(mpirun -np $ranks --oversubscribe "$exe" "$work/ball.prm")
  dofs=$(echo "$log" | sed -n 's/.* cells, \([0-9]*\) DoFs.*/\1/p')
  per=$(echo "$log" | sed -n 's/.*time per step \([0-9.e+-]*\) s.*/\1/p')
  geo=$(echo "$log" | sed -n 's/.*per step: geometry \([0-9.e+-]*\) s.*/\1/p')
  free=$(echo "$log" | sed -n 's/.*free-velocity solve \([0-9.e+-]*\) s.*/\1/p')
  con=$(echo "$log" | sed -n 's/.*contact step \([0-9.e+-]*\) s.*/\1/p')
  sol=$(echo "$log" | sed -n 's/.*the contact solver \([0-9.e+-]*\) s).*/\1/p')
  cand=$(awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="contact_candidates") c=i} NR>1{ if ($c>m) m=$c } END{print m}' "$work/out/statistics.csv")
  steps=$(($(wc -l < "$work/out/statistics.csv") - 2))
  ratio=$(awk -v a=$per -v b=$free 'BEGIN{printf "%.2f", a/b}')
  share=$(awk -v a=$per -v g=$geo -v c=$con 'BEGIN{printf "%.1f", 100*(g+c)/a}')
  printf '%-6s %-9s %-10s %-6s %-11s %-10s %-10s %-10s %-10s %-11s %-9s\n' $level $dofs $cand $steps $per $geo $free $con $sol $ratio $share
done
echo "ranks: $ranks, linear solver: $solver. 'contact%' = (geometry + contact step) / step."
