#!/usr/bin/env bash
# Registration benchmarks against a release build on 127.0.0.1 (numbers in docs/benchmarks.md):
#  1. wrk: /healthz, /registration/classidslist (the seed's sample query) and
#     /registration/classdetails?classid=7036, each for DURATION seconds, in one run; the
#     registration figures are also given as a ratio to /healthz.
#  2. Registrations under contention: STUDENTS students register for and drop one class at
#     random (bench/lua/registration.lua), all competing for its seats and SQLite's writer:
#     cold (a restarted server, nothing cached) and warm, against the bare SQLite loop
#     (bench/sqlite-ceiling: statements prepared once, the gateway's pragmas, BEGIN IMMEDIATE;
#     INSERT; UPDATE; COMMIT) and Python's sqlite3 doing the same (bench/sqlite_ceiling.py),
#     the faster of the two as the ceiling; then warm again at the default log level.
#  3. In-process catalog filter latency over the full demo catalog (the registration-bench target).
source "$(dirname "$0")/lib.sh"
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-32}
THREADS=${THREADS:-1}
STUDENTS=${STUDENTS:-50}
PORT=${PORT:-18091}
bench_build gateway sqlite-ceiling registration-bench
BIN=$BINDIR/gateway
URL="http://127.0.0.1:$PORT"
# SLOW_FSYNC_MS=N runs the gateway (and the ceiling) with every disk flush N ms slower
# (bench/slow-fsync): a machine with slow storage, on any machine.
PRELOAD=()
if [ -n "${SLOW_FSYNC_MS:-}" ]; then
    cc -shared -fPIC -O2 -o "$DIR/slow-fsync.so" bench/slow-fsync/slow-fsync.c -ldl
    PRELOAD=(env LD_PRELOAD="$DIR/slow-fsync.so" SLOW_FSYNC_MS="$SLOW_FSYNC_MS")
    echo "(every fsync and fdatasync of the gateway and the ceiling waits ${SLOW_FSYNC_MS} ms)"
fi
serve() { # serve [--default-logging]: --log-level error, or the default level into a file
    if [ "${1:-}" = --default-logging ]; then
        "${PRELOAD[@]}" "$BIN" serve --demo --signups-per-hour 100000 --database "$DIR/db.sqlite" --port "$PORT" >"$DIR/server-default-logging.log" 2>&1 &
    else
        "${PRELOAD[@]}" "$BIN" serve --demo --signups-per-hour 100000 --database "$DIR/db.sqlite" --port "$PORT" --log-level error &
    fi
    SERVER=$!
    PIDS+=($SERVER)
    for _ in $(seq 1 100); do curl -sf "$URL/healthz" >/dev/null && break; sleep 0.2; done
}
serve

rps() { grep "Requests/sec" "$1" | awk '{print $2}'; }
p99() { grep -E "^ +99%" "$1" | awk '{print $2}'; }
echo "== wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s (release build, $(nproc) cores shared by server and wrk)"
wrk -t"$THREADS" -c"$CONNECTIONS" -d2s "$URL/healthz" >/dev/null  # warm up
# /healthz runs before and after the registration endpoints; its mean is the baseline, so a
# change in background load during the run shows up as a difference between the two.
wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency "$URL/healthz" > "$DIR/healthz.txt"
wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency "$URL/registration/classidslist?subjectid=8&level=graduate&starttime=1730" > "$DIR/ids.txt"
wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency "$URL/registration/classdetails?classid=7036" > "$DIR/details.txt"
wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency "$URL/healthz" > "$DIR/healthz2.txt"
H1=$(rps "$DIR/healthz.txt"); H2=$(rps "$DIR/healthz2.txt"); I=$(rps "$DIR/ids.txt"); D=$(rps "$DIR/details.txt")
H=$(echo "($H1 + $H2) / 2" | bc -l)
printf "| endpoint | requests/s | p99 | ratio to /healthz |\n|---|---:|---:|---:|\n"
printf "| /healthz (before, after) | %s, %s | %s, %s | 1.00 |\n" "$H1" "$H2" "$(p99 "$DIR/healthz.txt")" "$(p99 "$DIR/healthz2.txt")"
printf "| classidslist?subjectid=8&level=graduate&starttime=1730 | %s | %s | %.2f |\n" "$I" "$(p99 "$DIR/ids.txt")" "$(echo "$I / $H" | bc -l)"
printf "| classdetails?classid=7036 | %s | %s | %.2f |\n" "$D" "$(p99 "$DIR/details.txt")" "$(echo "$D / $H" | bc -l)"
bench_figure "classidslist: req/s over /healthz in the same server" "$(echo "$I / $H" | bc -l)"

