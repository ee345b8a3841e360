#!/usr/bin/env bash
# Runs the small examples against the loopback image server (build/serve_images):
# examples-c/minimal.c (a PNG contact sheet), glib_loop.c, thread_delivery.c and
# bindings/python/example.py. Each checks its own results and exits non-zero
# when one failed. (make check-docs checks that README.md and docs/ show them.)
# usage: scripts/run-examples.sh BUILD_DIR LIBRARY_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
build=$1 libdir=$2
# shellcheck source=scripts/image-server.sh
. scripts/image-server.sh

start_image_server "$build/serve_images"
urls=("${image_urls[@]}")

run() {
    local name=$1; shift
    if ! "$@" >"$tmp/$name.log" 2>&1; then
        cat "$tmp/$name.log"
        echo "run-examples: $name failed"
        exit 1
    fi
    tail -n 1 "$tmp/$name.log"
}
run minimal "$build/minimal" "$tmp/sheet.png" "${urls[@]}"
[ "$(head -c 4 "$tmp/sheet.png" | od -An -c | tr -d ' ')" = "211PNG" ] || { echo "run-examples: minimal wrote no PNG"; exit 1; }
run glib_loop "$build/glib_loop" "${urls[@]}"
run thread_delivery "$build/thread_delivery" "${urls[@]}"
run python-example env LAZYIMG_LIBRARY="$libdir/liblazyimg.so.0" "${PYTHON:-/usr/bin/python3}" \
    bindings/python/example.py "${urls[@]}"
grep -q "64x48 from 320x240" "$tmp/python-example.log" || { cat "$tmp/python-example.log"; echo "run-examples: python example: no 64x48 JPEG"; exit 1; }
