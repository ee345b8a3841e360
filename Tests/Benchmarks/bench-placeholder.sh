#!/usr/bin/env bash
# Placeholder render benchmark: microseconds per BlurHash and ThumbHash render, one
# thread, lazyimg against the reference decoders in the same run.
#
#   Tests/Benchmarks/bench-placeholder.sh       (make bench-placeholder)
#
# lazyimg: LazyImgCore's renderers in the release build (lazyimg-bench placeholders).
# References (Tests/Benchmarks/bench_placeholder_reference.py): the Python blurhash package
# and thumbhash-python (pure Python), Wolt's C BlurHash decoder (blurhash-python's
# cffi module) and Evan Wallace's Rust ThumbHash crate (fast-thumbhash), from PyPI
# into virtualenvs under build/. Each implementation runs on CPU 0 when taskset can
# pin it; each figure is the best of BENCH_ROUNDS rounds (default 10) lasting
# BENCH_SECONDS (default 1) together. A benchmark, not a test: it exits 0 whatever the
# numbers are.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
seconds=${BENCH_SECONDS:-1}
rounds=${BENCH_ROUNDS:-10}
oracles="$repo/build/placeholder-venv"
wolt="$repo/build/placeholder-venv-c"

make --no-print-directory build/placeholder-venv/installed >&2
# blurhash-python installs a module named blurhash too, so it has a venv of its own.
if [ ! -f "$wolt/installed" ]; then
    rm -rf "$wolt" && python3 -m venv "$wolt" >&2
    "$wolt/bin/pip" install -q blurhash-python==1.2.2 >&2
    touch "$wolt/installed"
fi

swift build -c release -Xswiftc -static-stdlib --product lazyimg-bench >&2
bench="$(swift build -c release -Xswiftc -static-stdlib --show-bin-path)/lazyimg-bench"

if command -v taskset >/dev/null && taskset -c 0 true 2>/dev/null; then
    pin=(taskset -c 0); pinning="pinned to CPU 0"
else
    pin=(); pinning="not pinned (no taskset)"
fi

# The hashes: BlurHash's README example (4x3), a Mastodon-style 4x4 and the 9x9 most an
# encoder writes, from the Kodak photos by the Python encoder; ThumbHashes of a photo
# and of one with an alpha mask, by the Rust reference encoder (Tests/Fixtures).
cases=$(mktemp)
trap 'rm -f "$cases" "$cases".*' EXIT
cat >"$cases" <<'CASES'
blurhash LEHV6nWB2yk8pyo0adR*.7kCMdnj 32 32
blurhash U5Grr7={VtR6%KSg,EI;:,v$S}tj{}i{XRtQ 32 32
blurhash U5Grr7={VtR6%KSg,EI;:,v$S}tj{}i{XRtQ 64 64
blurhash |CFqRX4:NN?Hj]$*bY%MRj[xcDtlrYaeoze.s;V@^RnlY4xaWBozRjX8WB}^SwT0nlkVa$ayt7V[-qbbS4aLV@oMofs:juyCnlRibvRjWUn%f*kCJ.ocj[R*nOX8j[j[oMtlaLaebai_j[s:bHozS#t7V?bbjYV@ozjZWW 32 32
blurhash |CFqRX4:NN?Hj]$*bY%MRj[xcDtlrYaeoze.s;V@^RnlY4xaWBozRjX8WB}^SwT0nlkVa$ayt7V[-qbbS4aLV@oMofs:juyCnlRibvRjWUn%f*kCJ.ocj[R*nOX8j[j[oMtlaLaebai_j[s:bHozS#t7V?bbjYV@ozjZWW 64 64
thumbhash 2hgGDYB4dWiPd5dleGiIl1lvo/JE 32 23
thumbhash 2hgGDYB4dWiPd5dleGiIl1lvo/JE 64 46
thumbhash E6qCA4I4W6CHWGmFcF0I5wdXh3iAeFc= 32 19
thumbhash E6qCA4I4W6CHWGmFcF0I5wdXh3iAeFc= 64 38
CASES

echo "bench-placeholder: lazyimg" >&2
"${pin[@]}" "$bench" placeholders --seconds "$seconds" --rounds "$rounds" <"$cases" >"$cases.lazyimg"
for reference in blurhash fast_thumbhash thumbhash-python; do
    echo "bench-placeholder: $reference" >&2
    "${pin[@]}" "$oracles/bin/python" Tests/Benchmarks/bench_placeholder_reference.py "$reference" "$seconds" "$rounds" \
        <"$cases" >"$cases.$reference"
done
echo "bench-placeholder: blurhash-c" >&2
"${pin[@]}" "$wolt/bin/python" Tests/Benchmarks/bench_placeholder_reference.py blurhash-c "$seconds" "$rounds" \
    <"$cases" >"$cases.blurhash-c"

# One row per case: lazyimg's time, then each reference's time and its ratio to lazyimg
# (how many times longer the reference takes).
table() { # kind, reference..., as "label=file"
    local kind=$1; shift
    local header="" files=""
    for pair in "$@"; do header="$header ${pair%%=*}"; files="$files $cases.${pair#*=}"; done
    # shellcheck disable=SC2086
    paste -d' ' "$cases.lazyimg" $files | awk -v kind="$kind" -v header="$header" -v n=$# '
        BEGIN {
            split(header, names, " ")
            printf "%-30s %7s %10s", kind, "size", "lazyimg"
            for (i = 1; i <= n; i++) printf "  %18s %7s", names[i], "ratio"
            printf "\n"
        }
        $1 == kind {
            hash = $2; if (length(hash) > 28) hash = substr(hash, 1, 25) "..."
            us = $5
            printf "%-30s %7s %10.1f", hash, $3 "x" $4, us
            for (i = 1; i <= n; i++) {
                ref = $(5 + 5 * i)
                if (ref == "-") printf "  %18s %7s", "-", ""
                else printf "  %18.1f %6.0fx", ref, ref / us
            }
            printf "\n"
        }'
}

echo "placeholder render: microseconds per image, 1 thread ($pinning), best of $rounds rounds"
echo
table blurhash "blurhash(Python)=blurhash" "Wolt-C(cffi)=blurhash-c"
echo
table thumbhash "Rust-crate(PyO3)=fast_thumbhash" "thumbhash-python=thumbhash-python"
echo
"${pin[@]}" "$bench" placeholder-requests 'U5Grr7={VtR6%KSg,EI;:,v$S}tj{}i{XRtQ' >"$cases.requests"
first=$(awk '$1 == "first" { printf "%.1f", $2 }' "$cases.requests")
again=$(awk '$1 == "again" { printf "%.2f", $2 }' "$cases.requests")
echo "The request path at a 64x64 box, 4x4 BlurHash: a row's first answer draws its placeholder in"
echo "$first us; asked again, it takes the kept image in $again us (ImageLoader.placeholder(forRow:))."
echo
echo "ratio: the reference's time over lazyimg's. Every output is RGBA8. lazyimg's bytes are the"
echo "Python blurhash's and the Rust crate's (make check-placeholder-fixtures); Wolt's C decoder"
echo "works in floats, thumbhash-python rounds where the reference truncates (by 1 at most). The"
echo "Python and PyO3 figures include the call from Python and building its result, a list"
echo "(list(bytes(2944)), a 32x23 image's, takes about 5 us here); the C one a cffi call only."
echo "Sizes: 32 is what BlurHash's authors suggest and ThumbHash's own size; 64 is the most the"
echo "loader draws (lazyimg.h, placeholders). The Rust crate renders only at its own size."
