#!/usr/bin/env bash
# Decode benchmark: thumbnails per second to a 128x128 box, one thread, for lazyimg's
# ImageDecoder, Pillow and djpeg on the same files in the same run.
#
#   Tests/Benchmarks/bench-decode.sh (make bench-decode)
#
# Inputs are the 24 Kodak photos (../shared/corpus/photos, 768x512 PNG) and their
# JPEG q90 re-encodings (made once into .build/bench-data). Each measurement is pinned
# to CPU 0; the decoders take turns, BENCH_ROUNDS times (default 3), and the table
# shows each one's median. BENCH_SECONDS (default 2) is the minimum time per
# measurement. A benchmark, not a test: it exits 0 whatever the numbers are.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
photos="$repo/../shared/corpus/photos"
data="$repo/.build/bench-data"
venv="$repo/.build/bench-venv"
seconds=${BENCH_SECONDS:-2}
rounds=${BENCH_ROUNDS:-3}

if [ ! -f "$photos/kodim01.png" ]; then
    echo "bench-decode: no Kodak photos at $photos (../shared/corpus/photos); nothing to measure."
    exit 0
fi

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

if ! command -v djpeg >/dev/null; then
    echo "bench-decode: installing libjpeg-turbo-progs (djpeg)" >&2
    export DEBIAN_FRONTEND=noninteractive
    as_root apt-get install -y -q libjpeg-turbo-progs >&2 \
        || { as_root apt-get update -q >&2 && as_root apt-get install -y -q libjpeg-turbo-progs >&2; }
fi
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import PIL' 2>/dev/null; then
    echo "bench-decode: creating $venv with Pillow from PyPI" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q pillow >&2
fi

swift build -c release -Xswiftc -static-stdlib --product lazyimg-bench >&2
bench="$(swift build -c release -Xswiftc -static-stdlib --show-bin-path)/lazyimg-bench"

mkdir -p "$data"
if [ ! -f "$data/kodim24.jpg" ]; then
    "$bench" prepare "$photos" "$data" >&2
fi
jpegs=("$data"/kodim*.jpg)
pngs=("$photos"/kodim*.png)

if command -v taskset >/dev/null && taskset -c 0 true 2>/dev/null; then
    pin=(taskset -c 0)
    pinning="pinned to CPU 0"
else
    pin=()
    pinning="not pinned (no taskset)"
fi

# djpeg as a user's batch runs it: one process per file, output discarded, whole
# passes over the set until $seconds have passed. Prints "jpeg <files/s> <files> <s>".
djpeg_batch() {
    local start now files=0
    start=$(date +%s%N)
    while :; do
        for file in "$@"; do
            djpeg -scale 1/4 -outfile /dev/null "$file"
        done
        files=$((files + $#))
        now=$(date +%s%N)
        if [ $((now - start)) -ge "$(awk -v s="$seconds" 'BEGIN { printf "%d", s * 1e9 }')" ]; then
            break
        fi
    done
    awk -v n="$files" -v ns="$((now - start))" 'BEGIN { printf "jpeg %f %d %f\n", n / (ns / 1e9), n, ns / 1e9 }'
}
export -f djpeg_batch
export seconds

results=$(mktemp)
trap 'rm -f "$results"' EXIT
for round in $(seq "$rounds"); do
    echo "bench-decode: round $round of $rounds" >&2
    "${pin[@]}" "$bench" run --machine --seconds "$seconds" "${jpegs[@]}" "${pngs[@]}" \
        | awk '{ print "lazyimg", $1, $2 }' >>"$results"
    "${pin[@]}" "$venv/bin/python" Tests/Benchmarks/bench_pillow.py "$seconds" "${jpegs[@]}" "${pngs[@]}" \
        | awk '{ print "pillow", $1, $2 }' >>"$results"
    if command -v djpeg >/dev/null; then
        "${pin[@]}" bash -c 'djpeg_batch "$@"' djpeg_batch "${jpegs[@]}" \
            | awk '{ print "djpeg", $1, $2 }' >>"$results"
    fi
done

# The median of each decoder's rounds, by decoder and format.
median() {
    awk -v d="$1" -v f="$2" '$1 == d && $2 == f { print $3 }' "$results" | sort -g \
        | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
row() { # format, label, value, reference, note
    awk -v f="$1" -v l="$2" -v v="$3" -v r="$4" -v n="$5" 'BEGIN {
        if (v == "-") { printf "%-7s %-20s %10s   %9s   %s\n", f, l, "n/a", "", n; exit }
        ratio = (r == "-" || r == 0) ? "n/a" : sprintf("%.2f", v / r)
        line = sprintf("%-7s %-20s %10.1f   %9s   %s", f, l, v, ratio, n); sub(/ +$/, "", line); print line }'
}
lazy_jpeg=$(median lazyimg jpeg); pillow_jpeg=$(median pillow jpeg); djpeg_jpeg=$(median djpeg jpeg)
lazy_png=$(median lazyimg png); pillow_png=$(median pillow png)

echo "decode benchmark: ${#pngs[@]} Kodak photos 768x512 (6 portrait) -> 128x128 box, 1 thread ($pinning), median of $rounds rounds"
printf "%-7s %-20s %10s   %9s\n" format decoder thumbs/s "vs Pillow"
row JPEG lazyimg "$lazy_jpeg" "$pillow_jpeg" ""
row JPEG "Pillow draft+thumb" "$pillow_jpeg" "$pillow_jpeg" ""
row JPEG "djpeg -scale 1/4" "$djpeg_jpeg" "$pillow_jpeg" "(process per file)"
row PNG lazyimg "$lazy_png" "$pillow_png" ""
row PNG "Pillow thumbnail" "$pillow_png" "$pillow_png" ""
echo
echo "JPEG: q90 4:2:0 re-encodings of the PNGs. lazyimg: DCT-scaled decode to 1/4 + box-filter"
echo "resample to the exact box, RGBA out, from memory. Pillow $("$venv/bin/python" -c 'import PIL; print(PIL.__version__)'):"
echo "open+draft+thumbnail+load from BytesIO, in-process. djpeg: one process per file, so its"
echo "rate includes process start-up; it only DCT-scales (to 192x128) and does not resample to the box."
echo "Goal: lazyimg >= 1.2x Pillow on JPEG, > 1.0x Pillow on PNG."
