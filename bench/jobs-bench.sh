#!/usr/bin/env bash
# Jobs benchmark in release mode: enqueue latency (p50/p99) and jobs per second end to end with
# 1 and 4 workers. JOBS=20000 by default. Results go to docs/benchmarks.md by hand.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-20000}
swift build -c release --product jobs-bench >/dev/null
"$(swift build -c release --show-bin-path)/jobs-bench" --jobs "$JOBS" --workers "${WORKERS:-1,4}"
