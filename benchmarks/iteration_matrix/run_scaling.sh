#!/usr/bin/env bash
# Iteration-matrix benchmark: a 3D elastic box (Q1) at increasing refinement, solved with
# the stored MUMPS Cholesky factor and with CG + Jacobi. Prints, per size: DoFs, assembly time,
# factorisation (or preconditioner set-up) time, time per step, and peak memory. The per-step cost
# of the direct solver must be a forward/backward substitution, far below one factorisation.
#
# Usage: benchmarks/iteration_matrix/run_scaling.sh [BUILD_DIR] [--large] [--ranks N]
#   --large   add a ~3e5-DoF case (about 2-3 minutes and 7 GiB with the direct solver)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
shift || true
large=0; ranks=1
while [ $# -gt 0 ]; do
  case $1 in
    --large) large=1 ;;
    --ranks) ranks=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 1 ;;
  esac
  shift
done
source "$here/../lib.sh"
percussion_benchmark_setup "$build"

sizes="10 20 32"
[ $large = 1 ] && sizes="$sizes 46"
steps=20

printf '%-8s %-10s %-12s %-10s %-14s %-14s %-12s %-12s\n' cells DoFs solver "asm [s]" "factor/PC [s]" "per step [s]" "step/factor" "peak [MiB]"
for n in $sizes; do
  for solver in direct cg; do
    h=$(awk -v n=$n 'BEGIN{printf "%.6g", (1.0/n)/5188.75}')
    end=$(awk -v n=$n -v s=$steps 'BEGIN{printf "%.6g", s*(1.0/n)/5188.75*(1+1e-9)}')
    log=$(mpirun -np $ranks --oversubscribe "$exe" "$here/box.prm" --set "Mesh/Subdivisions=$n" \
      --set "Time integration/Time step=$h" --set "Time integration/End time=$end" \
      --set "Linear solver/Type=$solver" --set "Output/Directory=$work/out")
    dofs=$(echo "$log" | sed -n 's/.* cells, \([0-9]*\) DoFs.*/\1/p')
    asm=$(echo "$log" | sed -n 's/.*DoFs and assembly \([0-9.e+-]*\) s.*/\1/p')
    fac=$(echo "$log" | sed -n 's/.*factorisation \([0-9.e+-]*\) s.*/\1/p')
    per=$(echo "$log" | sed -n 's/.*time per step \([0-9.e+-]*\) s.*/\1/p')
    mem=$(echo "$log" | sed -n 's/.*peak memory \([0-9.e+-]*\) MiB (all.*/\1/p')
    ratio=$(awk -v a=$per -v b=$fac 'BEGIN{ if (b > 0) printf "%.4f", a/b; else print "-" }')
    printf '%-8s %-10s %-12s %-10s %-14s %-14s %-12s %-12s\n' "${n}^3" "$dofs" "$solver" "$asm" "$fac" "$per" "$ratio" "$mem"
  done
done
echo "ranks: $ranks; $steps steps per run; per-step time includes the mat-vecs, the solve and the energy audit."
