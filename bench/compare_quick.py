#!/usr/bin/env python3
"""Compares one quick run's figures with the medians recorded in docs/benchmarks.md.

    compare_quick.py FIGURES BENCHMARKS_MD

FIGURES holds lines `script|name|value|unit` (bench/quick.sh). The recorded medians are the
table under the heading "## Quick figures" of BENCHMARKS_MD: rows `| script | figure | median |
spread | unit |`. A figure moved the wrong way by more than 25% is flagged: lower for ratios and
rates, higher for milliseconds, statements and counts of failed answers. Exits 1 when anything is flagged.
"""
import re
import sys

THRESHOLD = 0.25


def lower_is_better(name: str, unit: str) -> bool:
    return unit == "ms" or "p99" in name or "failed" in name or "busy" in name or "statements" in name


def recorded(path: str) -> dict:
    text = open(path, encoding="utf-8").read()
    match = re.search(r"^## Quick figures\b.*?(?=^## |\Z)", text, re.S | re.M)
    if not match:
        return {}
    table = {}
    for line in match.group(0).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0] not in ("script", "") and not set(cells[0]) <= set("-: "):
            try:
                table[(cells[0], cells[1])] = float(cells[2].replace(",", ""))
            except ValueError:
                pass
    return table


def main() -> int:
    figures_path, benchmarks = sys.argv[1], sys.argv[2]
    before = recorded(benchmarks)
    flagged = 0
    print()
    print(f"| script | figure | now | last median | change | |")
    print("|---|---|---:|---:|---:|---|")
    for line in open(figures_path, encoding="utf-8"):
        parts = line.rstrip("\n").split("|")
        if len(parts) < 3:
            continue
        script, name, value = parts[0], parts[1], float(parts[2])
        unit = parts[3] if len(parts) > 3 else ""
        last = before.get((script, name))
        if last is None:
            print(f"| {script} | {name} | {value:.3f} | (none recorded) | | |")
            continue
        if last == 0:
            # A count of failed answers recorded as 0: any failure now is worth a look.
            worse = value > 0 and lower_is_better(name, unit)
            flagged += worse
            print(f"| {script} | {name} | {value:.3f} | 0 | | {'**worse**' if worse else ''} |")
            continue
        change = (value - last) / last
        worse = change > THRESHOLD if lower_is_better(name, unit) else change < -THRESHOLD
        flagged += worse
        print(f"| {script} | {name} | {value:.3f} | {last:.3f} | {change:+.0%} | {'**worse by more than 25%**' if worse else ''} |")
    print()
    print(f"quick: {flagged} figure(s) flagged" if flagged else "quick: nothing moved the wrong way by more than 25%")
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main())
