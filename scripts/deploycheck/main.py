"""Reads deploy/ and runs every check on it; prints the problems, or one summary line."""

from __future__ import annotations

import argparse
import difflib
import os
import re
import sys
from pathlib import Path

from . import __doc__ as USAGE
from .cli import ENV_NAME, CLIError, all_commands, documented_envs, load_cli
from .compose import check_compose, load_compose, merge_compose
from .context import REPO, Context, source_facts
from .dockerfile import DockerImage, check_dockerfile
from .kubernetes import check_kubernetes
from .prometheus_grafana import check_dashboard, check_rule_tests, check_rules, run_promtool
from .promql import Metric, documented_metrics, series_names
from .proxies import check_caddyfile, check_comment_flags
from .systemd import check_systemd


def check_variables(ctx: Context, files: list[Path], known_envs: set[str]) -> set[str]:
    """Each GATEWAY_* name anywhere in deploy/ (settings, comments) is one the gateway reads."""
    seen: set[str] = set()
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            for name in ENV_NAME.findall(line):
                seen.add(name)
                if name not in known_envs:
                    hint = difflib.get_close_matches(name, sorted(known_envs), n=1)
                    ctx.problems.append(f"{ctx.show(path)}:{number}: {name} is not a variable the gateway reads "
                                        f"(not in its help nor in docs/configuration.md)"
                                        + (f"; did you mean {hint[0]}?" if hint else ""))
    return seen


def check_composes(ctx: Context, files: list[Path], images: dict[Path, DockerImage]) -> dict[str, dict]:
    """Every compose file; an override (compose.tracing.yaml) merged onto compose.yaml, as compose
    sees it. Returns the gateway services of the base files."""
    gateways: dict[str, dict] = {}
    composes = [p for p in files if re.fullmatch(r"(docker-)?compose\.ya?ml", p.name)]
    overrides = [p for p in files if re.fullmatch(r"(docker-)?compose\.[\w-]+\.ya?ml", p.name)]
    for path in composes:
        gateways.update(check_compose(ctx, path, images))
    for path in overrides:
        base = next((b for b in composes if b.parent == path.parent), None)
        override = load_compose(ctx, path)
        if base is None or override is None:
            if base is None:
                ctx.problems.append(f"{ctx.show(path)}: an override file without a compose.yaml beside it")
            continue
        base_document = load_compose(ctx, base)
        if base_document is not None:
            check_compose(ctx, path, images, merge_compose(base_document, override), f"{ctx.show(base)} + {path.name}")
    return gateways


def check_monitoring(ctx: Context, files: list[Path], notes: list[str]) -> dict[str, Metric]:
    """Alert rules and dashboards use only the metrics docs/operations.md lists; promtool."""
    operations = REPO / "docs/operations.md"
    metrics = documented_metrics(operations) if operations.exists() else {}
    rule_files = [p for p in files if p.parent.name == "prometheus" and p.suffix in (".yaml", ".yml")]
    dashboards = [p for p in files if p.parent.name == "grafana" and p.suffix == ".json"]
    if (rule_files or dashboards) and not metrics:
        ctx.problems.append("docs/operations.md has no metrics table (| Metric | Type | Labels | Meaning |) to check the rules against")
    series = series_names(metrics)
    for path in rule_files:
        if ".test." in path.name:
            check_rule_tests(ctx, path, series)
        else:
            check_rules(ctx, path, series)
    if rule_files:
        run_promtool(ctx, rule_files[0].parent, notes)
    for path in dashboards:
        check_dashboard(ctx, path, series, metrics)
    return metrics


def check_other_files(ctx: Context, files: list[Path], gateways: dict[str, dict]):
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix == ".service":
            check_systemd(ctx, path, text)
            check_comment_flags(ctx, path, text)
        elif path.name.startswith("Caddyfile"):
            check_caddyfile(ctx, path, text, gateways)
            check_comment_flags(ctx, path, text)
        elif path.name.startswith("nginx") or ".env" in path.name or path.name.endswith(".env"):
            check_comment_flags(ctx, path, text)


