#!/usr/bin/env bash
# Compares the functions declared in include/lazyimg.h with the functions that
# liblazyimg.so exports, and checks the SONAME and that Foundation is not linked.
# Usage: scripts/check-symbols.sh path/to/liblazyimg.so
set -euo pipefail

lib=${1:?usage: $0 path/to/liblazyimg.so}
header="$(dirname "$0")/../include/lazyimg.h"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

# Prototypes: "lazyimg_name(" in the header with its comments stripped by the
# compiler's preprocessor; typedef lines (function-pointer types such as
# "(*lazyimg_event_fn)(") are left out.
"${CC:-cc}" -fpreprocessed -dD -E -P "$header" \
    | grep -v 'typedef' \
    | grep -oE '\blazyimg_[a-z0-9_]+[[:space:]]*\(' \
    | sed -E 's/[[:space:]]*\($//' | sort -u >"$tmp/declared"

nm -D --defined-only "$lib" | awk '$2 == "T" { print $3 }' \
    | sed 's/@.*//' | sort -u >"$tmp/exported"

if ! diff -q "$tmp/declared" "$tmp/exported" >/dev/null; then
    echo "check-symbols: declared in lazyimg.h but not exported:"
    comm -23 "$tmp/declared" "$tmp/exported" | sed 's/^/  /' | grep . || echo "  (none)"
    echo "check-symbols: exported but not declared in lazyimg.h:"
    comm -13 "$tmp/declared" "$tmp/exported" | sed 's/^/  /' | grep . || echo "  (none)"
    status=1
else
    echo "check-symbols: $(wc -l <"$tmp/declared") functions declared and exported"
fi

soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ "$soname" != "liblazyimg.so.0" ]; then
    echo "check-symbols: SONAME is '$soname', expected liblazyimg.so.0"
    status=1
fi

if readelf -d "$lib" | grep NEEDED | grep -q 'libFoundation'; then
    echo "check-symbols: liblazyimg.so depends on Foundation:"
    readelf -d "$lib" | grep NEEDED | grep 'libFoundation' | sed 's/^/  /'
    status=1
fi
exit $status
