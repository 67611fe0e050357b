#!/usr/bin/env python3
"""Lists the tests a swift-testing log shows as started and never finished.

Usage: unfinished-tests.py LOG

run-tests.sh calls it when a run hits its time limit, so a hang names its test instead of
ending as a bare timeout. Swift Testing writes `◇ Test NAME started.` and then
`✔ Test NAME passed ...`, `✘ Test NAME failed ...` or `➜ Test NAME skipped ...`.
"""
import re
import sys

START = re.compile(r"^◇ Test (?!case )(.+?) started\.$")
END = re.compile(r"^[✔✘➜↳] Test (?!case )(.+?) (?:passed|failed|skipped|with \d+ test case)")


def unfinished(lines):
    open_tests = {}
    for number, line in enumerate(lines, 1):
        line = line.rstrip("\n")
        started = START.match(line)
        if started:
            open_tests[started.group(1)] = number
            continue
        ended = END.match(line)
        if ended:
            open_tests.pop(ended.group(1), None)
    return sorted(open_tests.items(), key=lambda item: item[1])


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: unfinished-tests.py LOG")
    with open(sys.argv[1], encoding="utf-8", errors="replace") as log:
        names = unfinished(log)
    if not names:
        print("(none: every test that started also finished)")
    for name, line in names:
        print(f"  {name}  (started at log line {line})")


if __name__ == "__main__":
    main()
