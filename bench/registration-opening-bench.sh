#!/usr/bin/env bash
# Registration opening from one campus network, on both backends (release build): STUDENTS
# students (default 500) exist; the server restarts, so no credential is cached; then every
# student makes a first SDSU request at the same moment, all from 127.0.0.1
# (bench/opening_crowd.py). Reported per backend: answers refused as busy or failed (the target
# is 0), p50 and p99, and the time until the last student was served. The ceiling is the
# password hasher: one argon2id verification per student, on cores - 1 threads.
source "$(dirname "$0")/lib.sh"
STUDENTS=${STUDENTS:-500}
PORT=${PORT:-18291}
URL="http://127.0.0.1:$PORT"
bench_build gateway
BIN=$BINDIR/gateway
CLUSTER=$(mktemp -u /tmp/gateway-bench-pg-XXXXXX)
bench_extra_cleanup() {
    [ -z "${SERVER:-}" ] || kill "$SERVER" 2>/dev/null || true
    bash scripts/pg-cluster.sh stop "$CLUSTER" >/dev/null 2>&1 || true
}
export GATEWAY_VAULT_KEY
GATEWAY_VAULT_KEY=$(head -c 32 /dev/urandom | base64)

serve() { # serve DATABASE
    "$BIN" serve --demo --signups-per-hour 100000 --database "$1" --port "$PORT" --log-level error >>"$DIR/server.log" 2>&1 &
    SERVER=$!
    PIDS+=($SERVER)
    for _ in $(seq 1 300); do curl -sf "$URL/readyz" >/dev/null && return; sleep 0.2; done
    echo "the server did not start:" >&2
    tail -20 "$DIR/server.log" >&2
    exit 1
}
stop() { kill "$SERVER"; wait "$SERVER" 2>/dev/null || true; SERVER=""; }

opening() { # opening LABEL DATABASE
    local label=$1 database=$2 i
    serve "$database"
    # Four sign-ups at a time: the hasher takes them in turn; the overlap hides curl's start-up.
    seq 1 "$STUDENTS" | xargs -P 4 -I{} sh -c 'curl -sf -X POST "$0/registration/addstudent" -H "content-type: application/json" \
        -d "{\"firstname\":\"Opening\",\"lastname\":\"{}\",\"redid\":\"$((700000000 + {}))\",\"password\":\"openingpass1\",\"email\":\"o{}@example.edu\"}" >/dev/null' "$URL"
    stop
    serve "$database"
    echo "== $label: $STUDENTS students, first request at once, one address"
    python3 bench/opening_crowd.py "$URL" "$STUDENTS" 700000001 openingpass1 | tee "$DIR/$label.txt"
    stop
    python3 - "$label" "$DIR/$label.txt" <<'PY'
import re, sys
label, text = sys.argv[1], open(sys.argv[2]).read()
f = lambda name: re.search(name + r"=([\d.]+)", text).group(1)
print(f"figure|opening, {label}: answers busy or failed|{f('busy_or_failed')}|")
print(f"figure|opening, {label}: p50|{f('p50_ms')}|ms")
print(f"figure|opening, {label}: p99|{f('p99_ms')}|ms")
print(f"figure|opening, {label}: time until all were served|{f('all_served_s')}|s")
PY
}

opening SQLite "$DIR/db.sqlite"
PGURL=$(bash scripts/pg-cluster.sh start "$CLUSTER" --watch $$ --durable)
opening PostgreSQL "$PGURL"
