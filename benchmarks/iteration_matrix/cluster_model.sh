#!/usr/bin/env bash
# Figures behind the per-rank memory and time model of a step (benchmarks/iteration_matrix/README.md): the 3D elastic
# box of run_scaling.sh (N x N x N Q1 cells, fixed at its base, h = cell size / wave speed, no
# contact) solved on the direct path (MUMPS LDL^T) and on the CG path (Jacobi and Trilinos ML).
# MUMPS' own statistics (PETSc option -mat_mumps_icntl_4 2) give the analysis time, its estimates
# of the factor (entries, flops, memory per rank INFOG(16) and in total INFOG(17)) and the
# factorisation's time and memory; PETSc's -log_view gives the time of one substitution (MatSolve),
# one mat-vec (MatMult) and one CG solve (KSPSolve); /usr/bin/time the peak RSS of every rank.
#
# Usage: benchmarks/iteration_matrix/cluster_model.sh [BUILD_DIR] [--ranks R] [--steps S]
#          [--paths "direct jacobi ml"] [--analysis-only] N...
#   N               cells per edge: 46 is 3.1e5 DoFs, 70 is 1.07e6 (default: 20 32)
#   --analysis-only the direct path stops after MUMPS' analysis (ICNTL(23) = 1 MB: the
#                   factorisation refuses to start, INFOG(1) = -19), for sizes whose factor does
#                   not fit in memory; the run then ends with exit status 2, as expected
#   LOGDIR=dir      keeps each run's full log there
# Prints one row per size and path. Figures, not pass/fail.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../../build
if [ $# -gt 0 ] && [ -d "$1" ]; then build=$1; shift; fi
ranks=1; steps=3; paths="direct jacobi ml"; analysis_only=0; sizes=""
while [ $# -gt 0 ]; do
  case $1 in
    --ranks) ranks=$2; shift ;;
    --steps) steps=$2; shift ;;
    --paths) paths=$2; shift ;;
    --analysis-only) analysis_only=1 ;;
    -*) echo "unknown option $1" >&2; exit 1 ;;
    *) sizes="$sizes $1" ;;
  esac
  shift
