#!/usr/bin/env bash
# Fuzzing of the input readers: libFuzzer harnesses (clang) for the FCLIB reader
# (fuzz_fclib_reader.cc: percussion's reader and the contact solvers' data, instrumented), for
# 'Mesh/Type = gmsh' (fuzz_msh_reader.cc: percussion's mesh generator with its own file check, then
# deal.II's GridIn::read_msh) and for the checkpoint files of --resume (fuzz_checkpoint_reader.cc:
# header, contact history, DoF part files), each run for a bounded time from a seed corpus (the repository's FCLIB
# test problems and meshes, a checkpoint) with AddressSanitizer. Prints what each run found; inputs that crash are
# kept in the work directory. Not part of CI (it needs clang and minutes).
# Usage: benchmarks/fuzz/run.sh [SECONDS_PER_HARNESS]     (default 60)
#   WORK=dir keeps the build and the findings there (default: a temporary directory, kept if
#   something was found).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
seconds=${1:-60}
command -v clang++ > /dev/null || { echo "clang++ is needed (Debian: apt-get install clang)" >&2; exit 1; }
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
CXX=clang++ cmake -S "$here" -B "$work/build" -DCMAKE_BUILD_TYPE=Release > "$work/configure.log" 2>&1 ||
  { echo "configure failed: $work/configure.log" >&2; exit 1; }
cmake --build "$work/build" -j "$(nproc)" > "$work/build.log" 2>&1 || { echo "build failed: $work/build.log" >&2; exit 1; }

mkdir -p "$work/corpus_fclib" "$work/corpus_msh" "$work/corpus_checkpoint"
# small FCLIB problems as seeds (the largest ones only slow the fuzzer down)
find "$root/tests/data/fclib" -name '*.hdf5' -size -64k -exec cp {} "$work/corpus_fclib/" \;
cp "$root/meshes/two_blocks.msh" "$work/corpus_msh/"
# Checkpoint seeds: a real checkpoint of tests/checkpoint/block_on_plane_2d.prm (the harness's mesh)
# if the project is built, each file behind its selector byte; else a minimal header.
percussion="$root/build/applications/percussion/percussion"
printf '\0percussion checkpoint, format 1\ndofs = 462\n' > "$work/corpus_checkpoint/header_minimal"
if [ -x "$percussion" ]; then
  (cd "$work" && "$percussion" "$root/tests/checkpoint/block_on_plane_2d.prm" --set "Output/Directory=seed_run" \
     --set "Time integration/End time=1e-4" --set "Output/Checkpoint interval=200" --set "Output/VTU interval=0" \
     > seed_run.log 2>&1) || true
  seed=$(ls -d "$work"/seed_run/checkpoints/step-* 2>/dev/null | tail -1)
  if [ -n "$seed" ]; then
    { printf '\0'; cat "$seed/header.txt"; } > "$work/corpus_checkpoint/header"
    { printf '\1'; cat "$seed/contact_history.bin"; } > "$work/corpus_checkpoint/history"
    { printf '\2'; cat "$seed/dofs-0.bin"; } > "$work/corpus_checkpoint/dofs"
  fi
fi
# HDF5 keeps a few allocations of its error paths: leaks inside libhdf5 are not ours.
printf 'leak:libhdf5\n' > "$work/lsan.supp"
export LSAN_OPTIONS=suppressions=$work/lsan.supp
# A failed allocation returns null as it would without the sanitizer (what HDF5 does with it is
# part of what is tested).
export ASAN_OPTIONS=allocator_may_return_null=1

found=0
for harness in fclib msh checkpoint; do
  dir="$work/findings_$harness"
  mkdir -p "$dir"
  echo "== fuzz_${harness}_reader for $seconds s"
  # The checkpoint harness initialises MPI (PETSc vectors): Open MPI's plugins keep allocations
  # that LeakSanitizer reports at exit from unloaded modules (no frame to suppress), so leak
  # detection is off there; AddressSanitizer's memory-error checks stay on.
  leaks=1
  [ "$harness" = checkpoint ] && leaks=0
  (cd "$dir" && ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=$leaks" "$work/build/fuzz_${harness}_reader" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
      -detect_leaks=$leaks -max_len=200000 "$work/corpus_$harness" > "$dir/log" 2>&1) || true
  grep -E "^Done|stat::number_of_executed_units" "$dir/log" | tail -1 || true
  crashes=$(ls "$dir" | grep -E '^(crash|leak|timeout|oom)-' || true)
  if [ -n "$crashes" ]; then
    found=1
    echo "found (inputs in $dir):"
    for c in $crashes; do
      echo "  $c: $(grep -m1 -E 'ERROR: AddressSanitizer|ERROR: libFuzzer|SUMMARY' "$dir/log" | cut -c1-160)"
      grep -E '#[0-9]+ ' "$dir/log" | grep -m3 -E 'percussion|H5|dealii' | sed 's/^/      /' | cut -c1-200
    done
  else
    echo "nothing found"
  fi
done
[ "$found" = 1 ] && echo "work directory kept: $work" || { [ -z "${WORK:-}" ] && rm -rf "$work"; }
exit 0
