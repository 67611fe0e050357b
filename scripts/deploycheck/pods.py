"""A gateway container of a Kubernetes Deployment: its invocation and environment, secrets as
files from a Secret volume, where it listens and how it is probed, a non-root read-only sandbox
and resource requests."""

from __future__ import annotations

import re

from .cli import Invocation, check_invocation, is_gateway
from .context import DEFAULT_PORT, Context
from .yamlfiles import as_argv, as_list, text_of

# *_FILE variables that name a secret. CA bundles are public and the port file is written, not read;
# the vault key file must be 0600 and owned by the gateway's user, which a Secret volume never is.
NOT_SECRET_FILES = re.compile(r"^GATEWAY_(\w+_CA_FILE|PORT_FILE|VAULT_KEY_FILE)$")
TRUE_WORDS = ("1", "true", "yes", "on")


def as_int(value) -> int | None:
    """An integer, a string of digits, or octal written with a leading 0 (file modes)."""
    try:
        return int(str(value), 8) if str(value).startswith("0") and len(str(value)) > 1 else int(str(value))
    except (TypeError, ValueError):
        return None


class Pod:
    """What a container's checks need from its pod and the other manifests."""

    def __init__(self, ctx: Context, folder, spec: dict, config_maps: dict, secrets: dict, known_envs: set[str]):
        self.ctx, self.folder, self.config_maps, self.secrets, self.known_envs = ctx, folder, config_maps, secrets, known_envs
        self.volumes = {str(v.get("name")): v for v in as_list(spec.get("volumes")) if isinstance(v, dict)}
        self.security = spec.get("securityContext") or {}


def _secret_file_var(var: str, known_envs: set[str]) -> bool:
    return f"{var}_FILE" in known_envs and not NOT_SECRET_FILES.match(f"{var}_FILE")


def _environment(pod: Pod, label: str, container: dict, env: dict[str, str]):
    problems = pod.ctx.problems
    for source in as_list(container.get("envFrom")):
        ref = (source or {}).get("configMapRef")
        if isinstance(ref, dict):
            config = pod.config_maps.get(str(ref.get("name")))
            if config is None and not ref.get("optional"):
                problems.append(f"{label}: envFrom ConfigMap {ref.get('name')} is not in {pod.ctx.show(pod.folder)}/")
            elif config is not None:
                env.update({str(k): text_of(v) for k, v in (config.get("data") or {}).items()})
        if isinstance((source or {}).get("secretRef"), dict):
            problems.append(f"{label}: envFrom a Secret puts every secret in the environment; mount it as files")
    for variable in as_list(container.get("env")):
        if not isinstance(variable, dict) or not variable.get("name"):
            problems.append(f"{label}: an env entry without a name")
            continue
        var = str(variable["name"])
        if ((variable.get("valueFrom") or {}).get("secretKeyRef")) is not None:
            if _secret_file_var(var, pod.known_envs):
                problems.append(f"{label}: {var} comes from a Secret as a variable; mount the Secret and set {var}_FILE")
            env[var] = "<secret>"
        elif "value" in variable:
            env[var] = text_of(variable["value"])
    for var, value in env.items():
        if var.startswith("GATEWAY_") and re.search(r"PASSWORD|SECRET|TOKEN|_KEY$", var) and not var.endswith("_FILE") \
                and value != "<secret>" and _secret_file_var(var, pod.known_envs):
            problems.append(f"{label}: {var} is set in plain text; put it in the Secret and set {var}_FILE")


