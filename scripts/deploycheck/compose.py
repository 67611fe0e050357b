"""compose.yaml and its overrides: the gateway services (built from deploy/Dockerfile or using its
image) run the CLI correctly, probe /healthz or /readyz, find their env_file, rotate their logs,
and trust the reverse proxy in front of them."""

from __future__ import annotations

import copy
import ipaddress
import re
from pathlib import Path

from .cli import check_invocation, is_gateway
from .context import DEFAULT_PORT, Context
from .dockerfile import DockerImage, check_probe
from .tracing import as_mapping, check_tracing
from .yamlfiles import as_argv, as_list, load_yaml, text_of

PROXY_IMAGES = ("caddy", "nginx", "traefik", "haproxy")
_COMPOSE_APPENDED = ("ports", "expose", "volumes", "secrets", "configs", "dns", "env_file", "extra_hosts", "cap_add", "cap_drop")
LOG_DRIVERS = ("local", "journald", "syslog", "fluentd", "gelf")


def _environment(value) -> dict[str, str]:
    if isinstance(value, list):
        return dict(str(item).partition("=")[::2] for item in value)
    return {str(k): text_of(v) for k, v in (value or {}).items()}


def environment_of(service: dict) -> dict[str, str]:
    return _environment(service.get("environment"))


def load_compose(ctx: Context, path: Path):
    return load_yaml(ctx, path)


def merge_compose(base, override, key: str = ""):
    """`docker compose -f base -f override`: mappings merge by key, `networks` and `depends_on`
    of a service by name, sequences such as ports and volumes are appended, anything else the
    override replaces."""
    if isinstance(base, dict) and isinstance(override, dict):
        merged = copy.deepcopy(base)
        for name, value in override.items():
            merged[name] = merge_compose(merged[name], value, name) if name in merged else copy.deepcopy(value)
        return merged
    if key in ("networks", "depends_on", "environment") and isinstance(base, (dict, list)) and isinstance(override, (dict, list)):
        if key == "environment":
            base, override = _environment(base), _environment(override)
        return merge_compose(as_mapping(base), as_mapping(override))
    if key in _COMPOSE_APPENDED and isinstance(base, list) and isinstance(override, list):
        return base + [item for item in override if item not in base]
    return copy.deepcopy(override)


def check_logging(ctx: Context, where: str, services: dict):
    """Every service rotates its log: json-file with max-size and max-file, or the local driver."""
    for name, service in services.items():
        if not isinstance(service, dict):
            continue
        logging = service.get("logging")
        if not isinstance(logging, dict):
            ctx.problems.append(f"{where}: service {name} has no logging: with json-file, Docker's default, its log "
                                f"grows until the disk is full; add driver json-file with max-size and max-file")
            continue
        driver = str(logging.get("driver") or "json-file")
        options = logging.get("options") or {}
        if driver == "json-file":
            for option in ("max-size", "max-file"):
                if not isinstance(options, dict) or not options.get(option):
                    ctx.problems.append(f"{where}: service {name}: logging json-file without {option} does not rotate")
            size = str((options or {}).get("max-size") or "")
            if size and not re.fullmatch(r"\d+[kmg]?", size):
                ctx.problems.append(f"{where}: service {name}: logging max-size '{size}' is not a size like 10m")
            count = str((options or {}).get("max-file") or "")
            if count and not count.isdigit():
                ctx.problems.append(f"{where}: service {name}: logging max-file '{count}' is not a number")
        elif driver not in LOG_DRIVERS:
            ctx.problems.append(f"{where}: service {name}: logging driver {driver} is not one check-deploy.py knows")


def _find_gateways(ctx: Context, path: Path, where: str, services: dict, images: dict[Path, DockerImage]) -> dict[str, dict]:
    gateway_images, gateways = {}, {}
    for name, service in services.items():
        if not isinstance(service, dict):
            ctx.problems.append(f"{where}: service {name} is not a mapping")
            continue
        build, image = service.get("build"), None
        if build is not None:
            context = build if isinstance(build, str) else build.get("context", ".")
            dockerfile = "Dockerfile" if isinstance(build, str) else build.get("dockerfile", "Dockerfile")
            context_dir = (path.parent / str(context)).resolve()
            dockerfile_path = (context_dir / str(dockerfile)).resolve()
            image = images.get(dockerfile_path)
            if image and context_dir != ctx.deploy.parent.resolve():
                ctx.problems.append(f"{where}: service {name} builds {ctx.show(dockerfile_path)} with context "
                                    f"{context}, but its COPY lines expect the repository root")
            if image and image.gateway_argv() and service.get("image"):
                gateway_images[str(service["image"])] = image
        if image and image.gateway_argv():
            gateways[name] = {"service": service, "image": image}
    for name, service in services.items():
        if isinstance(service, dict) and name not in gateways and str(service.get("image", "")) in gateway_images:
            gateways[name] = {"service": service, "image": gateway_images[str(service["image"])]}
    return gateways


