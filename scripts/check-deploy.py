#!/usr/bin/env python3
"""Check the files in deploy/ against the gateway CLI they configure.

    python3 scripts/check-deploy.py [GATEWAY_BINARY] [--deploy-dir DIR] [--verbose]

GATEWAY_BINARY defaults to .build/debug/gateway. No Docker engine or network is needed: the
script reads the files and runs only `GATEWAY_BINARY [subcommand...] --help`.

Where the truth comes from
- Commands and flags: the binary's own help. `gateway --help` lists the subcommands; each
  `gateway <subcommand> --help` (recursively, e.g. `jobs list`) lists its options, and whether
  an option takes a value (`--port <port>`) or is a plain flag (`--require-https`).
- GATEWAY_* variables: every name the help text prints. The project writes them into the help
  of each option, e.g. "(GATEWAY_JOB_POLL_MS)". Variables that no option has, and so no help
  prints (GATEWAY_VAULT_KEY, GATEWAY_METRICS_TOKEN, GATEWAY_SMTP_*, GATEWAY_APNS_*, ...), are
  taken from the tables of docs/configuration.md, which is the source of truth for them.
- Probe routes: the "healthz" and "readyz" routes registered in
  Sources/GatewayApp/OpsRoutes.swift. Where the binary looks for its API description and web
  pages: OpsRoutes.locateSpec ("openapi/openapi.yaml" in the working directory or up to six
  folders above the executable) and WebAssets.installed (the bundle beside the executable).

What is checked
- Every file in deploy/: each GATEWAY_* name anywhere in it (settings, comments, commented-out
  lines) is a variable the gateway reads.
- Dockerfile: the gateway invocations (ENTRYPOINT + CMD, RUN lines that call gateway) use
  subcommands and options the CLI has, with values where needed; every COPY source from the
  build context exists in the repository (the context is the repository root; a wildcard may
  match nothing, which is how an optional file is copied) and is not excluded by
  Dockerfile.dockerignore; the final stage runs as a non-root USER, EXPOSEs GATEWAY_PORT,
  installs openapi/openapi.yaml and the web bundle where the binary finds them, and its
  HEALTHCHECK asks for /healthz or /readyz with a program the image installs.
- compose.yaml: the services built from deploy/Dockerfile (or using its image) are gateways;
  their command and entrypoint are checked like the Dockerfile's, their healthchecks must ask
  for /healthz or /readyz, env_file entries must exist or have a committed .example, and a
  reverse proxy service (caddy, nginx, traefik, haproxy) with a fixed address must be trusted
  by every gateway through --trusted-proxies or GATEWAY_TRUSTED_PROXIES (--trust-proxy trusts
  loopback only, which another container never is). compose.yaml is read with a small YAML
  subset reader (block mappings and sequences, flow sequences of scalars, quoted scalars,
  anchors, aliases and `<<` merge keys); anything else is reported as unsupported.
- systemd units (*.service): gateway invocations in Exec*= lines.
- Caddyfile: health_uri is /healthz or /readyz; reverse_proxy upstreams are gateway services
  of compose.yaml on their port.
- In the comments of the systemd unit, the Caddyfile, nginx and env files (which describe only
  the gateway), every --flag names an option of some gateway command. Comments of the
  Dockerfile and compose.yaml also show docker and swift commands, so only their real
  invocations are checked.

Each problem is printed on its own line and the exit status is 1; when all is well one summary
line is printed and the exit status is 0. Status 2: the binary could not be run.
"""

from __future__ import annotations

import argparse
import copy
import difflib
import glob
import ipaddress
import json
import os
import posixpath
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ENV_NAME = re.compile(r"(?<![A-Za-z0-9_])GATEWAY_[A-Z0-9_]*[A-Z0-9](?![A-Za-z0-9_])")
LONG_FLAG = re.compile(r"(?<![\w-])--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)")
PROXY_IMAGES = ("caddy", "nginx", "traefik", "haproxy")
DEFAULT_PORT = "8080"  # docs/configuration.md: --port / GATEWAY_PORT


# ---------------------------------------------------------------------------------------------
# The CLI, from its help


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


