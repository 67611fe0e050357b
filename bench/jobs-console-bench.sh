#!/usr/bin/env bash
# The operator console over 100,000 jobs (issue 53), on SQLite and on PostgreSQL: a release
# `serve --demo` with JOBS jobs seeded straight into its jobs table (queue `bench`, which no
# worker serves, so nothing moves under the figures; arguments {"gradebookAccountId": n} with n
# in 1..1,000, so each value matches JOBS/1,000 jobs; 90% completed, 5% discarded, 5% scheduled).
# Figures per backend:
#  - `GET /v1/admin/jobs?queue=bench&args.gradebookAccountId=42`: the median and p95 of
#    REQUESTS calls, beside the same list without the argument filter (an indexed read of the
#    newest 25), its ceiling in the same server; the issue's bound is 100 ms;
#  - `POST /v1/admin/jobs/bulk` retrying discarded jobs of the queue by filter, 1,000 a call
#    (`more: true` while more match): the median of 3 calls, and per job.
#   BACKENDS=sqlite,postgres (default both)   JOBS=100000   REQUESTS=20
source "$(dirname "$0")/lib.sh"
JOBS=${JOBS:-100000}
REQUESTS=${REQUESTS:-20}
BACKENDS=${BACKENDS:-sqlite,postgres}
PORT=${PORT:-18391}
URL="http://127.0.0.1:$PORT"
bench_build gateway
BIN=$BINDIR/gateway
CLUSTER=""
bench_extra_cleanup() { [ -n "$CLUSTER" ] && bash scripts/pg-cluster.sh stop "$CLUSTER" >/dev/null 2>&1 || true; }
export GATEWAY_VAULT_KEY
GATEWAY_VAULT_KEY=$(head -c 32 /dev/urandom | base64)

# The seed, as SQL both backends take: one INSERT ... SELECT over a series of ids.
seed_sql() { # seed_sql sqlite|postgres
    local series now
    now=$(($(date +%s) * 1000))
    if [ "$1" = postgres ]; then series="generate_series(1, $JOBS) AS s(n)"; else series="(WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < $JOBS) SELECT n FROM s) AS s"; fi
    cat <<SQL
INSERT INTO jobs (queue, kind, args, state, attempt, max_attempts, priority, run_at, created_at, finalized_at)
SELECT 'bench', 'bench.noop', '{"gradebookAccountId":' || (1 + n % 1000) || '}',
       CASE WHEN n % 20 = 0 THEN 'discarded' WHEN n % 20 = 1 THEN 'scheduled' ELSE 'completed' END,
       CASE WHEN n % 20 = 1 THEN 0 ELSE 1 END, 1, 0, $now + (CASE WHEN n % 20 = 1 THEN 86400000 ELSE 0 END) - n, $now - n,
       CASE WHEN n % 20 = 1 THEN NULL ELSE $now - n END
FROM $series;
SQL
}

# timings FILE: median and p95 (ms) of the seconds in FILE, one per line
timings() {
    python3 - "$1" <<'PY'
import statistics, sys
values = sorted(float(line) * 1000 for line in open(sys.argv[1]) if line.strip())
p95 = values[min(len(values) - 1, int(round(0.95 * (len(values) - 1))))]
print(f"{statistics.median(values):.2f} {p95:.2f}")
PY
}

