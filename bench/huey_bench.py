"""The ceiling for bench/jobs-bench.sh: huey (PyPI) on SQLite, on the same machine in the same run.

Measures, like jobs-bench does for the gateway's queue:
  drain:      N no-op tasks already enqueued; huey's consumer with W worker threads runs them all;
  end to end: the consumer runs while this process enqueues N no-op tasks one at a time.

SqliteHuey keeps its queue in WAL mode. Two configurations: huey as installed (SQLite's default
synchronous=FULL: every commit waits for an fsync of the WAL), and `--sync normal`, which sets
synchronous=NORMAL as the gateway's store does, so both pay the same per commit. Note what huey
does not do: a dequeue deletes the task (no lease, no completion record), so a crash mid-task
loses it; the gateway records a lease on claim and a completion after.

    .venv/bin/python bench/huey_bench.py --jobs 20000 --workers 4 [--sync default|normal]
Prints one line per measurement: `huey (default) drain, 4 worker(s): 3012 jobs/s ...`.
"""
import argparse
import logging
import os
import shutil
import tempfile
import threading
import time

from huey import SqliteHuey
from huey.storage import SqliteStorage


class NormalSyncStorage(SqliteStorage):
    """SqliteHuey's storage with synchronous=NORMAL (the gateway's setting)."""

    def _create_connection(self):
        conn = super()._create_connection()
        conn.execute('pragma synchronous=1')
        return conn


class Counter:
    def __init__(self):
        self.lock = threading.Lock()
        self.value = 0

    def add(self):
        with self.lock:
            self.value += 1


def make_huey(path, counter, sync):
    storage = NormalSyncStorage if sync == 'normal' else SqliteStorage
    huey = SqliteHuey('bench', filename=path, storage_class=storage, results=False)

    @huey.task()
    def noop():
        counter.add()

    return huey, noop


def consumer_for(huey, workers):
    # Idle workers poll every 1 ms (huey's default backs off from 100 ms to 10 s, which would
    # measure the back-off, not the queue).
    return huey.create_consumer(
        workers=workers, worker_type='thread', periodic=False, initial_delay=0.001, backoff=1.0,
        max_delay=0.001, check_worker_health=False)


def wait_for(counter, n):
    while counter.value < n:
        time.sleep(0.001)


def drain(directory, jobs, workers, sync):
    counter = Counter()
    huey, noop = make_huey(os.path.join(directory, 'drain-%s.db' % sync), counter, sync)
    for _ in range(jobs):
        noop()
    consumer = consumer_for(huey, workers)
    start = time.monotonic()
    consumer.start()
    wait_for(counter, jobs)
    elapsed = time.monotonic() - start
    consumer.stop(graceful=True)
    return jobs / elapsed, elapsed


def end_to_end(directory, jobs, workers, sync):
    counter = Counter()
    huey, noop = make_huey(os.path.join(directory, 'e2e-%s.db' % sync), counter, sync)
    consumer = consumer_for(huey, workers)
    consumer.start()
    time.sleep(0.05)
    start = time.monotonic()
    for _ in range(jobs):
        noop()
    wait_for(counter, jobs)
    elapsed = time.monotonic() - start
    consumer.stop(graceful=True)
    return jobs / elapsed, elapsed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--jobs', type=int, default=20000)
    parser.add_argument('--workers', type=int, default=4)
    parser.add_argument('--sync', choices=['default', 'normal'], default='default')
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    directory = tempfile.mkdtemp(prefix='huey-bench-')
    try:
        rate, elapsed = drain(directory, args.jobs, args.workers, args.sync)
        print('huey (%s) drain, %d worker(s): %.0f jobs/s (%d jobs in %.2f s)' % (args.sync, args.workers, rate, args.jobs, elapsed), flush=True)
        rate, elapsed = end_to_end(directory, args.jobs, args.workers, args.sync)
        print('huey (%s) end to end, %d worker(s): %.0f jobs/s (%d jobs in %.2f s)' % (args.sync, args.workers, rate, args.jobs, elapsed), flush=True)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == '__main__':
    main()