# ---------------------------------------------------------------------------------------------
# A small YAML reader (the subset compose.yaml uses)


class YAMLError(Exception):
    pass


@dataclass
class _Line:
    number: int
    indent: int
    text: str


def _strip_comment(raw: str) -> str:
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


def _split_items(text: str, number: int) -> list[str]:
    items, current, quote = [], "", ""
    for char in text:
        if quote:
            current += char
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
            current += char
        elif char in "[]{}":
            raise YAMLError(f"line {number}: nested flow collections are not supported")
        elif char == ",":
            items.append(current.strip())
            current = ""
        else:
            current += char
    if quote:
        raise YAMLError(f"line {number}: unterminated quote")
    if current.strip():
        items.append(current.strip())
    return items


def _scalar(text: str, number: int):
    text = text.strip()
    if text.startswith('"'):
        if not text.endswith('"') or len(text) < 2:
            raise YAMLError(f"line {number}: unterminated double-quoted string")
        try:
            return json.loads(text)
        except json.JSONDecodeError as error:
            raise YAMLError(f"line {number}: bad double-quoted string ({error})") from error
    if text.startswith("'"):
        if not text.endswith("'") or len(text) < 2:
            raise YAMLError(f"line {number}: unterminated single-quoted string")
        return text[1:-1].replace("''", "'")
    if text[:1] in ("|", ">", "{", "!", "%", "@", "`"):
        raise YAMLError(f"line {number}: '{text[:1]}' (block scalars, flow mappings, tags) is not supported")
    return None if text in ("", "~", "null") else text


_KEY = re.compile(r"""^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s'"\[\]{}#&*!|>,][^:#]*?)\s*:(?:\s+|$)(.*)$""")


class _YAMLReader:
    def __init__(self, text: str):
        self.anchors: dict[str, object] = {}
        self.lines: list[_Line] = []
        for number, raw in enumerate(text.splitlines(), 1):
            body = _strip_comment(raw).rstrip()
            if not body.strip():
                continue
            indent = len(body) - len(body.lstrip(" "))
            if body[indent:indent + 1] == "\t":
                raise YAMLError(f"line {number}: tab in indentation")
            if body.strip() in ("---", "...") and not self.lines:
                continue
            if body.strip() in ("---", "..."):
                raise YAMLError(f"line {number}: more than one document")
            self.lines.append(_Line(number, indent, body.strip()))

    def read(self):
        if not self.lines:
            return None
        node, index = self.node(0, self.lines[0].indent)
        if index != len(self.lines):
            raise YAMLError(f"line {self.lines[index].number}: unexpected indentation")
        return node

    @staticmethod
    def is_item(text: str) -> bool:
        return text == "-" or text.startswith("- ")

    def node(self, index: int, indent: int):
        if self.is_item(self.lines[index].text):
            return self.sequence(index, indent)
        return self.mapping(index, indent)

    def inline(self, text: str, number: int):
        if text.startswith("*"):
            name = text[1:].strip()
            if name not in self.anchors:
                raise YAMLError(f"line {number}: unknown alias *{name}")
            return copy.deepcopy(self.anchors[name])
        if text.startswith("["):
            if not text.endswith("]"):
                raise YAMLError(f"line {number}: a flow sequence must end on its line")
            return [_scalar(item, number) for item in _split_items(text[1:-1], number)]
        return _scalar(text, number)

    def nested(self, index: int, indent: int, allow_same_indent_sequence: bool):
        """The block under a key or item whose value is on the following lines (or none)."""
        if index < len(self.lines) and self.lines[index].indent > indent:
            return self.node(index, self.lines[index].indent)
        if allow_same_indent_sequence and index < len(self.lines) and self.lines[index].indent == indent \
                and self.is_item(self.lines[index].text):
            return self.sequence(index, indent)
        return None, index

    def value(self, rest: str, index: int, indent: int, number: int, in_mapping: bool):
        anchor = None
        if rest.startswith("&"):
            anchor, _, rest = rest[1:].partition(" ")
            rest = rest.strip()
        if rest == "":
            value, index = self.nested(index, indent, in_mapping)
        else:
            value = self.inline(rest, number)
        if anchor:
            self.anchors[anchor] = value
        return value, index

    def sequence(self, index: int, indent: int):
        items = []
        while index < len(self.lines) and self.lines[index].indent == indent and self.is_item(self.lines[index].text):
            line = self.lines[index]
            rest = line.text[1:].lstrip(" ")
            if rest and not rest.startswith(("*", "&", "[", "'", '"')) and _KEY.match(rest):
                offset = len(line.text) - len(rest)
                self.lines[index] = _Line(line.number, indent + offset, rest)
                value, index = self.mapping(index, indent + offset)
            else:
                value, index = self.value(rest, index + 1, indent, line.number, False)
            items.append(value)
        if index < len(self.lines) and self.lines[index].indent > indent:
            raise YAMLError(f"line {self.lines[index].number}: unexpected indentation")
        return items, index

    def mapping(self, index: int, indent: int):
        result: dict[str, object] = {}
        merges: list[dict] = []
        while index < len(self.lines) and self.lines[index].indent == indent:
            line = self.lines[index]
            if self.is_item(line.text):
                raise YAMLError(f"line {line.number}: a list item where a key was expected")
            match = _KEY.match(line.text)
            if not match:
                raise YAMLError(f"line {line.number}: expected 'key: value', found '{line.text}'")
            key = match.group(1)
            key = _scalar(key, line.number) if key[:1] in "'\"" else key
            value, index = self.value(match.group(2).strip(), index + 1, indent, line.number, True)
            if key == "<<":
                for part in value if isinstance(value, list) else [value]:
                    if not isinstance(part, dict):
                        raise YAMLError(f"line {line.number}: '<<' needs a mapping alias")
                    merges.append(part)
            elif key in result:
                raise YAMLError(f"line {line.number}: duplicate key '{key}'")
            else:
                result[key] = value
        if index < len(self.lines) and self.lines[index].indent > indent:
            raise YAMLError(f"line {self.lines[index].number}: unexpected indentation")
        for part in merges:
            for key, value in part.items():
                result.setdefault(key, copy.deepcopy(value))
        return result, index


