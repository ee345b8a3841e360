#!/usr/bin/env bash
# One step of `make test`: runs the command with all its output in
# build/test/STEP.log and prints one line, "STEP ok", "STEP: N tests ok" for a
# test runner (XCTest, pytest), "STEP skipped: why", or "STEP FAILED" followed by
# the log's last lines. Appends "passed failed" to build/test/counts: the tests
# a runner reported, or 1 for a step that is a single check.
# usage: scripts/run-step.sh STEP COMMAND [ARGS...]
set -uo pipefail
step=$1; shift
dir=build/test
mkdir -p "$dir"
log=$dir/$step.log
"$@" >"$log" 2>&1 </dev/null
status=$?

# XCTest: "Executed 43 tests, with 2 tests skipped and 0 failures (0 unexpected)".
xctest=$(grep -E '^[[:space:]]*Executed [0-9]+ tests?' "$log" | tail -n 1)
# pytest: "24 passed, 1 skipped in 8.44s" or "1 failed, 23 passed in ...".
pytest=$(grep -E '^=*[[:space:]]*([0-9]+ (passed|failed|skipped|errors?)(, )?)+.* in [0-9.]+s' "$log" | tail -n 1)
count() { echo "$1" | grep -oE "[0-9]+ $2" | head -n 1 | grep -oE '^[0-9]+' || echo 0; }
if [ -n "$xctest" ]; then
    executed=$(echo "$xctest" | sed -E 's/.*Executed ([0-9]+) tests?.*/\1/')
    skipped=$(count "$xctest" 'tests? skipped')
    failed=$(count "$xctest" 'failures?')
    passed=$((executed - skipped - failed))
elif [ -n "$pytest" ]; then
    passed=$(count "$pytest" passed)
    skipped=$(count "$pytest" skipped)
    failed=$(( $(count "$pytest" failed) + $(count "$pytest" 'errors?') ))
elif [ $status -eq 0 ] && grep -qE "^$step: skipped" "$log"; then
    echo "0 0" >>"$dir/counts"
    echo "$(grep -E "^$step: skipped" "$log" | tail -n 1)"
    exit 0
else
    passed=$((status == 0)) failed=$((status != 0)) skipped=""
fi
# "xctest: 412 tests ok (3 skipped)" for a runner, "check-symbols ok" for a check.
what=""
if [ -n "$xctest$pytest" ]; then
    what=": $passed tests"
    [ "$skipped" = 0 ] || skipped_note=" ($skipped skipped)"
fi
# A crash after the summary, or a runner that found nothing to run, still fails.
if [ $status -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
echo "$passed $failed" >>"$dir/counts"
if [ $status -eq 0 ]; then
    echo "$step$what ok${skipped_note:-}"
else
    echo "$step FAILED (exit $status${what:+; $failed of them failed}); the end of $log:"
    tail -n 40 "$log" | sed 's/^/    /'
fi
exit $status