def _check_gateway(ctx: Context, path: Path, label: str, info: dict):
    problems = ctx.problems
    service, image = info["service"], info["image"]
    entry_default, cmd_default = image.gateway_argv()
    entrypoint = as_argv(service.get("entrypoint"))
    command = as_argv(service.get("command"))
    if entrypoint is not None:
        if not entrypoint or not is_gateway(entrypoint[0]):
            problems.append(f"{label}: entrypoint {entrypoint} is not the gateway binary")
            return
        argv = entrypoint[1:] + (command or [])  # compose drops the image's CMD with a new entrypoint
    else:
        argv = entry_default[1:] + (command if command is not None else cmd_default)
    invocation = check_invocation(ctx.cli, argv, label, problems)
    ctx.invocations += 1
    env = dict(image.final.env)
    env.update(environment_of(service))
    info["env"], info["invocation"] = env, invocation
    port = invocation.options.get("--port") or env.get("GATEWAY_PORT") or DEFAULT_PORT
    info["port"] = port
    if invocation.options.get("--port") and invocation.options["--port"] != env.get("GATEWAY_PORT", DEFAULT_PORT):
        problems.append(f"{label}: --port {invocation.options['--port']} differs from GATEWAY_PORT "
                        f"({env.get('GATEWAY_PORT', DEFAULT_PORT)}), which the health check probes")
    healthcheck = service.get("healthcheck")
    if isinstance(healthcheck, dict) and healthcheck.get("test") is not None and not healthcheck.get("disable"):
        test = healthcheck["test"]
        argv_test = [text_of(v) for v in test] if isinstance(test, list) else ["CMD-SHELL", str(test)]
        check_probe(argv_test, image, ctx.probes, f"{label}: healthcheck", problems)
    elif not any(i.keyword == "HEALTHCHECK" for i in image.final.instructions):
        problems.append(f"{label}: no healthcheck, and the image has none")
    for entry in as_list(service.get("env_file")):
        file = entry.get("path") if isinstance(entry, dict) else entry
        if file is None:
            continue
        target = path.parent / str(file)
        if not target.exists() and not target.with_name(target.name + ".example").exists():
            problems.append(f"{label}: env_file {file}: neither it nor {file}.example exists in {ctx.show(path.parent)}/")


def _check_proxies(ctx: Context, where: str, document: dict, services: dict, gateways: dict[str, dict]):
    """Reverse proxies with a fixed address must be trusted by every gateway."""
    problems = ctx.problems
    networks = document.get("networks") or {}
    for name, service in services.items():
        if not isinstance(service, dict) or name in gateways:
            continue
        if not str(service.get("image", "")).split("/")[-1].startswith(PROXY_IMAGES):
            continue
        attached = service.get("networks") or {}
        addresses = []
        if isinstance(attached, dict):
            for network, settings in attached.items():
                if isinstance(settings, dict) and settings.get("ipv4_address"):
                    addresses.append((network, str(settings["ipv4_address"])))
        for network, address in addresses:
            try:
                ip = ipaddress.ip_address(address)
            except ValueError:
                problems.append(f"{where}: service {name}: ipv4_address {address} is not an address")
                continue
            config = ((networks.get(network) or {}).get("ipam") or {}).get("config") or []
            subnets = [c.get("subnet") for c in config if isinstance(c, dict) and c.get("subnet")]
            if subnets and not any(ip in ipaddress.ip_network(s, strict=False) for s in subnets):
                problems.append(f"{where}: service {name}: {address} is outside network {network}'s subnet {', '.join(subnets)}")
            for gateway_name, info in gateways.items():
                if "invocation" not in info:
                    continue
                trusted_text = info["invocation"].options.get("--trusted-proxies") or info["env"].get("GATEWAY_TRUSTED_PROXIES") or ""
                trusted = []
                for item in filter(None, (t.strip() for t in trusted_text.split(","))):
                    try:
                        trusted.append(ipaddress.ip_network(item, strict=False))
                    except ValueError:
                        problems.append(f"{where}: service {gateway_name}: --trusted-proxies item '{item}' is not a network")
                if not any(ip in network_range for network_range in trusted):
                    loopback_only = "--trust-proxy" in info["invocation"].options or info["env"].get("GATEWAY_TRUST_PROXY")
                    problems.append(f"{where}: service {gateway_name} does not trust the proxy {name} at {address}"
                                    + ("; --trust-proxy trusts loopback peers only" if loopback_only else "")
                                    + f"; pass --trusted-proxies {address}/32")


def check_compose(ctx: Context, path: Path, images: dict[Path, DockerImage], document=None, where: str | None = None) -> dict[str, dict]:
    where = where or ctx.show(path)
    if document is None:
        document = load_compose(ctx, path)
        if document is None:
            return {}
    if not isinstance(document, dict) or not isinstance(document.get("services"), dict):
        ctx.problems.append(f"{where}: no services")
        return {}
    services: dict[str, dict] = document["services"]
    gateways = _find_gateways(ctx, path, where, services, images)
    if not gateways:
        ctx.problems.append(f"{where}: no service is built from a deploy/ Dockerfile whose ENTRYPOINT is the gateway")
    for name, info in gateways.items():
        _check_gateway(ctx, path, f"{where}: service {name}", info)
    check_logging(ctx, where, services)
    check_tracing(ctx, where, path.parent, document, gateways)
    _check_proxies(ctx, where, document, services, gateways)
    return gateways