def main() -> int:
    parser = argparse.ArgumentParser(prog="check-deploy.py", description=USAGE.split("\n\n")[0])
    parser.add_argument("binary", nargs="?", default=".build/debug/gateway", help="the gateway binary to ask (default: %(default)s)")
    parser.add_argument("--deploy-dir", default=str(REPO / "deploy"), help="the folder to check (default: the repository's deploy/)")
    parser.add_argument("--verbose", "-v", action="store_true")
    options = parser.parse_args()

    binary = options.binary
    if not os.path.isabs(binary) and not os.path.exists(binary) and (REPO / binary).exists():
        binary = str(REPO / binary)
    try:
        cli = load_cli(binary)
    except CLIError as error:
        print(f"check-deploy: {error}", file=sys.stderr)
        return 2

    notes: list[str] = []
    help_envs = set().union(*(c.envs for c in all_commands(cli)))
    docs = REPO / "docs/configuration.md"
    doc_envs = documented_envs(docs) if docs.exists() else set()
    if not docs.exists():
        notes.append("docs/configuration.md not found; only variables the help prints are known")
    known_envs = help_envs | doc_envs
    probes, spec, bundle = source_facts(notes)

    deploy = Path(options.deploy_dir).resolve()
    if not deploy.is_dir():
        print(f"check-deploy: {deploy} is not a folder", file=sys.stderr)
        return 2
    ctx = Context(cli, deploy, REPO, probes, spec, bundle)
    if not probes:
        ctx.problems.append("Sources/GatewayApp/OpsRoutes.swift registers neither healthz nor readyz; update check-deploy.py")

    # secrets/ holds the compose stack's secret files (values only, never committed); skip it.
    files = sorted(p for p in deploy.rglob("*") if p.is_file() and "secrets" not in p.relative_to(deploy).parts)
    variables_seen = check_variables(ctx, files, known_envs)
    images: dict[Path, DockerImage] = {}
    for path in files:
        if path.name.startswith("Dockerfile") and not path.name.endswith(".dockerignore"):
            images[path.resolve()] = check_dockerfile(ctx, path)
    if not images:
        ctx.problems.append(f"{ctx.show(deploy)}: no Dockerfile")
    gateways = check_composes(ctx, files, images)
    if (deploy / "kubernetes").is_dir():
        check_kubernetes(ctx, deploy / "kubernetes", images, known_envs)
    metrics = check_monitoring(ctx, files, notes)
    check_other_files(ctx, files, gateways)

    if options.verbose:
        print(f"check-deploy: {binary}: {len(list(all_commands(cli)))} commands; {len(help_envs)} variables in help, "
              f"{len(doc_envs - help_envs)} more from docs/configuration.md; probes {', '.join(sorted(probes))}")
        for note in notes:
            print(f"check-deploy: note: {note}")
        print(f"check-deploy: variables in deploy/ known only from the docs: {', '.join(sorted(variables_seen & (doc_envs - help_envs)))}")
    if ctx.problems:
        for problem in dict.fromkeys(ctx.problems):
            print(f"check-deploy: {problem}", file=sys.stderr)
        print(f"check-deploy: {len(ctx.problems)} problem(s) in {ctx.show(deploy)}/", file=sys.stderr)
        return 1
    from_help = len(variables_seen & help_envs)
    print(f"check-deploy: {len(files)} files in {ctx.show(deploy)}/ agree with {options.binary}: "
          f"{ctx.invocations} gateway invocations, {len(variables_seen)} GATEWAY_* variables "
          f"({from_help} from --help, {len(variables_seen) - from_help} from docs/configuration.md); "
          f"rules and dashboards against {len(metrics)} documented metrics"
          + (f", promtool {ctx.promtool_runs} file(s)" if ctx.promtool_runs else "")
          + (f"; notes: {'; '.join(notes)}" if notes else ""))
    return 0
