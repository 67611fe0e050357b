"""Check the files in deploy/ against the gateway CLI they configure.

    python3 scripts/check-deploy.py [GATEWAY_BINARY] [--deploy-dir DIR] [--verbose]

scripts/check-deploy.py runs this package with .venv's Python, where scripts/install-deps.sh
installs the libraries pinned in scripts/requirements-tools.txt (PyYAML, kubernetes-validate,
dockerfile-parse).

GATEWAY_BINARY defaults to .build/debug/gateway. No Docker engine or network is needed: the
script reads the files and runs only `GATEWAY_BINARY [subcommand...] --help`.

Where the truth comes from
- Commands and flags: the binary's own help. `gateway --help` lists the subcommands; each
  `gateway <subcommand> --help` (recursively, e.g. `jobs list`) lists its options, and whether
  an option takes a value (`--port <port>`) or is a plain flag (`--require-https`).
- GATEWAY_* variables: every name the help text prints. The project writes them into the help
  of each option, e.g. "(GATEWAY_JOB_POLL_MS)". Variables that no option has, and so no help
  prints (GATEWAY_VAULT_KEY, GATEWAY_METRICS_TOKEN, GATEWAY_SMTP_*, GATEWAY_APNS_*, ...), are
  taken from the tables of docs/configuration.md, which is the source of truth for them.
- Probe routes: the "healthz" and "readyz" routes registered in
  Sources/GatewayApp/OpsRoutes.swift. Where the binary looks for its API description and web
  pages: OpsRoutes.locateSpec ("openapi/openapi.yaml" in the working directory or up to six
  folders above the executable) and WebAssets.installed (the bundle beside the executable).

What is checked
- Every file in deploy/: each GATEWAY_* name anywhere in it (settings, comments, commented-out
  lines) is a variable the gateway reads.
- Dockerfile (read with dockerfile-parse): the gateway invocations (ENTRYPOINT + CMD, RUN
  lines that call gateway) use subcommands and options the CLI has, with values where needed;
  every COPY source from the build context exists in the repository (the context is the
  repository root; a wildcard may match nothing, which is how an optional file is copied) and
  is not excluded by Dockerfile.dockerignore; the final stage runs as a non-root USER,
  EXPOSEs GATEWAY_PORT, installs openapi/openapi.yaml and the web bundle where the binary
  finds them, and its HEALTHCHECK asks for /healthz or /readyz with a program the image
  installs.
- compose.yaml: the services built from deploy/Dockerfile (or using its image) are gateways;
  their command and entrypoint are checked like the Dockerfile's, their healthchecks must ask
  for /healthz or /readyz, env_file entries must exist or have a committed .example, and a
  reverse proxy service (caddy, nginx, traefik, haproxy) with a fixed address must be trusted
  by every gateway through --trusted-proxies or GATEWAY_TRUSTED_PROXIES (--trust-proxy trusts
  loopback only, which another container never is). YAML is read with PyYAML's safe loader; a
  key given twice in one mapping is a problem.
- systemd units (*.service): gateway invocations in Exec*= lines.
- Caddyfile: health_uri is /healthz or /readyz; reverse_proxy upstreams are gateway services
  of compose.yaml on their port.
- Every compose file's services rotate their logs (json-file with max-size and max-file). An
  override (compose.<name>.yaml) is merged onto compose.yaml as compose merges it and checked
  like it; a gateway's OTEL_EXPORTER_OTLP_ENDPOINT must name a service on a network it shares,
  whose mounted collector configuration receives OTLP/HTTP on that port into a traces pipeline.
- kubernetes/*.yaml (multi-document): each manifest valid against the Kubernetes API's schemas
  (kubernetes-validate, strict: no unknown fields; offline; kubernetes.py names the version);
  known apiVersion and kind (those this checker understands), names, selectors matching pod
  labels; gateway containers' command and args checked like the Dockerfile's (against the
  image's ENTRYPOINT and CMD); a non-loopback host; readiness on /readyz and liveness on
  /healthz at the gateway's port; runAsNonRoot, readOnlyRootFilesystem, no privilege
  escalation, capabilities dropped, resource requests; secrets as files: every secret *_FILE
  variable inside a mounted Secret volume holding that key, no secretKeyRef for a variable that
  has a *_FILE form, no password in the database URL; the Service selects only pods with
  --no-workers, some Deployment runs workers, and a PodDisruptionBudget covers the web pods
  without blocking drains.
- prometheus/*.yaml and grafana/*.json: every metric, histogram series and label in the rules'
  and panels' PromQL (and the labels their annotations and legends name) is in the metrics
  tables of docs/operations.md, which are the one list of what the gateway exposes; PromQL
  functions exist; rules have a severity and a summary; the dashboard shows every metric.
  With promtool on the PATH (Debian's prometheus package), `promtool check rules` and
  `promtool test rules` on *.test.yaml run too.
- In the comments of the systemd unit, the Caddyfile, nginx and env files (which describe only
  the gateway), every --flag names an option of some gateway command. Comments of the
  Dockerfile and compose.yaml also show docker and swift commands, so only their real
  invocations are checked.

Each problem is printed on its own line and the exit status is 1; when all is well one summary
line is printed and the exit status is 0. Status 2: the binary could not be run.

Modules: cli (the CLI from its help, invocations), dockerfile, compose and tracing, kubernetes
and pods, promql and prometheus_grafana, proxies (Caddyfile, flags in comments), systemd, and
main, which reads deploy/ and runs them.
"""
