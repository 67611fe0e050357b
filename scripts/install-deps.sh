#!/usr/bin/env bash
# Installs the system libraries Campus Gateway links against, only when they are missing,
# and a local Python venv with the OpenAPI validator and check-deploy's libraries
# (scripts/requirements-tools.txt) used by `make test`, and the test helpers.
# With --browser (what `make check-browser` passes) also Debian's chromium and chromium-driver
# and Selenium with axe-selenium-python (axe-core) in the venv, for the browser tests of the web
# pages (Tests/Browser).
# PostgreSQL's server programs are always installed: `make test` runs every store on both backends.
# With --run (what `make run` passes) only what building and serving the demo needs: the
# libraries the gateway links and curl; no PostgreSQL server, no promtool, no Python test tools.
# Without it, promtool (Debian's prometheus package, without its recommends) checks the alert
# rules in deploy/prometheus (scripts/check-deploy.py).
# With --bench (what the benchmarks in bench/ pass) also wrk and h2load (nghttp2-client), the
# load generators, valgrind (callgrind's instruction counts of the schedule builder, see
# docs/benchmarks.md), and huey in the venv: the job queue's ceiling.
set -euo pipefail

BROWSER=0
BENCH=0
RUN_ONLY=0
for arg in "$@"; do
  case "$arg" in
    --browser) BROWSER=1 ;;
    --bench) BENCH=1 ;;
    --run) RUN_ONLY=1 ;;
    *) echo "install-deps: unknown option $arg" >&2; exit 2 ;;
  esac
done

# postgresql: the server programs (initdb, postgres, pg_ctl) behind scripts/pg-cluster.sh, the
# throwaway clusters the PostgreSQL backend's tests and benchmarks start; psql and pgbench come
# with postgresql-client. No cluster of Debian's own is used.
PKGS=(libsqlite3-dev libcurl4-openssl-dev libargon2-dev openssl curl)
LEAN=()
if [ "$RUN_ONLY" = 0 ]; then
  PKGS+=(python3-venv postgresql postgresql-client util-linux)
  LEAN+=(prometheus)
fi
if [ "$BROWSER" = 1 ]; then
  PKGS+=(chromium chromium-driver)
fi
if [ "$BENCH" = 1 ]; then
  PKGS+=(wrk nghttp2-client valgrind)
fi
missing() {
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}
mapfile -t missing < <(missing "${PKGS[@]}")
mapfile -t missing_lean < <(missing "${LEAN[@]}")
if [ ${#missing[@]} -gt 0 ] || [ ${#missing_lean[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]} ${missing_lean[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  if [ ${#missing[@]} -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
  # Only for its promtool: no exporter, no service of its own is wanted.
  if [ ${#missing_lean[@]} -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing_lean[@]}" >/dev/null
  fi
fi

# The OpenAPI validator and the iCalendar checker used by SchedulingTests (icalendar and
# recurring-ical-events expand the calendars the gateway writes) live in a project-local venv
# so the system Python stays untouched.
if [ "${SKIP_PY_DEPS:-0}" != "1" ] && [ "$RUN_ONLY" = 0 ]; then
  VENV=".venv"
  if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
  fi
  if [ ! -x "$VENV/bin/openapi-spec-validator" ]; then
    "$VENV/bin/pip" install -q --disable-pip-version-check openapi-spec-validator==0.9.0 >/dev/null
  fi
  # scripts/check-deploy.py (`make test`): PyYAML, kubernetes-validate (the Kubernetes schemas,
  # offline) and dockerfile-parse, pinned in scripts/requirements-tools.txt; installed again
  # whenever an installed version differs from its pin.
  TOOLS="$(dirname "$0")/requirements-tools.txt"
  if ! "$VENV/bin/python" -c 'import sys, importlib.metadata as m
pins = [line.split("#")[0].strip().partition("==") for line in open(sys.argv[1])]
sys.exit(any(m.version(name) != version for name, _, version in pins if name))' "$TOOLS" 2>/dev/null; then
    "$VENV/bin/pip" install -q --disable-pip-version-check -r "$TOOLS" >/dev/null
  fi
  # Contract fuzzing (scripts/fuzz-contract.sh): `make test` runs a short pass.
  if [ ! -x "$VENV/bin/schemathesis" ]; then
    "$VENV/bin/pip" install -q --disable-pip-version-check schemathesis==4.32.5 >/dev/null
  fi
  if ! "$VENV/bin/python" -c "import icalendar, recurring_ical_events" 2>/dev/null; then
    "$VENV/bin/pip" install -q --disable-pip-version-check icalendar==7.3.0 recurring-ical-events==3.8.2 >/dev/null
  fi
  # PushTests: http_ece (an independent RFC 8188/8291 implementation) decrypts what the Web Push
  # channel encrypts, and cryptography verifies its VAPID signatures.
  if ! "$VENV/bin/python" -c "import http_ece, cryptography" 2>/dev/null; then
    "$VENV/bin/pip" install -q --disable-pip-version-check cryptography==50.0.2 http-ece==1.2.1 >/dev/null
  fi
  # PushTests: the APNs stand-in is an HTTP/2 TLS server built on h2; it verifies the provider
  # token's ES256 signature with cryptography.
  if ! "$VENV/bin/python" -c "import h2, cryptography" 2>/dev/null; then
    "$VENV/bin/pip" install -q --disable-pip-version-check cryptography==50.0.2 h2==4.4.1 >/dev/null
  fi
  # PushTests and GatewayTests: the SMTP stand-in (Tests/PushTests/Fixtures/smtp_standin.py) is a
  # real SMTP server on loopback built on aiosmtpd: STARTTLS, optional AUTH, scripted 4xx/5xx.
  if ! "$VENV/bin/python" -c "import aiosmtpd" 2>/dev/null; then
    "$VENV/bin/pip" install -q --disable-pip-version-check aiosmtpd==1.4.6 >/dev/null
  fi
  # Browser tests: Selenium drives Debian's chromium through its chromedriver.
  if [ "$BROWSER" = 1 ] && ! "$VENV/bin/python" -c "import selenium" 2>/dev/null; then
    "$VENV/bin/pip" install -q --disable-pip-version-check selenium==4.38.0 >/dev/null
  fi
  # Browser tests: axe-selenium-python ships axe-core (4.10.2 in 3.0.0) that the accessibility
  # checks inject into each page; nothing is fetched at run time. Its 3.0.0 declares Python 3.12
  # but is plain Python that runs on Debian's 3.11 (the 2.x line bundles axe-core 3.1, too old
  # for rules such as scrollable-region-focusable), hence --ignore-requires-python.
  if [ "$BROWSER" = 1 ] && [ "$("$VENV/bin/python" -c "import importlib.metadata as m; print(m.version('axe-selenium-python'))" 2>/dev/null)" != "3.0.0" ]; then
    "$VENV/bin/pip" install -q --disable-pip-version-check --ignore-requires-python axe-selenium-python==3.0.0 selenium==4.38.0 >/dev/null
  fi
  # Benchmarks: huey (SqliteHuey) is what bench/jobs-bench.sh measures the job queue against.
  if [ "$BENCH" = 1 ] && ! "$VENV/bin/python" -c "import huey" 2>/dev/null; then
    "$VENV/bin/pip" install -q --disable-pip-version-check huey==3.5.4 >/dev/null
  fi
fi
