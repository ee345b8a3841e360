#!/usr/bin/env bash
# pip install from the source tree, each in a fresh venv under build/python,
# as a user does it, with the library built by `make build` (LAZYIMG_LIBRARY):
#   pip install ./bindings/python       builds the C extension (a compiler is here);
#   the same with no working compiler   (CC=false) installs the Python fallback;
#   pip install -e ./bindings/python    imports from the tree, extension built.
# Each loads the loopback server's images of every format from outside the tree.
# What pip and setuptools leave in the tree (build/, *.egg-info, the editable
# install's extension) is removed before each install and at the end, so that
# each builds anew and the source tree's own tests stay pure Python.
# usage: scripts/check-python-install.sh LIBRARY
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/image-server.sh
. scripts/image-server.sh
fail() { echo "check-python-install: $*"; exit 1; }
export LAZYIMG_LIBRARY=$1
python=${PYTHON:-/usr/bin/python3}
source_dir=$PWD/bindings/python

clean_tree() { rm -rf "$source_dir/build" "$source_dir"/*.egg-info "$source_dir"/lazyimg/_speedups*.so; }

cc -std=c99 -ITests/C Tests/C/serve_images.c Tests/C/image_server.c -o "$tmp/serve_images" \
    -lturbojpeg -lspng -lwebp -lgif -lpthread
start_image_server "$tmp/serve_images"

# check NAME SPEEDUPS WHERE PIP-ARGS...: a fresh venv, pip install PIP-ARGS,
# then the images from a directory outside the tree; lazyimg must come from
# WHERE (site-packages or the tree) with speedups True or False.
check() {
    local name=$1 speedups=$2 where=$3 venv=$PWD/build/python/$1
    shift 3
    clean_tree
    "$python" -m venv --clear "$venv"
    "$venv/bin/pip" install -q "$@" >"$tmp/$name.log" 2>&1 || { cat "$tmp/$name.log"; fail "$name: pip install $* failed"; }
    (cd "$tmp" && "$venv/bin/python" - "$speedups" "$where" "${image_urls[@]}") <<'EOF' || fail "$name: lazyimg does not work"
import sys

import lazyimg

speedups, where, urls = sys.argv[1] == "True", sys.argv[2], sys.argv[3:]
assert lazyimg.speedups is speedups, f"speedups {lazyimg.speedups}, expected {speedups}"
assert where in lazyimg.__file__, f"lazyimg imported from {lazyimg.__file__}, not {where}"
results = lazyimg.load(urls, target_width=32, target_height=32, timeout=60)
assert all(isinstance(result, lazyimg.Image) for result in results), results
EOF
    echo "check-python-install: $name: pip install $* -> $where, speedups $speedups, ${#image_urls[@]} images"
}

check pip-install True site-packages "$source_dir"
CC=false check pip-install-no-compiler False site-packages "$source_dir"
check pip-install-editable True "$source_dir" -e "$source_dir"
clean_tree
