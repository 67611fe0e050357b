"""deploy/prometheus (alert rules, promtool's unit tests of them) and deploy/grafana (the
dashboard): `promtool check rules` and `promtool test rules` when promtool is installed, and
every metric and label against docs/operations.md (promql.py)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

from .context import Context
from .promql import Metric, check_promql, template_labels
from .yamlfiles import YAMLError, as_list, read_yaml

SEVERITIES = ("critical", "warning", "info")


def check_rules(ctx: Context, path: Path, series: dict[str, tuple[Metric, str]]) -> set[str]:
    where = ctx.show(path)
    problems = ctx.problems
    used_all: set[str] = set()
    try:
        document = read_yaml(path.read_text(encoding="utf-8"))
    except YAMLError as error:
        problems.append(f"{where}: {error}")
        return used_all
    groups = (document or {}).get("groups") if isinstance(document, dict) else None
    if not isinstance(groups, list) or not groups:
        problems.append(f"{where}: no groups")
        return used_all
    names: set[str] = set()
    group_names: set[str] = set()
    for group in groups:
        if not isinstance(group, dict) or not group.get("name") or not isinstance(group.get("rules"), list) or not group["rules"]:
            problems.append(f"{where}: a group needs a name and rules")
            continue
        if group["name"] in group_names:
            problems.append(f"{where}: group {group['name']} twice")
        group_names.add(group["name"])
        for rule in group["rules"]:
            if not isinstance(rule, dict):
                problems.append(f"{where}: group {group['name']}: a rule that is not a mapping")
                continue
            name = rule.get("alert") or rule.get("record")
            label = f"{where}: {name or 'a rule of ' + str(group['name'])}"
            if bool(rule.get("alert")) == bool(rule.get("record")):
                problems.append(f"{label}: give exactly one of alert and record")
            unknown = set(rule) - {"alert", "record", "expr", "for", "keep_firing_for", "labels", "annotations"}
            if unknown:
                problems.append(f"{label}: unknown keys {', '.join(sorted(unknown))}")
            expr = str(rule.get("expr") or "").strip()
            if not expr:
                problems.append(f"{label}: no expr")
                continue
            if rule.get("alert"):
                if name in names:
                    problems.append(f"{label}: alert name used twice")
                names.add(name)
                if rule.get("for") is not None and not re.fullmatch(r"(\d+[smhdwy])+", str(rule["for"])):
                    problems.append(f"{label}: for: {rule['for']} is not a duration")
                severity = ((rule.get("labels") or {}).get("severity"))
                if severity not in SEVERITIES:
                    problems.append(f"{label}: labels.severity should be one of {', '.join(SEVERITIES)}")
                annotations = rule.get("annotations") or {}
                if not annotations.get("summary"):
                    problems.append(f"{label}: no annotations.summary")
            used, allowed = check_promql(expr, label, series, problems)
            used_all |= used
            for text in (rule.get("annotations") or {}).values():
                for name_used in template_labels(str(text)):
                    if name_used not in allowed:
                        problems.append(f"{label}: an annotation names $labels.{name_used}, which the expression's result does not carry")
    return used_all


def run_promtool(ctx: Context, folder: Path, notes: list[str]):
    promtool = shutil.which("promtool")
    if promtool is None:
        notes.append("promtool not installed (Debian's prometheus package); rules checked structurally only")
        return
    for path in sorted(folder.glob("*.y*ml")):
        is_test = ".test." in path.name
        argv = [promtool, "test" if is_test else "check", "rules", path.name]
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=folder)
        except (OSError, subprocess.TimeoutExpired) as error:
            ctx.problems.append(f"{ctx.show(path)}: `promtool {' '.join(argv[1:])}` could not run: {error}")
            continue
        if done.returncode != 0:
            output = "\n    ".join(line for line in (done.stdout + done.stderr).strip().splitlines() if line.strip())
            ctx.problems.append(f"{ctx.show(path)}: `promtool {' '.join(argv[1:])}` failed:\n    {output}")
        else:
            ctx.promtool_runs += 1


def check_rule_tests(ctx: Context, path: Path, series: dict[str, tuple[Metric, str]]):
    """The input series of promtool's unit tests are series the gateway exposes, with their labels."""
    try:
        document = read_yaml(path.read_text(encoding="utf-8")) or {}
    except YAMLError as error:
        ctx.problems.append(f"{ctx.show(path)}: {error}")
        return
    for test in as_list(document.get("tests")):
        for item in as_list((test or {}).get("input_series")):
            check_promql(str((item or {}).get("series", "")), f"{ctx.show(path)}: input series", series, ctx.problems)


