#!/usr/bin/env bash
# `make bench-quick`: the key ratios once, in a few minutes, beside the last medians recorded
# in docs/benchmarks.md ("Quick figures"), with every figure that moved the wrong way by more
# than 25% flagged. Run it before resolving an issue that touches Auth, Storage, Registration or
# the request path. It is a smoke alarm, not a measurement: one short run on a shared machine
# says "look here", and `make bench` (median of 3) says how much.
#
#   bench/quick.sh [--no-postgres]
#
# Runs request-path-bench.sh (/healthz and classidslist against bare Hummingbird),
# registration-bench.sh (classidslist, authenticated studentclasses, register/drop warm and
# cold against a bare SQLite loop) and registration-postgres-bench.sh (register/drop against
# pgbench's same transaction) with short durations. Exits 1 when a figure is flagged.
set -uo pipefail
cd "$(dirname "$0")/.."
POSTGRES=1
[ "${1:-}" = "--no-postgres" ] && POSTGRES=0
bash scripts/install-deps.sh --bench >/dev/null
swift build -c release --product gateway --scratch-path "${SCRATCH:-.build-release}" >/dev/null || exit 1
export SKIP_BUILD=1 DURATION=${DURATION:-4} REQUESTS=${REQUESTS:-20000}
FIGURES=$(mktemp)
trap 'rm -f "$FIGURES"' EXIT
scripts=(request-path-bench registration-bench)
[ "$POSTGRES" = 1 ] && scripts+=(registration-postgres-bench)
for name in "${scripts[@]}"; do
    echo "== $name (DURATION=$DURATION)"
    bash "bench/$name.sh" 2>&1 | grep '^figure|' | sed "s/^figure|/$name|/" | tee -a "$FIGURES"
done
python3 bench/compare_quick.py "$FIGURES" docs/benchmarks.md
