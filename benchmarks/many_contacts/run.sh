#!/usr/bin/env bash
# Many simultaneous contacts: a steel box 0.1 x 0.1 x 0.05 m, N x N x N/2 Q1 cells, falls
# flat at 1 m/s onto a rigid plane (mu = 0.3, e = 0, Fremond Moreau-Jean, theta = 1/2,
# h = cell / 5900 m/s); its whole bottom face lands at once after about 30 steps. Prints per size:
# DoFs, contacts in the problem, time per step without contact (the same box without the contact
# pair), per step of the landing (the 3 steps from the first touch: Delassus columns computed, the
# active set changes) and per step of the contact steps after it, lasting contact and the lift-off
# (from Output/Write step timings, one run each; the run ends 10 steps after the box lifts off),
# the ratio of the latter to the free step, the peak memory of both runs, and the steps
# whose contact problem was not solved, the mean number of exact products W p per contact step (one
# solve each; probed operator only), the probing solves of the run and "held", the most contacts
# one rank held in a step's problem (all of them on the dense path; own plus ghosts within the
# probing radius on the probed path, which no rank holds whole); under each row the parts of a
# lasting step (contact geometry and H, the free-velocity solve, the contact step and within it the
# contact solve: Delassus operator, law, solver, exact products; the rest is output and energy
# audit). "ratio" divides a lasting
# step by the free run's step; "own" divides it by the same step without its contact solve (the
# contact run's step time minus its contact_step part: the same state's free solve, geometry and
# output). They agree on the direct path, where a solve costs the same in any state; on the CG path
# the free run is a rigid flight whose warm-started CG needs a few iterations, a deforming body's
# about 17, and "own" is the comparison with a step of the same body without contact.
# Figures, not pass/fail: the targets are a ratio <= 3 and memory <= 1.5x at N = 32.
# LINEAR_SOLVER=direct|cg forces Linear solver/Type (default auto: direct up to 150 000 DoFs).
# PARTITION_WEIGHT=w sets Contact/Slave face partition weight; PROJECTION_TOLERANCE=t turns the
# position projection on with that Penetration tolerance (1e-6 makes the landing step project).
# Usage: benchmarks/many_contacts/run.sh [BUILD_DIR] [SIZES...]     (default sizes: 8 16; 32 takes minutes)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
shift || true
sizes=${*:-8 16}
exe=$build/applications/percussion/percussion
[ -x "$exe" ] || { echo "no percussion executable at $exe (build first)" >&2; exit 1; }
work=$(mktemp -d)
[ -n "${KEEP:-}" ] && echo "work directory: $work" || trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
ranks=${RANKS:-1}
operator=${OPERATOR:-auto}   # Contact solver/Delassus operator: auto, dense or probed
radius_line=""                # PROBING_RADIUS: Contact solver/Probing radius (default: the parameter's)
[ -n "${PROBING_RADIUS:-}" ] && radius_line="  set Probing radius = $PROBING_RADIUS"
projection_lines=""           # PROJECTION_TOLERANCE: position projection on, with this Penetration tolerance
[ -n "${PROJECTION_TOLERANCE:-}" ] && projection_lines="  set Position projection = on
  set Penetration tolerance = $PROJECTION_TOLERANCE"
linear_solver=${LINEAR_SOLVER:-auto}   # Linear solver/Type: auto, direct or cg
landing=28   # steps before the bottom touches (gap = 30 h at 1 m/s)
# Steps after the first 3 with contact: by default the whole landing, N + 10 (the compression wave
# runs up the box's N/2 cells and back in about N steps, then the box lifts off; 10 steps of flight).
contact_steps=${CONTACT_STEPS:-}

# The obstacle: CASE=plane (default: a rigid plane z = 0) or CASE=slab (body to body: a steel
# slab 0.12 x 0.12 x 0.02 m under z = 0, clamped at its base, with N x N x N/2 cells; the box's
# bottom nodes are the slave points on the slab's top face).
case=${CASE:-plane}
[ "$case" = plane ] || [ "$case" = slab ] || { echo "CASE must be plane or slab" >&2; exit 1; }
mesh_lines() {
  local gap=$1 top=$2 n=$3
  if [ "$case" = plane ]; then
    printf 'subsection Mesh\n  set Type         = box\n  set Lower corner = 0, 0, %s\n  set Upper corner = 0.1, 0.1, %s\n  set Subdivisions = %s, %s, %s\nend\n' "$gap" "$top" "$n" "$n" $((n/2))
    printf "subsection Materials\n  set Young's modulus = 210e9\n  set Poisson's ratio = 0.3\n  set Density         = 7800\nend"
  else
    printf 'subsection Mesh\n  set Type         = boxes\n  set Boxes        = -0.01,-0.01,-0.02 : 0.11,0.11,0; 0,0,%s : 0.1,0.1,%s\n  set Subdivisions = %s, %s, %s\nend\n' "$gap" "$top" "$n" "$n" $((n/2))
    printf "subsection Materials\n  set Material ids    = 0, 1\n  set Young's modulus = 210e9, 210e9\n  set Poisson's ratio = 0.3, 0.3\n  set Density         = 7800, 7800\nend\n"
    printf 'subsection Boundary conditions\n  set Fixed boundary ids = 4\nend'
  fi
}
pair_lines() {
  if [ "$case" = plane ]; then
    printf '    set Type                    = plane\n    set Point                   = 0, 0, 0\n    set Normal                  = 0, 0, 1\n    set Slave boundary id       = 4'
  else
    printf '    set Type                    = body\n    set Slave boundary id       = 14\n    set Master boundary id      = 5'
  fi
}