def read_yaml(text: str):
    return _YAMLReader(text).read()


# ---------------------------------------------------------------------------------------------
# Dockerfile


@dataclass
class Instruction:
    line: int
    keyword: str
    args: str


@dataclass
class Stage:
    name: str
    instructions: list[Instruction] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    workdir: str = "/"
    user: str | None = None
    entrypoint: list[str] | None = None
    cmd: list[str] | None = None
    copies: list[tuple[int, dict[str, str], list[str], str]] = field(default_factory=list)  # line, flags, sources, dest


@dataclass
class DockerImage:
    path: Path
    stages: list[Stage]

    @property
    def final(self) -> Stage:
        return self.stages[-1]

    def gateway_argv(self) -> tuple[list[str], list[str]] | None:
        """(entrypoint, cmd) when the final stage's ENTRYPOINT is the gateway binary."""
        entry = self.final.entrypoint or []
        if entry and is_gateway(entry[0]):
            return entry, self.final.cmd or []
        return None

    def installed(self, target: str) -> bool:
        """True when a COPY of the final stage puts something at `target` (an absolute path)."""
        for _, _, sources, dest in self.final.copies:
            dest = posixpath.join(self.final.workdir, dest)
            if dest.rstrip("/") == target.rstrip("/"):
                return True
            if dest.endswith("/") and posixpath.join(dest, posixpath.basename(target)) == target \
                    and any(posixpath.basename(s.rstrip("/")) == posixpath.basename(target) for s in sources):
                return True
        return False


def docker_lines(text: str) -> list[Instruction]:
    out: list[Instruction] = []
    buffer, start = "", 0
    for number, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        if stripped.startswith("#") or (not stripped and not buffer):
            continue
        if not buffer:
            start = number
        if stripped.endswith("\\"):
            buffer += stripped[:-1] + " "
            continue
        buffer += stripped
        keyword, _, args = buffer.partition(" ")
        out.append(Instruction(start, keyword.upper(), args.strip()))
        buffer = ""
    if buffer:
        keyword, _, args = buffer.partition(" ")
        out.append(Instruction(start, keyword.upper(), args.strip()))
    return out


