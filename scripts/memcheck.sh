#!/usr/bin/env bash
# Runs a program linked to liblazyimg under valgrind: any invalid access or any
# definitely-lost block fails it. Valgrind 3.19 cannot read the DWARF 5 that
# Swift emits, so the library is loaded from a copy without debug info.
# usage: scripts/memcheck.sh LIBDIR PROGRAM [ARGS...]
set -euo pipefail
libdir=$1; shift
command -v valgrind >/dev/null || { echo "memcheck: valgrind not installed"; exit 1; }
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
cp "$libdir/liblazyimg.so" "$copy/liblazyimg.so.0"
strip --strip-debug "$copy/liblazyimg.so.0"
LD_LIBRARY_PATH="$copy" valgrind --quiet --leak-check=full --show-possibly-lost=no --errors-for-leak-kinds=definite \
    --error-exitcode=9 "$@" >/dev/null
echo "memcheck: no invalid access, no leak: $*"
