#!/usr/bin/env bash
# Regenerates doc/parameters.md from `percussion --print-parameters`.
#
#   bash doc/generate_parameter_reference.sh BUILD_DIR
#
# BUILD_DIR is a configured and built percussion build directory (the one holding
# applications/percussion/percussion). Run it after adding or changing a parameter, and commit
# doc/parameters.md with the change: the CTest check `docs.parameter_reference` fails while the
# file is out of date.
set -euo pipefail
if [ $# -ne 1 ]; then
  echo "usage: bash doc/generate_parameter_reference.sh BUILD_DIR" >&2
  exit 2
fi
executable="$1/applications/percussion/percussion"
if [ ! -x "$executable" ]; then
  echo "generate_parameter_reference.sh: no percussion executable at $executable (build the 'percussion' target first)" >&2
  exit 1
fi
target="$(cd "$(dirname "$0")" && pwd)/parameters.md"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
listing=$("$executable" --print-parameters)
{
  cat <<'HEADER'
# Parameter reference

This file is **generated**: it is the verbatim output of `percussion --print-parameters` (every
entry with its default value, its help text, and the subsection it belongs to). Do not edit it by
hand. After adding or changing a parameter, regenerate it from a build directory with

    bash doc/generate_parameter_reference.sh BUILD_DIR

and commit it together with the change. The CTest check `docs.parameter_reference` (label `docs`,
`ctest -L docs`) compares the block below with the output of the built executable and fails when
they differ. How to use these parameters, with a complete example, is in
[user_guide.md](user_guide.md). The patterns (allowed values) are checked when a file is read: an
unknown entry or a malformed value stops the run with exit status 1 before any computation.

Notes on reading the listing:
- `subsection Contact` lists `Pair 1` … `Pair 8`; a file may use more (`Number of pairs` has no
  limit, and as many `Pair i` are declared as the file names). Only the first `Number of pairs` are
  used, and each of them must set `Type`, `Slave boundary id` (not with `Type = bodies`) and the
  entries its type needs (see `Type`).
- Lists that take one value per material id (`Materials`) also accept a single value for all.
- Function entries (velocities, displacements, loads) are muparser expressions of x, y, z, t with
  one expression per component separated by `;`; `Function constants` defines named constants.

```text
HEADER
  printf '%s\n' "$listing"
  echo '```'
} > "$target.tmp"
mv "$target.tmp" "$target"
echo "wrote $target"
