#!/usr/bin/env bash
# SDSU register/drop under contention on PostgreSQL (release build), through 1 and 3 gateway
# instances, against its ceiling in the same run:
#  - a throwaway durable cluster (scripts/pg-cluster.sh --durable) on 127.0.0.1;
#  - `serve --demo` on it (the first instance seeds; the others find the data and serve it);
#  - STUDENTS students register for and drop class 7030 at random (bench/lua/registration.lua),
#    first through one instance (wrk -cCONNECTIONS), then through three (three wrk at once, a
#    third of the connections each);
#  - the ceiling: pgbench running the same transaction as a custom script (read the class's
#    seats and the student's enrollment, then add or drop it and move the counter, SERIALIZABLE,
#    conflicts retried) with the same students and class;
#  - beside it, the same transaction with prepared statements (pgbench -M prepared), and the
#    row-locked way (READ COMMITTED, `SELECT ... FOR UPDATE` on the class first), and one
#    client's latency per transaction;
#  - CPU: the gateway processes' user+system time over the requests they answered.
# On 2 cores three instances can't scale; the CPU per request says what N machines would carry.
source "$(dirname "$0")/lib.sh"
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-24}
STUDENTS=${STUDENTS:-50}
PORT=${PORT:-18191}
bench_build gateway
BIN=$BINDIR/gateway
CLUSTER=$(mktemp -u /tmp/gateway-bench-pg-XXXXXX)
bench_extra_cleanup() {
    # The gateways first (they may be stopped for the ceiling's run: CONT so TERM reaches them).
    for pid in ${SERVERS[@]+"${SERVERS[@]}"}; do kill -CONT "$pid" 2>/dev/null || true; kill "$pid" 2>/dev/null || true; done
    bash scripts/pg-cluster.sh stop "$CLUSTER" >/dev/null 2>&1 || true
}
URL=$(bash scripts/pg-cluster.sh start "$CLUSTER" --watch $$ --durable)
psql "$URL" -qc "CREATE DATABASE registration"
DB=${URL/\/postgres\?/\/registration?}
export GATEWAY_VAULT_KEY
GATEWAY_VAULT_KEY=$(head -c 32 /dev/urandom | base64)

SERVERS=()
serve() { # serve N: instance N on port PORT+N
    local port=$((PORT + $1))
    "$BIN" serve --demo --signups-per-hour 100000 --database "$DB" --database-connections 16 --port "$port" --log-level error \
        >"$DIR/instance-$1.log" 2>&1 &
    SERVERS+=($!)
    PIDS+=($!)
    for _ in $(seq 1 300); do curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && return; sleep 0.2; done
    echo "instance $1 did not start:" >&2
    tail -20 "$DIR/instance-$1.log" >&2
    exit 1
}
cpu() { # the gateway processes' user+system CPU seconds so far
    local total=0 pid
    for pid in "${SERVERS[@]}"; do
        total=$(echo "$total + $(awk '{print $14 + $15}' "/proc/$pid/stat")" | bc)
    done
    echo "scale=3; $total / $(getconf CLK_TCK)" | bc
}
serve 0
for i in $(seq 1 "$STUDENTS"); do
    redid=$((600000000 + i))
    curl -sf -X POST "http://127.0.0.1:$PORT/registration/addstudent" -H 'content-type: application/json' \
        -d "{\"firstname\":\"Bench\",\"lastname\":\"$i\",\"redid\":\"$redid\",\"password\":\"benchpass1\",\"email\":\"b$i@example.edu\"}" >/dev/null
done
run_wrk() { # run_wrk OUT INSTANCES: the same traffic spread over the first INSTANCES instances
    local out=$1 n=$2 k
    for k in $(seq 0 $((n - 1))); do
        wrk -t1 -c$((CONNECTIONS / n)) -d2s -s bench/lua/registration.lua "http://127.0.0.1:$((PORT + k))" -- "$STUDENTS" 600000001 7030 benchpass1 >/dev/null &
    done
    wait_wrk
    local before after
    before=$(cpu)
    for k in $(seq 0 $((n - 1))); do
        wrk -t1 -c$((CONNECTIONS / n)) -d"${DURATION}s" -s bench/lua/registration.lua "http://127.0.0.1:$((PORT + k))" -- "$STUDENTS" 600000001 7030 benchpass1 \
            | grep "contention:" > "$out.$k" &
    done
    wait_wrk
    after=$(cpu)
    echo "cpu_seconds=$(echo "$after - $before" | bc)" > "$out.cpu"
}
wait_wrk() { while pgrep -P $$ -x wrk >/dev/null; do sleep 0.2; done; }

