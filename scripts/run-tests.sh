#!/usr/bin/env bash
# Runs a test command, keeps its whole output in artifacts/test-logs/, and when it fails
# repeats the failing tests' lines at the end, where a CI log's tail shows them.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p artifacts/test-logs
log="artifacts/test-logs/$(date +%Y%m%d-%H%M%S)-$$.log"
"$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
  echo
  echo "=== what failed (whole output in $log) ==="
  grep -E '✘|error:|recorded an issue|Fatal error|Crash|signal [0-9]+' "$log" | grep -v '^✘ Test run with' | tail -80
  echo "=== end of what failed ==="
fi
exit "$status"
