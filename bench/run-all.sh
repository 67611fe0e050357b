#!/usr/bin/env bash
# `make bench`: runs every benchmark script in bench/ (each builds what it needs in release mode
# and sends traffic only to 127.0.0.1), one after another so they don't share the two cores,
# and prints each one's figures under its name. Record them in docs/benchmarks.md with the
# command that produced them. A failing benchmark fails the run after the others have run.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --bench >/dev/null
swift build -c release --product gateway --scratch-path "${SCRATCH:-.build-release}" >/dev/null || exit 1
export SKIP_BUILD=1
failed=()
for script in bench/*.sh; do
    case "$(basename "$script")" in run-all.sh | lib.sh) continue ;; esac
    echo "== $script ($(date -u +%H:%M:%S))"
    if ! bash "$script"; then failed+=("$script"); fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "failed: ${failed[*]}" >&2
    exit 1
fi