echo "== 1 instance, -c$CONNECTIONS, ${DURATION}s"
run_wrk "$DIR/one" 1
cat "$DIR/one.0"
serve 1
serve 2
echo "== 3 instances, -c$((CONNECTIONS / 3)) each, ${DURATION}s"
run_wrk "$DIR/three" 3
cat "$DIR/three".[012]

# The ceiling: the same transaction as pgbench's custom script, on the same students and class.
read -r LO HI < <(psql "$DB" -Atc "SELECT min(account_id), max(account_id) FROM registration_students" | tr '|' ' ')
cat > "$DIR/register.sql" <<SQL
\set s random($LO, $HI)
\set op random(0, 1)
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT seats, enrolled, held FROM registration_classes WHERE id = 7030 \gset
SELECT count(*) AS mine FROM registration_enrollments WHERE student_id = :s AND class_id = 7030 \gset
\if :op = 1 and :mine = 0 and :enrolled + :held < :seats
INSERT INTO registration_enrollments (student_id, class_id, enrolled_at) VALUES (:s, 7030, now());
UPDATE registration_classes SET enrolled = enrolled + 1, revision = revision + 1 WHERE id = 7030;
\elif :op = 0 and :mine = 1
DELETE FROM registration_enrollments WHERE student_id = :s AND class_id = 7030;
UPDATE registration_classes SET enrolled = enrolled - 1, revision = revision + 1 WHERE id = 7030;
\endif
COMMIT;
SQL
# The usual way to serialise a seat, for comparison: READ COMMITTED, the class's row locked
# first (`FOR UPDATE`), then the same reads and writes; nothing is aborted, so nothing retried.
cat > "$DIR/register-row-locked.sql" <<SQL
\set s random($LO, $HI)
\set op random(0, 1)
BEGIN ISOLATION LEVEL READ COMMITTED;
SELECT seats, enrolled, held FROM registration_classes WHERE id = 7030 FOR UPDATE \gset
SELECT count(*) AS mine FROM registration_enrollments WHERE student_id = :s AND class_id = 7030 \gset
\if :op = 1 and :mine = 0 and :enrolled + :held < :seats
INSERT INTO registration_enrollments (student_id, class_id, enrolled_at) VALUES (:s, 7030, now());
UPDATE registration_classes SET enrolled = enrolled + 1, revision = revision + 1 WHERE id = 7030;
\elif :op = 0 and :mine = 1
DELETE FROM registration_enrollments WHERE student_id = :s AND class_id = 7030;
UPDATE registration_classes SET enrolled = enrolled - 1, revision = revision + 1 WHERE id = 7030;
\endif
COMMIT;
SQL
# The gateways sit out the ceilings' runs, stopped where none of them is inside a transaction
# (one stopped in the middle of one would hold its locks through pgbench's run): stopped, and
# let go again for a moment while any of their sessions is still busy.
for _ in $(seq 1 100); do
    for pid in "${SERVERS[@]}"; do kill -STOP "$pid"; done
    sleep 0.05
    busy=$(psql "$DB" -Atc "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
        AND pid <> pg_backend_pid() AND state <> 'idle' AND query NOT LIKE 'LISTEN%'")
    [ "$busy" = 0 ] && break
    for pid in "${SERVERS[@]}"; do kill -CONT "$pid"; done
    sleep 0.1
done
pgbench -n -c "$CONNECTIONS" -j 2 -T "$DURATION" --max-tries=20 -f "$DIR/register.sql" "$DB" 2>&1 | tee "$DIR/pgbench.txt" | grep -E "^tps|failed|retried"
# The same SERIALIZABLE transaction with named prepared statements (parsed and planned once per
# connection): what the database would save if the gateway prepared its statements.
pgbench -n -M prepared -c "$CONNECTIONS" -j 2 -T "$DURATION" --max-tries=20 -f "$DIR/register.sql" "$DB" 2>&1 | tee "$DIR/pgbench-prepared.txt" | grep -E "^tps"
pgbench -n -c "$CONNECTIONS" -j 2 -T "$DURATION" -f "$DIR/register-row-locked.sql" "$DB" 2>&1 | tee "$DIR/pgbench-row-locked.txt" | grep -E "^tps|failed"
# One client alone: a transaction's latency end to end, the floor for one writer's batches.
pgbench -n -c 1 -T 5 -f "$DIR/register.sql" "$DB" 2>&1 | tee "$DIR/pgbench-one.txt" | grep -E "^latency average"
for pid in "${SERVERS[@]}"; do kill -CONT "$pid"; done
python3 - "$DIR" <<'PY'
import glob, re, sys
d = sys.argv[1]
def field(text, name):
    m = re.search(name + r"=([\d.]+)", text)
    return float(m.group(1)) if m else 0.0
def run(prefix):
    parts = [open(p).read() for p in sorted(glob.glob(prefix + ".[0-9]"))]
    tps = sum(field(p, "requests_per_s") for p in parts)
    p99 = max(field(p, "p99_ms") for p in parts)
    requests = sum(field(p, "requests") for p in parts)
    failed = sum(field(p, "other") + field(p, "not_200") for p in parts)
    cpu = field(open(prefix + ".cpu").read(), "cpu_seconds")
    return tps, p99, requests, failed, cpu
pg = open(d + "/pgbench.txt").read()
ceiling = float(re.search(r"tps = ([0-9.]+)", pg).group(1))
for label, prefix in (("1 instance", d + "/one"), ("3 instances", d + "/three")):
    tps, p99, requests, failed, cpu = run(prefix)
    per_request_ms = 1000 * cpu / requests if requests else 0
    print(f"{label}: {tps:,.0f} register/drop/s (p99 {p99} ms, {failed:.0f} failed) against pgbench's {ceiling:,.0f} tx/s: {tps / ceiling:.2f}; "
          f"gateway CPU {per_request_ms:.2f} ms per request")
    print(f"figure|PostgreSQL register/drop, {label}: over pgbench's same transaction|{tps / ceiling:.3f}|")
    print(f"figure|PostgreSQL register/drop, {label}: p99|{p99}|ms")
    print(f"figure|PostgreSQL register/drop, {label}: gateway CPU per request|{per_request_ms:.3f}|ms")
    print(f"figure|PostgreSQL register/drop, {label}: answers failed|{failed:.0f}|")
print(f"figure|PostgreSQL pgbench register/drop transaction, {len(glob.glob(d + '/one.[0-9]'))} x -c clients|{ceiling:.0f}|tx/s")
tps = lambda name: float(re.search(r"tps = ([0-9.]+)", open(d + "/" + name).read()).group(1))
prepared, row_locked = tps("pgbench-prepared.txt"), tps("pgbench-row-locked.txt")
latency = float(re.search(r"latency average = ([0-9.]+)", open(d + "/pgbench-one.txt").read()).group(1))
print(f"pgbench: SERIALIZABLE {ceiling:,.0f} tx/s, prepared {prepared:,.0f}, row-locked at READ COMMITTED {row_locked:,.0f}; one client {latency} ms a transaction")
print(f"figure|PostgreSQL pgbench register/drop, prepared statements: over unnamed|{prepared / ceiling:.3f}|")
print(f"figure|PostgreSQL pgbench register/drop, row-locked at READ COMMITTED: over SERIALIZABLE|{row_locked / ceiling:.3f}|")
print(f"figure|PostgreSQL pgbench register/drop, one client: latency per transaction|{latency}|ms")
one = run(d + "/one")[0]
print(f"figure|PostgreSQL register/drop, 1 instance: over pgbench's row-locked transaction|{one / row_locked:.3f}|")
PY
