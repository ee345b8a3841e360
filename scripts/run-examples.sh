#!/usr/bin/env bash
# Runs the small examples against the loopback image server (build/serve_images):
# examples-c/minimal.c (a PNG contact sheet), glib_loop.c, thread_delivery.c and
# bindings/python/example.py. Each checks its own results and exits non-zero
# when one failed. usage: scripts/run-examples.sh BUILD_DIR LIBRARY_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
build=$1 libdir=$2
tmp=$(mktemp -d)
server_pid=""
cleanup() {
    # Closing the server's stdin stops it.
    if [ -n "$server_pid" ]; then eval "exec $server_in>&-"; wait "$server_pid" || true; fi
    rm -rf "$tmp"
}
trap cleanup EXIT

coproc SERVER { "$build/serve_images"; }
server_pid=$SERVER_PID server_in=${SERVER[1]}
read -r port <&"${SERVER[0]}" || { echo "run-examples: the image server did not start"; exit 1; }
base=http://127.0.0.1:$port
urls=()
for n in 1 2 3 4 5 6; do urls+=("$base/img/$n.jpg"); done
urls+=("$base/img/7.png" "$base/img/8.webp" "$base/img/9.gif" "$base/anim/10.gif")

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
