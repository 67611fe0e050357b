#!/usr/bin/env python3
"""Registration opening from one campus network: N students, all from 127.0.0.1, each make
their first SDSU request (`studentclasses`, which needs their password verified) at the same
moment, against a server that has just started (no credential cached).

Usage: opening_crowd.py URL STUDENTS FIRST_REDID PASSWORD
Prints one `opening:` line: how many answered, how many were refused as busy (or failed),
p50 and p99 of the answers' latency, and the time until the last student was served.
"""
import json
import statistics
import sys
import threading
import time
import urllib.error
import urllib.request

url, students, first, password = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
start = threading.Barrier(students + 1)
results = [None] * students


def student(index):
    redid = first + index
    request = f"{url}/registration/studentclasses?redid={redid}&password={password}"
    start.wait()
    began = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=120) as answer:
            body = answer.read()
            status = answer.status
    except urllib.error.HTTPError as error:
        body, status = error.read(), error.code
    except Exception as error:  # noqa: BLE001 - a refused or reset connection is a failure to report
        body, status = str(error).encode(), 0
    served = time.monotonic()
    try:
        ok = status == 200 and "error" not in json.loads(body)
    except ValueError:
        ok = False
    results[index] = (ok, served - began, served, body[:120])


threads = [threading.Thread(target=student, args=(i,)) for i in range(students)]
for thread in threads:
    thread.start()
start.wait()
t0 = time.monotonic()
for thread in threads:
    thread.join()
latencies = sorted(r[1] * 1000 for r in results)
served = sum(1 for r in results if r[0])
failed = [r[3] for r in results if not r[0]]
last = max(r[2] for r in results) - t0
p99 = latencies[min(len(latencies) - 1, int(round(0.99 * len(latencies))) - 1)]
print(f"opening: students={students} served={served} busy_or_failed={len(failed)} "
      f"p50_ms={statistics.median(latencies):.1f} p99_ms={p99:.1f} all_served_s={last:.2f}")
for body in failed[:3]:
    print("  failed:", body, file=sys.stderr)
