#!/usr/bin/env bash
# Scheduling benchmarks against release builds (numbers in docs/benchmarks.md):
#  1. In-process: `scheduling-bench` times ScheduleBuilder.build on real umd.io sections
#     (UMDIO, default ../shared/data/umdio/202005.json) for 5, 8 and 10 courses, breaks the time
#     down by phase, and runs a naive Cartesian search (what Jupiter did) on the same input,
#     extrapolated when it would take too long.
#  2. HTTP: `serve --demo` on 127.0.0.1 (a port the kernel picks), then wrk -t1 -c32 for DURATION
#     seconds against /healthz, POST /v1/scheduling/builds (COURSES demo courses of term
#     2018-fall with the most sections) and /healthz again, in one run; builds are also given as
#     a ratio to the mean of the two /healthz runs. 1-connection runs of builds and /healthz give
#     the build latency without queueing, its p99 also as a ratio to /healthz's.
#  3. HTTP on umd.io: the demo gateway stopped, the UMDIO file imported into a database of its
#     own (a demo database refuses imports) with the in-process benchmark's synthetic ratings
#     (`import-ratings --replace`, the same book, so the same medians and answers), a gateway
#     (not a demo) serving it, and the same runs for the UMDIO_COURSES (10) courses with the
#     most timed sections (UMDIO_COURSES=0 skips it).
# Variables: DURATION, CONNECTIONS, THREADS, COURSES, UMDIO, UMDIO_COURSES, BENCH_ARGS (passed to
# scheduling-bench, e.g. "--runs 50 --naive no"), SCRATCH (release build folder, default
# .build-release), SKIP_BUILD=1 (reuse the last gateway binary; scheduling-bench is always built,
# since `make bench` builds only gateway).
source "$(dirname "$0")/lib.sh"
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-32}
THREADS=${THREADS:-1}
COURSES=${COURSES:-5}
UMDIO=${UMDIO:-../shared/data/umdio/202005.json}
UMDIO_COURSES=${UMDIO_COURSES:-10}
# The naive search and the phase breakdown don't vary from run to run in what they show; only
# run-all's first run does them.
if [ "$BENCH_RUN" -gt 1 ]; then BENCH_ARGS=${BENCH_ARGS:---naive no --breakdown no}; fi
BENCH_ARGS=${BENCH_ARGS:-}
bench_build gateway scheduling-bench
BIN_DIR=$BINDIR

echo "== in-process builder and naive search ($UMDIO)"
# shellcheck disable=SC2086
"$BIN_DIR/scheduling-bench" "$UMDIO" $BENCH_ARGS

echo "== HTTP: POST /v1/scheduling/builds against /healthz"
PID=""
# The gateway is waited for after it is stopped, so its database is closed before $DIR goes.
stop_gateway() { if [ -n "$PID" ]; then kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; PID=""; fi; }
bench_extra_cleanup() { stop_gateway; }
# start_gateway DATABASE [SERVE OPTIONS...]: serves DATABASE on a port the kernel picks; sets URL.
# Generated demo passwords are printed once; they go to the log with everything else.
start_gateway() {
  local database=$1
  shift
  rm -f "$DIR/port"
  "$BIN_DIR/gateway" serve "$@" --builds-per-minute 0 --host 127.0.0.1 --port 0 \
    --port-file "$DIR/port" --database "$database" --log-level error >>"$DIR/serve.log" 2>&1 &
  PID=$!
  for _ in $(seq 1 300); do
    [ -s "$DIR/port" ] && break
    kill -0 "$PID" 2>/dev/null || { echo "gateway exited:"; cat "$DIR/serve.log"; exit 1; }
    sleep 0.2
  done
  [ -s "$DIR/port" ] || { echo "gateway did not write its port"; cat "$DIR/serve.log"; exit 1; }
  URL="http://127.0.0.1:$(cat "$DIR/port")"
  for _ in $(seq 1 100); do curl -sf "$URL/healthz" >/dev/null && break; sleep 0.2; done
}
start_gateway "$DIR/db.sqlite" --demo --demo-passwords generated

