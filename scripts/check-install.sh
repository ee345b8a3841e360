#!/usr/bin/env bash
# What a user of an installed lazyimg gets, checked the way they use it:
#   make install into a temporary PREFIX: the versioned library and its links,
#   the header, lazyimg.pc; no RUNPATH or ldd path into the Swift toolchain;
#   examples-c/minimal.c built with `cc $(pkg-config --cflags --libs ...)` and
#   run against the loopback image server in a clean environment (env -i) with
#   the toolchain's directory hidden under an empty tmpfs in a private mount
#   namespace (unshare); the same program under plain valgrind; make uninstall.
#   make install/uninstall with DESTDIR: files land under the staging directory
#   and lazyimg.pc names the final prefix.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/image-server.sh
. scripts/image-server.sh
fail() { echo "check-install: $*"; exit 1; }
quiet() { "$@" >"$tmp/out.log" 2>&1 || { cat "$tmp/out.log"; fail "failed: $*"; }; }

toolchain=$(cd "$(dirname "$(command -v swift)")/.." && pwd -P)
prefix=$tmp/prefix
quiet make --no-print-directory install PREFIX="$prefix"

minor=$(sed -n 's/^#define LAZYIMG_VERSION_MINOR \([0-9]*\).*/\1/p' include/lazyimg.h)
patch=$(sed -n 's/^#define LAZYIMG_VERSION_PATCH \([0-9]*\).*/\1/p' include/lazyimg.h)
real=liblazyimg.so.0.$minor.$patch
for f in "lib/$real" lib/liblazyimg.so.0 lib/liblazyimg.so include/lazyimg.h lib/pkgconfig/lazyimg.pc; do
    [ -e "$prefix/$f" ] || fail "make install did not install $f"
done
[ "$(readlink "$prefix/lib/liblazyimg.so.0")" = "$real" ] || fail "liblazyimg.so.0 does not point to $real"
[ "$(readlink "$prefix/lib/liblazyimg.so")" = liblazyimg.so.0 ] || fail "liblazyimg.so does not point to liblazyimg.so.0"

lib=$prefix/lib/$real
if readelf -d "$lib" | grep -E 'RPATH|RUNPATH' | grep -qF "$toolchain"; then
    fail "the library's RUNPATH points into the toolchain: $(readelf -d "$lib" | grep -E 'RPATH|RUNPATH')"
fi
if readelf -d "$lib" | grep NEEDED | grep -qE 'libswift|libFoundation|libdispatch'; then
    fail "the library needs Swift runtime libraries: $(readelf -d "$lib" | grep NEEDED | grep -E 'swift|Foundation|dispatch')"
fi
if env -i ldd "$lib" | grep -E "not found|$toolchain"; then
    fail "ldd resolves a library from the toolchain or not at all"
fi

export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
[ "$(pkg-config --modversion lazyimg)" = "$(sed -n 's/^#define LAZYIMG_VERSION_STRING "\(.*\)"/\1/p' include/lazyimg.h)" ] \
    || fail "pkg-config --modversion lazyimg is '$(pkg-config --modversion lazyimg)'"
# Sources before libraries: Debian's gcc links with --as-needed.
# shellcheck disable=SC2046 # word splitting of pkg-config's flags is the point
cc examples-c/minimal.c -o "$tmp/minimal" $(pkg-config --cflags --libs lazyimg spng) \
    || fail "examples-c/minimal.c does not build with pkg-config's flags"
quiet cc -std=c99 -ITests/C Tests/C/serve_images.c Tests/C/image_server.c -o "$tmp/serve_images" \
    -lturbojpeg -lspng -lwebp -lgif -lpthread

start_image_server "$tmp/serve_images"
urls=("${image_urls[@]}")

# The program runs as a user's would: nothing from this shell's environment,
# the library found through LD_LIBRARY_PATH, the toolchain out of sight.
run=(env -i "LD_LIBRARY_PATH=$prefix/lib" "$tmp/minimal" "$tmp/sheet.png" "${urls[@]}")
if [ "$(id -u)" -eq 0 ] && unshare --mount true 2>/dev/null; then
    # shellcheck disable=SC2016 # expanded by the inner shell
    unshare --mount sh -c 'mount -t tmpfs none "$1" && [ ! -e "$1/bin" ] && shift && exec "$@"' \
        sh "$toolchain" "${run[@]}" >"$tmp/run.log" 2>&1 || { cat "$tmp/run.log"; fail "minimal failed with the toolchain hidden"; }
    hidden="toolchain hidden"
else
    "${run[@]}" >"$tmp/run.log" 2>&1 || { cat "$tmp/run.log"; fail "minimal failed in a clean environment"; }
    hidden="clean environment (no unshare: toolchain not hidden)"
fi
[ "$(head -c 8 "$tmp/sheet.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "minimal wrote no PNG"

# Valgrind reads the installed (stripped) library as it is: no recipe needed.
if command -v valgrind >/dev/null; then
    quiet env LD_LIBRARY_PATH="$prefix/lib" valgrind --quiet --leak-check=full --show-possibly-lost=no \
        --errors-for-leak-kinds=definite --error-exitcode=9 "$tmp/minimal" "$tmp/sheet2.png" "${urls[@]:0:3}"
fi

quiet make --no-print-directory uninstall PREFIX="$prefix"
left=$(find "$prefix" -type f -o -type l)
[ -z "$left" ] || fail "make uninstall left: $left"

stage=$tmp/stage
quiet make --no-print-directory install PREFIX=/usr/local DESTDIR="$stage"
[ -e "$stage/usr/local/lib/$real" ] || fail "DESTDIR install: no $stage/usr/local/lib/$real"
grep -qx 'prefix=/usr/local' "$stage/usr/local/lib/pkgconfig/lazyimg.pc" || fail "DESTDIR install: lazyimg.pc does not name /usr/local"
quiet make --no-print-directory uninstall PREFIX=/usr/local DESTDIR="$stage"
left=$(find "$stage" -type f -o -type l)
[ -z "$left" ] || fail "DESTDIR uninstall left: $left"

echo "check-install: $real, pkg-config, minimal.c ran ($hidden), valgrind, uninstall"
