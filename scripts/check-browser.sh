#!/usr/bin/env bash
# Browser tests of the web pages (Tests/Browser): builds the gateway, serves the demo on a free
# loopback port with a fresh database, drives headless Chromium against it with Selenium, keeps
# the screenshots in $SCREENSHOT_DIR (artifacts/screenshots by default) and stops the server.
# The server's log goes to a file the tests read ($GATEWAY_LOG): without SMTP the demo's log
# mailer writes each email confirmation's code there, which a test types into the page.
# SWIFT_BUILD_FLAGS passes flags to `swift build` (for example `--scratch-path .build-web`).
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT="${SWIFT:-swift}"
read -r -a FLAGS <<< "${SWIFT_BUILD_FLAGS:-}"
export SCREENSHOT_DIR="${SCREENSHOT_DIR:-artifacts/screenshots}"

bash scripts/install-deps.sh --browser
"$SWIFT" build "${FLAGS[@]}" --product gateway
BIN="$("$SWIFT" build "${FLAGS[@]}" --show-bin-path)"

WORK="$(mktemp -d)"
PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
# The offer policy, so that a test can follow a waitlist seat offer to its acceptance.
"$BIN/gateway" serve --demo --demo-passwords documented --host 127.0.0.1 --port "$PORT" \
  --waitlist-policy offer --database "$WORK/demo.sqlite" > "$WORK/serve.log" 2>&1 &
SERVER=$!
stop() {
  kill "$SERVER" 2>/dev/null || true
  wait "$SERVER" 2>/dev/null || true
  rm -rf "$WORK"
}
trap stop EXIT

for _ in $(seq 1 100); do
  curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break
  if ! kill -0 "$SERVER" 2>/dev/null; then
    echo "check-browser: the gateway did not start:" >&2
    cat "$WORK/serve.log" >&2
    exit 1
  fi
  sleep 0.2
done

rm -rf "$SCREENSHOT_DIR"
mkdir -p "$SCREENSHOT_DIR"
echo "check-browser: gateway at http://127.0.0.1:$PORT; screenshots go to $SCREENSHOT_DIR"
status=0
GATEWAY_URL="http://127.0.0.1:$PORT" GATEWAY_LOG="$WORK/serve.log" .venv/bin/python Tests/Browser/run.py || status=$?
if [ "$status" -ne 0 ]; then
  echo "check-browser: the gateway's log:" >&2
  tail -n 40 "$WORK/serve.log" >&2
fi
exit "$status"
