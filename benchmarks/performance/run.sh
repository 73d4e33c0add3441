#!/usr/bin/env bash
# The product's performance figures side by side, each with its target and PASS/MISS:
#   1. output: the share of the default example's wall time spent writing output
#      (benchmarks/output/run.sh --default-only, fastest of 3 runs);
#   2. the 1D impacting bar (1000 elements, CFL 1): steps/s of percussion
#      (benchmarks/impacting_bar/run.sh), GetFEM (benchmarks/peers/impacting_bar_getfem.py) and
#      Siconos (benchmarks/peers/impacting_bar_siconos.py) in the same sitting, percussion's ratio to
#      GetFEM, and each one's E_end/E_0 and contact-duration error;
#   3. the 3D ball-on-plane step on 1 and 2 ranks (benchmarks/impact_3d/run_step_cost.sh, fastest of
#      3 runs per size):
#      the step against its floor, the bare step of benchmarks/floor (bare_step: one solve with the
#      stored factor and the step's two mat-vecs; fastest of 3 runs too), the step against the log's
#      free-velocity phase (the solve alone), and the contact share;
#   4. the landing (benchmarks/many_contacts/run.sh, N x N x N/2 box on a plane): the mean time of a
#      step with contact over the whole landing run against a step of the same box without contact.
# Usage: benchmarks/performance/run.sh [BUILD_DIR] [--quick] [--large]
#   BUILD_DIR  a Release build (default: build); bare_step needs -DPERCUSSION_BUILD_BENCHMARKS=ON
#   --quick    one run per figure instead of the fastest of 3, the landing at N = 16 (its target is
#              stated at N = 32), Siconos skipped (one run of it takes minutes)
#   --large    adds the 3D step at 8.9e4 DoFs (level 4) and the landing at N = 64
# GetFEM and Siconos come from Debian (python3-getfem, python3-siconos) and run under /usr/bin/python3;
# the script installs them with apt-get when they are missing and it runs as root.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$root/build
quick=0; large=0; build_given=0
for arg in "$@"; do
  case $arg in
    --quick) quick=1 ;;
    --large) large=1 ;;
    -*) echo "unknown option $arg (usage: run.sh [BUILD_DIR] [--quick] [--large])" >&2; exit 2 ;;
    *) [ $build_given = 0 ] || { echo "more than one BUILD_DIR given" >&2; exit 2; }
       build=$(cd "$arg" 2>/dev/null && pwd) || { echo "no directory $arg" >&2; exit 2; }; build_given=1 ;;
  esac