done
sizes=${sizes:-20 32}
exe=$build/applications/percussion/percussion
[ -x "$exe" ] || { echo "no percussion executable at $exe (build first)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian package 'time')" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The first number after the text $1 on a line of $2 (empty if absent).
field() { grep -m1 -F -- "$1" "$2" | sed 's/.*[=:] *\([-+0-9.DEe]*\)[^=:]*$/\1/' | tr D E || true; }
# $1 with three significant digits, or '-' when it is not a number.
sig3() { if [[ ${1:-} =~ ^[-+]?[0-9] ]]; then printf '%.3g' "$1"; else printf -- '-'; fi; }
# Time per call [s] of PETSc's -log_view event $1 (columns: name, count, ratio, max time).
per_call() { awk -v e="$1" '$1 == e && $2 > 0 { printf "%.4g", $4 / $2; f = 1 } END { if (!f) printf "-" }' "$2"; }

printf '%5s %8s %2s %-7s %8s %7s %9s %9s %10s %8s %10s %9s %9s %9s %8s %6s %8s %10s\n' \
  N DoFs np path "asm[s]" "ana[s]" "fac[e]" "flop[e]" "est MB/r" "fac[s]" "real MB/r" "subst[s]" "matvec[s]" "solve[s]" "setup[s]" "its" "step[s]" "RSS MB/r"
for n in $sizes; do
  for path in $paths; do
    solver=cg; pc=$path
    [ "$path" = direct ] && { solver=direct; pc=jacobi; }
    h=$(awk -v n=$n 'BEGIN{printf "%.6g", (1.0/n)/5188.75}')
    end=$(awk -v n=$n -v s=$steps 'BEGIN{printf "%.6g", (s+0.5)*(1.0/n)/5188.75}')
    options="-log_view"
    [ $solver = direct ] && options="$options -mat_mumps_icntl_4 2"
    [ $solver = direct ] && [ $analysis_only = 1 ] && options="$options -mat_mumps_icntl_23 1"
    log=$work/run.log
    rm -f "$work"/rss.*
    # Each rank's peak RSS in a file of its own (the ranks' stderr lines can interleave).
    PETSC_OPTIONS="$options" mpirun -np "$ranks" --oversubscribe sh -c \
      '/usr/bin/time -f "%M" -o "$0.$OMPI_COMM_WORLD_RANK" "$@"' "$work/rss" "$exe" "$here/box.prm" \
      --set "Mesh/Subdivisions=$n" --set "Time integration/Time step=$h" --set "Time integration/End time=$end" \
      --set "Linear solver/Type=$solver" --set "Linear solver/Preconditioner=$pc" \
      --set "Linear solver/Direct solver package=mumps" --set "Output/Directory=$work/out" > "$log" 2>&1 || true
    dofs=$(sed -n 's/.* cells, \([0-9]*\) DoFs.*/\1/p' "$log")
    asm=$(sed -n 's/.*DoFs and assembly \([0-9.e+-]*\) s.*/\1/p' "$log")
    setup=$(sed -n 's/.*set up in \([0-9.e+-]*\) s.*/\1/p' "$log")
    for f in "$work"/rss.*; do echo "peak RSS of rank ${f##*.}: $(tail -n 1 "$f") kB" >> "$log"; done
    rss=$(cat "$work"/rss.* | awk '$1 ~ /^[0-9]+$/ && $1 > m { m = $1 } END { printf "%.0f", m / 1024 }')
    [ -n "${LOGDIR:-}" ] && mkdir -p "$LOGDIR" && cp "$log" "$LOGDIR/N${n}_np${ranks}_${path}.log"
    ana=- entries=- flops=- est=- fac=- real=- subst=- its=-
    if [ $solver = direct ]; then
      ana=$(field "Elapsed time in analysis driver" "$log")
      entries=$(field "(20) Number of entries in factors (estim.)" "$log")
      flops=$(field "RINFOG(1) Operations during elimination" "$log")
      # (One rank: MUMPS prints the totals INFOG(17) / INFOG(19) only, which are the rank's.)
      est=$(field "(INFOG(16))" "$log"); est=${est:-$(field "(INFOG(17))" "$log")}
      fac=$(field "Elapsed time in factorization driver" "$log")
      real=$(field "(INFOG(18))" "$log"); real=${real:-$(field "(INFOG(19))" "$log")}
      subst=$(per_call MatSolve "$log")
      grep -q "INFOG(1) = -19" "$log" && { fac=stopped; real=-; }
    else
      # CG iterations per solve: CG applies the preconditioner once per iteration and once at the
      # start of each solve.
      its=$(awk '$1 == "PCApply" { a = $2 } $1 == "KSPSolve" { s = $2 } END { if (s > 0) printf "%.1f", a / s - 1; else printf "-" }' "$log")
    fi
    step=$(sed -n 's/.*time per step \([0-9.e+-]*\) s.*/\1/p' "$log")
    matvec=$(per_call MatMult "$log")
    solve=$(per_call KSPSolve "$log")
    printf '%5s %8s %2s %-7s %8s %7s %9s %9s %10s %8s %10s %9s %9s %9s %8s %6s %8s %10s\n' \
      "$n" "${dofs:--}" "$ranks" "$path" "${asm:--}" "${ana:--}" "$(sig3 "$entries")" "$(sig3 "$flops")" \
      "${est:--}" "${fac:--}" "${real:--}" "$subst" "$matvec" "$solve" "${setup:--}" "$its" "${step:--}" "$rss"
  done
done
echo "ranks: $ranks; $steps steps per run; fac[e] / flop[e]: MUMPS' estimated factor entries and elimination flops;"
echo "est/real MB/r: MUMPS' estimated (INFOG(16)) and allocated (INFOG(18)) memory on the largest rank;"
echo "solve: one KSPSolve (a substitution, or a CG solve); its: CG iterations per solve; step: time per step"
echo "(the solve, the mat-vecs, the energy audit); RSS MB/r: peak resident memory of the largest rank [MiB]."
