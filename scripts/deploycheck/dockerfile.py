"""deploy/Dockerfile, read with dockerfile-parse: the gateway it runs, what it copies from the build
context (against its dockerignore), its user, port, installed files and health check."""

from __future__ import annotations

import glob
import io
import json
import os
import posixpath
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from dockerfile_parse import DockerfileParser
from dockerfile_parse.parser import image_from

from .cli import check_invocation, is_gateway, shell_invocations
from .context import DEFAULT_PORT, Context


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


def exec_or_shell(args: str) -> list[str]:
    if args.startswith("["):
        try:
            value = json.loads(args)
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                return value
        except json.JSONDecodeError:
            pass
    return ["/bin/sh", "-c", args]


def _copy(args: str) -> tuple[dict[str, str], list[str]]:
    """COPY/ADD's --flags and its words (sources then the destination)."""
    flags: dict[str, str] = {}
    rest = args
    while rest.startswith("--"):
        flag, _, rest = rest.partition(" ")
        name, _, value = flag[2:].partition("=")
        flags[name] = value
        rest = rest.strip()
    return flags, json.loads(rest) if rest.startswith("[") else shlex.split(rest)


def parse_dockerfile(path: Path) -> DockerImage:
    parser = DockerfileParser(fileobj=io.BytesIO(path.read_bytes()))
    stages: list[Stage] = []
    # context_structure: the ENV and ARG values in effect after each instruction, substituted.
    for item, context in zip(parser.structure, parser.context_structure):
        keyword, args = item["instruction"], item["value"].strip()
        if keyword == "COMMENT":
            continue
        if keyword == "FROM":
            stages.append(Stage(image_from(args)[1] or str(len(stages))))
            continue
        if not stages:
            continue  # ARG before FROM
        stage = stages[-1]
        instruction = Instruction(item["startline"] + 1, keyword, args)
        stage.instructions.append(instruction)
        stage.env = dict(context.envs)
        if keyword == "WORKDIR":
            stage.workdir = posixpath.join(stage.workdir, args)
        elif keyword == "USER":
            stage.user = args
        elif keyword == "ENTRYPOINT":
            stage.entrypoint = exec_or_shell(args)
            stage.cmd = None  # Docker resets CMD when ENTRYPOINT is set
        elif keyword == "CMD":
            stage.cmd = exec_or_shell(args)
        elif keyword in ("COPY", "ADD"):
            flags, words = _copy(args)
            if len(words) >= 2:
                stage.copies.append((instruction.line, flags, words[:-1], words[-1]))
    return DockerImage(path, stages)


def ignore_patterns(path: Path) -> list[tuple[bool, re.Pattern]]:
    """A .dockerignore's patterns (Go's filepath.Match with `**`, `!` to include again)."""
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


def _check_copies(ctx: Context, where: str, image: DockerImage, patterns):
    for stage in image.stages:
        for line, flags, sources, _ in stage.copies:
            if "from" in flags:
                continue
            for source in sources:
                if "://" in source:
                    continue
                relative = posixpath.normpath(source).lstrip("/")
                if glob.has_magic(relative):
                    for match in glob.glob(str(ctx.context / relative)):
                        rel = os.path.relpath(match, ctx.context)
                        if ignored(rel, patterns):
                            ctx.problems.append(f"{where}:{line}: COPY {source} matches {rel}, which the dockerignore excludes")
                    continue
                if not (ctx.context / relative).exists():
                    ctx.problems.append(f"{where}:{line}: COPY source {source} does not exist in the build context "
                                        f"(the repository root, {ctx.context})")
                elif ignored(relative, patterns):
                    ctx.problems.append(f"{where}:{line}: COPY source {source} is excluded by the dockerignore")
        for instruction in stage.instructions:
            if instruction.keyword == "RUN":
                script = re.sub(r"^(--\S+\s+)+", "", instruction.args)
                for argv in shell_invocations(script):
                    check_invocation(ctx.cli, argv, f"{where}:{instruction.line}", ctx.problems)
                    ctx.invocations += 1


def _check_entrypoint(ctx: Context, where: str, image: DockerImage):
    problems, final = ctx.problems, image.final
    found = image.gateway_argv()
    if not found:
        problems.append(f"{where}: the final stage's ENTRYPOINT is not the gateway binary")
        return
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


def check_dockerfile(ctx: Context, path: Path) -> DockerImage:
    where = ctx.show(path)
    image = parse_dockerfile(path)
    problems = ctx.problems
    if not image.stages:
        problems.append(f"{where}: no FROM")
        return image
    final = image.final
    patterns = ignore_patterns(path.with_name(path.name + ".dockerignore")) or ignore_patterns(ctx.context / ".dockerignore")
    _check_copies(ctx, where, image, patterns)
    _check_entrypoint(ctx, where, image)

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
