#!/bin/bash
# Container health probe for Campus Gateway: GET <path> on this container's gateway port and
# succeed on a 200. Used by deploy/Dockerfile's HEALTHCHECK (/healthz) and deploy/compose.yaml
# (/readyz). bash's /dev/tcp does the request, so the runtime image needs no curl.
#
#   healthcheck [/healthz|/readyz]      (port: GATEWAY_PORT, default 8080)
set -euo pipefail
path="${1:-/healthz}"
port="${GATEWAY_PORT:-8080}"
exec 3<>"/dev/tcp/127.0.0.1/${port}"
printf 'GET %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n' "$path" >&3
IFS= read -r -t 5 status_line <&3
[[ "$status_line" == "HTTP/1."[01]" 200 "* ]]
