#!/usr/bin/env bash
# Runs each libFuzzer target of lazyimg-fuzz for SECONDS, seeded from the test corpus
# (the disk cache's targets from the real entry files and journals that make xctest
# writes to build/fuzz-seeds/: DiskCacheTests+CraftedRecords; none when it has not run),
# and prints a table of files seeded and executions. New inputs are kept in
# build/fuzz/<target>/; a crash writes build/fuzz/<target>-crash-* and fails the run
# (reproduce with: LAZYIMG_FUZZ_TARGET=<target> FUZZER <file>).
# usage: scripts/fuzz.sh FUZZER CORPUS SECONDS TARGET...
set -euo pipefail
fuzzer=$1 corpus=$2 seconds=$3
shift 3

seeds() {
    case $1 in
        jpeg) echo "$corpus/jpeg $corpus/bad/jpeg" ;;
        png) echo "$corpus/pngsuite $corpus/png-corrupt $corpus/bad/png" ;;
        webp) echo "$corpus/webp $corpus/bad/webp" ;;
        gif) echo "$corpus/gif $corpus/bad/gif" ;;
        frames) echo "$corpus/gif $corpus/bad/gif $corpus/webp $corpus/bad/webp" ;;
        # The corpus has no AVIF or HEIC: files the test encoders make (--write-seeds).
        avif) echo "build/fuzz/seeds/avif" ;;
        heif) echo "build/fuzz/seeds/heif" ;;
        # Bodies of every kind, plus the non-image texts beside them.
        response) echo "$corpus/bad $corpus/png-corrupt" ;;
        disk-entry | disk-journal) echo "build/fuzz-seeds/$1" ;;
    esac
}

mkdir -p build/fuzz build/fuzz-seeds/disk-entry build/fuzz-seeds/disk-journal
ASAN_OPTIONS=detect_leaks=0 "$fuzzer" --write-seeds build/fuzz/seeds
failed=0
rows=()
for target in "$@"; do
    mkdir -p "build/fuzz/$target"
    # shellcheck disable=SC2046
    seeded=$(find $(seeds "$target") -type f | wc -l)
    log="build/fuzz/$target.log"
    # Leak checking is off: the Swift runtime's metadata caches and the response
    # harness's loader (alive until exit) look like leaks to
    # LeakSanitizer (the sanitize target runs the corpus with its suppressions).
    # shellcheck disable=SC2046
    if ASAN_OPTIONS=detect_leaks=0 LAZYIMG_FUZZ_TARGET=$target "$fuzzer" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=3072 \
        -detect_leaks=0 -print_final_stats=1 -artifact_prefix="build/fuzz/$target-" \
        "build/fuzz/$target" $(seeds "$target") >"$log" 2>&1; then
        status=ok
    else
        status=FAILED
        failed=1
        grep -E "ERROR|SUMMARY|Test unit written" "$log" | head -n 5 || true
    fi
    runs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$log" | tail -n 1)
    speed=$(sed -nE 's/^stat::average_exec_per_sec: *([0-9]+).*/\1/p' "$log" | tail -n 1)
    kept=$(find "build/fuzz/$target" -type f | wc -l)
    rows+=("$(printf '%-12s %6s %10s %8s %8s  %s' "$target" "$seeded" "${runs:-?}" "${speed:-?}" "$kept" "$status")")
done
printf '%-12s %6s %10s %8s %8s  %s\n' target seeds executions exec/s kept result
printf '%s\n' "${rows[@]}"
exit $failed
