"""YAML (compose files, Kubernetes manifests, Prometheus rules, the collector's settings) read with
PyYAML's safe loader. A key given twice in one mapping is an error, as compose and kubectl make it."""

from __future__ import annotations

import shlex
from pathlib import Path

import yaml


class YAMLError(Exception):
    pass


class _Loader(yaml.SafeLoader):
    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen = set()
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue  # `<<: *defaults`: the keys it brings may be overridden
                key = self.construct_object(key_node, deep=True)
                try:
                    duplicate = key in seen
                    seen.add(key)
                except TypeError:
                    continue  # an unhashable key: construct_mapping reports it
                if duplicate:
                    raise yaml.constructor.ConstructorError(
                        "while constructing a mapping", node.start_mark, f"found duplicate key '{key}'", key_node.start_mark)
        return super().construct_mapping(node, deep)


def _error(error: yaml.YAMLError) -> YAMLError:
    mark = getattr(error, "problem_mark", None)
    problem = getattr(error, "problem", None)
    if problem is None:
        return YAMLError(str(error))
    return YAMLError((f"line {mark.line + 1}: " if mark else "") + problem)


def read_yaml(text: str):
    """The one document of a file (None when it is empty)."""
    try:
        return yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as error:
        raise _error(error) from error


def read_yaml_documents(text: str) -> list:
    """Every document of a multi-document file (separated by `---` lines), empty ones left out."""
    try:
        return [document for document in yaml.load_all(text, Loader=_Loader) if document is not None]
    except yaml.YAMLError as error:
        raise _error(error) from error


def load_yaml(ctx, path: Path):
    """read_yaml on a file; a file that is not YAML is a problem (and None)."""
    try:
        return read_yaml(path.read_text(encoding="utf-8"))
    except YAMLError as error:
        ctx.problems.append(f"{ctx.show(path)}: {error}")
        return None


def as_list(value) -> list:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def text_of(value) -> str:
    """A scalar as the text a program is given: null is empty, booleans are true and false."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def as_argv(value) -> list[str] | None:
    """A compose or Kubernetes command: a list of words, or one string split as a shell would."""
    if value is None:
        return None
    if isinstance(value, list):
        return [text_of(v) for v in value]
    return shlex.split(str(value))
