#!/usr/bin/env bash
# Contract fuzzing: schemathesis (in .venv, from scripts/install-deps.sh) generates requests for
# every operation in openapi/openapi.yaml and sends them to a live `gateway serve --demo` on
# 127.0.0.1, as an admin, as a student and anonymously, and checks each answer against the spec.
#
#   scripts/fuzz-contract.sh [--backend sqlite|postgres] [--examples N] [--checks conformance|all] [--short] [--binary PATH]
#
# - `make test` runs a short pass on SQLite (`--short`: the conformance checks, a few requests
#   per operation, without schemathesis's coverage phase) with a fixed seed and no example
#   database, so that CI sends the same requests on every landing and a failure reproduces.
# - The long passes explore with a fresh seed each run, printed with each pass
#   (`FUZZ_SEED=N` repeats one; `--seed N` too).
# - `make check-slow` runs long passes on both backends (the conformance checks, every phase),
#   well over 3,000 requests each; a long pass that generates fewer than 3,000 fails.
# - `make fuzz-data` adds the data checks (`--checks all`).
# - A signed-in pass must stay signed in: if its token no longer works afterwards (a generated
#   request revoked it, say), the rest of the pass ran anonymously and the run fails.
# The conformance checks are what the gateway promises every client: no 5xx, only documented
# status codes, content types, headers and bodies that match the spec, and 405 for a method a
# path doesn't take. `--checks all` adds schemathesis's data checks (negative data rejected,
# schema-valid data accepted, and the rest). Settings and their documented exceptions are in
# openapi/schemathesis.toml (checks are chosen there, not on the command line, so that the
# per-operation exceptions apply).
#
# The server, its database and any PostgreSQL cluster live in a temporary directory that is
# removed at exit; traffic goes to 127.0.0.1 only. Exits non-zero when any pass fails, after
# printing each failure with a curl line that reproduces it (secrets filtered).
set -uo pipefail
cd "$(dirname "$0")/.."

BACKEND=sqlite
EXAMPLES=3
CHECKS=conformance
BIN=.build/debug/gateway
PHASES=examples,coverage,fuzzing,stateful
MINIMUM=3000
SEED=${FUZZ_SEED:-}
SHORT=0
while [ $# -gt 0 ]; do
  case "$1" in
    --backend) BACKEND=$2; shift 2 ;;
    --examples) EXAMPLES=$2; shift 2 ;;
    --checks) CHECKS=$2; shift 2 ;;
    --binary) BIN=$2; shift 2 ;;
    --short) PHASES=examples,fuzzing; EXAMPLES=2; MINIMUM=0; SHORT=1; shift ;;
    --seed) SEED=$2; shift 2 ;;
    *) echo "fuzz-contract: unknown option $1" >&2; exit 2 ;;
  esac
done
ST=.venv/bin/schemathesis
[ -x "$ST" ] || { echo "fuzz-contract: $ST is missing; run scripts/install-deps.sh" >&2; exit 2; }
[ -x "$BIN" ] || { echo "fuzz-contract: $BIN is missing; build first" >&2; exit 2; }

# The short pass is reproducible: one fixed seed, and no database of earlier examples (which
# would make a run depend on the runs before it). Long passes take a new seed unless told.
DATABASE_ARGS=()
if [ -z "$SEED" ]; then
  if [ "$SHORT" = 1 ]; then SEED=20261128; else SEED=$(( (RANDOM << 15 | RANDOM) )); fi
fi
if [ "$SHORT" = 1 ]; then DATABASE_ARGS=(--generation-database none); fi
case "$SEED" in '' | *[!0-9]*) echo "fuzz-contract: --seed takes a whole number" >&2; exit 2 ;; esac
echo "fuzz-contract: seed $SEED (repeat with FUZZ_SEED=$SEED)"

case "$CHECKS" in conformance | all) ;; *) echo "fuzz-contract: --checks is conformance or all" >&2; exit 2 ;; esac
DIR=$(mktemp -d /tmp/gateway-fuzz.XXXXXX)
CONFIG="$DIR/schemathesis.toml"
if [ "$CHECKS" = conformance ]; then
  # The data checks off; top-level settings come before the file's [[operations]] tables.
  for check in negative_data_rejection positive_data_acceptance use_after_free ensure_resource_availability ignored_auth missing_required_header; do
    echo "checks.$check.enabled = false"
  done >"$CONFIG"
fi
cat openapi/schemathesis.toml >>"$CONFIG"
SERVER=""
cleanup() {
  [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null
  [ -d "$DIR-pg" ] && bash scripts/pg-cluster.sh stop "$DIR-pg" >/dev/null 2>&1
  rm -rf "$DIR"
}
trap cleanup EXIT

case "$BACKEND" in
  sqlite) DATABASE="$DIR/gateway.sqlite" ;;
  postgres)
    # Beside DIR, not in it: as root the server runs as `postgres`, which can't enter DIR (0700).
    DATABASE=$(bash scripts/pg-cluster.sh start "$DIR-pg" --watch $$) || { echo "fuzz-contract: no PostgreSQL cluster" >&2; exit 1; }
    export GATEWAY_VAULT_KEY
    GATEWAY_VAULT_KEY=$(head -c 32 /dev/urandom | base64)
    ;;
  *) echo "fuzz-contract: --backend is sqlite or postgres" >&2; exit 2 ;;