# The COURSES courses of 2018-fall with the most sections (ties by label), from the public
# class list, page by page.
python3 - "$URL" "$COURSES" "$DIR/body.json" <<'PY'
import json, sys, urllib.parse, urllib.request
url, wanted, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
sections, cursor = {}, None
while True:
    query = {"term": "2018-fall", "limit": "200"}
    if cursor: query["cursor"] = cursor
    with urllib.request.urlopen(url + "/v1/registration/classes?" + urllib.parse.urlencode(query)) as answer:
        page = json.load(answer)
    for item in page["items"]:
        sections.setdefault(item["course"], []).append(item)
    cursor = page.get("nextCursor")
    if not cursor: break
chosen = sorted(sections, key=lambda label: (-len(sections[label]), label))[:wanted]
body = {"term": "2018-fall", "courses": chosen, "limit": 20}
json.dump(body, open(out, "w"))
print("%d classes in %d courses; body: %s (sections: %s)" % (
    sum(map(len, sections.values())), len(sections), json.dumps(body), ", ".join(str(len(sections[c])) for c in chosen)))
PY
# one_build BODY: one build, its status, size and time, and the answer's summary.
one_build() {
  curl -sf -X POST "$URL/v1/scheduling/builds" -H 'content-type: application/json' --data-binary @"$1" -o "$DIR/answer.json" \
    -w "one build: HTTP %{http_code}, %{size_download} bytes, %{time_total} s (first request)\n"
  python3 - "$DIR/answer.json" <<'PY'
import json, sys
answer = json.load(open(sys.argv[1]))
summary = {key: answer[key] for key in answer if not isinstance(answer[key], (list, dict))}
print("answer: %s; %d schedules" % (json.dumps(summary), len(answer.get("schedules", []))))
PY
}
one_build "$DIR/body.json"

# wrk's Lua script, written here rather than kept in bench/scheduling-bench/ (SwiftPM would
# warn about an unhandled file in the executable target's folder on every build).
cat > "$DIR/builds.lua" <<'LUA'
-- POST /v1/scheduling/builds with one JSON body (the file named by the first argument);
-- counts answers by status, so refusals (429, 400) cannot pass for builds.
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args)
  ok, other = 0, 0
  local file = assert(io.open(args[1], "r"))
  body = file:read("*a")
  file:close()
end
function request()
  return wrk.format("POST", "/v1/scheduling/builds", { ["Content-Type"] = "application/json" }, body)
end
function response(status, headers, body)
  if status == 200 then ok = ok + 1 else other = other + 1 end
end
function done(summary, latency, requests)
  local o, x = 0, 0
  for _, thread in ipairs(threads) do o = o + thread:get("ok"); x = x + thread:get("other") end
  io.write(string.format("builds_200=%d builds_other=%d\n", o, x))
end
LUA

rps() { grep "Requests/sec" "$1" | awk '{print $2}'; }
pct() { grep -E "^ +$2%" "$1" | awk '{print $2}'; }
# wrk's latency (850.00us, 4.36ms, 1.02s, 1.50m) in milliseconds.
ms() { echo "$1" | awk '/us$/ {print $1 / 1000; next} /ms$/ {print $1 + 0; next} /m$/ {print $1 * 60000; next} /s$/ {print $1 * 1000; next} {print $1}'; }

