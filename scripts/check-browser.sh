#!/usr/bin/env bash
# Browser tests of the web pages (Tests/Browser): builds the gateway, serves the demo on a free
# loopback port with a fresh database, drives headless Chromium against it with Selenium, keeps
# the screenshots in $SCREENSHOT_DIR (artifacts/screenshots by default) and stops the server.
# The server's log goes to a file the tests read ($GATEWAY_LOG): without SMTP the demo's log
# mailer writes each email confirmation's code there, which a test types into the page.
# Campus sign-in: a second demo gateway ($CAMPUS_GATEWAY_URL, its own database) signs in with a
# stand-in OpenID provider (Tests/Browser/oidc_provider.py, $OIDC_PROVIDER_URL) that this script
# starts first; the first gateway has no provider.
# SWIFT_BUILD_FLAGS passes flags to `swift build` (for example `--scratch-path .build-web`).
# GATEWAY_BIN=/path/to/dir uses the gateway binary in that directory instead of building one.
# BROWSER_TESTS=pattern runs only the test modules whose file names match (default test_*.py).
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT="${SWIFT:-swift}"
read -r -a FLAGS <<< "${SWIFT_BUILD_FLAGS:-}"
export SCREENSHOT_DIR="${SCREENSHOT_DIR:-artifacts/screenshots}"

bash scripts/install-deps.sh --browser
if [ -n "${GATEWAY_BIN:-}" ]; then
  # A gateway built elsewhere: the directory that holds it (and its campus-gateway_Web.resources).
  BIN="$GATEWAY_BIN"
  [ -x "$BIN/gateway" ] || { echo "check-browser: no executable gateway in GATEWAY_BIN=$BIN" >&2; exit 1; }
else
  "$SWIFT" build "${FLAGS[@]}" --product gateway
  BIN="$("$SWIFT" build "${FLAGS[@]}" --show-bin-path)"
fi

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

WORK="$(mktemp -d)"
PIDS=()
stop() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap stop EXIT

# wait_for NAME PID URL LOG: until URL answers, or stop with LOG if PID ended.
wait_for() {
  for _ in $(seq 1 100); do
    curl -fsS "$3" >/dev/null 2>&1 && return 0
    if ! kill -0 "$2" 2>/dev/null; then
      echo "check-browser: $1 did not start:" >&2
      cat "$4" >&2
      exit 1
    fi
    sleep 0.2
  done
  echo "check-browser: $1 did not answer at $3:" >&2
  cat "$4" >&2
  exit 1
}

PORT="$(free_port)"
# The offer policy, so that a test can follow a waitlist seat offer to its acceptance.
GATEWAY_PUBLIC_URL="http://127.0.0.1:$PORT" "$BIN/gateway" serve --demo --demo-passwords documented --host 127.0.0.1 --port "$PORT" \
  --waitlist-policy offer --database "$WORK/demo.sqlite" > "$WORK/serve.log" 2>&1 &
PIDS+=($!)
wait_for "the gateway" "$!" "http://127.0.0.1:$PORT/healthz" "$WORK/serve.log"

# The stand-in provider, with the client secret in a file as the gateway reads it, and the
# second gateway's callback as its one registered redirect URI.
CAMPUS_PORT="$(free_port)"
CAMPUS_URL="http://127.0.0.1:$CAMPUS_PORT"
python3 -c 'import secrets; print(secrets.token_urlsafe(24))' > "$WORK/oidc-secret"
chmod 600 "$WORK/oidc-secret"
.venv/bin/python Tests/Browser/oidc_provider.py --url-file "$WORK/oidc.url" --client-id campus-gateway \
  --client-secret-file "$WORK/oidc-secret" --redirect-uri "$CAMPUS_URL/v1/auth/oidc/callback" > "$WORK/oidc.log" 2>&1 &
PROVIDER=$!
PIDS+=("$PROVIDER")
for _ in $(seq 1 100); do
  [ -s "$WORK/oidc.url" ] && break
  if ! kill -0 "$PROVIDER" 2>/dev/null; then
    echo "check-browser: the stand-in OpenID provider did not start:" >&2
    cat "$WORK/oidc.log" >&2
    exit 1
  fi
  sleep 0.1
done
OIDC_URL="$(cat "$WORK/oidc.url")"
wait_for "the stand-in OpenID provider" "$PROVIDER" "$OIDC_URL/.well-known/openid-configuration" "$WORK/oidc.log"

export CAMPUS_ADMIN_GROUP="gateway-admins"
export CAMPUS_DISPLAY_NAME="Sign in with Campus ID (test)"
GATEWAY_PUBLIC_URL="$CAMPUS_URL" GATEWAY_OIDC_ISSUER="$OIDC_URL" GATEWAY_OIDC_CLIENT_ID=campus-gateway \
  GATEWAY_OIDC_CLIENT_SECRET_FILE="$WORK/oidc-secret" GATEWAY_OIDC_ADMIN_GROUP="$CAMPUS_ADMIN_GROUP" \
  GATEWAY_OIDC_DISPLAY_NAME="$CAMPUS_DISPLAY_NAME" \
  "$BIN/gateway" serve --demo --demo-passwords documented --host 127.0.0.1 --port "$CAMPUS_PORT" \
  --database "$WORK/campus.sqlite" > "$WORK/campus.log" 2>&1 &
PIDS+=($!)
wait_for "the campus sign-in gateway" "$!" "$CAMPUS_URL/healthz" "$WORK/campus.log"

rm -rf "$SCREENSHOT_DIR"
mkdir -p "$SCREENSHOT_DIR"
echo "check-browser: gateway at http://127.0.0.1:$PORT, campus sign-in gateway at $CAMPUS_URL with provider $OIDC_URL; screenshots go to $SCREENSHOT_DIR"
status=0
GATEWAY_URL="http://127.0.0.1:$PORT" GATEWAY_LOG="$WORK/serve.log" CAMPUS_GATEWAY_URL="$CAMPUS_URL" \
  CAMPUS_GATEWAY_LOG="$WORK/campus.log" OIDC_PROVIDER_URL="$OIDC_URL" .venv/bin/python Tests/Browser/run.py || status=$?
if [ "$status" -ne 0 ]; then
  echo "check-browser: the gateway's log:" >&2
  tail -n 40 "$WORK/serve.log" >&2
  echo "check-browser: the campus sign-in gateway's log:" >&2
  tail -n 40 "$WORK/campus.log" >&2
  echo "check-browser: the stand-in OpenID provider's log:" >&2
  tail -n 40 "$WORK/oidc.log" >&2
fi
exit "$status"
