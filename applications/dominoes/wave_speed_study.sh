#!/usr/bin/env bash
# The dominoes' wave against the rigid leaning-train model (leaning_train.py): the whole run of
# dominoes.prm (0.4 s) with the time step, the mesh and Young's modulus changed one at a time, each
# compared with the model (the time each domino has turned by 0.05 rad, the mean speed of the front
# from domino 2 to 6). Two more runs without friction between the dominoes, against the model with
# mu = 0: on the example's floor (mu 0.4) and on a floor of mu 0.8 (the model's fixed pivots need
# 0.57 there: leaning_train.py prints what they need), and the stiffer dominoes on a floor of mu 3
# (the strikes' impulses need up to 2.7 at the fixed pivots). Prints one row per run; the table of README.md ("The wave against the rigid model") is
# its output. About 20 minutes on one core.
#
# Usage: applications/dominoes/wave_speed_study.sh [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
source "$root/benchmarks/lib.sh"
percussion_benchmark_setup "$build"

# A mesh of the six dominoes with NX x NY x NZ cells each (the example's own is 2 x 3 x 6).
mesh_with_cells() {
  local path="$work/dominoes_$1x$2x$3.msh"
  [ -f "$path" ] || /usr/bin/python3 "$root/meshes/make_body_array.py" --kind dominoes --cells "$1" "$2" "$3" \
    --output "$path" > /dev/null
  echo "$path"
}

# run NAME MU FLOOR_MU CELLS(e.g. "2 3 6") STEP YOUNG: one whole run and its comparison with the model.
run() {
  runs=$((runs + 1))
  local name=$1 mu=$2 floor=$3 cells=$4 step=$5 young=$6 out="$work/run$runs"
  local mesh
  mesh=$(mesh_with_cells $cells)
  local start end
  start=$(date +%s.%N)
  (cd "$here" && "$exe" dominoes.prm --set "Output/Directory=$out" --set "Output/VTU interval=0" \
    --set "Output/Progress interval=0" --set "Mesh/File name=$mesh" --set "Time integration/Time step=$step" \
    --set "Materials/Young's modulus=$young" --set "Contact/Pair 2/Friction coefficient=$mu" \
    --set "Contact/Pair 1/Friction coefficient=$floor" > "$out.log" 2>&1) ||
    { echo "$name: percussion failed, see the log:" >&2; tail -5 "$out.log" >&2; exit 1; }
  end=$(date +%s.%N)
  local compare
  compare=$(/usr/bin/python3 "$here/leaning_train.py" --friction "$mu" --compare "$out/bodies.csv" || true)
  local speeds worst
  speeds=$(echo "$compare" | sed -n 's/^front speed from domino 2 to 6: model \([0-9.]*\) m\/s, percussion \([-0-9.]*\) m\/s (\(.*\) %)$/\1 \2 \3/p')
  # The largest difference of the dominoes that turned, and how many turned by 0.05 rad.
  worst=$(echo "$compare" | awk '$1 ~ /^[0-9]+$/ && NF == 6 {if ($5 != "-") n++; if ($6 != "inf" && $6 != "-" && $6 + 0 > w) w = $6 + 0}
                                 END {printf "%.3f  %d of 6", w, n}')
  printf "%-16s %4s %5s %8s %7s %8s  %4.0f s  %s  %s\n" "$name" "$mu" "$floor" "${cells// /x}" "$step" "$young" \
    "$(echo "$end - $start" | bc)" "${speeds:-- - -}" "$worst"
}

runs=0
echo "# speeds: the mean speed of the front from domino 2 to 6, model and percussion [m/s], difference [%];"
echo "# largest: the largest |t - t_model| of a domino's start over the model's interval before it (of those"
echo "# that turned); turned: the dominoes that turned by 0.05 rad (all 6 in the model)"
echo "run                mu floor    cells       h        E  wall  speeds  largest  turned"
run "example"          0.3 0.4 "2 3 6"  1e-4   2.5e9
run "h x 2"            0.3 0.4 "2 3 6"  2e-4   2.5e9
run "h / 2"            0.3 0.4 "2 3 6"  5e-5   2.5e9
run "h / 4"            0.3 0.4 "2 3 6"  2.5e-5 2.5e9
run "cells x 2"        0.3 0.4 "4 6 12" 1e-4   2.5e9
run "E / 10, h / 2"    0.3 0.4 "2 3 6"  5e-5   2.5e8
run "E x 10"           0.3 0.4 "2 3 6"  1e-4   2.5e10
run "E x 10, h / 2"    0.3 0.4 "2 3 6"  5e-5   2.5e10
run "E x 10, h / 4"    0.3 0.4 "2 3 6"  2.5e-5 2.5e10
run "E x 10, h / 2"    0.3 3   "2 3 6"  5e-5   2.5e10
run "E x 10, h / 4"    0.3 3   "2 3 6"  2.5e-5 2.5e10
run "E x 10, h / 4"    0.3 3   "4 6 12" 2.5e-5 2.5e10
run "floor 3"          0.3 3   "2 3 6"  1e-4   2.5e9
run "no friction"      0   0.4 "2 3 6"  1e-4   2.5e9
run "no friction"      0   0.8 "2 3 6"  1e-4   2.5e9