esac

# Generous per-address limits: the fuzzer is one address sending thousands of requests, and the
# limits themselves are tested elsewhere (a 429 would still have to match the spec).
"$BIN" serve --demo --demo-passwords documented --database "$DATABASE" --host 127.0.0.1 --port 0 --port-file "$DIR/port" \
  --signups-per-hour 100000 --quickhac-requests-per-minute 0 --log-level error >"$DIR/server.log" 2>&1 &
SERVER=$!
# A debug build seeds the demo's 4,393 classes on PostgreSQL in about a minute: allow three.
for _ in $(seq 1 360); do [ -s "$DIR/port" ] && break; kill -0 "$SERVER" 2>/dev/null || break; sleep 0.5; done
[ -s "$DIR/port" ] || { echo "fuzz-contract: the server did not start" >&2; cat "$DIR/server.log" >&2; exit 1; }
URL="http://127.0.0.1:$(cat "$DIR/port")"

token() { # token USERNAME PASSWORD
  curl -sf -X POST "$URL/v1/auth/token" -H 'content-type: application/json' \
    -d "{\"username\":\"$1\",\"password\":\"$2\"}" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])'
}
ADMIN=$(token admin demo-admin-pass) && STUDENT=$(token student demo-student-pass) || { echo "fuzz-contract: demo sign-in failed" >&2; exit 1; }

failed=0
total=0
# run_pass NAME [schemathesis arguments...]: one schemathesis run, its report kept as NAME.
run_pass() {
  local name=$1
  shift
  # One worker: with two, Hypothesis's source inspection in parallel threads has crashed
  # CPython 3.11's compiler ("AST constructor recursion depth mismatch"), a tool error that
  # says nothing about the gateway.
  "$ST" --config-file "$CONFIG" run openapi/openapi.yaml --url "$URL" "$@" --max-examples "$EXAMPLES" --phases "$PHASES" \
    --seed "$SEED" "${DATABASE_ARGS[@]}" --workers 1 --warnings off --request-timeout 30 --suppress-health-check all >"$DIR/$name.txt" 2>&1
  local status=$?
  local generated
  generated=$(grep -Eo '[0-9]+ generated' "$DIR/$name.txt" | tail -1 | grep -Eo '[0-9]+' || echo 0)
  total=$((total + generated))
  mkdir -p artifacts/fuzz && cp "$DIR/$name.txt" "artifacts/fuzz/$BACKEND-$name.txt"
  if [ $status -ne 0 ]; then
    failed=1
    # One line per failure (operation and check); the whole report, with a curl line per
    # failure, stays in artifacts/fuzz/.
    echo "-- failures as $name (artifacts/fuzz/$BACKEND-$name.txt has each with a curl line):"
    awk '/^_+ [A-Z]+ .* _+$/ { op = $0; gsub(/^_+ | _+$/, "", op) } /^- ST[0-9]+/ { sub(/^- /, ""); print "   " op ": " $0 }' "$DIR/$name.txt" | sort | uniq -c
  fi
  grep -E '^(Test cases|  (Selected|Tested))' "$DIR/$name.txt"
}

# The admin pass goes last: it may disable accounts or change their roles, which would sign the
# student out. A signed-in pass leaves `DELETE /v1/auth/token` (revoke the presented token) to
# a run of its own after it, so that it can't sign the rest of the pass out; that the token
# still works afterwards is checked.
revoke="DELETE /v1/auth/token"
for role in student anonymous admin; do
  headers=()
  case "$role" in
    admin) headers=(-H "Authorization: Bearer $ADMIN") ;;
    student) headers=(-H "Authorization: Bearer $STUDENT") ;;
  esac
  echo "== schemathesis as $role on $BACKEND: --max-examples $EXAMPLES, checks $CHECKS, seed $SEED"
  if [ ${#headers[@]} -eq 0 ]; then
    run_pass "$role"
    continue
  fi
  run_pass "$role" "${headers[@]}" --exclude-name "$revoke"
  me=$(curl -s -o /dev/null -w '%{http_code}' "$URL/v1/me" "${headers[@]}")
  if [ "$me" != 200 ]; then
    failed=1
    echo "-- the $role token no longer works after its pass (GET /v1/me: $me): part of the pass ran signed out"
  fi
  run_pass "$role-revoke" "${headers[@]}" --include-name "$revoke"
done
if [ "$total" -lt "$MINIMUM" ]; then
  failed=1
  echo "-- only $total requests generated on $BACKEND; a long pass needs at least $MINIMUM"
fi
if grep -q "unhandled error" "$DIR/server.log"; then
  failed=1
  echo "-- the server logged unhandled errors:"
  grep "unhandled error" "$DIR/server.log" | head -20
fi
if ! kill -0 "$SERVER" 2>/dev/null; then
  failed=1
  echo "-- the server is gone:"
  tail -20 "$DIR/server.log"
fi
echo "fuzz-contract: $total requests generated on $BACKEND, $([ $failed -eq 0 ] && echo "no failures" || echo "FAILED")"
exit $failed
