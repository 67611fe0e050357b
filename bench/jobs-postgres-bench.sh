#!/usr/bin/env bash
# Jobs on PostgreSQL (release build) and their ceiling in one run on the same machine:
#  - a throwaway cluster (scripts/pg-cluster.sh --durable: fsync and synchronous_commit on, as
#    in production) on 127.0.0.1;
#  - jobs-bench --database postgres://…: drain (N no-op jobs already enqueued) and end to end (a
#    producer enqueues one job per transaction while the pool works), with 4 workers, and the
#    producer alone;
#  - the ceiling: pgbench with 4 clients running the bare claim-and-complete loop as a custom
#    script (one ready job claimed with FOR UPDATE SKIP LOCKED and completed, one transaction
#    per job) over the same N jobs.
# Figures: drain over the pgbench loop, end to end over the producer alone. JOBS=20000 by default.
source "$(dirname "$0")/lib.sh"
JOBS=${JOBS:-20000}
bench_build jobs-bench
BIN=$BINDIR/jobs-bench
# Outside $DIR (mode 0700): the server runs as the postgres user when this runs as root.
CLUSTER=$(mktemp -u /tmp/gateway-bench-pg-XXXXXX)
bench_extra_cleanup() { bash scripts/pg-cluster.sh stop "$CLUSTER" >/dev/null 2>&1 || true; }
URL=$(bash scripts/pg-cluster.sh start "$CLUSTER" --watch $$ --durable)
psql "$URL" -qc "CREATE DATABASE jobsbench"
DB=${URL/\/postgres\?/\/jobsbench?}
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$BIN" --jobs "$JOBS" --workers 4 --phases enqueue,drain,e2e --database "$DB" | tee "$DIR/out.txt"

# The ceiling: the same table, the same N ready jobs, claimed and completed by pgbench.
psql "$DB" -qc "TRUNCATE jobs RESTART IDENTITY" -c "
    INSERT INTO jobs (queue, kind, args, state, run_at, created_at)
    SELECT 'default', 'bench.noop', '{}', 'available', 0, 0 FROM generate_series(1, $JOBS)"
cat > "$DIR/claim.sql" <<'SQL'
BEGIN;
UPDATE jobs SET state = 'running', attempt = attempt + 1, locked_by = 'pgbench', lease_until = 1
WHERE id = (SELECT id FROM jobs WHERE queue = 'default' AND state IN ('available', 'scheduled', 'retryable') AND run_at <= 1
            ORDER BY priority, run_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
RETURNING id AS claimed \gset
UPDATE jobs SET state = 'completed', finalized_at = 1, lease_until = NULL WHERE id = :claimed;
COMMIT;
SQL
pgbench -n -c 4 -j 2 -t $((JOBS / 4)) -f "$DIR/claim.sql" "$DB" 2>&1 | tee "$DIR/pgbench.txt" | grep -E "^tps|failed"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$DIR/out.txt" "$DIR/pgbench.txt" <<'PY'
import re, sys
out, pgb = open(sys.argv[1]).read(), open(sys.argv[2]).read()
def rate(pattern):
    m = re.search(pattern + r'[^\n]*?: (\d+) jobs/s', out)
    return float(m.group(1)) if m else None
drain = rate(r'(?m)^drain, 4 worker\(s\)')
e2e = rate(r'end to end \(enqueue one per transaction while working\), 4 worker\(s\)')
producer = rate(r'enqueue \(own transaction\)')
m = re.search(r'tps = ([0-9.]+)', pgb)
loop = float(m.group(1)) if m else None
print('PostgreSQL: drain %s jobs/s, pgbench claim-and-complete loop %s jobs/s; end to end %s jobs/s, producer alone %s jobs/s' % (drain, loop, e2e, producer))
def figure(name, value, unit=''):
    if value is not None: print('figure|%s|%.3f|%s' % (name, value, unit))
figure('PostgreSQL drain, 4 workers', drain, 'jobs/s')
figure('PostgreSQL drain, 4 workers: over the pgbench SKIP LOCKED loop', drain / loop if drain and loop else None)
figure('PostgreSQL pgbench SKIP LOCKED loop, 4 clients', loop, 'jobs/s')
figure('PostgreSQL end to end, 4 workers', e2e, 'jobs/s')
figure('PostgreSQL end to end, 4 workers: over the producer alone', e2e / producer if e2e and producer else None)
PY
