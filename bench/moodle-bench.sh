#!/usr/bin/env bash
# Moodle polls (docs/benchmarks.md), release builds, 127.0.0.1 only: ACCOUNTS Moodle accounts
# (web-service tokens) polled against the Moodle stand-in (a `gradebook-sim --moodle-prefix /
# --moodle-students ACCOUNTS` process; each bench student is in one course), each poll reading
# the site info, the courses, the course totals and each course's grade items, snapshotting and
# diffing, CONCURRENCY at a time: a baseline round (grade items asked, as polls a poll interval
# apart ask them), then a second round within the minute (grade items kept, as a refresh within
# the minute reads them). It reports the upstream requests each poll makes (counted by the
# stand-in), the time per poll, and the bench process's peak resident memory.
source "$(dirname "$0")/lib.sh"
ACCOUNTS=${ACCOUNTS:-1000}
CONCURRENCY=${CONCURRENCY:-8}
SIM_PORT=${SIM_PORT:-18097}
bench_build gateway gradebook-sim push-bench
ADMIN_TOKEN=$(head -c 24 /dev/urandom | base64 | tr -d '/+=')
"$BINDIR/gradebook-sim" serve --host 127.0.0.1 --port "$SIM_PORT" --moodle-prefix / --moodle-students "$ACCOUNTS" \
  --admin-token "$ADMIN_TOKEN" --log-level error </dev/null >/dev/null 2>&1 &
PIDS+=($!)
ORIGIN="http://127.0.0.1:$SIM_PORT"
for _ in $(seq 1 100); do curl -sf -H "Authorization: Bearer $ADMIN_TOKEN" "$ORIGIN/_admin/moodle/requests" >/dev/null && break; sleep 0.2; done
echo "== Moodle polls: $ACCOUNTS accounts, $CONCURRENCY at a time (release; $(nproc) cores shared; load $(cut -d' ' -f1-3 /proc/loadavg))"
"$BINDIR/push-bench" moodle-polls --url "$ORIGIN" --accounts "$ACCOUNTS" --concurrency "$CONCURRENCY" --admin-token "$ADMIN_TOKEN" | tee "$DIR/polls.txt"
value() { grep "^$1=" "$DIR/polls.txt" | cut -d= -f2; }
BASE_RATE=$(value moodle_polls_baseline_rate)
STEADY_RATE=$(value moodle_polls_steady_rate)
BASE_CALLS=$(value moodle_requests_per_poll_baseline)
STEADY_CALLS=$(value moodle_requests_per_poll_steady)
PEAK=$(value peak_rss_kib)
BASE_MS=$(python3 -c "print(f'{1000 / float(\"$BASE_RATE\"):.2f}')")
STEADY_MS=$(python3 -c "print(f'{1000 / float(\"$STEADY_RATE\"):.2f}')")
echo "moodle polls: $BASE_CALLS upstream requests each ($BASE_MS ms) asking grade items, $STEADY_CALLS ($STEADY_MS ms) with kept ones; peak RSS $((PEAK / 1024)) MiB"
bench_figure "Moodle polls: upstream requests per poll (grade items asked)" "$BASE_CALLS" "requests"
bench_figure "Moodle polls: upstream requests per poll (grade items kept)" "$STEADY_CALLS" "requests"
bench_figure "Moodle polls: time per poll (grade items asked, $CONCURRENCY at a time)" "$BASE_MS" "ms"
bench_figure "Moodle polls: time per poll (grade items kept, $CONCURRENCY at a time)" "$STEADY_MS" "ms"
bench_figure "Moodle polls: peak resident memory of the polling process" "$((PEAK / 1024))" "MiB"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