echo "== registrations under contention: $STUDENTS students, one class (7030), -c$CONNECTIONS"
# (Sequential: the server hashes passwords on cores - 1 threads anyway.)
for i in $(seq 1 "$STUDENTS"); do
  redid=$((600000000 + i))
  curl -sf -X POST "$URL/registration/addstudent" -H 'content-type: application/json' \
    -d "{\"firstname\":\"Bench\",\"lastname\":\"$i\",\"redid\":\"$redid\",\"password\":\"benchpass1\",\"email\":\"b$i@example.edu\"}" >/dev/null
done
# Cold start, as at registration opening: the server restarts, so no credential is cached, and
# all the students arrive at once; the first DURATION seconds are measured with no warm-up.
kill "$SERVER"; wait "$SERVER" 2>/dev/null || true
serve
echo "cold start (a restarted server; every student's first request needs an argon2id verification):"
wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" -s bench/lua/registration.lua "$URL" -- "$STUDENTS" 600000001 7030 benchpass1 | grep "contention:" | tee "$DIR/cold.txt"
echo "warm (after a 2 s warm-up of the same traffic):"
wrk -t"$THREADS" -c"$CONNECTIONS" -d2s -s bench/lua/registration.lua "$URL" -- "$STUDENTS" 600000001 7030 benchpass1 >/dev/null
wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" -s bench/lua/registration.lua "$URL" -- "$STUDENTS" 600000001 7030 benchpass1 | grep "contention:" | tee "$DIR/contention.txt"
# The ceiling in the same run: a bare SQLite loop, one insert (or delete) and one update per
# transaction, statements prepared once, on the same settings (bench/sqlite-ceiling); beside
# it Python's sqlite3 doing the same (bench/sqlite_ceiling.py). The faster is the ceiling.
"${PRELOAD[@]}" "$BINDIR/sqlite-ceiling" 100000 | tee "$DIR/ceiling.txt"
"${PRELOAD[@]}" python3 bench/sqlite_ceiling.py 100000 | tee "$DIR/ceiling-python.txt"
python3 - "$DIR/contention.txt" "$DIR/ceiling.txt" "$DIR/cold.txt" "$DIR/ceiling-python.txt" <<'PY'
import re, sys
contention, ceiling, cold, python = (open(path).read() for path in sys.argv[1:5])
def field(text, name): return float(re.search(name + r"=([\d.]+)", text).group(1))
tps, swift, py = field(contention, "requests_per_s"), field(ceiling, "ceiling_tps"), field(python, "python_ceiling_tps")
top = max(swift, py)
print(f"bare loops: prepared statements in Swift {swift:,.0f} tx/s (p99 {field(ceiling, 'transaction_p99_ms')} ms), Python's sqlite3 {py:,.0f} tx/s (p99 {field(python, 'python_transaction_p99_ms')} ms): Python at {py / swift:.2f}")
print(f"registration writer: {tps:,.0f} transactions/s against the fastest bare SQLite loop's {top:,.0f}/s: ratio {tps / top:.2f}")
print(f"figure|bare SQLite loop, prepared statements|{swift:.0f}|tx/s")
print(f"figure|bare SQLite loop, Python sqlite3: over the prepared-statement loop|{py / swift:.3f}|")
failed = field(cold, "other") + field(cold, "not_200")
print(f"cold start: p99 {field(cold, 'p99_ms')} ms; {failed:.0f} of {field(cold, 'requests'):.0f} answers not a registration outcome")
print(f"figure|register/drop, warm: tx/s over a bare SQLite loop|{tps / top:.3f}|")
print(f"figure|register/drop, warm: p99|{field(contention, 'p99_ms')}|ms")
print(f"figure|register/drop, cold start: p99|{field(cold, 'p99_ms')}|ms")
print(f"figure|register/drop, cold start: answers busy or failed|{failed:.0f}|")
print(f"figure|register/drop, cold start: tx/s over the warm run's|{field(cold, 'requests_per_s') / tps:.3f}|")
PY
# An authenticated SDSU read, warm (the student's credential verified by the run above), against
# an anonymous read in the same server: what a student's app pays per request for its password.
SC="registration/studentclasses?redid=600000001&password=benchpass1"
curl -sf "$URL/$SC" >/dev/null
wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency "$URL/$SC" > "$DIR/studentclasses.txt"
wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency "$URL/registration/classdetails?classid=7036" > "$DIR/details2.txt"
SCR=$(rps "$DIR/studentclasses.txt"); D2=$(rps "$DIR/details2.txt")
printf "| studentclasses (authenticated, warm) | %s | %s | %.2f of classdetails (%s) |\n" "$SCR" "$(p99 "$DIR/studentclasses.txt")" "$(echo "$SCR / $D2" | bc -l)" "$D2"
bench_figure "studentclasses, authenticated and warm: req/s over classdetails" "$(echo "$SCR / $D2" | bc -l)"
curl -s "$URL/registration/classdetails?classid=7030" | python3 -c 'import json,sys; d=json.load(sys.stdin); print("class 7030 after the run: seats=%d enrolled=%d" % (d["seats"], d["enrolled"]))'

