#!/usr/bin/env bash
# The self-contained wheel (make wheel) as a user gets it: a fresh venv with
# the wheel and, from PyPI, pytest, numpy and Pillow. Then, in a private mount
# namespace where the Swift toolchain is hidden under an empty tmpfs and the
# system's libcurl, TurboJPEG, libspng, libwebp and giflib files read as empty,
# in an environment naming no library path (env -i): the loopback server's
# images of every format, which copies of those libraries got mapped
# (/proc/self/maps: each must be the wheel's own), and the binding's pytest
# suite against the installed package (its C extension and library copy).
# usage: scripts/check-python-wheel.sh WHEEL
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/image-server.sh
. scripts/image-server.sh
fail() { echo "check-python-wheel: $*"; exit 1; }
wheel=$1
python=${PYTHON:-/usr/bin/python3}
venv=$PWD/build/python/wheel-venv

"$python" -m venv --clear "$venv"
"$venv/bin/pip" install -q "$wheel" pytest==9.2.0 numpy==2.4.6 pillow==13.0.0 || fail "pip install of $wheel failed"

cc -std=c99 -ITests/C Tests/C/serve_images.c Tests/C/image_server.c -o "$tmp/serve_images" \
    -lturbojpeg -lspng -lwebp -lgif -lpthread
start_image_server "$tmp/serve_images"

cat >"$tmp/probe.py" <<'EOF'
"""Loads every URL given and prints where each vendored library came from."""
import os
import sys

import lazyimg

results = lazyimg.load(sys.argv[1:], target_width=64, target_height=64, timeout=60)
failed = [f"{url}: {result}" for url, result in zip(sys.argv[1:], results) if not isinstance(result, lazyimg.Image)]
if failed:
    sys.exit("failed: " + "; ".join(failed))
mapped = {line.split()[-1] for line in open("/proc/self/maps") if "/" in line}
package = os.path.dirname(os.path.dirname(lazyimg.__file__))
for name in ("libcurl", "libturbojpeg", "libspng", "libwebp", "libgif", "liblazyimg"):
    paths = sorted(path for path in mapped if os.path.basename(path).startswith(name))
    outside = [path for path in paths if not path.startswith(package + "/lazyimg")]
    if not paths or outside:
        sys.exit(f"{name}: mapped {paths or 'nothing'}, not only the wheel's own copy")
    print(f"{name} {paths[0]}")
print(f"images {len(results)} speedups {lazyimg.speedups}")
EOF

# The system's copies of what the wheel vendors, made unreadable inside.
hidden=$(find /usr/lib /lib -regextype egrep -regex '.*/lib(curl|turbojpeg|spng|webp|gif)[^/]*\.so[.0-9]*' \
    -type f 2>/dev/null | sort -u | tr '\n' ' ')
toolchain=$(cd "$(dirname "$(command -v swift || echo /opt/swift/usr/bin/swift)")/.." && pwd -P)
clean_env=(env -i "PATH=/usr/bin:/bin" "HOME=$HOME" "TMPDIR=${TMPDIR:-/tmp}")
tests=(LAZYIMG_TEST_INSTALLED=1 LAZYIMG_EXPECT_SPEEDUPS=1
       "LAZYIMG_EXPECT_LIBRARY=the copy inside the lazyimg package")
export HIDDEN=$hidden
if [ "$(id -u)" -eq 0 ] && unshare --mount true 2>/dev/null; then
    how="toolchain hidden, system libcurl, TurboJPEG, libspng, libwebp and giflib unreadable"
    # shellcheck disable=SC2016 # expanded by the inner shell
    inside() {
        unshare --mount sh -c 'mount -t tmpfs none "$1" && shift && for f in $HIDDEN; do mount --bind /dev/null "$f"; done && exec "$@"' \
            sh "$toolchain" "$@"
    }
else
    how="no unshare: toolchain and system libraries not hidden"
    inside() { "$@"; }
fi

inside "${clean_env[@]}" "$venv/bin/python" "$tmp/probe.py" "${image_urls[@]}" >"$tmp/probe.log" 2>&1 \
    || { cat "$tmp/probe.log"; fail "the wheel did not load the images ($how)"; }
cat "$tmp/probe.log"
inside "${clean_env[@]}" "${tests[@]}" "$venv/bin/python" -m pytest -q -p no:cacheprovider bindings/python/tests \
    || fail "the binding's tests failed against the installed wheel ($how)"
echo "check-python-wheel: $(basename "$wheel") in a fresh venv ($how): $(grep '^libcurl' "$tmp/probe.log")"
