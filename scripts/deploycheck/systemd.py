"""systemd units (deploy/*.service): the gateway invocations of their Exec*= lines."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from .cli import check_invocation, is_gateway
from .context import Context


def check_systemd(ctx: Context, path: Path, text: str):
    for number, line in enumerate(text.splitlines(), 1):
        match = re.match(r"^\s*(Exec[A-Za-z]+)\s*=\s*(.*)$", line)
        if not match:
            continue
        command = match.group(2).lstrip("@-:+!|")
        try:
            argv = shlex.split(command)
        except ValueError as error:
            ctx.problems.append(f"{ctx.show(path)}:{number}: cannot read {match.group(1)}: {error}")
            continue
        if argv and is_gateway(argv[0]):
            check_invocation(ctx.cli, argv[1:], f"{ctx.show(path)}:{number}: {match.group(1)}", ctx.problems)
            ctx.invocations += 1
