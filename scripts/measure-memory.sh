#!/usr/bin/env bash
# Resident memory of `gateway serve --demo` under contract fuzzing: serves the demo on a fresh
# SQLite file on loopback, runs two schemathesis passes as admin (conformance checks only),
# and prints resident memory at start, after each pass and at its peak. A plateau (pass 2
# adds almost nothing) is the expected shape; growth on every pass would be a leak.
#
#   scripts/measure-memory.sh [BINARY] [ENV=VALUE ...]
#
# BINARY defaults to the release build (swift build -c release); extra ENV=VALUE pairs go to
# the server, e.g. GLIBC_TUNABLES=glibc.malloc.mmap_threshold=33554432 to compare settings.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-$(swift build -c release --show-bin-path)/gateway}
[ $# -gt 0 ] && shift
ST=.venv/bin/schemathesis
[ -x "$BIN" ] || { echo "measure-memory: $BIN is missing; build it first" >&2; exit 2; }
[ -x "$ST" ] || { echo "measure-memory: $ST is missing; run scripts/install-deps.sh" >&2; exit 2; }
DIR=$(mktemp -d /tmp/gateway-memory.XXXXXX)
PORT_FILE="$DIR/port"
env "$@" GATEWAY_SIMULATOR_ADMIN_TOKEN=measure-memory-simulator-token "$BIN" serve --demo --demo-passwords documented \
  --host 127.0.0.1 --port 0 --port-file "$PORT_FILE" --database "$DIR/demo.sqlite" --log-level error >"$DIR/log" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -rf "$DIR"' EXIT
for _ in $(seq 1 300); do [ -s "$PORT_FILE" ] && break; sleep 0.1; done
URL="http://127.0.0.1:$(cat "$PORT_FILE")"
until curl -sf "$URL/readyz" >/dev/null; do sleep 0.2; done
sleep 3
rss() { awk '/^VmRSS/ {print int($2 / 1024)}' "/proc/$PID/status"; }
TOKEN=$(curl -sf -X POST "$URL/v1/auth/token" -H 'content-type: application/json' \
  -d '{"username":"admin","password":"demo-admin-pass"}' | python3 -c 'import sys, json; print(json.load(sys.stdin)["token"])')
CONFIG="$DIR/schemathesis.toml"
for check in negative_data_rejection positive_data_acceptance use_after_free ensure_resource_availability ignored_auth missing_required_header; do
  echo "checks.$check.enabled = false"
done >"$CONFIG"
cat openapi/schemathesis.toml >>"$CONFIG"
start=$(rss)
passes=()
for pass in 1 2; do
  "$ST" --config-file "$CONFIG" run openapi/openapi.yaml --url "$URL" -H "Authorization: Bearer $TOKEN" --max-examples 15 \
    --phases examples,fuzzing --workers 1 --warnings off --suppress-health-check all >"$DIR/pass$pass.txt" 2>&1 || true
  passes+=("$(rss)")
done
peak=$(awk '/^VmHWM/ {print int($2 / 1024)}' "/proc/$PID/status")
echo "measure-memory: start ${start} MiB, after pass 1 ${passes[0]} MiB, after pass 2 ${passes[1]} MiB, peak ${peak} MiB ($*)"