# Warm register/drop again at the default log level (its lines to a file, as a deployment's
# would go to its collector): what the log costs the writer's rate and its p99.
kill "$SERVER"; wait "$SERVER" 2>/dev/null || true
serve --default-logging
wrk -t"$THREADS" -c"$CONNECTIONS" -d2s -s bench/lua/registration.lua "$URL" -- "$STUDENTS" 600000001 7030 benchpass1 >/dev/null
echo "warm, default log level:"
wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" -s bench/lua/registration.lua "$URL" -- "$STUDENTS" 600000001 7030 benchpass1 | grep "contention:" | tee "$DIR/contention-default.txt"
python3 - "$DIR/contention-default.txt" "$DIR/ceiling.txt" "$DIR/ceiling-python.txt" "$DIR/contention.txt" <<'PY'
import re, sys
default, ceiling, python, error = (open(path).read() for path in sys.argv[1:5])
def field(text, name): return float(re.search(name + r"=([\d.]+)", text).group(1))
tps, top = field(default, "requests_per_s"), max(field(ceiling, "ceiling_tps"), field(python, "python_ceiling_tps"))
print(f"default log level: {tps:,.0f} tx/s, {tps / top:.2f} of the bare loop, p99 {field(default, 'p99_ms')} ms ({tps / field(error, 'requests_per_s'):.2f} of --log-level error's rate)")
print(f"figure|register/drop, warm, default logging: tx/s over a bare SQLite loop|{tps / top:.3f}|")
print(f"figure|register/drop, warm, default logging: p99|{field(default, 'p99_ms')}|ms")
print(f"figure|register/drop, warm, default logging: answers busy or failed|{field(default, 'other') + field(default, 'not_200'):.0f}|")
PY
echo "log lines at the default level: $(wc -l < "$DIR/server-default-logging.log")"

echo "== in-process catalog filters (full demo catalog)"
"$BINDIR/registration-bench" --iterations 2000
