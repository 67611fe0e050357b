"""Median and spread of the figures bench/run-all.sh collected (lines `script|name|value|unit`,
one per run), as a Markdown table in the order they first appeared."""
import statistics
import sys

figures = {}
for line in open(sys.argv[1]):
    parts = line.rstrip("\n").split("|")
    if len(parts) != 4:
        continue
    script, name, value, unit = parts
    try:
        number = float(value)
    except ValueError:
        continue
    figures.setdefault((script, name, unit), []).append(number)


def show(x):
    if abs(x) >= 100:
        return f"{x:,.0f}"
    if abs(x) >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


print("| benchmark | figure | median | spread | runs |")
print("|---|---|---:|---:|---:|")
for (script, name, unit), values in figures.items():
    unit = f" {unit}" if unit else ""
    spread = f"{show(min(values))}–{show(max(values))}" if len(values) > 1 else "one run"
    print(f"| {script} | {name} | {show(statistics.median(values))}{unit} | {spread} | {len(values)} |")