# measure_builds LABEL BODY: /healthz, builds and /healthz again with CONNECTIONS connections,
# then builds and /healthz with one, all against the running gateway; prints the table.
measure_builds() {
  local label=$1 body=$2
  echo "load average before wrk: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s (release build, $(nproc) cores shared by server and wrk)"
  wrk -t"$THREADS" -c"$CONNECTIONS" -d2s "$URL/healthz" >/dev/null  # warm up
  wrk -t"$THREADS" -c"$CONNECTIONS" -d2s -s "$DIR/builds.lua" "$URL" -- "$body" >/dev/null
  wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency "$URL/healthz" > "$DIR/healthz.txt"
  wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency -s "$DIR/builds.lua" "$URL" -- "$body" > "$DIR/builds.txt"
  wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency "$URL/healthz" > "$DIR/healthz2.txt"
  wrk -t1 -c1 -d"${DURATION}s" --latency -s "$DIR/builds.lua" "$URL" -- "$body" > "$DIR/builds1.txt"
  wrk -t1 -c1 -d"${DURATION}s" --latency "$URL/healthz" > "$DIR/healthz1.txt"
  echo "load average after wrk: $(cut -d' ' -f1-3 /proc/loadavg)"
  local h1 h2 b b1 h hc1 bp99 hp99
  h1=$(rps "$DIR/healthz.txt"); h2=$(rps "$DIR/healthz2.txt"); b=$(rps "$DIR/builds.txt"); b1=$(rps "$DIR/builds1.txt")
  hc1=$(rps "$DIR/healthz1.txt")
  h=$(echo "($h1 + $h2) / 2" | bc -l)
  bp99=$(ms "$(pct "$DIR/builds1.txt" 99)"); hp99=$(ms "$(pct "$DIR/healthz1.txt" 99)")
  grep -h "builds_" "$DIR/builds.txt" "$DIR/builds1.txt" | sed 's/^/statuses: /'
  printf "| endpoint | requests/s | p50 | p99 | ratio to /healthz |\n|---|---:|---:|---:|---:|\n"
  printf "| /healthz (before, after), -c%s | %s, %s | %s, %s | %s, %s | 1.00 |\n" "$CONNECTIONS" "$h1" "$h2" \
    "$(pct "$DIR/healthz.txt" 50)" "$(pct "$DIR/healthz2.txt" 50)" "$(pct "$DIR/healthz.txt" 99)" "$(pct "$DIR/healthz2.txt" 99)"
  printf "| POST /v1/scheduling/builds (%s), -c%s | %s | %s | %s | %.3f (requests/s) |\n" "$label" "$CONNECTIONS" "$b" \
    "$(pct "$DIR/builds.txt" 50)" "$(pct "$DIR/builds.txt" 99)" "$(echo "$b / $h" | bc -l)"
  printf "| /healthz, -c1 | %s | %s | %s | 1.00 |\n" "$hc1" "$(pct "$DIR/healthz1.txt" 50)" "$(pct "$DIR/healthz1.txt" 99)"
  printf "| POST /v1/scheduling/builds (%s), -c1 | %s | %s | %s | %.1f (p99) |\n" "$label" "$b1" \
    "$(pct "$DIR/builds1.txt" 50)" "$(pct "$DIR/builds1.txt" 99)" "$(echo "$bp99 / $hp99" | bc -l)"
  bench_figure "builds of $label, -c$CONNECTIONS: req/s over /healthz" "$(echo "$b / $h" | bc -l)"
  bench_figure "builds of $label, -c1: p99" "$bp99" ms
  bench_figure "builds of $label, -c1: p99 over /healthz's" "$(echo "$bp99 / $hp99" | bc -l)"
}
measure_builds "$COURSES demo courses" "$DIR/body.json"

if [ "$UMDIO_COURSES" -gt 0 ]; then
  echo "== HTTP: the $UMDIO_COURSES umd.io courses with the most timed sections, synthetic ratings ($UMDIO)"
  stop_gateway
  mkdir -p "$DIR/umdio"
  "$BIN_DIR/scheduling-bench" "$UMDIO" --selections most-timed-sections --sizes "$UMDIO_COURSES" --limit 20 --write-http "$DIR/umdio" | tail -1
  "$BIN_DIR/gateway" import-catalog --format umdio --database "$DIR/umdio.sqlite" "$UMDIO" >"$DIR/import.log" 2>&1 \
    || { echo "import-catalog failed:"; cat "$DIR/import.log"; exit 1; }
  "$BIN_DIR/gateway" import-ratings --replace --database "$DIR/umdio.sqlite" "$DIR/umdio/ratings.json" | head -1
  start_gateway "$DIR/umdio.sqlite"
  one_build "$DIR/umdio/body.json"
  measure_builds "$UMDIO_COURSES umd.io courses, synthetic ratings" "$DIR/umdio/body.json"
fi
