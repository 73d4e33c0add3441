#!/usr/bin/env bash
# percussion quick start on Debian bookworm (run as root, or with sudo available):
#
#   bash scripts/quickstart.sh run    install what is missing, build, run the default 3D impact example
#   bash scripts/quickstart.sh test   install what is missing, build, run the whole test suite
#
# Environment: BUILD_DIR (default ./build), JOBS (default: number of cores), RANKS (MPI ranks for
# `run`, default 1), EXAMPLE (parameter file for `run`).
set -euo pipefail
cd "$(dirname "$0")/.."
source_dir=$(pwd)
build_dir=${BUILD_DIR:-$source_dir/build}
jobs=${JOBS:-$(nproc)}
action=${1:-}
case "$action" in
  run|test) ;;
  *) echo "usage: bash scripts/quickstart.sh run|test" >&2; exit 2 ;;
esac

# 1. Install what is missing (Debian packages only). libopenblas0-serial: the optimised BLAS and
# LAPACK, single-threaded (no threads competing with MPI ranks), which MUMPS' dense kernels use; with
# Debian's reference BLAS a 3D factorisation and the Delassus columns' multi-right-hand-side solves
# take 3-5 times longer.
packages="libdeal.ii-dev libboost-test-dev cmake ninja-build make g++ pkg-config ccache openmpi-bin python3 python3-numpy python3-matplotlib python3-vtk9 libopenblas0-serial"
missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "== installing:$missing"
  sudo_cmd=""
  [ "$(id -u)" = 0 ] || sudo_cmd="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -q
  $sudo_cmd apt-get install -y -q --no-install-recommends $missing
fi

# 2. Configure and build (ccache keeps rebuilds short).
# ccache: paths relative to the source tree, so that a fresh clone elsewhere (CI) reuses the cache.
export CCACHE_BASEDIR="$source_dir" CCACHE_NOHASHDIR=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
echo "== building in $build_dir with $jobs jobs"
# A new build directory uses Ninja: it compiles a library's files while the libraries it depends on
# are still being built, which keeps both cores busy (a fresh build of the executable from an empty
# ccache: 279 s instead of 302 s with make on 2 cores). An existing one keeps its generator.
generator=()
[ -f "$build_dir/CMakeCache.txt" ] || generator=(-G Ninja)
mkdir -p "$build_dir"
cmake -S "$source_dir" -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release > "$build_dir/configure.log" 2>&1 ||
  { cat "$build_dir/configure.log"; exit 1; }
# `run` builds the executable alone (and the libraries it links); `test` builds everything.
if [ "$action" = run ]; then
  cmake --build "$build_dir" -j "$jobs" --target percussion
else
  cmake --build "$build_dir" -j "$jobs"
fi

# 3. Run.
if [ "$action" = run ]; then
  example=${EXAMPLE:-$source_dir/applications/impact_3d/impact_3d.prm}
  echo "== running $example on ${RANKS:-1} MPI rank(s)"
  cd "$(dirname "$example")"
  mpirun -np "${RANKS:-1}" --oversubscribe "$build_dir/applications/percussion/percussion" "$example"
  echo "== results in $(pwd)/output: statistics.csv (energy table), solution.pvd (open in ParaView)"
else
  cd "$build_dir"
  ctest --output-on-failure -j "$jobs" --timeout 900
fi
