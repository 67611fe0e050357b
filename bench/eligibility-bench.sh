#!/usr/bin/env bash
# What the eligibility rules cost a registration (issue 49), on SQLite and on PostgreSQL, in one
# run each: SDSU register/drop under contention (bench/lua/registration.lua, STUDENTS students
# on class 7030, CS 503) without eligibility data, then with it: each student's academic record
# of 40 courses, CS 503's prerequisite tree of 6 nodes (all of CS 310 with C, CS 210, and any of
# MATH 245 or MATH 254 with B-), which every record meets, and the term's window (open), no
# holds. Each side is ROUNDS runs of DURATION seconds, alternating, so a drift of the machine
# falls on both; the figure is the median of the "with" runs over the median of the "without".
#   BACKENDS=sqlite,postgres (default both)   ROUNDS=3   DURATION=8   STUDENTS=50
source "$(dirname "$0")/lib.sh"
DURATION=${DURATION:-8}
CONNECTIONS=${CONNECTIONS:-24}
STUDENTS=${STUDENTS:-50}
ROUNDS=${ROUNDS:-3}
BACKENDS=${BACKENDS:-sqlite,postgres}
PORT=${PORT:-18291}
URL="http://127.0.0.1:$PORT"
bench_build gateway
BIN=$BINDIR/gateway
CLUSTER=""
bench_extra_cleanup() { [ -n "$CLUSTER" ] && bash scripts/pg-cluster.sh stop "$CLUSTER" >/dev/null 2>&1 || true; }
export GATEWAY_VAULT_KEY
GATEWAY_VAULT_KEY=$(head -c 32 /dev/urandom | base64)

