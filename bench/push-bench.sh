#!/usr/bin/env bash
# Push (numbers in docs/benchmarks.md), release builds, 127.0.0.1 only, in one run:
#  1. APNs: notifications per second from the gateway's APNs channel (libcurl, HTTP/2, shared
#     connections, ES256 provider token) to the Python h2 stand-in the tests use
#     (Tests/PushTests/Fixtures/apns_standin.py, two processes sharing the socket), and the
#     ceiling: h2load (nghttp2's C client) sending the same requests to the same stand-in.
#     Every notification must be delivered over at most APNS_CONNECTIONS (4) connections, as
#     the stand-in saw them (the run fails otherwise); APNS_STREAMS (500) streams each.
#     APNS_MIN_RATE (notifications/s, off by default) fails the run under that rate: on two
#     cores the Python stand-in, not the channel, sets the pace. (This was PushTests'
#     APNsBenchTests, which ran 2,000 of them in every `make test`.)
#  2. Grade polls per second for ACCOUNTS device accounts against a gradebook-sim process
#     (fetch sections and scores, snapshot, diff, store; CONCURRENCY at a time), and the
#     ceiling: wrk on the simulator's sections record; the ratio counts the requests each poll
#     makes.
source "$(dirname "$0")/lib.sh"
COUNT=${COUNT:-10000}
ACCOUNTS=${ACCOUNTS:-1000}
CONCURRENCY=${CONCURRENCY:-8}
APNS_CONNECTIONS=${APNS_CONNECTIONS:-4}
APNS_STREAMS=${APNS_STREAMS:-500}
APNS_MIN_RATE=${APNS_MIN_RATE:-}
SIM_PORT=${SIM_PORT:-18095}
bench_build gateway gradebook-sim push-bench
# The stand-in's lifeline (fd 9) is closed first, so it stops even if a kill is missed.
bench_extra_cleanup() { exec 9>&- 2>/dev/null || true; }
TEAM=TEAM123456 KEYID=KEY1234567 TOPIC=edu.campus.gateway
DEVICE=$(printf 'ab%.0s' $(seq 1 32))

# 1. APNs
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$DIR/tls-key.pem" -out "$DIR/tls-cert.pem" \
    -days 1 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 2>/dev/null
openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null | openssl pkcs8 -topk8 -nocrypt -out "$DIR/provider.p8"
PUBLIC=$(openssl ec -in "$DIR/provider.p8" -pubout -outform DER 2>/dev/null | base64 -w0)
# The stand-in exits when its stdin closes: a pipe this script holds open until it exits.
mkfifo "$DIR/lifeline"
.venv/bin/python Tests/PushTests/Fixtures/apns_standin.py --cert "$DIR/tls-cert.pem" --key "$DIR/tls-key.pem" \
    --public-key "$PUBLIC" --team-id $TEAM --key-id $KEYID --topic $TOPIC --port-file "$DIR/apns-port" --log "$DIR/apns-requests.jsonl" \
    --workers 2 < "$DIR/lifeline" >/dev/null 2>"$DIR/standin.err" &
PIDS+=($!)
exec 9>"$DIR/lifeline"
for _ in $(seq 1 150); do [ -s "$DIR/apns-port" ] && break; sleep 0.1; done
APNS_PORT=$(cat "$DIR/apns-port")
echo "== APNs: $COUNT notifications, $APNS_CONNECTIONS connections, $APNS_STREAMS streams each, stand-in on port $APNS_PORT ($(nproc) cores shared)"
"$BINDIR/push-bench" apns --url "https://127.0.0.1:$APNS_PORT" --ca-file "$DIR/tls-cert.pem" --key-file "$DIR/provider.p8" \
    --team-id $TEAM --key-id $KEYID --topic $TOPIC --count "$COUNT" --connections "$APNS_CONNECTIONS" --streams "$APNS_STREAMS" | tee "$DIR/apns.txt"
# What the stand-in saw of the gateway's run (before h2load's requests reach it): every request
# answered 200, over no more connections than the channel may open.
python3 - "$DIR/apns-requests.jsonl" "$APNS_CONNECTIONS" <<'PY'
import json, sys
records = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
connections, statuses = {r["conn"] for r in records}, {r["status"] for r in records}
print(f"stand-in: {len(records)} requests (warm-up included) over {len(connections)} connection(s), statuses {sorted(statuses)}")
if len(connections) > int(sys.argv[2]) or statuses != {200}:
    sys.exit(f"APNs: more than {sys.argv[2]} connections, or an answer other than 200")
