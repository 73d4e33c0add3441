#!/usr/bin/env bash
# CG path of the iteration matrix, at sizes where a factor does not fit:
# a steel box 0.1 x 0.1 x 0.05 m, N x N x N/2 Q1 cells, free vibration from an initial velocity
# field (no contact), Moreau-Jean theta = 1/2, 10 steps, at the CFL step h = cell / 5900 m/s and at
# 10 x CFL, with CG and each preconditioner: jacobi, boomeramg (hypre, scalar) and gamg (PETSc
# smoothed aggregation with the rigid-body near-null space).
# Prints per size, step and preconditioner: DoFs, set-up time, time per step (one solve plus the
# step's mat-vecs) and CG iterations per solve. Figures, not pass/fail.
# Usage: benchmarks/linear_solver/cg_preconditioners.sh [BUILD_DIR] [SIZES...]
#        (default sizes: 40 58, about 1e5 and 3e5 DoFs; 88 is about 1e6)
#        RANKS=2 for two MPI ranks; PRECONDITIONERS="jacobi gamg" to choose.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
shift || true
sizes=${*:-40 58}
exe=$build/applications/percussion/percussion
[ -x "$exe" ] || { echo "no percussion executable at $exe (build first)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
ranks=${RANKS:-1}
preconditioners=${PRECONDITIONERS:-jacobi boomeramg gamg}

printf "%5s %9s %5s %-10s %10s %12s %10s\n" "N" "DoFs" "CFL" "precond" "setup [s]" "step [s]" "CG its"
for n in $sizes; do
  for cfl in 1 10; do
    for pc in $preconditioners; do
      h=$(awk -v n="$n" -v c="$cfl" 'BEGIN{printf "%.6e", c*0.1/n/5900}')
      end=$(awk -v h="$h" 'BEGIN{printf "%.8e", 10.5*h}')
      cat > "$work/run.prm" <<PRM
set Dimension = 3
subsection Mesh
  set Type         = box
  set Lower corner = 0, 0, 0
  set Upper corner = 0.1, 0.1, 0.05
  set Subdivisions = $n, $n, $((n/2))
end
subsection Materials
  set Young's modulus = 210e9
  set Poisson's ratio = 0.3
  set Density         = 7800
end
subsection Boundary conditions
  set Fixed boundary ids = 4
end
subsection Initial conditions
  set Velocity = sin(31.4*x)*z; 0; -z
end
subsection Time integration
  set Scheme    = Moreau-Jean Fremond
  set Theta     = 0.5
  set Time step = $h
  set End time  = $end
end
subsection Linear solver
  set Type           = cg
  set Preconditioner = $pc
  set Tolerance      = 1e-10
end
subsection Output
  set Directory         = $work/out
  set VTU interval      = 0
  set Progress interval = 0
end
PRM
      if ! log=$(mpirun -np "$ranks" --oversubscribe "$exe" "$work/run.prm" 2>&1); then
        printf "%5d %9s %5d %-10s failed: %s\n" "$n" "-" "$cfl" "$pc" "$(echo "$log" | grep -m1 -i 'error\|not converge' | cut -c1-80)"
        continue
      fi
      dofs=$(echo "$log" | sed -n 's/.* cells, \([0-9]*\) DoFs.*/\1/p')
      setup=$(echo "$log" | sed -n 's/.*set up in \([0-9.e+-]*\) s.*/\1/p')
      step=$(echo "$log" | sed -n 's/.*time per step \([0-9.e+-]*\) s.*/\1/p')
      its=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "linear_solver_iterations") c = i; next } NR > 2 { s += $c; k++ } END { printf "%.1f", k ? s / k : 0 }' "$work/out/statistics.csv")
      printf "%5d %9d %5d %-10s %10.3g %12.4g %10s\n" "$n" "$dofs" "$cfl" "$pc" "$setup" "$step" "$its"
    done
  done
done
