#!/usr/bin/env bash
# Registration benchmarks against a release build on 127.0.0.1 (numbers in docs/benchmarks.md):
#  1. wrk: /healthz, /registration/classidslist (the seed's sample query) and
#     /registration/classdetails?classid=7036, each for DURATION seconds, in one run; the
#     registration figures are also given as a ratio to /healthz.
#  2. Registrations under contention: STUDENTS students register for and drop one class at
#     random (bench/lua/registration.lua), all competing for its seats and SQLite's writer.
#  3. In-process catalog filter latency over the full demo catalog (gateway registration-bench).
source "$(dirname "$0")/lib.sh"
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-32}
THREADS=${THREADS:-1}
STUDENTS=${STUDENTS:-50}
PORT=${PORT:-18091}
bench_build gateway sqlite-ceiling
BIN=$BINDIR/gateway
"$BIN" serve --demo --signups-per-hour 100000 --database "$DIR/db.sqlite" --port "$PORT" --log-level error &
PIDS+=($!)
URL="http://127.0.0.1:$PORT"
for _ in $(seq 1 100); do curl -sf "$URL/healthz" >/dev/null && break; sleep 0.2; done

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

echo "== registrations under contention: $STUDENTS students, one class (7030), -c$CONNECTIONS"
# (Sequential: the server hashes passwords on cores - 1 threads anyway.)
for i in $(seq 1 "$STUDENTS"); do
  redid=$((600000000 + i))
  curl -sf -X POST "$URL/registration/addstudent" -H 'content-type: application/json' \
    -d "{\"firstname\":\"Bench\",\"lastname\":\"$i\",\"redid\":\"$redid\",\"password\":\"benchpass1\",\"email\":\"b$i@example.edu\"}" >/dev/null
done
# Warm the credential cache (one argon2id verification per student), then measure.
for i in $(seq 1 "$STUDENTS"); do curl -sf "$URL/registration/studentclasses?redid=$((600000000 + i))&password=benchpass1" >/dev/null; done
# A 2 s warm-up of the same traffic (statement caches, connections), as the other rows have.
wrk -t"$THREADS" -c"$CONNECTIONS" -d2s -s bench/lua/registration.lua "$URL" -- "$STUDENTS" 600000001 7030 benchpass1 >/dev/null
wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" -s bench/lua/registration.lua "$URL" -- "$STUDENTS" 600000001 7030 benchpass1 | grep "contention:" | tee "$DIR/contention.txt"
# The ceiling in the same run: a bare SQLite loop, one insert (or delete) and one update per
# transaction, on the same settings (bench/sqlite-ceiling).
"$BINDIR/sqlite-ceiling" 100000 | tee "$DIR/ceiling.txt"
python3 - "$DIR/contention.txt" "$DIR/ceiling.txt" <<'PY'
import re, sys
contention, ceiling = open(sys.argv[1]).read(), open(sys.argv[2]).read()
tps = float(re.search(r"requests_per_s=(\d+)", contention).group(1))
top = float(re.search(r"ceiling_tps=(\d+)", ceiling).group(1))
print(f"registration writer: {tps:,.0f} transactions/s against a bare SQLite loop's {top:,.0f}/s: ratio {tps / top:.2f}")
PY
curl -s "$URL/registration/classdetails?classid=7030" | python3 -c 'import json,sys; d=json.load(sys.stdin); print("class 7030 after the run: seats=%d enrolled=%d" % (d["seats"], d["enrolled"]))'

echo "== in-process catalog filters (full demo catalog)"
"$BIN" registration-bench --iterations 2000