def exec_or_shell(args: str) -> list[str]:
    if args.startswith("["):
        try:
            value = json.loads(args)
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                return value
        except json.JSONDecodeError:
            pass
    return ["/bin/sh", "-c", args]


def parse_dockerfile(path: Path) -> DockerImage:
    stages: list[Stage] = []
    for instruction in docker_lines(path.read_text(encoding="utf-8")):
        keyword, args = instruction.keyword, instruction.args
        if keyword == "FROM":
            words = args.split()
            name = words[2] if len(words) >= 3 and words[1].lower() == "as" else str(len(stages))
            stages.append(Stage(name))
            continue
        if not stages:
            continue  # ARG before FROM
        stage = stages[-1]
        stage.instructions.append(instruction)
        if keyword == "ENV":
            try:
                words = shlex.split(args)
            except ValueError:
                words = args.split()
            if words and "=" not in words[0]:
                stage.env[words[0]] = " ".join(words[1:])
            else:
                for word in words:
                    key, _, value = word.partition("=")
                    stage.env[key] = value
        elif keyword == "WORKDIR":
            stage.workdir = posixpath.join(stage.workdir, args.strip())
        elif keyword == "USER":
            stage.user = args.strip()
        elif keyword == "ENTRYPOINT":
            stage.entrypoint = exec_or_shell(args)
            stage.cmd = None  # Docker resets CMD when ENTRYPOINT is set
        elif keyword == "CMD":
            stage.cmd = exec_or_shell(args)
        elif keyword in ("COPY", "ADD"):
            flags: dict[str, str] = {}
            rest = args
            while rest.startswith("--"):
                flag, _, rest = rest.partition(" ")
                name, _, value = flag[2:].partition("=")
                flags[name] = value
                rest = rest.strip()
            if rest.startswith("["):
                words = json.loads(rest)
            else:
                words = shlex.split(rest)
            if len(words) >= 2:
                stage.copies.append((instruction.line, flags, words[:-1], words[-1]))
    return DockerImage(path, stages)


def ignore_patterns(path: Path) -> list[tuple[bool, re.Pattern]]:
    patterns = []
    if not path.exists():
        return patterns
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        line = line.lstrip("!").strip().lstrip("/").rstrip("/")
        expression = ""
        i = 0
        while i < len(line):
            if line.startswith("**/", i):
                expression += "(?:.*/)?"
                i += 3
            elif line.startswith("**", i):
                expression += ".*"
                i += 2
            elif line[i] == "*":
                expression += "[^/]*"
                i += 1
            elif line[i] == "?":
                expression += "[^/]"
                i += 1
            else:
                expression += re.escape(line[i])
                i += 1
        patterns.append((negate, re.compile(f"^{expression}$")))
    return patterns


def ignored(relative: str, patterns: list[tuple[bool, re.Pattern]]) -> bool:
    parts = relative.strip("/").split("/")
    result = False
    for negate, pattern in patterns:
        for end in range(1, len(parts) + 1):
            if pattern.match("/".join(parts[:end])):
                result = not negate
                break
    return result


def probe_paths_in(argv: list[str], probes: set[str]) -> list[str]:
    text = " ".join(argv)
    return [p for p in probes if re.search(rf"(?<![\w/]){re.escape(p)}(?![\w-])", text)]


def check_probe(argv: list[str], image: DockerImage | None, probes: set[str], where: str, problems: list[str]):
    if not argv or argv[0].upper() == "NONE":
        return
    program = argv[1:] if argv[0].upper() in ("CMD", "CMD-SHELL") else argv
    if not probe_paths_in(program, probes):
        problems.append(f"{where}: the health check asks for none of {', '.join(sorted(probes))}: {' '.join(program)}")
    if any("deep=" in word for word in program):
        problems.append(f"{where}: /readyz?deep=1 needs an admin's token; a health check cannot give one")
    if image and argv[0].upper() == "CMD" and program and program[0].startswith("/") \
            and not program[0].startswith(("/bin/", "/usr/bin/", "/usr/local/bin/")) and not image.installed(program[0]):
        problems.append(f"{where}: the health check runs {program[0]}, which no COPY of the final stage installs")


