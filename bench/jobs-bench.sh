#!/usr/bin/env bash
# Jobs benchmark (release build) and its ceiling in one run on the same machine:
#  - jobs-bench: enqueue rate and latency, drain (N no-op jobs already enqueued) and end to end (a
#    producer enqueues one job per transaction while the pool works), with 1 and 4 workers;
#  - huey (PyPI, installed into .venv by `scripts/install-deps.sh --bench`) on SQLite, 4 worker
#    threads, drain and end to end: as installed (synchronous=FULL) and with synchronous=NORMAL
#    (the gateway's setting);
# then a table of the gateway's figures with their ratios to huey's and to the issue's targets,
# with the load average before and after. JOBS=20000 by default; SCRATCH picks the build folder
# (default .build-release); PROFILE=1 adds a perf profile of end to end.
source "$(dirname "$0")/lib.sh"
JOBS=${JOBS:-20000}
WORKERS=${WORKERS:-1,4}
# Always built (SKIP_BUILD, which `make bench` sets, is about the gateway binary).
bench_build jobs-bench
BIN=$BINDIR/jobs-bench
OUT=$DIR/out.txt
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
echo "load average before: $LOAD_BEFORE"
# SLOW_FSYNC_MS=N: every disk flush of the gateway's queue and of huey waits N ms more
# (bench/slow-fsync), as on a machine with slow storage.
PRELOAD=()
if [ -n "${SLOW_FSYNC_MS:-}" ]; then
    cc -shared -fPIC -O2 -o "$DIR/slow-fsync.so" bench/slow-fsync/slow-fsync.c -ldl
    PRELOAD=(env LD_PRELOAD="$DIR/slow-fsync.so" SLOW_FSYNC_MS="$SLOW_FSYNC_MS")
    echo "(every fsync and fdatasync waits ${SLOW_FSYNC_MS} ms)"
fi
"${PRELOAD[@]}" "$BIN" --jobs "$JOBS" --workers "$WORKERS" | tee -a "$OUT"
"${PRELOAD[@]}" .venv/bin/python bench/huey_bench.py --jobs "$JOBS" --workers 4 --sync default | tee -a "$OUT"
"${PRELOAD[@]}" .venv/bin/python bench/huey_bench.py --jobs "$JOBS" --workers 4 --sync normal | tee -a "$OUT"
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
echo "load average after: $LOAD_AFTER"
.venv/bin/python - "$OUT" "$LOAD_BEFORE" "$LOAD_AFTER" <<'PY'
import re, sys, datetime
text = open(sys.argv[1]).read()
def rate(pattern):
    m = re.search(pattern + r'[^\n]*?: (\d+) jobs/s', text)
    return float(m.group(1)) if m else None
gw_drain = rate(r"(?m)^drain, 4 worker\(s\)")
gw_e2e = rate(r'end to end \(enqueue one per transaction while working\), 4 worker\(s\)')
gw_enqueue = rate(r'enqueue \(own transaction\)')
hd_drain, hd_e2e = rate(r'huey \(default\) drain'), rate(r'huey \(default\) end to end')
hn_drain, hn_e2e = rate(r'huey \(normal\) drain'), rate(r'huey \(normal\) end to end')
def r(a, b): return '%.1f×' % (a / b) if a and b else '?'
def n(a): return '{:,.0f}/s'.format(a) if a else '?'
def met(ok): return 'met' if ok else 'not met'
print()
print('%s UTC, load average %s before, %s after' % (datetime.datetime.utcnow().strftime('%Y-%m-%d %H:%M'), sys.argv[2], sys.argv[3]))
print()
print('| jobs, 4 workers | gateway | huey (as installed) | ratio | huey (synchronous=NORMAL) | ratio | target |')
print('|---|---|---|---|---|---|---|')
print('| drain | %s | %s | %s | %s | %s | ≥ 20,000/s and ≥ 5× huey: %s |' % (
    n(gw_drain), n(hd_drain), r(gw_drain, hd_drain), n(hn_drain), r(gw_drain, hn_drain),
    met(bool(gw_drain and hd_drain and gw_drain >= 20000 and gw_drain >= 5 * hd_drain))))
print('| end to end | %s | %s | %s | %s | %s | ≥ 10,000/s: %s |' % (
    n(gw_e2e), n(hd_e2e), r(gw_e2e, hd_e2e), n(hn_e2e), r(gw_e2e, hn_e2e), met(bool(gw_e2e and gw_e2e >= 10000))))
print()
print('End to end is %s of the producer alone (enqueue, one job per transaction, no workers: %s): its ceiling here.' % (
    '%.0f %%' % (100 * gw_e2e / gw_enqueue) if gw_e2e and gw_enqueue else '?', n(gw_enqueue)))
def figure(name, value, unit=''):
    if value is not None: print('figure|%s|%.3f|%s' % (name, value, unit))
figure('end to end, 4 workers', gw_e2e, 'jobs/s')
figure('end to end, 4 workers: over the producer alone', gw_e2e / gw_enqueue if gw_e2e and gw_enqueue else None)
figure('drain, 4 workers', gw_drain, 'jobs/s')
figure('drain, 4 workers: over huey (as installed)', gw_drain / hd_drain if gw_drain and hd_drain else None)
figure('drain, 4 workers: over huey (synchronous=NORMAL)', gw_drain / hn_drain if gw_drain and hn_drain else None)
PY
# PROFILE=1: where end to end spends its time (perf, cpu-clock samples with call graphs): shares
# by library, then the kernel paths and the store's write among all samples (children included).
if [ "${PROFILE:-0}" = "1" ] && command -v perf >/dev/null; then
    DATA=$(mktemp)
    perf record -q -e cpu-clock -F 4000 -g -o "$DATA" "$BIN" --jobs "$JOBS" --workers 4 --phases e2e >/dev/null 2>&1
    echo
    echo "profile of end to end, 4 workers (perf, share of samples):"
    perf report -i "$DATA" --no-children --sort dso -g none 2>/dev/null | grep '%' | grep -v '^#' | head -6
    perf report -i "$DATA" --children --sort sym -g none 2>/dev/null | grep -v '^#' \
        | grep -E ' (__x64_sys_futex|swift_task_switch|__libc_pwrite|fdatasync|__fcntl64_nocancel_adjusted)$|SQLiteJobStoreV14finishAndClaim_.*_$' \
        | awk '{ name = ($NF ~ /finishAndClaim/ ? "SQLiteJobStore.finishAndClaim (the workers'"'"' writes, SQLite included)" : $NF) }
               !seen[name]++ { printf "  %s %s\n", $1, name }'
    rm -f "$DATA"
fi
