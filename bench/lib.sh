# Shared set-up of the benchmark scripts, sourced by each: the repository root as the working
# folder, the load generators installed through scripts/install-deps.sh --bench, release builds
# in $SCRATCH (default .build-release), a temporary folder $DIR, and the processes in $PIDS
# stopped (and $DIR removed) when the script exits. Scripts with more to clean up define
# bench_extra_cleanup.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
SCRATCH=${SCRATCH:-.build-release}
bash scripts/install-deps.sh --bench >/dev/null

# bench_build PRODUCT...: release builds; the gateway is reused as it is with SKIP_BUILD=1
# (`make bench` builds it once), the others are always built; with SKIP_BUILD=all nothing is
# built (the binaries in $SCRATCH as they are, while others edit the sources). Sets BINDIR.
bench_build() {
    local product
    for product in "$@"; do
        if [ "$product" = gateway ] && [ "${SKIP_BUILD:-0}" = "1" ]; then continue; fi
        if [ "${SKIP_BUILD:-0}" = "all" ]; then continue; fi
        # Quiet when it works; built again, out loud, when it does not.
        swift build -c release --product "$product" --scratch-path "$SCRATCH" >/dev/null 2>&1 \
            || swift build -c release --product "$product" --scratch-path "$SCRATCH"
    done
    BINDIR=$(swift build -c release --scratch-path "$SCRATCH" --show-bin-path)
}

DIR=$(mktemp -d)
PIDS=()
bench_cleanup() {
    if declare -F bench_extra_cleanup >/dev/null; then bench_extra_cleanup; fi
    local pid
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$DIR"
}
trap bench_cleanup EXIT

# bench_figure NAME VALUE [UNIT]: one figure of this run, on a line of its own
# (`figure|NAME|VALUE|UNIT`); bench/run-all.sh runs each script $RUNS times (default 3) and
# prints every figure's median and spread. NAME says what it is and what it is a ratio to.
bench_figure() {
    printf 'figure|%s|%s|%s\n' "$1" "$2" "${3:-}"
}
# Which of run-all's runs this is (1 when a script runs alone); parts whose result does not
# vary from run to run (instruction counts) run only in the first.
BENCH_RUN=${BENCH_RUN:-1}