PY
# The ceiling: the same requests (same provider token, headers and body) from h2load.
JWT=$(.venv/bin/python - "$DIR/provider.p8" $TEAM $KEYID <<'PY'
import base64, json, sys, time
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, utils
key = serialization.load_pem_private_key(open(sys.argv[1], "rb").read(), password=None)
b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()
head = b64(json.dumps({"alg": "ES256", "kid": sys.argv[3]}).encode()) + "." + b64(json.dumps({"iss": sys.argv[2], "iat": int(time.time())}).encode())
r, s = utils.decode_dss_signature(key.sign(head.encode(), ec.ECDSA(hashes.SHA256())))
print(head + "." + b64(r.to_bytes(32, "big") + s.to_bytes(32, "big")))
PY
)
echo '{"aps":{"alert":{"title":"Campus Gateway","body":"Benchmark"}}}' > "$DIR/payload.json"
h2load -n "$COUNT" -c 4 -m 100 -d "$DIR/payload.json" -H "authorization: bearer $JWT" -H "apns-topic: $TOPIC" \
    -H "apns-push-type: alert" -H "apns-priority: 10" "https://127.0.0.1:$APNS_PORT/3/device/$DEVICE" > "$DIR/h2load.txt" 2>&1 || true
H2_RATE=$(grep -E "^finished in" "$DIR/h2load.txt" | sed -E 's/.*, ([0-9.]+) req\/s.*/\1/')
grep -E "^(finished in|requests:|status codes:)" "$DIR/h2load.txt"
APNS_RATE=$(grep apns_rate= "$DIR/apns.txt" | cut -d= -f2)
python3 -c "print(f'APNs: gateway {float($APNS_RATE):,.0f}/s, h2load {float(\"$H2_RATE\"):,.0f}/s, ratio {float($APNS_RATE)/float(\"$H2_RATE\"):.2f}')"
bench_figure "APNs notifications/s over h2load's requests/s to the same stand-in" "$(echo "$APNS_RATE / $H2_RATE" | bc -l)"
bench_figure "APNs notifications/s, $APNS_CONNECTIONS connections to the stand-in" "$APNS_RATE" "/s"
if [ -n "$APNS_MIN_RATE" ] && [ "$APNS_RATE" -lt "$APNS_MIN_RATE" ]; then
    echo "APNs: $APNS_RATE/s is under the $APNS_MIN_RATE/s target" >&2
    exit 1
fi

# 2. Grade polls
ADMIN_TOKEN=$(head -c 24 /dev/urandom | base64 | tr -d '/+=')
"$BINDIR/gradebook-sim" serve --host 127.0.0.1 --port "$SIM_PORT" --prefix cgi-bin --admin-token "$ADMIN_TOKEN" --log-level error </dev/null >/dev/null 2>&1 &
PIDS+=($!)
AUTH="Authorization: Basic $(printf 'test:gradebook-test-1' | base64)"
for _ in $(seq 1 100); do curl -sf -H "$AUTH" "http://127.0.0.1:$SIM_PORT/cgi-bin/auth.txt" >/dev/null && break; sleep 0.2; done
echo "== Grade polls: $ACCOUNTS accounts, $CONCURRENCY at a time"
BEFORE=$(curl -s -H "Authorization: Bearer $ADMIN_TOKEN" "http://127.0.0.1:$SIM_PORT/cgi-bin/_admin/requests" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')
"$BINDIR/push-bench" polls --url "http://127.0.0.1:$SIM_PORT/cgi-bin/grades.json" --accounts "$ACCOUNTS" --concurrency "$CONCURRENCY" | tee "$DIR/polls.txt"
AFTER=$(curl -s -H "Authorization: Bearer $ADMIN_TOKEN" "http://127.0.0.1:$SIM_PORT/cgi-bin/_admin/requests" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')
wrk -t1 -c"$CONCURRENCY" -d10s -H "$AUTH" "http://127.0.0.1:$SIM_PORT/cgi-bin/grades.json?record=sections" > "$DIR/wrk.txt"
SIM_RATE=$(grep "Requests/sec" "$DIR/wrk.txt" | awk '{print $2}')
POLL_RATE=$(grep polls_rate= "$DIR/polls.txt" | cut -d= -f2)
python3 - "$BEFORE" "$AFTER" "$ACCOUNTS" "$POLL_RATE" "$SIM_RATE" <<'PY'
import sys
before, after, accounts, polls, sim = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
# Requests the bench made: one auth.txt per stored account, then two rounds of polls.
per_poll = (after - before - accounts) / (2 * accounts)
print(f"polls: {polls:,.1f}/s, {per_poll:.1f} upstream requests each = {polls * per_poll:,.0f} req/s; simulator alone (wrk, sections) {sim:,.0f} req/s; ratio {polls * per_poll / sim:.2f}")
PY
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
