#!/usr/bin/env bash
# Runs a test command, keeps its whole output in artifacts/test-logs/, and when it fails
# repeats the failing tests' lines at the end, where a CI log's tail shows them.
#
# A hung test must not eat CI's whole budget in silence: the run is stopped after
# TEST_TIME_LIMIT seconds (default 900; GATEWAY_SLOW_TESTS runs get 3600), and then the tests
# that started and never finished are listed. Output is line-buffered, so a log cut short
# still ends at the last line the tests wrote.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p artifacts/test-logs
log="artifacts/test-logs/$(date +%Y%m%d-%H%M%S)-$$.log"
if [ -n "${GATEWAY_SLOW_TESTS:-}" ]; then default_limit=3600; else default_limit=900; fi
limit="${TEST_TIME_LIMIT:-$default_limit}"
started=$(date +%s)
stdbuf -oL -eL timeout --signal=TERM --kill-after=30 "$limit" "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
echo "run-tests: exit $status after $(( $(date +%s) - started )) s: $*"
if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
  echo
  echo "=== stopped after ${limit} s: tests that started and never finished ==="
  python3 scripts/unfinished-tests.py "$log"
  echo "=== end of unfinished tests ==="
fi
if [ "$status" -ne 0 ]; then
  echo
  echo "=== what failed (whole output in $log) ==="
  grep -E '✘|error:|recorded an issue|Fatal error|Crash|signal [0-9]+' "$log" | grep -v '^✘ Test run with' | tail -80
  echo "=== end of what failed ==="
fi
exit "$status"
