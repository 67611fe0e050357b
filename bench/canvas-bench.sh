#!/usr/bin/env bash
# Canvas polls (numbers in docs/benchmarks.md), release builds, 127.0.0.1 only: ACCOUNTS Canvas
# accounts (personal access tokens) polled against the Canvas stand-in (a `gradebook-sim
# --canvas-prefix / --canvas-students ACCOUNTS` process, two items a page as its default), each
# poll reading every page of courses and each course's assignments, snapshotting and diffing,
# CONCURRENCY at a time: a baseline round, then the steady state. It reports the upstream
# requests each poll makes (counted by the stand-in), the time per poll, the bench process's peak
# resident memory, and the ratio of the requests the polls make per second to the ceiling: wrk
# on the stand-in's courses list with one token, in the same run.
source "$(dirname "$0")/lib.sh"
ACCOUNTS=${ACCOUNTS:-1000}
CONCURRENCY=${CONCURRENCY:-8}
SIM_PORT=${SIM_PORT:-18096}
bench_build gateway gradebook-sim push-bench
ADMIN_TOKEN=$(head -c 24 /dev/urandom | base64 | tr -d '/+=')
"$BINDIR/gradebook-sim" serve --host 127.0.0.1 --port "$SIM_PORT" --canvas-prefix / --canvas-students "$ACCOUNTS" \
  --admin-token "$ADMIN_TOKEN" --log-level error </dev/null >/dev/null 2>&1 &
PIDS+=($!)
ORIGIN="http://127.0.0.1:$SIM_PORT"
for _ in $(seq 1 100); do curl -sf -H "Authorization: Bearer bench-token-1" "$ORIGIN/api/v1/users/self" >/dev/null && break; sleep 0.2; done
count() { curl -s -H "Authorization: Bearer $ADMIN_TOKEN" "$ORIGIN/_admin/canvas/requests" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])'; }
echo "== Canvas polls: $ACCOUNTS accounts, $CONCURRENCY at a time (release; $(nproc) cores shared; load $(cut -d' ' -f1-3 /proc/loadavg))"
BEFORE=$(count)
"$BINDIR/push-bench" canvas-polls --url "$ORIGIN" --accounts "$ACCOUNTS" --concurrency "$CONCURRENCY" | tee "$DIR/polls.txt"
AFTER=$(count)
wrk -t1 -c"$CONCURRENCY" -d2s -H "Authorization: Bearer bench-token-1" "$ORIGIN/api/v1/courses?per_page=100" >/dev/null
wrk -t1 -c"$CONCURRENCY" -d10s -H "Authorization: Bearer bench-token-1" "$ORIGIN/api/v1/courses?per_page=100" > "$DIR/wrk.txt"
SIM_RATE=$(grep "Requests/sec" "$DIR/wrk.txt" | awk '{print $2}')
POLL_RATE=$(grep canvas_polls_rate= "$DIR/polls.txt" | cut -d= -f2)
PEAK=$(grep peak_rss_kib= "$DIR/polls.txt" | cut -d= -f2)
read -r PER_POLL RATIO MS < <(python3 - "$BEFORE" "$AFTER" "$ACCOUNTS" "$POLL_RATE" "$SIM_RATE" <<'PY'
import sys
before, after, accounts, polls, sim = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
# Requests the bench made: one users/self per stored account, then two rounds of polls.
per_poll = (after - before - accounts) / (2 * accounts)
print(f"{per_poll:.2f} {polls * per_poll / sim:.3f} {1000 / polls:.2f}")
PY
)
echo "canvas polls: $POLL_RATE/s ($MS ms each), $PER_POLL upstream requests each; stand-in alone (wrk, courses) $SIM_RATE req/s; ratio $RATIO; peak RSS $((PEAK / 1024)) MiB"
bench_figure "Canvas polls: requests/s over the stand-in's ceiling" "$RATIO"
bench_figure "Canvas polls: upstream requests per poll" "$PER_POLL" "requests"
bench_figure "Canvas polls: time per poll (steady, $CONCURRENCY at a time)" "$MS" "ms"
bench_figure "Canvas polls: peak resident memory of the polling process" "$((PEAK / 1024))" "MiB"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
