#!/usr/bin/env bash
# Login flood: 64 connections hammer POST /v1/auth/token with valid credentials (real argon2id
# at OWASP parameters) while 4 connections measure /healthz latency, both for DURATION seconds,
# against a release build on 127.0.0.1. Prints logins/s and the /healthz p50/p99.
source "$(dirname "$0")/lib.sh"
DURATION=${DURATION:-10}
PORT=${PORT:-18090}
bench_build gateway
BIN=$BINDIR/gateway
echo 'bench passphrase 1' | "$BIN" admin create-user --database "$DIR/db.sqlite" --username bench-user --role student >/dev/null
"$BIN" serve --database "$DIR/db.sqlite" --port "$PORT" --log-level error &
PIDS+=($!)
for _ in $(seq 1 50); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.2; done

# GATEWAY throttles failures only, so valid logins are not throttled.
wrk -t1 -c64 -d"${DURATION}s" -s bench/lua/login.lua "http://127.0.0.1:$PORT/v1/auth/token" > "$DIR/login.txt" &
WRK=$!
wrk -t1 -c4 -d"${DURATION}s" --latency "http://127.0.0.1:$PORT/healthz" > "$DIR/health.txt"
wait $WRK
grep -E "login_" "$DIR/login.txt"
echo "healthz during flood:"
grep -E "Requests/sec|50%|99%" "$DIR/health.txt"
