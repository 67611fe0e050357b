#!/usr/bin/env bash
# Gradebook proxy overhead (numbers in docs/benchmarks.md): requests per second for
# `grades.json?record=sections` straight from a gradebook-sim process, and through the gateway's
# compatibility proxy to that same process, in one run. The proxy is measured twice: with its
# per-user cache (what clients see) and with the cache off (every request goes upstream, the
# real cost of proxying). Release builds, 127.0.0.1 only; server, simulator and wrk share the cores.
source "$(dirname "$0")/lib.sh"
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-32}
THREADS=${THREADS:-1}
PORT=${PORT:-18093}
SIM_PORT=${SIM_PORT:-18094}
bench_build gateway gradebook-sim
ADMIN_TOKEN=$(head -c 24 /dev/urandom | base64 | tr -d '/+=')
"$BINDIR/gradebook-sim" serve --host 127.0.0.1 --port "$SIM_PORT" --prefix cgi-bin --log-level error >/dev/null 2>&1 &
PIDS+=($!)
rps() { grep "Requests/sec" "$1" | awk '{print $2}'; }
p99() { grep -E "^ +99%" "$1" | awk '{print $2}'; }
AUTH="Authorization: Basic $(printf 'test:gradebook-test-1' | base64)"
for _ in $(seq 1 100); do curl -sf -H "$AUTH" "http://127.0.0.1:$SIM_PORT/cgi-bin/auth.txt" >/dev/null && break; sleep 0.2; done

run_gateway() { # $1: cache seconds; registers source 9 through the CLI-free admin path: a fresh demo database
  local db="$DIR/db-$1.sqlite"
  "$BINDIR/gateway" serve --demo --demo-passwords documented --database "$db" --port "$PORT" --log-level error \
    --gradebook-cache-seconds "$1" >/dev/null 2>&1 &
  GW=$!
  PIDS+=($GW)
  for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.2; done
  local token
  token=$(curl -s -X POST -u admin:demo-admin-pass "http://127.0.0.1:$PORT/v1/auth/token" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
  curl -sf -X PUT "http://127.0.0.1:$PORT/v1/admin/gradebook/sources/9" -H "authorization: Bearer $token" -H 'content-type: application/json' \
    -d "{\"name\":\"bench simulator\",\"baseUrl\":\"http://127.0.0.1:$SIM_PORT/cgi-bin/grades.json\",\"development\":true,\"maxConcurrency\":64,\"requestsPerMinute\":1000000}" >/dev/null
}

echo "== wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s, grades.json?record=sections as test (release; $(nproc) cores shared; load $(cut -d' ' -f1-3 /proc/loadavg))"
SIM_URL="http://127.0.0.1:$SIM_PORT/cgi-bin/grades.json?record=sections"
wrk -t"$THREADS" -c"$CONNECTIONS" -d2s -H "$AUTH" "$SIM_URL" >/dev/null
wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency -H "$AUTH" "$SIM_URL" > "$DIR/direct.txt"
run_gateway 30
PROXY_URL="http://127.0.0.1:$PORT/gradebook/9/grades.json?record=sections"
wrk -t"$THREADS" -c"$CONNECTIONS" -d2s -H "$AUTH" "$PROXY_URL" >/dev/null
wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency -H "$AUTH" "$PROXY_URL" > "$DIR/cached.txt"
kill "$GW"; wait "$GW" 2>/dev/null || true
run_gateway 0
wrk -t"$THREADS" -c"$CONNECTIONS" -d2s -H "$AUTH" "$PROXY_URL" >/dev/null
wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency -H "$AUTH" "$PROXY_URL" > "$DIR/uncached.txt"
wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency -H "$AUTH" "$SIM_URL" > "$DIR/direct2.txt"
D1=$(rps "$DIR/direct.txt"); D2=$(rps "$DIR/direct2.txt"); C=$(rps "$DIR/cached.txt"); U=$(rps "$DIR/uncached.txt")
D=$(echo "($D1 + $D2) / 2" | bc -l)
printf "| path | requests/s | p99 | ratio to direct |\n|---|---:|---:|---:|\n"
printf "| simulator directly (before, after) | %s, %s | %s, %s | 1.00 |\n" "$D1" "$D2" "$(p99 "$DIR/direct.txt")" "$(p99 "$DIR/direct2.txt")"
printf "| through /gradebook/9/ (per-user cache, 30 s) | %s | %s | %.2f |\n" "$C" "$(p99 "$DIR/cached.txt")" "$(echo "$C / $D" | bc -l)"
printf "| through /gradebook/9/ (cache off: every request upstream) | %s | %s | %.2f |\n" "$U" "$(p99 "$DIR/uncached.txt")" "$(echo "$U / $D" | bc -l)"
bench_figure "grades.json through the gateway, cached: req/s over the simulator directly" "$(echo "$C / $D" | bc -l)"
bench_figure "grades.json through the gateway, uncached: req/s over the simulator directly" "$(echo "$U / $D" | bc -l)"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
