# Shared set-up of the benchmark scripts:
#   source "$here/../lib.sh"; percussion_benchmark_setup "$build" [RANKS]
# Scripts whose options are [BUILD_DIR] [--ranks N] alone parse them with
#   source "$here/../lib.sh"; percussion_benchmark_arguments "$root" "$@"   # sets build and ranks
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

# [BUILD_DIR] [--ranks N] after the repository root $1: sets build (default ROOT/build) and ranks
# (default 1); any other option is an error.
percussion_benchmark_arguments() {
  local root=$1
  shift
  build=$(cd "${1:-$root/build}" && pwd)
  shift || true
  ranks=1
  while [ $# -gt 0 ]; do
    case $1 in
      --ranks) ranks=$2; shift ;;
      *) echo "unknown option $1" >&2; exit 1 ;;
    esac
    shift
  done
}
