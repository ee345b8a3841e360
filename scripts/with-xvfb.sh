#!/usr/bin/env bash
# Runs a command on a display of its own: an Xvfb that picks a free display
# number itself (-displayfd) and says which once it accepts clients, so runs
# side by side never race for a number (xvfb-run -a can) and nothing waits on
# a timer. The Xvfb stops with the command; its exit status is the command's.
# usage: scripts/with-xvfb.sh COMMAND [ARGS...]
set -uo pipefail
dir=$(mktemp -d)
xvfb=""
cleanup() {
    if [ -n "$xvfb" ]; then kill "$xvfb" 2>/dev/null; wait "$xvfb" 2>/dev/null; fi
    rm -rf "$dir"
}
trap cleanup EXIT
mkfifo "$dir/display"
Xvfb -displayfd 3 -screen 0 1280x1024x24 -nolisten tcp 3>"$dir/display" >"$dir/xvfb.log" 2>&1 &
xvfb=$!
if ! read -r display <"$dir/display" || [ -z "$display" ]; then
    echo "with-xvfb: Xvfb did not start:" >&2
    cat "$dir/xvfb.log" >&2
    exit 1
fi
DISPLAY=:$display "$@"
