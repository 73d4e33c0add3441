#!/usr/bin/env bash
# Many bodies resting in lasting contact: N bricks (0.2 x 0.1 x 0.05 m, one Q1 cell each) in
# stacks of ten on a rigid floor (stacks 0.05 m apart, farther than the search distance), under
# gravity, with general contact (Contact/Pair 2: Type = bodies) and the default settings
# otherwise; 100 steps of 1 ms from rest. For each N: the DoFs, the active contacts at the end,
# the time per step, the free-velocity solve, their ratio (the target: a step <= 3x the
# free-velocity solve), the geometry and the contact step per step, the peak memory and that of
# the same bricks without contact (falling freely; the target: <= 1.5x), the columns solved for W in the whole run, and which Delassus operator the automatic choice took; once with
# the bodies' compliances (Contact solver/Body compliance = true, the default) and once with the
# columns solved at every step (up to 100 bodies: above, that path takes the probed operator at
# several seconds a step).
#
# Usage: benchmarks/many_bodies/run.sh [BUILD_DIR] [--ranks N] [--bodies "10 100 1000"]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
shift || true
ranks=1
bodies="10 100 1000"
while [ $# -gt 0 ]; do
  case $1 in
    --ranks) ranks=$2; shift ;;
    --bodies) bodies=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 1 ;;
  esac
  shift
done
source "$here/../lib.sh"
percussion_benchmark_setup "$build" "$ranks"

# The parameter file of N bricks in stacks of ten (a row of stacks along x).
write_case() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import sys
n, path = int(sys.argv[1]), sys.argv[2]
boxes = []
for b in range(n):
    stack, level = divmod(b, 10)
    x = 0.25 * stack
    boxes.append(f"{x},0,{0.05 * level} : {x + 0.2},0.1,{0.05 * (level + 1)}")
ids = ", ".join(str(b) for b in range(n))
open(path, "w").write(f"""set Dimension = 3
subsection Mesh
  set Type = boxes
  set Boxes = {'; '.join(boxes)}
  set Subdivisions = 1
end
subsection Materials
  set Material ids = {ids}
  set Young's modulus = 1e7
  set Poisson's ratio = 0.2
  set Density = 1000
end
subsection Damping
  set Mass proportional coefficient = 100
end
subsection Loads
  set Gravity = 0, 0, -9.81
end
subsection Time integration
  set Time step = 1e-3
  set End time = 0.1
end
subsection Contact
  set Number of pairs = 2
  set Search distance = 0.01
  subsection Pair 1
    set Type = plane
    set Slave boundary id = all
    set Point = 0, 0, 0
    set Normal = 0, 0, 1
    set Friction coefficient = 0.3
  end
  subsection Pair 2
    set Type = bodies
    set Boundary ids = all
    set Friction coefficient = 0.3
  end
end
subsection Output
  set VTU interval = 0
  set Progress interval = 0
end
""")
PY
}

printf '%6s %10s %7s %9s %7s %12s %12s %8s %10s %10s %9s %9s %9s %7s\n' N compliance DoFs contacts steps "step [ms]" \
  "free [ms]" ratio "geom [ms]" "contact" "MiB" "MiB free" "columns" probed
for n in $bodies; do
  write_case "$n" "$work/bricks_$n.prm"
  # The same bricks without contact (they fall freely): the memory the contact module adds to.
  "${run[@]}" "$work/bricks_$n.prm" --set "Output/Directory=$work/out_${n}_free" --set "Contact/Number of pairs=0" \
    >"$work/log_${n}_free.txt" 2>&1 || { echo "N = $n without contact: $(tail -1 "$work/log_${n}_free.txt")"; continue; }
  free_memory=$(sed -n 's/.*peak memory \([0-9.e+-]*\) MiB (all ranks).*/\1/p' "$work/log_${n}_free.txt")
  for compliance in true false; do
    [ "$compliance" = false ] && [ "$n" -gt 100 ] && continue
    out=$work/out_${n}_$compliance
    status=0
    "${run[@]}" "$work/bricks_$n.prm" --set "Output/Directory=$out" \
      --set "Contact solver/Body compliance=$compliance" >"$work/log_${n}_$compliance.txt" 2>&1 || status=$?
    if [ "$status" -ne 0 ]; then
      echo "N = $n, compliance $compliance: exit status $status (log: $(tail -1 "$work/log_${n}_$compliance.txt"))"
      continue
    fi
    /usr/bin/python3 - "$out" "$work/log_${n}_$compliance.txt" "$n" "$compliance" "$free_memory" <<'PY'
import csv, os, re, sys
out, log, n, compliance, free_memory = sys.argv[1:6]
text = open(log).read()
dofs = re.search(r"(\d+) DoFs", text).group(1)
step = float(re.search(r"time per step ([0-9.e+-]+) s", text).group(1))
memory = float(re.search(r"peak memory ([0-9.e+-]+) MiB \(all ranks\)", text).group(1))
contact = re.search(r"geometry ([0-9.e+-]+) s, position check/projection ([0-9.e+-]+) s, "
                    r"free-velocity solve ([0-9.e+-]+) s, contact step ([0-9.e+-]+) s", text)
geometry, free, step_contact = float(contact.group(1)), float(contact.group(3)), float(contact.group(4))
rows = list(csv.DictReader(open(os.path.join(out, "statistics.csv"))))
columns = sum(float(r["contact_column_solves"]) for r in rows)
probed = sum(float(r["contact_probed_operator"]) for r in rows)
print(f"{n:>6} {compliance:>10} {dofs:>7} {rows[-1]['contact_active']:>9} {len(rows):>7} {1e3 * step:12.3f} "
      f"{1e3 * free:12.4f} {step / free:8.1f} {1e3 * geometry:10.3f} {1e3 * step_contact:10.3f} {memory:9.1f} "
      f"{float(free_memory):9.1f} {columns:9.0f} {probed:7.0f}")
PY
  done
done