def _secret_volume(pod: Pod, label: str, var: str, value: str, mount: dict, secret_volume: dict):
    problems = pod.ctx.problems
    key = value[len(str(mount["mountPath"]).rstrip("/")) + 1:]
    items = {str(i.get("path")): str(i.get("key")) for i in as_list(secret_volume.get("items")) if isinstance(i, dict)}
    if items:
        if key not in items:
            problems.append(f"{label}: {var}: the Secret volume's items have no path {key}")
        key = items.get(key, key)
    secret = pod.secrets.get(str(secret_volume.get("secretName")))
    if secret is not None:
        keys = set((secret.get("stringData") or {})) | set((secret.get("data") or {}))
        if key not in keys:
            problems.append(f"{label}: {var} reads key {key}, which Secret {secret_volume.get('secretName')} does not have")
    mode = as_int(secret_volume.get("defaultMode", "0644"))
    run_as_user = pod.security.get("runAsUser")
    if mode is not None and mode & 0o007:
        problems.append(f"{label}: the Secret volume's defaultMode {oct(mode)} lets every user of the pod read it; use 0440 with fsGroup")
    if mode is not None and not mode & 0o040 and as_int(run_as_user) not in (None, 0):
        problems.append(f"{label}: the Secret volume's files ({oct(mode)}, owned by root) are unreadable by uid "
                        f"{run_as_user}; give 0440 and fsGroup")
    if mode is not None and mode & 0o040 and not pod.security.get("fsGroup"):
        problems.append(f"{label}: the Secret volume is group-readable but the pod sets no fsGroup, so root's group owns it")


def _secret_files(pod: Pod, label: str, container: dict, env: dict[str, str]):
    """Every secret *_FILE path is inside a mounted Secret volume that holds that key."""
    problems = pod.ctx.problems
    mounts = [m for m in as_list(container.get("volumeMounts")) if isinstance(m, dict)]
    for var, value in env.items():
        if not (var.startswith("GATEWAY_") and var.endswith("_FILE")) or not value:
            continue
        mount = next((m for m in mounts if value.startswith(str(m.get("mountPath", "")).rstrip("/") + "/")), None)
        volume = pod.volumes.get(str(mount.get("name"))) if mount else None
        if var == "GATEWAY_VAULT_KEY_FILE" and volume and "secret" in volume:
            problems.append(f"{label}: GATEWAY_VAULT_KEY_FILE in a Secret volume: the key file must be 0600 and owned by "
                            f"the gateway's user, which a Secret volume never is; use GATEWAY_VAULT_KEY from a secretKeyRef")
            continue
        if NOT_SECRET_FILES.match(var):
            continue
        if mount is None:
            problems.append(f"{label}: {var}={value} is under no volumeMount")
        elif volume is None:
            problems.append(f"{label}: {var}: the volume {mount.get('name')} is not in the pod's volumes")
        elif "secret" not in volume:
            problems.append(f"{label}: {var}={value} is not in a Secret volume")
        else:
            _secret_volume(pod, label, var, value, mount, volume["secret"] or {})


def _probes(ctx: Context, label: str, container: dict, invocation: Invocation, env: dict[str, str], port: str, ports: dict):
    problems = ctx.problems
    for probe_name, wanted in (("readinessProbe", "/readyz"), ("livenessProbe", "/healthz"), ("startupProbe", None)):
        probe = container.get(probe_name)
        if probe is None:
            if wanted:
                problems.append(f"{label}: no {probe_name} (on {wanted})")
            continue
        get = (probe or {}).get("httpGet") or {}
        path_asked = str(get.get("path", ""))
        if wanted and path_asked != wanted:
            problems.append(f"{label}: {probe_name} asks {path_asked or 'nothing over HTTP'}, not {wanted}"
                            + (": a database outage would restart every pod" if probe_name == "livenessProbe" and path_asked == "/readyz" else ""))
        elif not wanted and path_asked not in ctx.probes:
            problems.append(f"{label}: {probe_name} asks {path_asked}, none of {', '.join(sorted(ctx.probes))}")
        if "deep" in path_asked:
            problems.append(f"{label}: {probe_name}: /readyz?deep=1 needs an admin's token")
        probe_port = str(get.get("port", ""))
        if ports.get(probe_port, probe_port) != port:
            problems.append(f"{label}: {probe_name} probes port {probe_port}, but the gateway listens on {port}")
        if str(get.get("scheme", "HTTP")).upper() == "HTTPS" and not invocation.options.get("--tls-cert") and not env.get("GATEWAY_TLS_CERT"):
            problems.append(f"{label}: {probe_name} uses HTTPS, but the gateway serves plain HTTP")


