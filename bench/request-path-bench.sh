#!/usr/bin/env bash
# The request path against its ceiling (issue 13; numbers in docs/benchmarks.md), release builds,
# 127.0.0.1 only, in one run:
#   - the ceiling: bench/bare-hummingbird, a bare Hummingbird 2 route answering what /healthz
#     answers (measured first and last; their mean is the ceiling, their difference shows how
#     much the machine's load moved);
#   - the gateway at default settings (info: one access-log line per request, to a file) and
#     with --log-level error, on /healthz and the seed's classidslist sample;
#   - wrk -t1 -c32 requests/s and, load-independent, the server's CPU time per request (its
#     utime+stime from /proc over REQUESTS requests sent by h2load --h1);
#   - memory: RSS idle, peak RSS after the loads, and the cost of 1,000 open idle connections.
source "$(dirname "$0")/lib.sh"
DURATION=${DURATION:-10}
REQUESTS=${REQUESTS:-100000}
bench_build gateway bare-hummingbird
BIN=$BINDIR
"$BIN/bare-hummingbird" 18199 >/dev/null 2>&1 &
PIDS+=($!); BARE=$!
"$BIN/gateway" serve --demo --database "$DIR/info.sqlite" --host 127.0.0.1 --port 18198 >/dev/null 2>"$DIR/access.log" &
PIDS+=($!); INFO=$!
"$BIN/gateway" serve --demo --database "$DIR/error.sqlite" --host 127.0.0.1 --port 18197 --log-level error >/dev/null 2>&1 &
PIDS+=($!); QUIET=$!
for port in 18199 18198 18197; do
    for _ in $(seq 1 150); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.2; done
done
rss() { awk '/VmRSS/ {print $2}' /proc/$1/status; }
hwm() { awk '/VmHWM/ {print $2}' /proc/$1/status; }
IDLE_RSS=$(rss $INFO)
IDS="registration/classidslist?subjectid=8&level=graduate&starttime=1730"

rate() { # port path -> requests/s
    wrk -t1 -c32 -d2s "http://127.0.0.1:$1/$2" >/dev/null
    wrk -t1 -c32 -d"${DURATION}s" "http://127.0.0.1:$1/$2" | awk '/Requests\/sec/ {print $2}'
}
cpu() { # port pid path -> CPU microseconds per request
    local a b
    a=$(awk '{print $14+$15}' /proc/$2/stat)
    h2load --h1 -n "$REQUESTS" -c 32 "http://127.0.0.1:$1/$3" >/dev/null 2>&1
    b=$(awk '{print $14+$15}' /proc/$2/stat)
    python3 -c "print('%.1f' % (($b - $a) / $(getconf CLK_TCK) * 1e6 / $REQUESTS))"
}
echo "== request path: wrk -t1 -c32 ${DURATION}s each; CPU per request over $REQUESTS requests ($(nproc) cores shared with the clients)"
B1=$(rate 18199 healthz); B1C=$(cpu 18199 $BARE healthz)
HI=$(rate 18198 healthz); HIC=$(cpu 18198 $INFO healthz)
HE=$(rate 18197 healthz); HEC=$(cpu 18197 $QUIET healthz)
II=$(rate 18198 "$IDS"); IIC=$(cpu 18198 $INFO "$IDS")
IE=$(rate 18197 "$IDS"); IEC=$(cpu 18197 $QUIET "$IDS")
B2=$(rate 18199 healthz); B2C=$(cpu 18199 $BARE healthz)
PEAK=$(hwm $INFO)
# 1,000 idle keep-alive connections to the default gateway.
BEFORE=$(rss $INFO)
python3 - <<'PY' &
import socket, time
conns = []
for _ in range(1000):
    s = socket.create_connection(("127.0.0.1", 18198))
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    conns.append(s)
for s in conns:
    s.recv(4096)
time.sleep(4)
PY
HOLDER=$!
sleep 3
WITH=$(rss $INFO)
wait $HOLDER || true
python3 - "$B1" "$B2" "$B1C" "$B2C" "$HI" "$HIC" "$HE" "$HEC" "$II" "$IIC" "$IE" "$IEC" "$IDLE_RSS" "$PEAK" "$BEFORE" "$WITH" <<'PY'
import sys
b1, b2, b1c, b2c, hi, hic, he, hec, ii, iic, ie, iec = map(float, sys.argv[1:13])
idle, peak, before, with_conns = map(int, sys.argv[13:17])
ceiling, ceiling_cpu = (b1 + b2) / 2, (b1c + b2c) / 2
print(f"ceiling (bare Hummingbird /healthz): {b1:,.0f} and {b2:,.0f} req/s (mean {ceiling:,.0f}); {b1c} and {b2c} us CPU/request")
print("| path | req/s | ratio | CPU us/request | CPU ratio |")
print("|---|---:|---:|---:|---:|")
for name, r, c in [("/healthz, default logging", hi, hic), ("/healthz, --log-level error", he, hec),
                   ("classidslist, default logging", ii, iic), ("classidslist, --log-level error", ie, iec)]:
    print(f"| {name} | {r:,.0f} | {r / ceiling:.2f} | {c:.1f} | {ceiling_cpu / c:.2f} |")
for name, r, c in [("/healthz, default logging", hi, hic), ("/healthz, --log-level error", he, hec),
                   ("classidslist, default logging", ii, iic)]:
    print(f"figure|{name}: req/s over bare Hummingbird /healthz|{r / ceiling:.3f}|")
    print(f"figure|{name}: CPU per request, bare Hummingbird's over the gateway's|{ceiling_cpu / c:.3f}|")
print(f"figure|bare Hummingbird /healthz (the ceiling)|{ceiling:.0f}|req/s")
print(f"memory (default gateway): idle RSS {idle / 1024:.0f} MiB, peak after the loads {peak / 1024:.0f} MiB, "
      f"1,000 idle connections +{(with_conns - before) / 1024:.1f} MiB ({(with_conns - before) / 1000:.1f} KiB each)")
PY
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
