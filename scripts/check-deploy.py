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
  loopback only, which another container never is). YAML is read with a small subset reader
  (block mappings and sequences, flow sequences of scalars, flat flow mappings, quoted scalars,
  literal and folded block scalars, anchors, aliases, `<<` merge keys and `---` documents);
  anything else is reported as unsupported.
- systemd units (*.service): gateway invocations in Exec*= lines.
- Caddyfile: health_uri is /healthz or /readyz; reverse_proxy upstreams are gateway services
  of compose.yaml on their port.
- Every compose file's services rotate their logs (json-file with max-size and max-file). An
  override (compose.<name>.yaml) is merged onto compose.yaml as compose merges it and checked
  like it; a gateway's OTEL_EXPORTER_OTLP_ENDPOINT must name a service on a network it shares,
  whose mounted collector configuration receives OTLP/HTTP on that port into a traces pipeline.
- kubernetes/*.yaml (multi-document): known apiVersion and kind, names, selectors matching pod
  labels; gateway containers' command and args checked like the Dockerfile's (against the
  image's ENTRYPOINT and CMD); a non-loopback host; readiness on /readyz and liveness on
  /healthz at the gateway's port; runAsNonRoot, readOnlyRootFilesystem, no privilege
  escalation, capabilities dropped, resource requests; secrets as files: every secret *_FILE
  variable inside a mounted Secret volume holding that key, no secretKeyRef for a variable that
  has a *_FILE form, no password in the database URL; the Service selects only pods with
  --no-workers, some Deployment runs workers, and a PodDisruptionBudget covers the web pods
  without blocking drains.
- prometheus/*.yaml and grafana/*.json: every metric, histogram series and label in the rules'
  and panels' PromQL (and the labels their annotations and legends name) is in the metrics
  tables of docs/operations.md, which are the one list of what the gateway exposes; PromQL
  functions exist; rules have a severity and a summary; the dashboard shows every metric.
  With promtool on the PATH (Debian's prometheus package), `promtool check rules` and
  `promtool test rules` on *.test.yaml run too.
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
import shutil
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


_BLOCK_HEADER = re.compile(r"(?:^|:\s+|^-\s+)([|>])([-+]?)$")


def _block_text(raw: list[str], style: str, chomp: str) -> str:
    """The value of a literal (|) or folded (>) block scalar from its raw lines."""
    nonblank = [line for line in raw if line.strip()]
    if not nonblank:
        return ""
    indent = min(len(line) - len(line.lstrip(" ")) for line in nonblank)
    lines = [line[indent:].rstrip() if line.strip() else "" for line in raw]
    while lines and lines[-1] == "":
        lines.pop()
    if style == "|":
        text = "\n".join(lines)
    else:
        text, previous_blank = "", True
        for line in lines:
            if not line:
                text += "\n"
                previous_blank = True
            else:
                text += ("" if previous_blank else " ") + line
                previous_blank = False
    return text if chomp == "-" else text + "\n"


class _YAMLReader:
    def __init__(self, text: str):
        self.anchors: dict[str, object] = {}
        self.lines: list[_Line] = []
        self.blocks: dict[int, str] = {}  # line number of a `key: |` header -> the block's text
        raw_lines = text.splitlines()
        block: tuple[int, int, str, str, list[str]] | None = None  # header line, its indent, style, chomp, lines
        for number, raw in enumerate(raw_lines, 1):
            if block is not None:
                if not raw.strip() or len(raw) - len(raw.lstrip(" ")) > block[1]:
                    block[4].append(raw)
                    continue
                self.blocks[block[0]] = _block_text(block[4], block[2], block[3])
                block = None
            body = _strip_comment(raw).rstrip()
            if not body.strip():
                continue
            indent = len(body) - len(body.lstrip(" "))
            header = _BLOCK_HEADER.search(body.strip())
            if header:
                block = (number, indent, header.group(1), header.group(2), [])
            if body[indent:indent + 1] == "\t":
                raise YAMLError(f"line {number}: tab in indentation")
            if body.strip() in ("---", "...") and not self.lines:
                continue
            if body.strip() in ("---", "..."):
                raise YAMLError(f"line {number}: more than one document")
            self.lines.append(_Line(number, indent, body.strip()))
        if block is not None:
            self.blocks[block[0]] = _block_text(block[4], block[2], block[3])

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
        if text.startswith("{"):
            if not text.endswith("}"):
                raise YAMLError(f"line {number}: a flow mapping must end on its line")
            result = {}
            for item in _split_items(text[1:-1], number):
                match = _KEY.match(item + " ")
                if not match:
                    raise YAMLError(f"line {number}: expected 'key: value' in a flow mapping, found '{item}'")
                result[match.group(1)] = _scalar(match.group(2), number)
            return result
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
        elif re.fullmatch(r"[|>][-+]?", rest):
            value = self.blocks.get(number, "")
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


def read_yaml_documents(text: str) -> list:
    """Every document of a multi-document file (separated by `---` lines), empty ones left out.
    Line numbers in errors stay those of the file."""
    lines = text.splitlines()
    starts = [0] + [i for i, line in enumerate(lines) if re.match(r"^---(\s|$)", line)] + [len(lines)]
    documents = []
    for start, end in zip(starts, starts[1:]):
        if start == end:
            continue
        chunk = [""] * len(lines)
        first = start + 1 if re.match(r"^---(\s|$)", lines[start]) else start
        chunk[first:end] = lines[first:end]
        document = _YAMLReader("\n".join(chunk)).read()
        if document is not None:
            documents.append(document)
    return documents


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


def load_compose(ctx: "Context", path: Path):
    try:
        return read_yaml(path.read_text(encoding="utf-8"))
    except YAMLError as error:
        ctx.problems.append(f"{ctx.show(path)}: {error} (check-deploy.py reads a YAML subset; keep to it)")
        return None


_COMPOSE_APPENDED = ("ports", "expose", "volumes", "secrets", "configs", "dns", "env_file", "extra_hosts", "cap_add", "cap_drop")


def _as_mapping(value) -> dict:
    if isinstance(value, list):
        return {str(item): None for item in value}
    return dict(value or {})


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
        if key == "environment" and isinstance(base, list):
            base = dict(str(item).partition("=")[::2] for item in base)
        if key == "environment" and isinstance(override, list):
            override = dict(str(item).partition("=")[::2] for item in override)
        return merge_compose(_as_mapping(base), _as_mapping(override))
    if key in _COMPOSE_APPENDED and isinstance(base, list) and isinstance(override, list):
        return base + [item for item in override if item not in base]
    return copy.deepcopy(override)


def check_logging(ctx: "Context", where: str, services: dict):
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
        elif driver not in ("local", "journald", "syslog", "fluentd", "gelf"):
            ctx.problems.append(f"{where}: service {name}: logging driver {driver} is not one check-deploy.py knows")


def networks_of(service: dict) -> set[str]:
    networks = service.get("networks")
    if networks is None:
        return {"default"}
    return set(_as_mapping(networks))


def check_tracing(ctx: "Context", where: str, compose_dir: Path, document: dict, gateways: dict[str, dict]):
    """OTEL_EXPORTER_OTLP_ENDPOINT names a service of the stack on a network the gateway shares,
    at the port its collector configuration receives OTLP/HTTP on."""
    services = document.get("services") or {}
    for name, info in gateways.items():
        env = info.get("env") or {}
        endpoint = env.get("OTEL_EXPORTER_OTLP_ENDPOINT")
        sampler = env.get("OTEL_TRACES_SAMPLER")
        if sampler and sampler not in ("always_on", "always_off", "traceidratio", "parentbased_always_on",
                                       "parentbased_always_off", "parentbased_traceidratio"):
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
        try:
            settings = read_yaml(config.read_text(encoding="utf-8")) or {}
        except YAMLError as error:
            ctx.problems.append(f"{ctx.show(config)}: {error}")
            continue
        http = ((((settings.get("receivers") or {}).get("otlp") or {}).get("protocols") or {}).get("http"))
        if "http" not in ((((settings.get("receivers") or {}).get("otlp") or {}).get("protocols")) or {}):
            ctx.problems.append(f"{ctx.show(config)}: no receivers.otlp.protocols.http: the gateway exports OTLP over HTTP")
            continue
        listen = str((http or {}).get("endpoint") or "localhost:4318")
        listen_host, _, listen_port = listen.rpartition(":")
        if listen_port != port:
            ctx.problems.append(f"{where}: service {name} sends traces to port {port}, but {ctx.show(config)} receives OTLP/HTTP on {listen}")
        if listen_host in ("localhost", "127.0.0.1", "::1", "[::1]"):
            ctx.problems.append(f"{ctx.show(config)}: OTLP/HTTP on {listen} is reachable from inside the collector's container only; listen on 0.0.0.0")
        traces = (((settings.get("service") or {}).get("pipelines") or {}).get("traces")) or {}
        if "otlp" not in as_list(traces.get("receivers")):
            ctx.problems.append(f"{ctx.show(config)}: the traces pipeline does not receive from otlp")
        exporters = as_list(traces.get("exporters"))
        if not exporters:
            ctx.problems.append(f"{ctx.show(config)}: the traces pipeline has no exporter")
        for exporter in exporters:
            if exporter not in (settings.get("exporters") or {}):
                ctx.problems.append(f"{ctx.show(config)}: the traces pipeline's exporter {exporter} is not configured under exporters")
        for processor in as_list(traces.get("processors")):
            if processor not in (settings.get("processors") or {}):
                ctx.problems.append(f"{ctx.show(config)}: the traces pipeline's processor {processor} is not configured under processors")


def check_compose(ctx: "Context", path: Path, images: dict[Path, DockerImage], document=None, where: str | None = None) -> dict[str, dict]:
    where = where or ctx.show(path)
    problems = ctx.problems
    if document is None:
        document = load_compose(ctx, path)
        if document is None:
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

    check_logging(ctx, where, services)
    check_tracing(ctx, where, path.parent, document, gateways)

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
# Kubernetes manifests (deploy/kubernetes/)

KNOWN_KINDS = {
    ("v1", "Namespace"), ("v1", "ConfigMap"), ("v1", "Secret"), ("v1", "Service"), ("v1", "ServiceAccount"),
    ("apps/v1", "Deployment"), ("apps/v1", "StatefulSet"), ("policy/v1", "PodDisruptionBudget"),
    ("batch/v1", "Job"), ("batch/v1", "CronJob"), ("networking.k8s.io/v1", "Ingress"),
    ("networking.k8s.io/v1", "NetworkPolicy"), ("autoscaling/v2", "HorizontalPodAutoscaler"),
    ("kustomize.config.k8s.io/v1beta1", "Kustomization"),
}
# *_FILE variables that name a secret. CA bundles are public and the port file is written, not read;
# the vault key file must be 0600 and owned by the gateway's user, which a Secret volume never is.
NOT_SECRET_FILES = re.compile(r"^GATEWAY_(\w+_CA_FILE|PORT_FILE|VAULT_KEY_FILE)$")
TRUE_WORDS = ("1", "true", "yes", "on")


def _labels_match(selector: dict, labels: dict) -> bool:
    return bool(selector) and all(str(labels.get(k)) == str(v) for k, v in selector.items())


def _int(value) -> int | None:
    try:
        return int(str(value), 8) if str(value).startswith("0") and len(str(value)) > 1 else int(str(value))
    except (TypeError, ValueError):
        return None


def check_kubernetes(ctx: "Context", folder: Path, images: dict[Path, DockerImage], known_envs: set[str]):
    problems = ctx.problems
    docs: list[tuple[Path, dict]] = []
    for path in sorted(folder.glob("*.y*ml")):
        try:
            for document in read_yaml_documents(path.read_text(encoding="utf-8")):
                docs.append((path, document))
        except YAMLError as error:
            problems.append(f"{ctx.show(path)}: {error} (check-deploy.py reads a YAML subset; keep to it)")
    if not docs:
        problems.append(f"{ctx.show(folder)}: no manifests")
        return
    gateway_image = next((image for image in images.values() if image.gateway_argv()), None)

    by_kind: dict[str, list[tuple[Path, dict]]] = {}
    for path, doc in docs:
        where = ctx.show(path)
        if not isinstance(doc, dict):
            problems.append(f"{where}: a document that is not a mapping")
            continue
        kind, version = str(doc.get("kind", "")), str(doc.get("apiVersion", ""))
        if (version, kind) not in KNOWN_KINDS:
            known = sorted(f"{v} {k}" for v, k in KNOWN_KINDS if k == kind)
            problems.append(f"{where}: apiVersion {version!r} kind {kind!r} is not a known one"
                            + (f" (known: {', '.join(known)})" if known else ""))
            continue
        name = (doc.get("metadata") or {}).get("name")
        if kind != "Kustomization" and not name:
            problems.append(f"{where}: {kind} without metadata.name")
        by_kind.setdefault(kind, []).append((path, doc))

    for path, doc in by_kind.get("Kustomization", []):
        for resource in as_list(doc.get("resources")):
            if not (path.parent / str(resource)).exists():
                problems.append(f"{ctx.show(path)}: resource {resource} does not exist")
        listed = {str(r) for r in as_list(doc.get("resources"))}
        for other in sorted(folder.glob("*.y*ml")):
            if other.name != path.name and other.name not in listed and ".example." not in other.name:
                problems.append(f"{ctx.show(path)}: {other.name} is not in resources (name it *.example.yaml if it is a template)")

    config_maps = {str(d["metadata"]["name"]): d for _, d in by_kind.get("ConfigMap", []) if (d.get("metadata") or {}).get("name")}
    secrets = {str(d["metadata"]["name"]): d for _, d in by_kind.get("Secret", []) if (d.get("metadata") or {}).get("name")}

    deployments = []  # (where, name, pod labels, replicas, runs workers)
    for path, doc in by_kind.get("Deployment", []) + by_kind.get("StatefulSet", []):
        name = (doc.get("metadata") or {}).get("name")
        where = f"{ctx.show(path)}: {doc['kind']} {name}"
        spec = doc.get("spec") or {}
        selector = ((spec.get("selector") or {}).get("matchLabels")) or {}
        template = spec.get("template") or {}
        labels = ((template.get("metadata") or {}).get("labels")) or {}
        if not selector:
            problems.append(f"{where}: no spec.selector.matchLabels")
        elif not _labels_match(selector, labels):
            problems.append(f"{where}: spec.selector.matchLabels {selector} does not match the pod template's labels {labels}")
        pod = template.get("spec") or {}
        containers = pod.get("containers") or []
        if not containers:
            problems.append(f"{where}: no containers")
        volumes = {str(v.get("name")): v for v in as_list(pod.get("volumes")) if isinstance(v, dict)}
        pod_security = pod.get("securityContext") or {}
        workers = None
        for container in containers:
            if not isinstance(container, dict) or not container.get("name") or not container.get("image"):
                problems.append(f"{where}: a container without name or image")
                continue
            label = f"{where}, container {container['name']}"
            image_name = str(container["image"]).split("/")[-1].split("@")[0].split(":")[0]
            command = as_argv(container.get("command"))
            is_gateway_container = image_name == "campus-gateway" or (command and is_gateway(command[0]))
            if not is_gateway_container:
                continue
            if gateway_image is None:
                problems.append(f"{label}: no deploy/ Dockerfile whose ENTRYPOINT is the gateway to compare with")
                continue
            entry_default, cmd_default = gateway_image.gateway_argv()
            args = as_argv(container.get("args"))
            if command is not None:
                if not command or not is_gateway(command[0]):
                    problems.append(f"{label}: command {command} is not the gateway binary")
                    continue
                argv = command[1:] + (args or [])  # a command replaces the image's ENTRYPOINT and CMD
            else:
                argv = entry_default[1:] + (args if args is not None else cmd_default)
            invocation = check_invocation(ctx.cli, argv, label, problems)
            ctx.invocations += 1
            if invocation.command.path != ("serve",):
                problems.append(f"{label}: runs `{invocation.command.name}`, not `gateway serve`")

            env: dict[str, str] = dict(gateway_image.final.env)
            for source in as_list(container.get("envFrom")):
                ref = (source or {}).get("configMapRef")
                if isinstance(ref, dict):
                    config = config_maps.get(str(ref.get("name")))
                    if config is None and not ref.get("optional"):
                        problems.append(f"{label}: envFrom ConfigMap {ref.get('name')} is not in {ctx.show(folder)}/")
                    elif config is not None:
                        env.update({str(k): str(v) for k, v in (config.get("data") or {}).items()})
                if isinstance((source or {}).get("secretRef"), dict):
                    problems.append(f"{label}: envFrom a Secret puts every secret in the environment; mount it as files")
            for variable in as_list(container.get("env")):
                if not isinstance(variable, dict) or not variable.get("name"):
                    problems.append(f"{label}: an env entry without a name")
                    continue
                var = str(variable["name"])
                secret_ref = ((variable.get("valueFrom") or {}).get("secretKeyRef"))
                if secret_ref is not None:
                    if f"{var}_FILE" in known_envs and not NOT_SECRET_FILES.match(f"{var}_FILE"):
                        problems.append(f"{label}: {var} comes from a Secret as a variable; mount the Secret and set {var}_FILE")
                    env[var] = "<secret>"
                elif "value" in variable:
                    env[var] = "" if variable["value"] is None else str(variable["value"])
            for var, value in env.items():
                if var.startswith("GATEWAY_") and re.search(r"PASSWORD|SECRET|TOKEN|_KEY$", var) and not var.endswith("_FILE") \
                        and value != "<secret>" and f"{var}_FILE" in known_envs and not NOT_SECRET_FILES.match(f"{var}_FILE"):
                    problems.append(f"{label}: {var} is set in plain text; put it in the Secret and set {var}_FILE")
            database = invocation.options.get("--database") or env.get("GATEWAY_DATABASE") or ""
            if re.match(r"^postgres(ql)?://[^/@]*:[^/@]*@", database):
                problems.append(f"{label}: the database URL carries a password; give it as GATEWAY_DATABASE_PASSWORD_FILE from the Secret")
            if database and not database.startswith(("postgres://", "postgresql://")):
                problems.append(f"{label}: GATEWAY_DATABASE is not a postgres:// URL; pods share one PostgreSQL database")

            # Secrets as files: every secret *_FILE path is inside a mounted Secret volume.
            mounts = [m for m in as_list(container.get("volumeMounts")) if isinstance(m, dict)]
            for var, value in env.items():
                if not (var.startswith("GATEWAY_") and var.endswith("_FILE")) or not value:
                    continue
                mount = next((m for m in mounts if value.startswith(str(m.get("mountPath", "")).rstrip("/") + "/")), None)
                volume = volumes.get(str(mount.get("name"))) if mount else None
                if var == "GATEWAY_VAULT_KEY_FILE" and volume and "secret" in volume:
                    problems.append(f"{label}: GATEWAY_VAULT_KEY_FILE in a Secret volume: the key file must be 0600 and owned by "
                                    f"the gateway's user, which a Secret volume never is; use GATEWAY_VAULT_KEY from a secretKeyRef")
                    continue
                if NOT_SECRET_FILES.match(var):
                    continue
                if mount is None:
                    problems.append(f"{label}: {var}={value} is under no volumeMount")
                elif volume is None:
                    problems.append(f"{label}: {var}: the volume {mount.get('name')} is not in the pod's volumes")
                elif "secret" not in volume:
                    problems.append(f"{label}: {var}={value} is not in a Secret volume")
                else:
                    secret_volume = volume["secret"] or {}
                    key = value[len(str(mount["mountPath"]).rstrip("/")) + 1:]
                    items = {str(i.get("path")): str(i.get("key")) for i in as_list(secret_volume.get("items")) if isinstance(i, dict)}
                    if items:
                        if key not in items:
                            problems.append(f"{label}: {var}: the Secret volume's items have no path {key}")
                        key = items.get(key, key)
                    secret = secrets.get(str(secret_volume.get("secretName")))
                    if secret is not None:
                        keys = set((secret.get("stringData") or {})) | set((secret.get("data") or {}))
                        if key not in keys:
                            problems.append(f"{label}: {var} reads key {key}, which Secret {secret_volume.get('secretName')} does not have")
                    mode = _int(secret_volume.get("defaultMode", "0644"))
                    if mode is not None and mode & 0o007:
                        problems.append(f"{label}: the Secret volume's defaultMode {oct(mode)} lets every user of the pod read it; use 0440 with fsGroup")
                    if mode is not None and not mode & 0o040 and _int(pod_security.get("runAsUser")) not in (None, 0):
                        problems.append(f"{label}: the Secret volume's files ({oct(mode)}, owned by root) are unreadable by uid "
                                        f"{pod_security.get('runAsUser')}; give 0440 and fsGroup")
                    if mode is not None and mode & 0o040 and not pod_security.get("fsGroup"):
                        problems.append(f"{label}: the Secret volume is group-readable but the pod sets no fsGroup, so root's group owns it")

            # Where it listens, and the probes.
            host = invocation.options.get("--host") or env.get("GATEWAY_HOST") or "127.0.0.1"
            if host in ("127.0.0.1", "localhost", "::1") or host.startswith("127."):
                problems.append(f"{label}: listens on {host}; the kubelet's probes and the Service reach the pod's address (GATEWAY_HOST 0.0.0.0)")
            port = str(invocation.options.get("--port") or env.get("GATEWAY_PORT") or DEFAULT_PORT)
            ports = {str(p.get("name")): str(p.get("containerPort")) for p in as_list(container.get("ports")) if isinstance(p, dict)}
            if port not in ports.values():
                problems.append(f"{label}: the gateway listens on {port}, which is no containerPort ({', '.join(ports.values()) or 'none'})")
            container["__port"], container["__ports"] = port, ports
            for probe_name, wanted in (("readinessProbe", "/readyz"), ("livenessProbe", "/healthz"), ("startupProbe", None)):
                probe = container.get(probe_name)
                if probe is None:
                    if wanted:
                        problems.append(f"{label}: no {probe_name} (on {wanted})")
                    continue
                get = (probe or {}).get("httpGet") or {}
                path_asked = str(get.get("path", ""))
                if wanted and path_asked != wanted:
                    problems.append(f"{label}: {probe_name} asks {path_asked or 'nothing over HTTP'}, not {wanted}"
                                    + (": a database outage would restart every pod" if probe_name == "livenessProbe" and path_asked == "/readyz" else ""))
                elif not wanted and path_asked not in ctx.probes:
                    problems.append(f"{label}: {probe_name} asks {path_asked}, none of {', '.join(sorted(ctx.probes))}")
                if "deep" in path_asked:
                    problems.append(f"{label}: {probe_name}: /readyz?deep=1 needs an admin's token")
                probe_port = str(get.get("port", ""))
                resolved = ports.get(probe_port, probe_port)
                if resolved != port:
                    problems.append(f"{label}: {probe_name} probes port {probe_port}, but the gateway listens on {port}")
                if str(get.get("scheme", "HTTP")).upper() == "HTTPS" and not invocation.options.get("--tls-cert") and not env.get("GATEWAY_TLS_CERT"):
                    problems.append(f"{label}: {probe_name} uses HTTPS, but the gateway serves plain HTTP")

            # Non-root, read-only, resources.
            security = container.get("securityContext") or {}
            run_as_user = security.get("runAsUser", pod_security.get("runAsUser"))
            non_root = security.get("runAsNonRoot", pod_security.get("runAsNonRoot"))
            if str(non_root).lower() != "true" or _int(run_as_user) in (None, 0):
                problems.append(f"{label}: set runAsNonRoot: true and a non-zero runAsUser (the image's gateway user is 10001)")
            if str(security.get("readOnlyRootFilesystem")).lower() != "true":
                problems.append(f"{label}: readOnlyRootFilesystem is not true")
            if str(security.get("allowPrivilegeEscalation")).lower() != "false":
                problems.append(f"{label}: allowPrivilegeEscalation is not false")
            if "ALL" not in [str(c) for c in as_list(((security.get("capabilities") or {}).get("drop")))]:
                problems.append(f"{label}: capabilities.drop does not include ALL")
            requests = ((container.get("resources") or {}).get("requests")) or {}
            for resource in ("cpu", "memory"):
                if not requests.get(resource):
                    problems.append(f"{label}: no resources.requests.{resource}")
            no_workers = "--no-workers" in invocation.options or str(env.get("GATEWAY_NO_WORKERS", "")).lower() in TRUE_WORDS
            workers = not no_workers if workers is None else workers or not no_workers
        replicas = _int(spec.get("replicas", 1))
        deployments.append({"where": where, "name": name, "labels": labels, "replicas": replicas, "workers": workers,
                            "containers": containers, "path": path})

    gateway_deployments = [d for d in deployments if d["workers"] is not None]
    if not gateway_deployments:
        problems.append(f"{ctx.show(folder)}: no Deployment runs the gateway")
    elif not any(d["workers"] for d in gateway_deployments):
        problems.append(f"{ctx.show(folder)}: every gateway Deployment runs --no-workers; no pod runs the jobs")

    served = []
    for path, doc in by_kind.get("Service", []):
        where = f"{ctx.show(path)}: Service {(doc.get('metadata') or {}).get('name')}"
        spec = doc.get("spec") or {}
        selector = spec.get("selector") or {}
        selected = [d for d in deployments if _labels_match(selector, d["labels"])]
        if not selector:
            problems.append(f"{where}: no selector")
        elif not selected:
            problems.append(f"{where}: selector {selector} matches no Deployment's pods")
        for deployment in selected:
            served.append(deployment)
            if deployment["workers"]:
                problems.append(f"{where} selects {deployment['where']}, which runs job workers: serve the API from pods with --no-workers")
        ports = as_list(spec.get("ports"))
        if not ports:
            problems.append(f"{where}: no ports")
        for port in ports:
            if not isinstance(port, dict) or not port.get("port"):
                problems.append(f"{where}: a port without port")
                continue
            target = str(port.get("targetPort", port["port"]))
            for deployment in selected:
                for container in deployment["containers"]:
                    if isinstance(container, dict) and "__port" in container:
                        resolved = container["__ports"].get(target, target)
                        if resolved != container["__port"]:
                            problems.append(f"{where}: targetPort {target} of {deployment['where']} is not the gateway's port {container['__port']}")
    if gateway_deployments and not served:
        problems.append(f"{ctx.show(folder)}: no Service selects the web pods")

    covered = []
    for path, doc in by_kind.get("PodDisruptionBudget", []):
        where = f"{ctx.show(path)}: PodDisruptionBudget {(doc.get('metadata') or {}).get('name')}"
        spec = doc.get("spec") or {}
        if ("minAvailable" in spec) == ("maxUnavailable" in spec):
            problems.append(f"{where}: give exactly one of minAvailable and maxUnavailable")
        selector = ((spec.get("selector") or {}).get("matchLabels")) or {}
        selected = [d for d in deployments if _labels_match(selector, d["labels"])]
        if not selected:
            problems.append(f"{where}: selector {selector} matches no Deployment's pods")
        covered += selected
        for deployment in selected:
            minimum = _int(spec.get("minAvailable")) if "%" not in str(spec.get("minAvailable", "")) else None
            if minimum is not None and deployment["replicas"] is not None and minimum >= deployment["replicas"]:
                problems.append(f"{where}: minAvailable {minimum} with {deployment['replicas']} replicas blocks every drain")
            if "maxUnavailable" in spec and str(spec["maxUnavailable"]) in ("0", "0%"):
                problems.append(f"{where}: maxUnavailable 0 blocks every drain")
    for deployment in served:
        if deployment not in covered:
            problems.append(f"{deployment['where']}: the web pods have no PodDisruptionBudget")


# ---------------------------------------------------------------------------------------------
# Alert rules and the dashboard against the metrics table of docs/operations.md


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
SEVERITIES = ("critical", "warning", "info")


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


def check_rules(ctx: "Context", path: Path, series: dict[str, tuple[Metric, str]]) -> set[str]:
    where = ctx.show(path)
    problems = ctx.problems
    used_all: set[str] = set()
    try:
        document = read_yaml(path.read_text(encoding="utf-8"))
    except YAMLError as error:
        problems.append(f"{where}: {error} (check-deploy.py reads a YAML subset; keep to it)")
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


def run_promtool(ctx: "Context", folder: Path, notes: list[str]):
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


def check_rule_tests(ctx: "Context", path: Path, series: dict[str, tuple[Metric, str]]):
    """The input series of promtool's unit tests are series the gateway exposes, with their labels."""
    try:
        document = read_yaml(path.read_text(encoding="utf-8")) or {}
    except YAMLError as error:
        ctx.problems.append(f"{ctx.show(path)}: {error} (check-deploy.py reads a YAML subset; keep to it)")
        return
    for test in as_list(document.get("tests")):
        for item in as_list((test or {}).get("input_series")):
            check_promql(str((item or {}).get("series", "")), f"{ctx.show(path)}: input series", series, ctx.problems)


def check_dashboard(ctx: "Context", path: Path, series: dict[str, tuple[Metric, str]], metrics: dict[str, Metric]):
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
    composes = [p for p in files if re.fullmatch(r"(docker-)?compose\.ya?ml", p.name)]
    overrides = [p for p in files if re.fullmatch(r"(docker-)?compose\.[\w-]+\.ya?ml", p.name)]
    for path in composes:
        gateways.update(check_compose(ctx, path, images))
    # An override (compose.tracing.yaml) is checked as compose sees it: merged onto the base file.
    for path in overrides:
        base = next((b for b in composes if b.parent == path.parent), None)
        override = load_compose(ctx, path)
        if base is None or override is None:
            if base is None:
                ctx.problems.append(f"{ctx.show(path)}: an override file without a compose.yaml beside it")
            continue
        base_document = load_compose(ctx, base)
        if base_document is not None:
            check_compose(ctx, path, images, merge_compose(base_document, override),
                          f"{ctx.show(base)} + {path.name}")
    kubernetes = deploy / "kubernetes"
    if kubernetes.is_dir():
        check_kubernetes(ctx, kubernetes, images, known_envs)

    # Alert rules and dashboards use only the metrics docs/operations.md lists.
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


if __name__ == "__main__":
    sys.exit(main())