def check_dockerfile(ctx: "Context", path: Path) -> DockerImage:
    where = ctx.show(path)
    image = parse_dockerfile(path)
    problems = ctx.problems
    if not image.stages:
        problems.append(f"{where}: no FROM")
        return image
    final = image.final
    patterns = ignore_patterns(path.with_name(path.name + ".dockerignore")) or ignore_patterns(ctx.context / ".dockerignore")
    for stage in image.stages:
        for line, flags, sources, dest in stage.copies:
            if "from" in flags:
                continue
            for source in sources:
                if "://" in source:
                    continue
                relative = posixpath.normpath(source).lstrip("/")
                if glob.has_magic(relative):
                    matches = glob.glob(str(ctx.context / relative))
                    for match in matches:
                        rel = os.path.relpath(match, ctx.context)
                        if ignored(rel, patterns):
                            problems.append(f"{where}:{line}: COPY {source} matches {rel}, which the dockerignore excludes")
                    continue
                if not (ctx.context / relative).exists():
                    problems.append(f"{where}:{line}: COPY source {source} does not exist in the build context "
                                    f"(the repository root, {ctx.context})")
                elif ignored(relative, patterns):
                    problems.append(f"{where}:{line}: COPY source {source} is excluded by the dockerignore")
        for instruction in stage.instructions:
            if instruction.keyword == "RUN":
                script = re.sub(r"^(--\S+\s+)+", "", instruction.args)
                for argv in shell_invocations(script):
                    check_invocation(ctx.cli, argv, f"{where}:{instruction.line}", problems)
                    ctx.invocations += 1

    found = image.gateway_argv()
    if not found:
        problems.append(f"{where}: the final stage's ENTRYPOINT is not the gateway binary")
    else:
        entry, cmd = found
        check_invocation(ctx.cli, entry[1:] + cmd, f"{where}: ENTRYPOINT + CMD", problems)
        ctx.invocations += 1
        binary = entry[0] if entry[0].startswith("/") else posixpath.join(final.workdir, entry[0])
        if not image.installed(binary):
            problems.append(f"{where}: ENTRYPOINT {entry[0]}: no COPY of the final stage installs it")
        bin_dir = posixpath.dirname(binary)
        bundle = posixpath.join(bin_dir, ctx.web_bundle)
        if not image.installed(bundle):
            problems.append(f"{where}: the web pages' bundle must be copied beside the binary, to {bundle} "
                            f"(WebAssets.installed); without it / and /admin/ answer 404")
        spec_dirs = [final.workdir]
        directory = bin_dir
        for _ in range(6):
            spec_dirs.append(directory)
            directory = posixpath.dirname(directory)
        if not any(image.installed(posixpath.join(d, ctx.spec_relative)) for d in spec_dirs):
            problems.append(f"{where}: {ctx.spec_relative} must be copied under the WORKDIR ({final.workdir}) or a folder "
                            f"at or above the binary's (OpsRoutes.locateSpec); without it /openapi.yaml answers 404")

    user = (final.user or "root").split(":")[0]
    if user in ("root", "0"):
        problems.append(f"{where}: the final stage runs as root; add a USER")

    port = final.env.get("GATEWAY_PORT")
    exposed = [i.args for i in final.instructions if i.keyword == "EXPOSE"]
    exposed_ports = {word.split("/")[0] for args in exposed for word in args.split()}
    if not exposed:
        problems.append(f"{where}: no EXPOSE")
    elif (port or DEFAULT_PORT) not in exposed_ports:
        problems.append(f"{where}: EXPOSE {' '.join(sorted(exposed_ports))} but the gateway listens on {port or DEFAULT_PORT}")

    healthchecks = [i for i in final.instructions if i.keyword == "HEALTHCHECK"]
    if not healthchecks:
        problems.append(f"{where}: the final stage has no HEALTHCHECK")
    for instruction in healthchecks:
        rest = instruction.args
        while rest.startswith("--"):
            _, _, rest = rest.partition(" ")
            rest = rest.strip()
        keyword, _, rest = rest.partition(" ")
        if keyword.upper() == "NONE":
            problems.append(f"{where}:{instruction.line}: HEALTHCHECK NONE")
            continue
        argv = exec_or_shell(rest.strip())
        check_probe(["CMD"] + argv, image, ctx.probes, f"{where}:{instruction.line}: HEALTHCHECK", problems)
    return image