done
exe=$build/applications/percussion/percussion
[ -x "$exe" ] || { echo "no percussion executable at $exe (build first)" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
repeats=3; [ $quick = 1 ] && repeats=1
py=/usr/bin/python3
results=$(mktemp)
trap 'rm -f "$results"' EXIT

# row FIGURE MEASURED TARGET VERDICT
row() { printf '%-68s %-26s %-12s %s\n' "$1" "$2" "$3" "$4" | tee -a "$results"; }
# verdict VALUE OP LIMIT -> PASS or MISS (OP: le or ge)
verdict() { awk -v x="$1" -v op="$2" -v t="$3" 'BEGIN { ok = (op == "le") ? (x <= t) : (x >= t); print ok ? "PASS" : "MISS" }'; }
section() { echo; echo "== $1"; }

echo "percussion performance figures: $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -m), $(grep -c ^processor /proc/cpuinfo) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "build: $build; $([ $quick = 1 ] && echo 'quick: one run per figure' || echo "fastest of $repeats runs per figure")"

# The peers' Python interfaces, from Debian.
have_module() { [ -x "$py" ] && "$py" -c "import $1" >/dev/null 2>&1; }
missing=()
have_module getfem || missing+=(python3-getfem)
have_module siconos.kernel || missing+=(python3-siconos)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing ${missing[*]} with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null 2>&1 ||
      { apt-get update >/dev/null 2>&1 && apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null 2>&1; } ||
      echo "apt-get could not install ${missing[*]}: their figures are skipped"
  else
    echo "missing ${missing[*]}: install as root with 'apt-get install --no-install-recommends ${missing[*]}' (Debian 12); their figures are skipped"
  fi
fi

section "1. output (applications/impact_3d, the default example)"
printf '%-68s %-26s %-12s %s\n' figure measured target verdict
out=$(REPEATS=$repeats bash "$root/benchmarks/output/run.sh" "$build" --default-only | tail -1)
read -r run_s output_s share < <(echo "$out" | awk '{ for (i = 1; i <= NF; i++) if ($i == "%") { print $(i-3), $(i-2), $(i-1); exit } }')
row "output share of the run (run ${run_s} s, output ${output_s} s)" "${share} %" "<= 20 %" "$(verdict "$share" le 20)"

section "2. 1D impacting bar, 1000 elements, h = L/(N c), 7783 steps"
printf '%-68s %-26s %-12s %s\n' figure measured target verdict
best=0; bar=""
for _ in $(seq $repeats); do
  out=$(bash "$root/benchmarks/impacting_bar/run.sh" "$build")
  rate=$(echo "$out" | awk '/^steps\/s/ { print $4 }')
  if awk -v a="$rate" -v b="$best" 'BEGIN { exit !(a > b) }'; then best=$rate; bar=$out; fi
done
p_rate=$best
p_energy=$(echo "$bar" | awk '/^E_end/ { print $2 }')
p_duration=$(echo "$bar" | awk '/^duration error/ { print $3 }')
p_steps=$(echo "$bar" | sed -n 's/.*(\([0-9]*\) contact steps.*/\1/p')
row "percussion (Moreau-Jean Fremond, theta 1/2) steps/s" "$p_rate" "" ""
row "  percussion E_end/E_0" "$p_energy" ">= 0.9994" "$(verdict "$p_energy" ge 0.9994)"
row "  percussion contact duration error ($p_steps steps / 2000)" "$p_duration %" "<= 0.15 %" "$(verdict "$(echo "$p_duration" | tr -d -)" le 0.15)"
peer() { # LABEL SCRIPT ARGS... -> rows; sets peer_rate and peer_accurate (1: meets the bar's accuracy targets)
  local label=$1 script=$2; shift 2
  local out energy duration
  peer_rate=""; peer_accurate=0
  if ! out=$("$py" "$script" "$@" 2>&1); then
    row "$label" "failed: $(echo "$out" | tail -1 | cut -c1-60)" "" ""
    return 0
  fi
  peer_rate=$(echo "$out" | awk '/^steps\/s/ { print $4 }')
  energy=$(echo "$out" | awk '/^E_end/ { print $2 }')
  duration=$(echo "$out" | awk '/^duration error/ { print $3 }')
  row "$label steps/s" "$peer_rate" "" ""
  row "  E_end/E_0" "$energy" "(>= 0.9994)" ""
  row "  contact duration error ($(echo "$out" | sed -n 's/.*(\([0-9]*\) contact steps.*/\1/p') steps / 2000)" "$duration %" "(<= 0.15 %)" ""
  awk -v e="$energy" -v d="$duration" 'BEGIN { exit !(e >= 0.9994 && (d < 0 ? -d : d) <= 0.15) }' && peer_accurate=1
  return 0
}
# GetFEM's schemes: the ratio target is against the fastest that meets the accuracy targets.
g_rate=""; g_label=""
if have_module getfem; then
  for mass in singular lumped; do
    peer "GetFEM (explicit CD, $mass mass, GetFEM mat-vec)" "$root/benchmarks/peers/impacting_bar_getfem.py" --repeats $repeats --mass $mass
    if [ "$peer_accurate" = 1 ] && { [ -z "$g_rate" ] || awk -v a="$peer_rate" -v b="$g_rate" 'BEGIN { exit !(a > b) }'; }; then
      g_rate=$peer_rate; g_label="$mass mass"
    fi
  done
  peer "GetFEM matrices, singular-mass loop with SciPy's mat-vec" "$root/benchmarks/peers/impacting_bar_getfem.py" --repeats $repeats --mass singular --scipy
else
  row "GetFEM" "not installed" "" ""
fi
if [ $quick = 1 ]; then
  row "Siconos" "skipped (--quick)" "" ""
elif have_module siconos.kernel; then
  # one run: Siconos' dense kernel runs the bar two orders of magnitude slower than the others
  peer "Siconos (Moreau-Jean theta 1/2, consistent mass, LCP; 1 run)" "$root/benchmarks/peers/impacting_bar_siconos.py" --repeats 1
else
  row "Siconos" "not installed" "" ""
fi
if [ -n "$g_rate" ]; then
  ratio=$(awk -v a="$p_rate" -v b="$g_rate" 'BEGIN { printf "%.2f", a / b }')
  row "percussion / GetFEM steps/s (GetFEM: $g_label, the fastest accurate)" "$ratio" ">= 3" "$(verdict "$ratio" ge 3)"
elif have_module getfem; then
  row "percussion / GetFEM steps/s" "no GetFEM scheme met the accuracy targets" ">= 3" ""
fi

large_flag=(); [ $large = 1 ] && large_flag=(--large)
levels="2 3"; [ $large = 1 ] && levels="2 3 4"
floor_exe=$build/benchmarks/floor/bare_step
for ranks in 1 2; do
  section "3. 3D ball on a plane (benchmarks/impact_3d), $ranks rank(s), direct solver, fastest of $repeats runs per size"
  declare -A floor_time=()
  if [ -x "$floor_exe" ]; then
    # fastest of $repeats runs per level, as the step itself
    while read -r level dofs step _; do
      if [ -z "${floor_time[$level]:-}" ] || awk -v a="$step" -v b="${floor_time[$level]}" 'BEGIN { exit !(a < b) }'; then
        floor_time[$level]=$step
      fi
    done < <(for _ in $(seq $repeats); do mpirun -np $ranks --oversubscribe "$floor_exe" $levels | tail -n +2; done)
  else
    echo "(no $floor_exe: configure with -DPERCUSSION_BUILD_BENCHMARKS=ON and build the target bare_step; the floor column is left out)"
  fi
  # fastest of $repeats runs per level (by the time per step)
  step_out=$(for _ in $(seq $repeats); do bash "$root/benchmarks/impact_3d/run_step_cost.sh" "$build" "${large_flag[@]}" --ranks $ranks; done |
    awk '$1 ~ /^[0-9]+$/ { if (!($1 in best) || $5 < best[$1]) { best[$1] = $5; line[$1] = $0 } }
         END { for (l = 0; l <= 9; l++) if (l in line) print line[l] }')
  printf '%-68s %-26s %-12s %s\n' figure measured target verdict
  while read -r level dofs cand steps per geo free con sol ratio share; do
    [[ $level =~ ^[0-9]+$ ]] || continue
    # The floor is the bare step: one solve with the stored factor and the step's two mat-vecs. The
    # log's free-velocity phase holds the solve only (the mat-vecs are in the step's end), so it is
    # the verdict's denominator only where bare_step is not built.
    if [ -n "${floor_time[$level]:-}" ]; then
      floor_ratio=$(awk -v a="$per" -v b="${floor_time[$level]}" 'BEGIN { printf "%.2f", a / b }')
      row "level $level, $dofs DoFs: step / bare step of benchmarks/floor ($per s / ${floor_time[$level]} s)" "$floor_ratio" "<= 1.15" "$(verdict "$floor_ratio" le 1.15)"
      row "  step / free-velocity phase of the log (the solve; $free s)" "$ratio" "" ""
    else
      row "level $level, $dofs DoFs: step / free-velocity phase of the log (the solve; $per s / $free s)" "$ratio" "<= 1.15" "$(verdict "$ratio" le 1.15)"
    fi
    row "  contact share of the step (geometry + contact step)" "$share %" "<= 8 %" "$(verdict "$share" le 8)"
  done <<<"$step_out"
done

section "4. landing: N x N x N/2 box falling flat on a plane (benchmarks/many_contacts), 1 rank"
sizes=32; [ $quick = 1 ] && sizes=16; [ $large = 1 ] && sizes="32 64"
printf '%-68s %-26s %-12s %s\n' figure measured target verdict
for n in $sizes; do
  out=$(KEEP=1 bash "$root/benchmarks/many_contacts/run.sh" "$build" "$n")
  work=$(echo "$out" | sed -n 's/^work directory: //p')
  [ -d "$work" ] || { echo "many_contacts/run.sh kept no work directory" >&2; exit 1; }
  read -r free contact_mean nsteps landing lasting < <(awk -F, '
    FNR == 1 { file++; delete c; for (i = 1; i <= NF; i++) c[$i] = i; next }
    file == 1 { free += $c["step_seconds"]; nfree++ }
    file == 2 { seconds[$c["step"]] = $c["step_seconds"] }
    file == 3 { if ($c["contact_active"] > 0) in_contact[++m] = $c["step"] }
    END { for (i = 1; i <= m; i++) { s += seconds[in_contact[i]]; if (i <= 3) l += seconds[in_contact[i]]; else r += seconds[in_contact[i]] }
          printf "%.6g %.6g %d %.6g %.6g\n", free / nfree, s / m, m, l / 3, (m > 3 ? r / (m - 3) : 0) }' \
    "$work/free/step_timings.csv" "$work/contact/step_timings.csv" "$work/contact/statistics.csv")
  rm -rf "$work"
  ratio=$(awk -v a="$contact_mean" -v b="$free" 'BEGIN { printf "%.2f", a / b }')
  target="<= 3"; [ "$n" = 32 ] || target="(<= 3 at 32)"
  row "N = $n: contact step / free step, whole landing ($nsteps contact steps)" "$ratio ($contact_mean s / $free s)" "$target" "$([ "$n" = 32 ] && verdict "$ratio" le 3 || echo '-')"
  row "  first 3 contact steps / free step" "$(awk -v a="$landing" -v b="$free" 'BEGIN { printf "%.2f", a / b }')" "" ""
  row "  the later contact steps / free step" "$(awk -v a="$lasting" -v b="$free" 'BEGIN { printf "%.2f", a / b }')" "" ""
done

echo
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "PASS $(grep -c ' PASS$' "$results" || true), MISS $(grep -c ' MISS$' "$results" || true)"
