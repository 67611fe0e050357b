"""The gateway's CLI as its help prints it: commands, options, GATEWAY_* variables, and the
gateway invocations found in shell lines, checked against it."""

from __future__ import annotations

import difflib
import os
import posixpath
import re
import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

ENV_NAME = re.compile(r"(?<![A-Za-z0-9_])GATEWAY_[A-Z0-9_]*[A-Z0-9](?![A-Za-z0-9_])")


@dataclass
class Command:
    path: tuple[str, ...]
    options: dict[str, bool] = field(default_factory=dict)  # --name -> takes a value
    shorts: set[str] = field(default_factory=set)
    subcommands: dict[str, "Command"] = field(default_factory=dict)
    arguments: int = 0
    envs: set[str] = field(default_factory=set)

    @property
    def name(self) -> str:
        return " ".join(("gateway",) + self.path)


class CLIError(Exception):
    pass


def run_help(binary: str, path: tuple[str, ...]) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GATEWAY_")}
    env["COLUMNS"] = "200"
    try:
        done = subprocess.run([binary, *path, "--help"], capture_output=True, text=True, timeout=60, env=env)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise CLIError(f"cannot run {binary}: {error}") from error
    text = done.stdout or done.stderr
    if done.returncode != 0 or "USAGE:" not in text:
        raise CLIError(f"`{' '.join([binary, *path, '--help'])}` failed (status {done.returncode}): {text.strip()[:300]}")
    return text


SECTION = re.compile(r"^([A-Z][^a-z:]*):(.*)$")


def parse_help(text: str, path: tuple[str, ...]) -> Command:
    command = Command(path)
    command.envs = set(ENV_NAME.findall(text))
    section = ""
    for line in text.splitlines():
        header = SECTION.match(line)
        if header:
            section = header.group(1).strip()
            continue
        if not line.startswith("  ") or line.startswith("   "):
            continue  # only the first column, indented by two, names things
        first = re.split(r"\s{2,}", line.strip(), maxsplit=1)[0]
        if section == "SUBCOMMANDS":
            match = re.match(r"^([a-z][a-z0-9-]*)", first)
            if match:
                command.subcommands[match.group(1)] = Command(path + (match.group(1),))
        elif section == "ARGUMENTS":
            if first.startswith("<"):
                command.arguments += 1
        elif section not in ("USAGE", "OVERVIEW") and first.startswith("-"):
            names, _, value = first.partition(" <")
            for name in re.split(r",\s*|/", names):
                name = name.strip()
                if name.startswith("--"):
                    command.options[name] = bool(value)
                elif re.fullmatch(r"-[A-Za-z0-9]", name):
                    command.shorts.add(name)
    return command


def load_cli(binary: str) -> Command:
    def visit(path: tuple[str, ...]) -> Command:
        command = parse_help(run_help(binary, path), path)
        if len(path) < 3:
            for name in list(command.subcommands):
                command.subcommands[name] = visit(path + (name,))
        return command

    root = visit(())
    if not root.subcommands:
        raise CLIError(f"`{binary} --help` lists no subcommands; is it the gateway binary?")
    return root


def all_commands(command: Command):
    yield command
    for sub in command.subcommands.values():
        yield from all_commands(sub)


def documented_envs(path: Path) -> set[str]:
    """GATEWAY_* names in backticks in the tables of docs/configuration.md."""
    names: set[str] = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("|"):
            for quoted in re.findall(r"`([^`]*)`", line):
                names.update(ENV_NAME.findall(quoted))
    return names


@dataclass
class Invocation:
    command: Command
    options: dict[str, str | None]  # what was passed, by name
    positionals: list[str]


def check_invocation(root: Command, argv: list[str], where: str, problems: list[str]) -> Invocation:
    """Walks argv (what follows `gateway`) down the subcommands and checks each option."""
    command = root
    options: dict[str, str | None] = {}
    positionals: list[str] = []
    i = 0
    while i < len(argv):
        token = argv[i]
        if token == "--":
            positionals.extend(argv[i + 1:])
            break
        if token.startswith("--"):
            name, eq, value = token.partition("=")
            if name not in command.options:
                hint = difflib.get_close_matches(name, list(command.options), n=1)
                problems.append(f"{where}: `{command.name}` has no option {name}"
                                + (f" (did you mean {hint[0]}?)" if hint else ""))
            elif command.options[name] and not eq:
                if i + 1 >= len(argv) or argv[i + 1].startswith("--"):
                    problems.append(f"{where}: `{command.name} {name}` needs a value")
                else:
                    i += 1
                    options[name] = argv[i]
            elif not command.options[name] and eq:
                problems.append(f"{where}: `{command.name} {name}` is a flag and takes no value, not '{value}'")
            else:
                options[name] = value if eq else None
        elif token.startswith("-") and len(token) > 1:
            if token not in command.shorts:
                problems.append(f"{where}: `{command.name}` has no option {token}")
            options[token] = None
        elif token in command.subcommands and not positionals:
            command = command.subcommands[token]
        elif command.subcommands:
            hint = difflib.get_close_matches(token, list(command.subcommands), n=1)
            problems.append(f"{where}: `{command.name}` has no subcommand '{token}'"
                            + (f" (did you mean {hint[0]}?)" if hint else ""))
            return Invocation(command, options, positionals)
        else:
            positionals.append(token)
        i += 1
    if command.subcommands and "--help" not in options and "-h" not in options:
        problems.append(f"{where}: `{command.name}` names no subcommand (one of {', '.join(command.subcommands)})")
    elif positionals and command.arguments == 0:
        problems.append(f"{where}: `{command.name}` takes no arguments, not {' '.join(positionals)}")
    return Invocation(command, options, positionals)


def is_gateway(word: str) -> bool:
    return "$" not in word and posixpath.basename(word) == "gateway"


SHELL_OPERATOR = re.compile(r"^[;&|<>()]+$")


def shell_invocations(script: str) -> list[list[str]]:
    """The argument lists of `gateway` (or .../gateway) where it is a command in a shell line."""
    lexer = shlex.shlex(script, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:
        tokens = script.split()
    found: list[list[str]] = []
    at_command = True
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if SHELL_OPERATOR.match(token):
            at_command = token not in ("<", ">", ">>", "<<", ">&", "<&")
            i += 1
            continue
        if at_command and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", token):
            i += 1
            continue
        if at_command and token in ("exec", "command", "env"):
            i += 1
            continue
        if at_command and is_gateway(token):
            args: list[str] = []
            i += 1
            while i < len(tokens) and not SHELL_OPERATOR.match(tokens[i]):
                if tokens[i].isdigit() and i + 1 < len(tokens) and tokens[i + 1] in (">", ">>", "<", ">&"):
                    break
                args.append(tokens[i])
                i += 1
            found.append(args)
            at_command = False
            continue
        at_command = False
        i += 1
    return found

