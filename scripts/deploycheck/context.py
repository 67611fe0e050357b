"""What every check shares: the repository, the names the gateway uses, and where problems go."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from .cli import Command

REPO = Path(__file__).resolve().parent.parent.parent
DEFAULT_PORT = "8080"  # docs/configuration.md: --port / GATEWAY_PORT


@dataclass
class Context:
    cli: Command
    deploy: Path
    context: Path  # the Docker build context: the repository root
    probes: set[str]
    spec_relative: str
    web_bundle: str
    problems: list[str] = field(default_factory=list)
    invocations: int = 0
    promtool_runs: int = 0

    def show(self, path: Path) -> str:
        try:
            return str(path.resolve().relative_to(REPO))
        except ValueError:
            return str(path)


def source_facts(notes: list[str]) -> tuple[set[str], str, str]:
    """Probe routes, the spec's relative path and the web bundle's name, from the Swift sources."""
    probes = {"/healthz", "/readyz"}
    ops = REPO / "Sources/GatewayApp/OpsRoutes.swift"
    spec = "openapi/openapi.yaml"
    if ops.exists():
        text = ops.read_text(encoding="utf-8")
        found = set(re.findall(r'group\(router, "((?:health|ready)z)"', text))
        probes = {f"/{name}" for name in found}
        match = re.search(r'appendingPathComponent\("([^"]*openapi\.yaml)"\)', text)
        spec = match.group(1) if match else spec
    else:
        notes.append(f"{ops.relative_to(REPO)} not found; assuming /healthz and /readyz")
    bundle = "campus-gateway_Web.resources"
    web = REPO / "Sources/Web/WebAssets.swift"
    if web.exists():
        match = re.search(r'bundleName = "([^"]+)"', web.read_text(encoding="utf-8"))
        bundle = match.group(1) if match else bundle
    return probes, spec, bundle

