"""PromQL against the metrics tables of docs/operations.md, the one list of what the gateway
exposes: every metric, histogram series and label an expression uses is documented, and its
functions exist. (promtool parses the rules; the dashboard's expressions only pass through here.)"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Metric:
    name: str
    type: str
    labels: set[str]


METRIC_TABLE_HEADERS = ("| Metric | Type | Labels |", "| Series from elsewhere | Type | Labels |")
SCRAPE_LABELS = {"job", "instance"}  # added by Prometheus to every series it scrapes
PROMQL_KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "offset",
                   "and", "or", "unless", "atan2", "inf", "nan", "start", "end"}
PROMQL_FUNCTIONS = {
    "abs", "absent", "absent_over_time", "avg_over_time", "ceil", "changes", "clamp", "clamp_max", "clamp_min",
    "count_over_time", "day_of_month", "day_of_week", "day_of_year", "days_in_month", "delta", "deriv", "exp",
    "floor", "histogram_quantile", "histogram_count", "histogram_sum", "histogram_fraction", "holt_winters",
    "hour", "idelta", "increase", "irate", "label_join", "label_replace", "last_over_time", "ln", "log2", "log10",
    "max_over_time", "min_over_time", "minute", "month", "predict_linear", "present_over_time",
    "quantile_over_time", "rate", "resets", "round", "scalar", "sgn", "sort", "sort_desc", "sqrt",
    "stddev_over_time", "stdvar_over_time", "sum_over_time", "time", "timestamp", "vector", "year",
    "sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values", "bottomk", "topk", "quantile",
}


def documented_metrics(path: Path) -> dict[str, Metric]:
    """The metrics tables of docs/operations.md: | `name` | type | `label`, ... | meaning |."""
    metrics: dict[str, Metric] = {}
    in_table = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith(METRIC_TABLE_HEADERS):
            in_table = True
            continue
        if not line.startswith("|"):
            in_table = False
            continue
        if not in_table or line.startswith("|---"):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 3:
            continue
        names = re.findall(r"`([a-z_:][a-z0-9_:]*)`", cells[0])
        kind = cells[1].split()[0] if cells[1] else ""
        labels = set(re.findall(r"`([a-z_][a-z0-9_]*)`", cells[2]))
        for name in names:
            metrics[name] = Metric(name, kind, labels)
    return metrics


def series_names(metrics: dict[str, Metric]) -> dict[str, tuple[Metric, str]]:
    """Every series name a scrape can hold, to its metric and suffix (histograms: _bucket, _sum, _count)."""
    names: dict[str, tuple[Metric, str]] = {}
    for metric in metrics.values():
        if metric.type == "histogram":
            for suffix in ("_bucket", "_sum", "_count"):
                names[metric.name + suffix] = (metric, suffix)
        else:
            names[metric.name] = (metric, "")
    return names


def check_promql(expr: str, where: str, series: dict[str, tuple[Metric, str]], problems: list[str],
                 extra_labels: set[str] = frozenset()) -> tuple[set[str], set[str]]:
    """Checks the metric names, functions and labels of one PromQL expression. Returns the metric
    names used and the labels their series may carry."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`', '""', expr)
    text = re.sub(r"\$\{?\w+\}?", "1m", text)  # Grafana variables ($__rate_interval, ${instance})
    text = re.sub(r"\[[^\]]*\]", "", text)  # ranges and subqueries
    used: set[str] = set()
    allowed: set[str] = set(SCRAPE_LABELS) | set(extra_labels)
    selectors = []
    for match in re.finditer(r"(?<![\w.])([a-zA-Z_:][a-zA-Z0-9_:]*)?\s*\{([^{}]*)\}", text):
        selectors.append((match.group(1), match.group(2)))
    groupings = []
    for match in re.finditer(r"\b(by|without|on|ignoring|group_left|group_right)\s*\(([^()]*)\)", text):
        groupings += [label.strip() for label in match.group(2).split(",") if label.strip()]
    bare = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^()]*\)", " ", text)
    bare = re.sub(r"\{[^{}]*\}", " ", bare)
    for match in re.finditer(r"(?<![\w.])([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?", bare):
        word, call = match.group(1), match.group(2)
        if call:
            if word not in PROMQL_FUNCTIONS:
                hint = difflib.get_close_matches(word, sorted(PROMQL_FUNCTIONS), n=1)
                problems.append(f"{where}: {word}() is not a PromQL function" + (f" (did you mean {hint[0]}?)" if hint else ""))
            continue
        if word in PROMQL_KEYWORDS:
            continue
        if word not in series:
            hint = difflib.get_close_matches(word, sorted(series), n=1)
            problems.append(f"{where}: {word} is not a metric the gateway exposes (docs/operations.md's metrics table)"
                            + (f"; did you mean {hint[0]}?" if hint else ""))
            continue
        used.add(word)
        metric, suffix = series[word]
        allowed |= metric.labels | ({"le"} if suffix == "_bucket" else set())
    for name, matchers in selectors:
        if not name or name not in series:
            continue
        metric, suffix = series[name]
        labels = metric.labels | SCRAPE_LABELS | set(extra_labels) | ({"le"} if suffix == "_bucket" else set())
        for label in re.findall(r"([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)", matchers):
            if label not in labels:
                problems.append(f"{where}: {name} has no label {label} (its labels: {', '.join(sorted(metric.labels)) or 'none'})")
    for label in groupings:
        if label not in allowed:
            problems.append(f"{where}: grouping by {label}, which none of {', '.join(sorted(used)) or 'its metrics'} carries")
    return used, allowed


def template_labels(text: str) -> set[str]:
    """Labels named in {{ $labels.x }} (alert annotations) or {{x}} (Grafana legends)."""
    return set(re.findall(r"\{\{\s*\$labels\.([a-zA-Z_]\w*)", text)) | set(re.findall(r"\{\{\s*([a-zA-Z_]\w*)\s*\}\}", text))
