# Shared set-up of the benchmark scripts, sourced after they have parsed their options:
#   source "$here/../lib.sh"; percussion_benchmark_setup "$build" [RANKS]
# sets exe (the percussion executable of BUILD_DIR, which must exist), run (the command that runs
# it on RANKS MPI ranks, default 1: "${run[@]}" FILE.prm ...) and work (a temporary directory
# removed when the script exits), runs BLAS and OpenMP with one thread per rank (the timings are
# per MPI rank), and lets Open MPI run as root (containers).
percussion_benchmark_setup() {
  exe=$1/applications/percussion/percussion
  [ -x "$exe" ] || { echo "no percussion executable at $exe (build first)" >&2; exit 1; }
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
  run=("$exe")
  [ "${2:-1}" -gt 1 ] && run=(mpirun -np "$2" --oversubscribe "$exe")
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
}