run_backend() { # run_backend sqlite|postgres
    local backend=$1 database
    if [ "$backend" = postgres ]; then
        CLUSTER=$(mktemp -u /tmp/gateway-console-pg-XXXXXX)
        local url
        url=$(bash scripts/pg-cluster.sh start "$CLUSTER" --watch $$ --durable)
        psql "$url" -qc "CREATE DATABASE console"
        database=${url/\/postgres\?/\/console?}
    else
        database="$DIR/console.sqlite"
    fi
    "$BIN" serve --demo --demo-passwords documented --database "$database" --port "$PORT" --log-level error > "$DIR/serve-$backend.log" 2>&1 &
    local server=$!
    PIDS+=($server)
    for _ in $(seq 1 300); do curl -sf "$URL/readyz" >/dev/null && break; sleep 0.2; done
    if [ "$backend" = postgres ]; then
        seed_sql postgres | psql "$database" -q
        psql "$database" -qc "ANALYZE jobs"
    else
        seed_sql sqlite | python3 -c 'import sqlite3, sys; db = sqlite3.connect(sys.argv[1], timeout=60); db.executescript(sys.stdin.read()); db.execute("ANALYZE"); db.commit()' "$database"
    fi
    local admin
    admin=$(curl -sf -X POST -u admin:demo-admin-pass "$URL/v1/auth/token" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
    local name filter
    for name in plain args; do
        filter="queue=bench"
        [ "$name" = args ] && filter="queue=bench&args.gradebookAccountId=42"
        : > "$DIR/$backend-$name.times"
        curl -sf -o "$DIR/$backend-$name.json" -H "authorization: Bearer $admin" "$URL/v1/admin/jobs?$filter"  # warm
        for _ in $(seq 1 "$REQUESTS"); do
            curl -sf -o /dev/null -w '%{time_total}\n' -H "authorization: Bearer $admin" "$URL/v1/admin/jobs?$filter" >> "$DIR/$backend-$name.times"
        done
    done
    python3 - "$DIR/$backend-args.json" "$JOBS" <<'PY'
import json, sys
page = json.load(open(sys.argv[1]))
expected = int(sys.argv[2]) // 1000
assert page["total"] == expected, f"the filter matched {page['total']} jobs, not {expected}"
assert all(json.loads(job["args"]) == {"gradebookAccountId": 42} if isinstance(job["args"], str) else job["args"] == {"gradebookAccountId": 42} for job in page["items"]), page["items"][:2]
PY
    read -r plain_p50 plain_p95 < <(timings "$DIR/$backend-plain.times")
    read -r args_p50 args_p95 < <(timings "$DIR/$backend-args.times")
    : > "$DIR/$backend-bulk.times"
    for _ in 1 2 3; do
        curl -sf -o "$DIR/$backend-bulk.json" -w '%{time_total}\n' -X POST -H "authorization: Bearer $admin" -H 'content-type: application/json' \
            -d '{"action":"retry","filter":{"queue":"bench","state":"discarded"}}' "$URL/v1/admin/jobs/bulk" >> "$DIR/$backend-bulk.times"
        python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); assert r["affected"] == 1000 and r["more"], r' "$DIR/$backend-bulk.json"
    done
    read -r bulk_p50 _ < <(timings "$DIR/$backend-bulk.times")
    local label=SQLite
    [ "$backend" = postgres ] && label=PostgreSQL
    echo "$label, $JOBS jobs: args filter p50 $args_p50 ms (p95 $args_p95), plain list p50 $plain_p50 ms; bulk retry of 1,000: $bulk_p50 ms"
    bench_figure "$label console, $JOBS jobs: list with an args. filter, p50" "$args_p50" ms
    bench_figure "$label console, $JOBS jobs: list with an args. filter, p95" "$args_p95" ms
    bench_figure "$label console, $JOBS jobs: list with an args. filter over the plain list" "$(python3 -c "print(round($args_p50 / $plain_p50, 3))")"
    bench_figure "$label console, $JOBS jobs: list with an args. filter, p50 over the 100 ms bound" "$(python3 -c "print(round($args_p50 / 100, 3))")"
    bench_figure "$label console, $JOBS jobs: bulk retry of 1,000 by filter" "$bulk_p50" ms
    bench_figure "$label console, $JOBS jobs: bulk retry, per job" "$(python3 -c "print(round($bulk_p50 / 1000, 4))")" ms
    kill "$server"; wait "$server" 2>/dev/null || true
    if [ "$backend" = postgres ]; then bash scripts/pg-cluster.sh stop "$CLUSTER" >/dev/null 2>&1 || true; CLUSTER=""; fi
}

IFS=, read -r -a WANTED <<<"$BACKENDS"
for backend in "${WANTED[@]}"; do run_backend "$backend"; done
