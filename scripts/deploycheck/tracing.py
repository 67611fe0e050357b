"""compose's tracing: a gateway's OTLP endpoint is a collector of the stack, on a shared network,
whose mounted configuration receives OTLP/HTTP on that port into a traces pipeline."""

from __future__ import annotations

import re
from pathlib import Path

from .context import Context
from .yamlfiles import YAMLError, as_list, read_yaml

SAMPLERS = ("always_on", "always_off", "traceidratio", "parentbased_always_on", "parentbased_always_off",
            "parentbased_traceidratio")


def as_mapping(value) -> dict:
    if isinstance(value, list):
        return {str(item): None for item in value}
    return dict(value or {})


def networks_of(service: dict) -> set[str]:
    networks = service.get("networks")
    if networks is None:
        return {"default"}
    return set(as_mapping(networks))


def _collector_config(ctx: Context, where: str, name: str, port: str, config: Path):
    problems = ctx.problems
    try:
        settings = read_yaml(config.read_text(encoding="utf-8")) or {}
    except YAMLError as error:
        problems.append(f"{ctx.show(config)}: {error}")
        return
    protocols = (((settings.get("receivers") or {}).get("otlp") or {}).get("protocols")) or {}
    if "http" not in protocols:
        problems.append(f"{ctx.show(config)}: no receivers.otlp.protocols.http: the gateway exports OTLP over HTTP")
        return
    listen = str((protocols.get("http") or {}).get("endpoint") or "localhost:4318")
    listen_host, _, listen_port = listen.rpartition(":")
    if listen_port != port:
        problems.append(f"{where}: service {name} sends traces to port {port}, but {ctx.show(config)} receives OTLP/HTTP on {listen}")
    if listen_host in ("localhost", "127.0.0.1", "::1", "[::1]"):
        problems.append(f"{ctx.show(config)}: OTLP/HTTP on {listen} is reachable from inside the collector's container only; listen on 0.0.0.0")
    traces = (((settings.get("service") or {}).get("pipelines") or {}).get("traces")) or {}
    if "otlp" not in as_list(traces.get("receivers")):
        problems.append(f"{ctx.show(config)}: the traces pipeline does not receive from otlp")
    exporters = as_list(traces.get("exporters"))
    if not exporters:
        problems.append(f"{ctx.show(config)}: the traces pipeline has no exporter")
    for exporter in exporters:
        if exporter not in (settings.get("exporters") or {}):
            problems.append(f"{ctx.show(config)}: the traces pipeline's exporter {exporter} is not configured under exporters")
    for processor in as_list(traces.get("processors")):
        if processor not in (settings.get("processors") or {}):
            problems.append(f"{ctx.show(config)}: the traces pipeline's processor {processor} is not configured under processors")


def check_tracing(ctx: Context, where: str, compose_dir: Path, document: dict, gateways: dict[str, dict]):
    """OTEL_EXPORTER_OTLP_ENDPOINT names a service of the stack on a network the gateway shares,
    at the port its collector configuration receives OTLP/HTTP on."""
    services = document.get("services") or {}
    for name, info in gateways.items():
        env = info.get("env") or {}
        endpoint = env.get("OTEL_EXPORTER_OTLP_ENDPOINT")
        sampler = env.get("OTEL_TRACES_SAMPLER")
        if sampler and sampler not in SAMPLERS:
            ctx.problems.append(f"{where}: service {name}: OTEL_TRACES_SAMPLER={sampler} is not a sampler the gateway knows")
        if not endpoint:
            continue
        match = re.fullmatch(r"(https?)://([^/:]+)(?::(\d+))?/?", endpoint)
        if not match:
            ctx.problems.append(f"{where}: service {name}: OTEL_EXPORTER_OTLP_ENDPOINT {endpoint} is not http(s)://host:port "
                                f"(the base URL; /v1/traces is appended)")
            continue
        host, port = match.group(2), match.group(3) or ("443" if match.group(1) == "https" else "80")
        collector = services.get(host)
        if not isinstance(collector, dict):
            ctx.problems.append(f"{where}: service {name}: OTEL_EXPORTER_OTLP_ENDPOINT names {host}, which is no service here")
            continue
        if not networks_of(info["service"]) & networks_of(collector):
            ctx.problems.append(f"{where}: service {name} shares no network with {host}, its OTLP endpoint")
        config = None
        for volume in as_list(collector.get("volumes")):
            source = str(volume).split(":")[0] if not isinstance(volume, dict) else str(volume.get("source", ""))
            if source.startswith(".") and source.endswith((".yaml", ".yml")) and (compose_dir / source).is_file():
                config = compose_dir / source
        if config is None:
            ctx.problems.append(f"{where}: service {host} mounts no collector configuration from {ctx.show(compose_dir)}/")
            continue
        _collector_config(ctx, where, name, port, config)