run_backend() { # run_backend sqlite|postgres
    local backend=$1 database
    if [ "$backend" = postgres ]; then
        CLUSTER=$(mktemp -u /tmp/gateway-eligibility-pg-XXXXXX)
        local url
        url=$(bash scripts/pg-cluster.sh start "$CLUSTER" --watch $$ --durable)
        psql "$url" -qc "CREATE DATABASE eligibility"
        database=${url/\/postgres\?/\/eligibility?}
    else
        database="$DIR/eligibility.sqlite"
    fi
    "$BIN" serve --demo --demo-passwords documented --signups-per-hour 100000 --database "$database" --database-connections 16 \
        --port "$PORT" --log-level error > "$DIR/serve-$backend.log" 2>&1 &
    local server=$!
    PIDS+=($server)
    for _ in $(seq 1 300); do curl -sf "$URL/readyz" >/dev/null && break; sleep 0.2; done
    for i in $(seq 1 "$STUDENTS"); do
        curl -sf -X POST "$URL/registration/addstudent" -H 'content-type: application/json' \
            -d "{\"firstname\":\"Bench\",\"lastname\":\"$i\",\"redid\":\"$((600000000 + i))\",\"password\":\"benchpass1\",\"email\":\"b$i@example.edu\"}" >/dev/null
    done
    local admin
    admin=$(curl -sf -X POST -u admin:demo-admin-pass "$URL/v1/auth/token" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
    # The eligibility data, applied between the rounds (put) and taken away again (cleared).
    python3 - "$URL" "$admin" "$STUDENTS" > "$DIR/eligibility-$backend.json" <<'PY'
import json, sys, urllib.request
url, token, students = sys.argv[1], sys.argv[2], int(sys.argv[3])
def call(method, path, body=None):
    request = urllib.request.Request(url + path, method=method, data=json.dumps(body).encode() if body is not None else None,
                                     headers={"authorization": "Bearer " + token, "content-type": "application/json"})
    with urllib.request.urlopen(request) as response: return json.loads(response.read() or b"null")
ids, cursor = {}, None
while True:
    page = call("GET", "/v1/admin/accounts?limit=200" + (f"&cursor={cursor}" if cursor else ""))
    for account in page["items"]: ids[account["username"]] = account["id"]
    cursor = page.get("nextCursor")
    if not cursor: break
bench = [ids[str(600000000 + i)] for i in range(1, students + 1)]
print(json.dumps({"accounts": bench}))
PY
    local phase round
    for round in $(seq 1 "$ROUNDS"); do
        for phase in without with; do
            python3 - "$URL" "$admin" "$DIR/eligibility-$backend.json" "$phase" <<'PY'
import json, sys, urllib.request
url, token, accounts, phase = sys.argv[1], sys.argv[2], json.load(open(sys.argv[3]))["accounts"], sys.argv[4]
def call(method, path, body=None):
    request = urllib.request.Request(url + path, method=method, data=json.dumps(body).encode() if body is not None else None,
                                     headers={"authorization": "Bearer " + token, "content-type": "application/json"})
    with urllib.request.urlopen(request) as response: return response.status
grades = ["A", "A-", "B+", "B", "B-", "C+", "C"]
history = [{"course": "CS 310", "term": "2018-spring", "grade": "B"}, {"course": "CS 210", "term": "2017-fall", "grade": "A-"},
           {"course": "MATH 254", "term": "2018-spring", "grade": "B"}]
history += [{"course": f"GE {100 + n}", "term": "2017-fall", "grade": grades[n % len(grades)]} for n in range(37)]
tree = {"all": [{"course": "CS 310", "minGrade": "C"}, {"course": "CS 210"},
                {"any": [{"course": "MATH 245"}, {"course": "MATH 254", "minGrade": "B-"}]}]}
if phase == "with":
    for account in accounts:
        call("PUT", f"/v1/admin/registration/students/{account}/record",
             {"level": "undergraduate", "standing": "senior", "majors": ["CS"], "history": history})
    call("PUT", "/v1/admin/registration/requirements", {"term": "2018-fall", "course": "CS 503", "prerequisites": tree})
    call("PUT", "/v1/admin/terms/2018-fall/registration-windows", {"windows": [{"opensAt": "2018-11-01T16:00:00Z"}]})
else:
    # Without: no requirement on the course and no window (records stay: nothing asks them).
    call("PUT", "/v1/admin/registration/requirements", {"term": "2018-fall", "course": "CS 503"})
    call("PUT", "/v1/admin/terms/2018-fall/registration-windows", {"windows": []})
PY
            wrk -t1 -c"$CONNECTIONS" -d2s -s bench/lua/registration.lua "$URL" -- "$STUDENTS" 600000001 7030 benchpass1 >/dev/null
            wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" -s bench/lua/registration.lua "$URL" -- "$STUDENTS" 600000001 7030 benchpass1 \
                | grep "contention:" > "$DIR/$backend-$phase-$round.txt"
            echo "$backend, $phase eligibility, round $round: $(cat "$DIR/$backend-$phase-$round.txt")"
        done
    done
    kill "$server"; wait "$server" 2>/dev/null || true
    if [ "$backend" = postgres ]; then bash scripts/pg-cluster.sh stop "$CLUSTER" >/dev/null 2>&1 || true; CLUSTER=""; fi
    python3 - "$DIR" "$backend" "$ROUNDS" <<'PY'
import re, statistics, sys
d, backend, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
def field(path, name): return float(re.search(name + r"=([\d.]+)", open(path).read()).group(1))
def runs(phase, name): return [field(f"{d}/{backend}-{phase}-{r}.txt", name) for r in range(1, rounds + 1)]
without, with_ = runs("without", "requests_per_s"), runs("with", "requests_per_s")
ratio = statistics.median(with_) / statistics.median(without)
ratios = sorted(w / o for w, o in zip(with_, without))
failed = sum(runs("with", "other")) + sum(runs("with", "not_200"))
print(f"{backend}: register/drop with eligibility {statistics.median(with_):,.0f}/s against {statistics.median(without):,.0f}/s without: "
      f"{ratio:.3f} (round by round {ratios[0]:.3f}-{ratios[-1]:.3f}); p99 {statistics.median(runs('with', 'p99_ms'))} ms against "
      f"{statistics.median(runs('without', 'p99_ms'))} ms; {failed:.0f} answers failed")
print(f"figure|{backend} register/drop with eligibility: over without|{ratio:.3f}|")
print(f"figure|{backend} register/drop with eligibility: p99|{statistics.median(runs('with', 'p99_ms'))}|ms")
print(f"figure|{backend} register/drop with eligibility: answers failed|{failed:.0f}|")
PY
}

IFS=, read -r -a WANTED <<<"$BACKENDS"
for backend in "${WANTED[@]}"; do
    echo "== $backend: register/drop without and with eligibility, $ROUNDS rounds of ${DURATION}s, -c$CONNECTIONS"
    run_backend "$backend"
done
