#!/usr/bin/env bash
# Every XCTest file names its sanitizer subsets in an #if at its top, and no
# subset holds more classes than a sanitized XCTest bundle of Swift 6.3.1 can
# start with (see the Makefile's tsan). Usage: check-test-subsets.sh GROUP...
set -euo pipefail
limit=21
files=$(find Tests -name '*.swift' -print0 | xargs -0 grep -lE 'class [A-Za-z]+: XCTestCase|^extension [A-Za-z]+Tests')
missing=$(grep -LE '^#if !LAZYIMG_SUBSET \|\| ' $files || true)
if [ -n "$missing" ]; then
    echo "test files without a sanitizer-subset #if:"; echo "$missing"; exit 1
fi
status=0
for group in "$@" LAZYIMG_ASAN_SUBSET; do
    classes=0
    for f in $(grep -lE "^#if !LAZYIMG_SUBSET \|\| .*\b$group\b" $files || true); do
        classes=$((classes + $(grep -cE '^(final )?class [A-Za-z]+: XCTestCase' "$f" || true)))
    done
    echo "$group: $classes test classes"
    if [ "$classes" -gt "$limit" ]; then
        echo "$group has more than $limit test classes: move a file to another group"; status=1
    fi
done
exit $status
