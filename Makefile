# Campus Gateway: `make run` serves the demo, `make test` runs every check CI runs.
SHELL := /bin/bash
SWIFT ?= swift
PORT ?= 8080
DATABASE ?= ./data/demo.sqlite

.PHONY: run test build release deps check-slow check-drills check-browser openapi-validate bench bench-quick clean fuzz-data

deps:
	@bash scripts/install-deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

## Serve the demo on an embedded SQLite file with seeded data at http://127.0.0.1:$(PORT)
## (only what building and serving need is installed: no PostgreSQL server, no test tools)
run:
	@bash scripts/install-deps.sh --run
	$(SWIFT) build --product gateway
	GATEWAY_SIMULATOR_ADMIN_TOKEN=$${GATEWAY_SIMULATOR_ADMIN_TOKEN:-demo-simulator-admin-token} \
	GATEWAY_PUBLIC_URL=$${GATEWAY_PUBLIC_URL:-http://127.0.0.1:$(PORT)} \
	$$($(SWIFT) build --show-bin-path)/gateway serve --demo --demo-passwords documented --host 127.0.0.1 --port $(PORT) --database $(DATABASE)

## Everything CI checks: the OpenAPI document is valid, Package.swift declares exactly what
## each target imports, then the whole test suite in three parts: the modules' own suites, the
## ones that start servers and child processes (processes, Auth, Gradebook), then the whole
## application's (GatewayTests). Two cores running all of them at once starved live-server and
## timing tests (the 15 s test-client timeout, throttle windows).
## AuthTests run alone: their campus sign-in suites talk to an OpenID stand-in in this process,
## and the process tests' blocking waits for their children (waitUntilExit on Swift's two
## concurrency threads) starved it past the 10 s discovery timeout when both ran at once.
## A crash prints only the crashed thread's frames (what a CI log's tail can show).
export SWIFT_BACKTRACE ?= enable=yes,interactive=no,threads=crashed,registers=none,images=none

test: deps openapi-validate
	python3 scripts/check-manifest.py
	$(SWIFT) build --build-tests
	.venv/bin/python scripts/check-deploy.py $$($(SWIFT) build --show-bin-path)/gateway
	@bash scripts/run-tests.sh $(SWIFT) test --skip-build --skip '^(GatewayTests|GatewayProcessTests|AuthTests|GradebookTests|GradebookSimulatorTests|ClientJourneyTests)\.'
	@bash scripts/run-tests.sh $(SWIFT) test --skip-build --filter '^(GatewayProcessTests|GradebookTests|GradebookSimulatorTests|ClientJourneyTests)\.'
	@bash scripts/run-tests.sh $(SWIFT) test --skip-build --filter '^AuthTests\.'
	@bash scripts/run-tests.sh $(SWIFT) test --skip-build --filter '^GatewayTests\.'
	bash scripts/fuzz-contract.sh --short --binary $$($(SWIFT) build --show-bin-path)/gateway

openapi-validate: deps
	@.venv/bin/openapi-spec-validator openapi/openapi.yaml

## Slow suites kept out of `make test`: soaks, the multi-instance suite, the crash, storage and
## upstream fault drills, and the long fuzzing passes on both backends. The drills run one at a
## time, after the rest: each loads the machine on purpose (the fault drill compares latencies
## within its own run), so none may skew another.
check-slow: deps
	$(SWIFT) build --build-tests
	GATEWAY_SLOW_TESTS=1 bash scripts/run-tests.sh $(SWIFT) test --skip-build --filter Slow --skip DrillSlowTests
	GATEWAY_SLOW_TESTS=1 bash scripts/run-tests.sh $(SWIFT) test --skip-build --no-parallel --filter DrillSlowTests
	bash scripts/fuzz-contract.sh --backend sqlite
	bash scripts/fuzz-contract.sh --backend postgres

## What CI runs after `make test`: every slow suite trimmed (GATEWAY_SLOW_TESTS=ci): the
## multi-instance races, the soak, both kill -9 crash drills, the storage-failure drill (the
## full disk needs root, as CI has) and the upstream fault drill, with fewer kills and shorter
## phases but the same checks. The drills run one at a time, as in check-slow.
check-drills: deps
	$(SWIFT) build --build-tests
	GATEWAY_SLOW_TESTS=ci bash scripts/run-tests.sh $(SWIFT) test --skip-build --filter Slow --skip DrillSlowTests
	GATEWAY_SLOW_TESTS=ci bash scripts/run-tests.sh $(SWIFT) test --skip-build --no-parallel --filter DrillSlowTests

## The fuzzer's data checks (negative data rejected, schema-valid data accepted): what they
## still find is listed in docs/security.md.
fuzz-data: deps
	$(SWIFT) build --build-tests
	bash scripts/fuzz-contract.sh --backend sqlite --checks all

## Browser tests of the web app and the operator console: headless Chromium (installed with
## `scripts/install-deps.sh --browser`) against a live `serve --demo`; screenshots in
## artifacts/screenshots. SWIFT_BUILD_FLAGS passes flags to swift build (e.g. --scratch-path).
check-browser:
	SWIFT="$(SWIFT)" bash scripts/check-browser.sh

bench: deps
	bash bench/run-all.sh

## The key ratios once (a few minutes), beside the last medians in docs/benchmarks.md; flags a
## figure that moved the wrong way by more than 25%. Run it before resolving an issue that
## touches Auth, Storage, Registration or the request path.
bench-quick: deps
	bash bench/quick.sh

clean:
	rm -rf .build data
