#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests and benchmarks: the one helper `make test`,
# `make check-slow` and `make bench` share (Tests/TestSupport/PostgresCluster.swift runs it).
#
#   scripts/pg-cluster.sh start DIR [--watch PID] [--durable]   prints the cluster's URL
#   scripts/pg-cluster.sh stop DIR
#
# `start` runs initdb in DIR (made fresh), then a server that listens on 127.0.0.1 only, on a
# free port, with its socket in DIR, trusting local connections of the user `gateway`. As root
# (CI), the server runs as the `postgres` user, which PostgreSQL requires. With --watch, the
# server is stopped and DIR removed once process PID is gone, so a killed test run leaves no
# server behind. Without --durable, fsync is off: test data need not survive a power cut, and
# the benchmarks pass --durable to measure what production pays.
set -euo pipefail

# Close every descriptor but stdin, stdout and stderr. The server and the watchdog outlive this
# script, and anything they inherit stays open as long as they run: a test process's other
# children (Foundation's Process watches a socket per child to learn that it exited) would then
# never be seen to exit.
for fd in /proc/$$/fd/*; do
  fd=${fd##*/}
  if [ "$fd" -gt 2 ] 2>/dev/null; then eval "exec $fd>&-" 2>/dev/null || true; fi
done

command=${1:-}
dir=${2:-}
[ -n "$command" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR [--watch PID] [--durable]" >&2; exit 2; }
shift 2
watch=""
durable=0
while [ $# -gt 0 ]; do
  case "$1" in
    --watch) watch=$2; shift 2 ;;
    --durable) durable=1; shift ;;
    *) echo "pg-cluster: unknown option $1" >&2; exit 2 ;;
  esac
done

bindir=${GATEWAY_PG_BIN:-}
if [ -z "$bindir" ]; then
  bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
fi
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
  echo "pg-cluster: PostgreSQL's server programs are not installed (looked in /usr/lib/postgresql/*/bin): run scripts/install-deps.sh" >&2
  exit 3
fi

as_owner=()
if [ "$(id -u)" -eq 0 ]; then
  as_owner=(runuser -u postgres --)
fi

case "$command" in
  stop)
    if [ -f "$dir/data/postmaster.pid" ]; then
      "${as_owner[@]}" "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
    ;;
  start)
    rm -rf "$dir"
    mkdir -p "$dir"
    [ ${#as_owner[@]} -eq 0 ] || chown postgres: "$dir"
    "${as_owner[@]}" "$bindir/initdb" -D "$dir/data" -U gateway --auth=trust -E UTF8 --locale=C -N >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 1; }
    settings=(-c listen_addresses=127.0.0.1 -c "unix_socket_directories=$dir" -c max_connections=300 -c shared_buffers=128MB)
    if [ "$durable" = 0 ]; then
      settings+=(-c fsync=off -c synchronous_commit=off -c full_page_writes=off)
    fi
    for attempt in 1 2 3 4 5; do
      port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
      "${as_owner[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 -o "-p $port ${settings[*]}" start >/dev/null 2>&1 && break
      port=""
    done
    if [ -z "$port" ]; then
      echo "pg-cluster: the server did not start:" >&2
      tail -20 "$dir/server.log" >&2 || true
      exit 1
    fi
    if [ -n "$watch" ]; then
      # Stops the server once the watched process is gone (or the cluster was stopped).
      nohup bash -c "while [ -d /proc/$watch ] && [ -f '$dir/data/postmaster.pid' ]; do sleep 1; done; '$0' stop '$dir'" \
        >/dev/null 2>&1 </dev/null &
    fi
    echo "postgres://gateway@127.0.0.1:$port/postgres?sslmode=disable"
    ;;
  *)
    echo "usage: $0 start|stop DIR [--watch PID] [--durable]" >&2
    exit 2
    ;;
esac