def _sandbox(pod: Pod, label: str, container: dict):
    """Non-root, read-only, no privileges, resources requested."""
    problems = pod.ctx.problems
    security = container.get("securityContext") or {}
    run_as_user = security.get("runAsUser", pod.security.get("runAsUser"))
    non_root = security.get("runAsNonRoot", pod.security.get("runAsNonRoot"))
    if text_of(non_root).lower() != "true" or as_int(run_as_user) in (None, 0):
        problems.append(f"{label}: set runAsNonRoot: true and a non-zero runAsUser (the image's gateway user is 10001)")
    if text_of(security.get("readOnlyRootFilesystem")).lower() != "true":
        problems.append(f"{label}: readOnlyRootFilesystem is not true")
    if text_of(security.get("allowPrivilegeEscalation")).lower() != "false":
        problems.append(f"{label}: allowPrivilegeEscalation is not false")
    if "ALL" not in [str(c) for c in as_list(((security.get("capabilities") or {}).get("drop")))]:
        problems.append(f"{label}: capabilities.drop does not include ALL")
    requests = ((container.get("resources") or {}).get("requests")) or {}
    for resource in ("cpu", "memory"):
        if not requests.get(resource):
            problems.append(f"{label}: no resources.requests.{resource}")


def check_container(pod: Pod, label: str, container: dict, gateway_image) -> dict | None:
    """Checks a gateway container. None when the container is no gateway (or cannot be checked);
    else where it listens: {"port": its port, "ports": containerPorts by name, "workers": bool}."""
    ctx, problems = pod.ctx, pod.ctx.problems
    image_name = str(container["image"]).split("/")[-1].split("@")[0].split(":")[0]
    command = as_argv(container.get("command"))
    if not (image_name == "campus-gateway" or (command and is_gateway(command[0]))):
        return None
    if gateway_image is None:
        problems.append(f"{label}: no deploy/ Dockerfile whose ENTRYPOINT is the gateway to compare with")
        return None
    entry_default, cmd_default = gateway_image.gateway_argv()
    args = as_argv(container.get("args"))
    if command is not None:
        if not command or not is_gateway(command[0]):
            problems.append(f"{label}: command {command} is not the gateway binary")
            return None
        argv = command[1:] + (args or [])  # a command replaces the image's ENTRYPOINT and CMD
    else:
        argv = entry_default[1:] + (args if args is not None else cmd_default)
    invocation = check_invocation(ctx.cli, argv, label, problems)
    ctx.invocations += 1
    if invocation.command.path != ("serve",):
        problems.append(f"{label}: runs `{invocation.command.name}`, not `gateway serve`")

    env: dict[str, str] = dict(gateway_image.final.env)
    _environment(pod, label, container, env)
    database = invocation.options.get("--database") or env.get("GATEWAY_DATABASE") or ""
    if re.match(r"^postgres(ql)?://[^/@]*:[^/@]*@", database):
        problems.append(f"{label}: the database URL carries a password; give it as GATEWAY_DATABASE_PASSWORD_FILE from the Secret")
    if database and not database.startswith(("postgres://", "postgresql://")):
        problems.append(f"{label}: GATEWAY_DATABASE is not a postgres:// URL; pods share one PostgreSQL database")
    _secret_files(pod, label, container, env)

    host = invocation.options.get("--host") or env.get("GATEWAY_HOST") or "127.0.0.1"
    if host in ("127.0.0.1", "localhost", "::1") or host.startswith("127."):
        problems.append(f"{label}: listens on {host}; the kubelet's probes and the Service reach the pod's address (GATEWAY_HOST 0.0.0.0)")
    port = str(invocation.options.get("--port") or env.get("GATEWAY_PORT") or DEFAULT_PORT)
    ports = {str(p.get("name")): str(p.get("containerPort")) for p in as_list(container.get("ports")) if isinstance(p, dict)}
    if port not in ports.values():
        problems.append(f"{label}: the gateway listens on {port}, which is no containerPort ({', '.join(ports.values()) or 'none'})")
    _probes(ctx, label, container, invocation, env, port, ports)
    _sandbox(pod, label, container)
    no_workers = "--no-workers" in invocation.options or str(env.get("GATEWAY_NO_WORKERS", "")).lower() in TRUE_WORDS
    return {"port": port, "ports": ports, "workers": not no_workers}