def check_dashboard(ctx: Context, path: Path, series: dict[str, tuple[Metric, str]], metrics: dict[str, Metric]):
    where = ctx.show(path)
    problems = ctx.problems
    try:
        dashboard = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        problems.append(f"{where}: not JSON: {error}")
        return
    for key in ("title", "uid", "schemaVersion", "panels"):
        if not dashboard.get(key):
            problems.append(f"{where}: no {key}")
    variables = {str(v.get("name")): v for v in ((dashboard.get("templating") or {}).get("list") or [])}
    used: set[str] = set()
    for name, variable in variables.items():
        query = variable.get("query")
        query = query.get("query") if isinstance(query, dict) else query
        if variable.get("type") == "query" and query:
            match = re.fullmatch(r"\s*label_values\((.*),\s*([a-zA-Z_]\w*)\s*\)\s*", str(query))
            if match:
                found, allowed = check_promql(match.group(1), f"{where}: variable {name}", series, problems)
                used |= found
                if match.group(2) not in allowed:
                    problems.append(f"{where}: variable {name} reads label {match.group(2)}, which {match.group(1)} does not carry")
            else:
                used |= check_promql(str(query), f"{where}: variable {name}", series, problems)[0]
    ids: set = set()

    def panels_of(items):
        for panel in items or []:
            yield panel
            yield from panels_of(panel.get("panels"))

    for panel in panels_of(dashboard.get("panels")):
        title = panel.get("title") or f"panel {panel.get('id')}"
        label = f"{where}: panel '{title}'"
        if panel.get("id") in ids:
            problems.append(f"{label}: id {panel.get('id')} used twice")
        ids.add(panel.get("id"))
        if "gridPos" not in panel:
            problems.append(f"{label}: no gridPos")
        if panel.get("type") == "row":
            continue
        targets = panel.get("targets") or []
        if not targets:
            problems.append(f"{label}: no targets")
        for source in [panel.get("datasource")] + [t.get("datasource") for t in targets]:
            uid = str((source or {}).get("uid", "")) if isinstance(source, dict) else str(source or "")
            variable = re.fullmatch(r"\$\{?(\w+)\}?", uid)
            if variable and variable.group(1) not in variables:
                problems.append(f"{label}: data source {uid} is no dashboard variable")
        for target in targets:
            expr = str(target.get("expr") or "")
            if not expr:
                problems.append(f"{label}: a target without expr")
                continue
            found, allowed = check_promql(expr, label, series, problems, extra_labels=set())
            used |= found
            for name in template_labels(str(target.get("legendFormat") or "")):
                if name not in allowed:
                    problems.append(f"{label}: the legend names {name}, which the expression's result does not carry")
            for variable in re.findall(r"\$\{?(\w+)\}?", expr):
                if not variable.startswith("__") and variable not in variables:
                    problems.append(f"{label}: ${variable} is no dashboard variable")
    shown = {series[name][0].name for name in used}
    for metric in metrics.values():
        if metric.name.startswith(("up", "probe_")) and metric.name in ("up", "probe_success"):
            continue
        if metric.name not in shown:
            problems.append(f"{where}: no panel shows {metric.name}")
