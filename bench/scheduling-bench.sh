#!/usr/bin/env bash
# Scheduling benchmarks against release builds (numbers in docs/benchmarks.md):
#  1. In-process: `scheduling-bench` times ScheduleBuilder.build on real umd.io sections
#     (UMDIO, default ../shared/data/umdio/202005.json) for 5, 8 and 10 courses, breaks the time
#     down by phase, and runs a naive Cartesian search (what Jupiter did) on the same input,
#     extrapolated when it would take too long.
#  2. HTTP: `serve --demo` on 127.0.0.1 (a port the kernel picks), then wrk -t1 -c32 for DURATION
#     seconds against /healthz, POST /v1/scheduling/builds (COURSES demo courses of term
#     2018-fall with the most sections) and /healthz again, in one run; builds are also given as
#     a ratio to the mean of the two /healthz runs. A 1-connection run gives the build latency
#     without queueing.
# Variables: DURATION, CONNECTIONS, THREADS, COURSES, UMDIO, BENCH_ARGS (passed to
# scheduling-bench, e.g. "--runs 50 --naive no"), SCRATCH (release build folder, default
# .build-release), SKIP_BUILD=1 (reuse the last gateway binary; scheduling-bench is always built,
# since `make bench` builds only gateway).
source "$(dirname "$0")/lib.sh"
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-32}
THREADS=${THREADS:-1}
COURSES=${COURSES:-5}
UMDIO=${UMDIO:-../shared/data/umdio/202005.json}
BENCH_ARGS=${BENCH_ARGS:-}
bench_build gateway scheduling-bench
BIN_DIR=$BINDIR

echo "== in-process builder and naive search ($UMDIO)"
# shellcheck disable=SC2086
"$BIN_DIR/scheduling-bench" "$UMDIO" $BENCH_ARGS

echo "== HTTP: POST /v1/scheduling/builds against /healthz"
PID=""
# The gateway is waited for after it is stopped, so its database is closed before $DIR goes.
bench_extra_cleanup() { if [ -n "$PID" ]; then kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; fi; }
# Generated demo passwords are printed once; they go to the log with everything else.
"$BIN_DIR/gateway" serve --demo --demo-passwords generated --builds-per-minute 0 --host 127.0.0.1 --port 0 \
  --port-file "$DIR/port" --database "$DIR/db.sqlite" --log-level error >"$DIR/serve.log" 2>&1 &
PID=$!
for _ in $(seq 1 300); do
  [ -s "$DIR/port" ] && break
  kill -0 "$PID" 2>/dev/null || { echo "gateway exited:"; cat "$DIR/serve.log"; exit 1; }
  sleep 0.2
done
[ -s "$DIR/port" ] || { echo "gateway did not write its port"; cat "$DIR/serve.log"; exit 1; }
URL="http://127.0.0.1:$(cat "$DIR/port")"
for _ in $(seq 1 100); do curl -sf "$URL/healthz" >/dev/null && break; sleep 0.2; done

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
curl -sf -X POST "$URL/v1/scheduling/builds" -H 'content-type: application/json' --data-binary @"$DIR/body.json" -o "$DIR/answer.json" \
  -w "one build: HTTP %{http_code}, %{size_download} bytes, %{time_total} s (first request)\n"
python3 - "$DIR/answer.json" <<'PY'
import json, sys
answer = json.load(open(sys.argv[1]))
summary = {key: answer[key] for key in answer if not isinstance(answer[key], (list, dict))}
print("answer: %s; %d schedules" % (json.dumps(summary), len(answer.get("schedules", []))))
PY

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
echo "load average before wrk: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s (release build, $(nproc) cores shared by server and wrk)"
wrk -t"$THREADS" -c"$CONNECTIONS" -d2s "$URL/healthz" >/dev/null  # warm up
wrk -t"$THREADS" -c"$CONNECTIONS" -d2s -s "$DIR/builds.lua" "$URL" -- "$DIR/body.json" >/dev/null
wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency "$URL/healthz" > "$DIR/healthz.txt"
wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency -s "$DIR/builds.lua" "$URL" -- "$DIR/body.json" > "$DIR/builds.txt"
wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency "$URL/healthz" > "$DIR/healthz2.txt"
wrk -t1 -c1 -d"${DURATION}s" --latency -s "$DIR/builds.lua" "$URL" -- "$DIR/body.json" > "$DIR/builds1.txt"
echo "load average after wrk: $(cut -d' ' -f1-3 /proc/loadavg)"
H1=$(rps "$DIR/healthz.txt"); H2=$(rps "$DIR/healthz2.txt"); B=$(rps "$DIR/builds.txt"); B1=$(rps "$DIR/builds1.txt")
H=$(echo "($H1 + $H2) / 2" | bc -l)
grep -h "builds_" "$DIR/builds.txt" "$DIR/builds1.txt" | sed 's/^/statuses: /'
printf "| endpoint | requests/s | p50 | p99 | ratio to /healthz |\n|---|---:|---:|---:|---:|\n"
printf "| /healthz (before, after), -c%s | %s, %s | %s, %s | %s, %s | 1.00 |\n" "$CONNECTIONS" "$H1" "$H2" \
  "$(pct "$DIR/healthz.txt" 50)" "$(pct "$DIR/healthz2.txt" 50)" "$(pct "$DIR/healthz.txt" 99)" "$(pct "$DIR/healthz2.txt" 99)"
printf "| POST /v1/scheduling/builds (%s courses), -c%s | %s | %s | %s | %.3f |\n" "$COURSES" "$CONNECTIONS" "$B" \
  "$(pct "$DIR/builds.txt" 50)" "$(pct "$DIR/builds.txt" 99)" "$(echo "$B / $H" | bc -l)"
printf "| POST /v1/scheduling/builds (%s courses), -c1 | %s | %s | %s | - |\n" "$COURSES" "$B1" \
  "$(pct "$DIR/builds1.txt" 50)" "$(pct "$DIR/builds1.txt" 99)"