# ---------------------------------------------------------------------------------------------
# compose.yaml


def as_list(value) -> list:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def as_argv(value) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, list):
        return [str(v) for v in value]
    return shlex.split(str(value))


def environment_of(service: dict) -> dict[str, str]:
    env = service.get("environment") or {}
    if isinstance(env, list):
        return dict(str(item).partition("=")[::2] for item in env)
    return {str(k): "" if v is None else str(v) for k, v in env.items()}


def check_compose(ctx: "Context", path: Path, images: dict[Path, DockerImage]) -> dict[str, dict]:
    where = ctx.show(path)
    problems = ctx.problems
    try:
        document = read_yaml(path.read_text(encoding="utf-8"))
    except YAMLError as error:
        problems.append(f"{where}: {error} (check-deploy.py reads a YAML subset; keep to it)")
        return {}
    if not isinstance(document, dict) or not isinstance(document.get("services"), dict):
        problems.append(f"{where}: no services")
        return {}
    services: dict[str, dict] = document["services"]
    gateway_images = {}
    gateways: dict[str, dict] = {}
    for name, service in services.items():
        if not isinstance(service, dict):
            problems.append(f"{where}: service {name} is not a mapping")
            continue
        build = service.get("build")
        image = None
        if build is not None:
            context = build if isinstance(build, str) else build.get("context", ".")
            dockerfile = "Dockerfile" if isinstance(build, str) else build.get("dockerfile", "Dockerfile")
            context_dir = (path.parent / str(context)).resolve()
            dockerfile_path = (context_dir / str(dockerfile)).resolve()
            image = images.get(dockerfile_path)
            if image and context_dir != ctx.deploy.parent.resolve():
                problems.append(f"{where}: service {name} builds {ctx.show(dockerfile_path)} with context "
                                f"{context}, but its COPY lines expect the repository root")
            if image and image.gateway_argv() and service.get("image"):
                gateway_images[str(service["image"])] = image
        if image and image.gateway_argv():
            gateways[name] = {"service": service, "image": image}
    for name, service in services.items():
        if isinstance(service, dict) and name not in gateways and str(service.get("image", "")) in gateway_images:
            gateways[name] = {"service": service, "image": gateway_images[str(service["image"])]}
    if not gateways:
        problems.append(f"{where}: no service is built from a deploy/ Dockerfile whose ENTRYPOINT is the gateway")

    for name, info in gateways.items():
        service, image = info["service"], info["image"]
        label = f"{where}: service {name}"
        entry_default, cmd_default = image.gateway_argv()
        entrypoint = as_argv(service.get("entrypoint"))
        command = as_argv(service.get("command"))
        if entrypoint is not None:
            if not entrypoint or not is_gateway(entrypoint[0]):
                problems.append(f"{label}: entrypoint {entrypoint} is not the gateway binary")
                continue
            argv = entrypoint[1:] + (command or [])  # compose drops the image's CMD with a new entrypoint
        else:
            argv = entry_default[1:] + (command if command is not None else cmd_default)
        invocation = check_invocation(ctx.cli, argv, label, problems)
        ctx.invocations += 1
        env = dict(image.final.env)
        env.update(environment_of(service))
        info["env"] = env
        info["invocation"] = invocation
        port = invocation.options.get("--port") or env.get("GATEWAY_PORT") or DEFAULT_PORT
        info["port"] = port
        if invocation.options.get("--port") and invocation.options["--port"] != env.get("GATEWAY_PORT", DEFAULT_PORT):
            problems.append(f"{label}: --port {invocation.options['--port']} differs from GATEWAY_PORT "
                            f"({env.get('GATEWAY_PORT', DEFAULT_PORT)}), which the health check probes")
        healthcheck = service.get("healthcheck")
        if isinstance(healthcheck, dict) and healthcheck.get("test") is not None and not healthcheck.get("disable"):
            test = healthcheck["test"]
            argv_test = [str(v) for v in test] if isinstance(test, list) else ["CMD-SHELL", str(test)]
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

    # Reverse proxies with a fixed address must be trusted by every gateway.
    networks = document.get("networks") or {}
    for name, service in services.items():
        if not isinstance(service, dict) or name in gateways:
            continue
        image_name = str(service.get("image", "")).split("/")[-1]
        if not image_name.startswith(PROXY_IMAGES):
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
    return gateways


