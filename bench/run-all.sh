#!/usr/bin/env bash
# `make bench`: runs every benchmark script in bench/ (each builds what it needs in release mode
# and sends traffic only to 127.0.0.1) RUNS times (default 3), one script after another so they
# don't share the two cores, and prints each run's figures under its name. Each script marks
# its headline figures with bench_figure (bench/lib.sh): mostly ratios to a ceiling measured
# in the same run. At the end comes their median over the runs and the spread (lowest and
# highest): the table docs/benchmarks.md records, with the time and load it ran at.
# A failing benchmark fails the run after the others have run. ONLY=name runs one script
# (e.g. ONLY=registration-bench).
set -uo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
bash scripts/install-deps.sh --bench >/dev/null
swift build -c release --product gateway --scratch-path "${SCRATCH:-.build-release}" >/dev/null || exit 1
export SKIP_BUILD=1
FIGURES=$(mktemp)
trap 'rm -f "$FIGURES"' EXIT
STARTED="$(date -u '+%Y-%m-%d %H:%M') UTC, load average $(cut -d' ' -f1-3 /proc/loadavg)"
failed=()
for script in bench/*.sh; do
    name=$(basename "$script" .sh)
    case "$name" in run-all | lib | quick) continue ;; esac
    if [ -n "${ONLY:-}" ] && [ "$ONLY" != "$name" ]; then continue; fi
    for run in $(seq 1 "$RUNS"); do
        echo "== $script, run $run of $RUNS ($(date -u +%H:%M:%S), load $(cut -d' ' -f1 /proc/loadavg))"
        if ! BENCH_RUN=$run bash "$script" 2>&1 | tee >(grep '^figure|' | sed "s/^figure|/$name|/" >> "$FIGURES"); then
            failed+=("$script (run $run)")
        fi
    done
done
sleep 1 # the last tee's figures
echo
echo "== Figures: median of $RUNS runs [lowest–highest]; started $STARTED, ended $(date -u +%H:%M) UTC, load average $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
python3 bench/summarize.py "$FIGURES"
if [ ${#failed[@]} -gt 0 ]; then
    echo "failed: ${failed[*]}" >&2
    exit 1
fi