# write_prm N STEPS PAIRS FILE OUTDIR
write_prm() {
  local n=$1 steps=$2 pairs=$3 file=$4 dir=$5
  local h gap top end
  h=$(awk -v n="$n" 'BEGIN{printf "%.6e", 0.1/n/5900}')
  gap=$(awk -v h="$h" 'BEGIN{printf "%.6e", 30*h}')
  top=$(awk -v g="$gap" 'BEGIN{printf "%.8e", 0.05+g}')
  end=$(awk -v h="$h" -v s="$steps" 'BEGIN{printf "%.8e", (s+0.5)*h}')
  cat > "$file" <<PRM
set Dimension = 3
$(mesh_lines "$gap" "$top" "$n")
subsection Initial conditions
  set Velocity = 0; 0; z > 0 ? -1 : 0
end
subsection Time integration
  set Scheme    = Moreau-Jean Fremond
  set Theta     = 0.5
  set Time step = $h
  set End time  = $end
end
subsection Contact
  set Number of pairs = $pairs
  set Search distance = 0.005
${PARTITION_WEIGHT:+  set Slave face partition weight = $PARTITION_WEIGHT}
  subsection Pair 1
$(pair_lines)
    set Friction coefficient    = 0.3
    set Restitution coefficient = 0
  end
end
subsection Contact solver
  set Tolerance         = 1e-10
  set Delassus operator = $operator
$radius_line
$projection_lines
end
subsection Linear solver
  set Type = $linear_solver
end
subsection Output
  set Directory          = $dir
  set VTU interval       = 0
  set Progress interval  = 0
  set Write step timings = true
end
PRM
}

# run FILE -> "peak_MiB unsolved" (the step times are in DIR/step_timings.csv)
run() {
  local log
  log=$(mpirun -np "$ranks" --oversubscribe "$exe" "$1")
  local peak unsolved
  peak=$(echo "$log" | sed -n 's/.*peak memory \([0-9.e+-]*\) MiB (all ranks).*/\1/p')
  unsolved=$(echo "$log" | sed -n 's/.*steps whose contact problem was not solved \([0-9]*\).*/\1/p')
  echo "$peak ${unsolved:-0}"
}

printf "%6s %8s %9s %12s %12s %12s %7s %7s %18s %9s %9s %8s %6s\n" "N" "DoFs" "contacts" "free [s]" "landing [s]" "lasting [s]" "ratio" "own" "peak MiB free/cont" "unsolved" "products" "probing" "held"
for n in $sizes; do
  steps=$((landing + 3 + ${contact_steps:-$((n + 10))}))
  write_prm "$n" "$steps" 0 "$work/free.prm" "$work/free"
  write_prm "$n" "$steps" 1 "$work/contact.prm" "$work/contact"
  read -r m_free _ < <(run "$work/free.prm")
  read -r m_contact unsolved < <(run "$work/contact.prm")
  boxes=1; [ "$case" = slab ] && boxes=2
  dofs=$(( 3 * boxes * (n + 1) * (n + 1) * (n / 2 + 1) ))
  # Per step, from one run each: the free run's mean step time; in the contact run, the first 3
  # steps with contact (landing) and the steps after them (lasting contact).
  awk -F, -v n="$n" -v d="$dofs" -v mf="$m_free" -v mc="$m_contact" -v u="$unsolved" '
    FNR == 1 { file++; delete c; for (i = 1; i <= NF; i++) c[$i] = i; next }
    file == 1 { free += $c["step_seconds"]; nfree++ }
    file == 2 { k = $c["step"]; seconds[k] = $c["step_seconds"]; without[k] = $c["step_seconds"] - $c["contact_step"]
                geometry[k] = $c["contact_geometry"]; free_solve[k] = $c["free_velocity"]; step_part[k] = $c["contact_step"]; solver_part[k] = $c["contact_solver"] }
    file == 3 { if ($c["contact_active"] > 0) { k = $c["step"]; in_contact[++m] = k; if ($c["contact_active"] > contacts) contacts = $c["contact_active"]; products += $c["contact_exact_products"]; probing += $c["contact_probing_solves"]; if ($c["contact_held_per_rank"] > held) held = $c["contact_held_per_rank"] } }
    END {
      for (i = 1; i <= m; i++) if (i <= 3) { landing += seconds[in_contact[i]]; nl++ } else { k = in_contact[i]; lasting += seconds[k]; own += without[k]; g += geometry[k]; fs += free_solve[k]; cs += step_part[k]; so += solver_part[k]; ns++ }
      free /= nfree; landing = nl ? landing / nl : 0; lasting = ns ? lasting / ns : 0; own = ns ? own / ns : 0
      printf "%6d %8d %9d %12.4g %12.4g %12.4g %7.1f %7.1f %9.0f/%-8.0f %9d %9.2f %8d %6d\n", n, d, contacts, free, landing, lasting, lasting / free, (own > 0 ? lasting / own : 0), mf, mc, u, m ? products / m : 0, probing, held
      if (ns) printf "%6s   parts of a lasting step [s]: contact geometry %.4g, free-velocity solve %.4g, contact step %.4g (its contact solve %.4g), rest %.4g\n", "", g / ns, fs / ns, cs / ns, so / ns, lasting - (g + fs + cs) / ns
    }' "$work/free/step_timings.csv" "$work/contact/step_timings.csv" "$work/contact/statistics.csv"
done