# ---------------------------------------------------------------------------------------------
# Other files


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


def check_comment_flags(ctx: "Context", path: Path, text: str):
    known = {name for command in all_commands(ctx.cli) for name in command.options}
    for number, comment in comment_lines(text):
        for flag in LONG_FLAG.findall(comment):
            if f"--{flag}" not in known:
                hint = difflib.get_close_matches(f"--{flag}", sorted(known), n=1)
                ctx.problems.append(f"{ctx.show(path)}:{number}: comment names --{flag}, which no gateway command has"
                                    + (f" (did you mean {hint[0]}?)" if hint else ""))


def check_systemd(ctx: "Context", path: Path, text: str):
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


def check_caddyfile(ctx: "Context", path: Path, text: str, gateways: dict[str, dict]):
    where = ctx.show(path)
    body = [(n, _strip_comment(line).strip()) for n, line in enumerate(text.splitlines(), 1)]
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


# ---------------------------------------------------------------------------------------------


@dataclass
class Context:
    cli: Command
    deploy: Path
    context: Path
    probes: set[str]
    spec_relative: str
    web_bundle: str
    problems: list[str] = field(default_factory=list)
    invocations: int = 0

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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
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
    variables_seen: set[str] = set()
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            for name in ENV_NAME.findall(line):
                variables_seen.add(name)
                if name not in known_envs:
                    hint = difflib.get_close_matches(name, sorted(known_envs), n=1)
                    ctx.problems.append(f"{ctx.show(path)}:{number}: {name} is not a variable the gateway reads "
                                        f"(not in its help nor in docs/configuration.md)"
                                        + (f"; did you mean {hint[0]}?" if hint else ""))

    images: dict[Path, DockerImage] = {}
    for path in files:
        if path.name.startswith("Dockerfile") and not path.name.endswith(".dockerignore"):
            images[path.resolve()] = check_dockerfile(ctx, path)
    if not images:
        ctx.problems.append(f"{ctx.show(deploy)}: no Dockerfile")

    gateways: dict[str, dict] = {}
    composes = [p for p in files if re.fullmatch(r"(docker-)?compose(\.[\w-]+)?\.ya?ml", p.name)]
    for path in composes:
        gateways.update(check_compose(ctx, path, images))
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

    if options.verbose:
        commands = list(all_commands(cli))
        print(f"check-deploy: {binary}: {len(commands)} commands; {len(help_envs)} variables in help, "
              f"{len(doc_envs - help_envs)} more from docs/configuration.md; probes {', '.join(sorted(probes))}")
        for note in notes:
            print(f"check-deploy: note: {note}")
        print(f"check-deploy: variables in deploy/ known only from the docs: {', '.join(sorted(variables_seen & (doc_envs - help_envs)))}")

    if ctx.problems:
        for problem in ctx.problems:
            print(f"check-deploy: {problem}", file=sys.stderr)
        print(f"check-deploy: {len(ctx.problems)} problem(s) in {ctx.show(deploy)}/", file=sys.stderr)
        return 1
    from_help = len(variables_seen & help_envs)
    print(f"check-deploy: {len(files)} files in {ctx.show(deploy)}/ agree with {options.binary}: "
          f"{ctx.invocations} gateway invocations, {len(variables_seen)} GATEWAY_* variables "
          f"({from_help} from --help, {len(variables_seen) - from_help} from docs/configuration.md)"
          + (f"; notes: {'; '.join(notes)}" if notes else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
