"""The reverse proxies' files: the Caddyfile (its health probe, upstreams that are compose's gateway
services on their port), and the --flags that the comments of the Caddyfile, nginx, the env files
and the systemd unit name (those files describe only the gateway)."""

from __future__ import annotations

import difflib
import re
from pathlib import Path

from .cli import all_commands
from .context import DEFAULT_PORT, Context

LONG_FLAG = re.compile(r"(?<![\w-])--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)")


def strip_comment(raw: str) -> str:
    quote = ""
    for index, char in enumerate(raw):
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"" and (index == 0 or raw[index - 1] in " \t[,:-"):
            quote = char
        elif char == "#" and (index == 0 or raw[index - 1] in " \t"):
            return raw[:index]
    return raw


def comment_lines(text: str, marker: str = "#") -> list[tuple[int, str]]:
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith(marker):
            out.append((number, stripped))
        else:
            match = re.search(r"\s#(.*)$", line)
            if match:
                out.append((number, match.group(1)))
    return out


def check_comment_flags(ctx: Context, path: Path, text: str):
    known = {name for command in all_commands(ctx.cli) for name in command.options}
    for number, comment in comment_lines(text):
        for flag in LONG_FLAG.findall(comment):
            if f"--{flag}" not in known:
                hint = difflib.get_close_matches(f"--{flag}", sorted(known), n=1)
                ctx.problems.append(f"{ctx.show(path)}:{number}: comment names --{flag}, which no gateway command has"
                                    + (f" (did you mean {hint[0]}?)" if hint else ""))


def check_caddyfile(ctx: Context, path: Path, text: str, gateways: dict[str, dict]):
    where = ctx.show(path)
    body = [(n, strip_comment(line).strip()) for n, line in enumerate(text.splitlines(), 1)]
    saw_proxy = False
    for number, line in body:
        words = line.split()
        if not words:
            continue
        if words[0] == "health_uri":
            if len(words) < 2 or words[1] not in ctx.probes:
                ctx.problems.append(f"{where}:{number}: health_uri should be one of {', '.join(sorted(ctx.probes))}")
        if words[0] == "reverse_proxy":
            saw_proxy = True
            upstreams = [w for w in words[1:] if w != "{" and not w.startswith("/")]
            for upstream in upstreams:
                host, _, port = re.sub(r"^\w+://", "", upstream).rpartition(":")
                if not gateways:
                    continue
                if host not in gateways:
                    ctx.problems.append(f"{where}:{number}: upstream {upstream} is not a gateway service of compose.yaml "
                                        f"({', '.join(gateways)})")
                elif port != gateways[host].get("port", DEFAULT_PORT):
                    ctx.problems.append(f"{where}:{number}: upstream {upstream}, but {host} listens on {gateways[host].get('port')}")
    if not saw_proxy:
        ctx.problems.append(f"{where}: no reverse_proxy")
