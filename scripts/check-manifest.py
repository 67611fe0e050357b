#!/usr/bin/env python3
"""The manifest is true: every target declares exactly the modules its sources import.

Reads the package as SwiftPM evaluates it (`swift package dump-package`) and every Swift file
under each target's folder, then reports, per target:
  - a module imported but not declared (it builds today only because another dependency
    happens to bring it along, which `MemberImportVisibility` does not catch);
  - a target or product declared but never imported (a dependency nothing uses).
Modules of the toolchain (Foundation, Dispatch, Glibc, Testing, ...) need no declaration.
Exits 1 and lists the differences when there are any. `make test` runs it.
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLCHAIN = {
    "Foundation", "FoundationEssentials", "FoundationInternationalization", "FoundationNetworking",
    "Dispatch", "Glibc", "Musl", "Darwin", "WinSDK", "Synchronization", "Testing", "XCTest",
    "_Concurrency", "_StringProcessing", "RegexBuilder", "Observation", "Swift", "os", "CoreFoundation", "CDispatch",
}
# `import` with optional attributes and access level, of a module or of a declaration in it.
IMPORT = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?"
    r"import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?([A-Za-z_][A-Za-z0-9_]*)",
    re.M,
)


def dependency_name(dependency):
    if "byName" in dependency:
        return dependency["byName"][0]
    if "product" in dependency:
        return dependency["product"][0]
    if "target" in dependency:
        return dependency["target"][0]
    raise ValueError(dependency)


def target_folder(target):
    if target.get("path"):
        return os.path.join(ROOT, target["path"])
    base = "Tests" if target["type"] == "test" else "Sources"
    return os.path.join(ROOT, base, target["name"])


def header_imports(text):
    """The modules a file imports: its import lines before the first declaration (imports in
    a string literal further down, such as a Python script a test runs, don't count)."""
    found = []
    in_comment = False
    for line in text.splitlines():
        stripped = line.strip()
        if in_comment:
            in_comment = "*/" not in stripped
            continue
        if stripped.startswith("/*"):
            in_comment = "*/" not in stripped
            continue
        if not stripped or stripped.startswith("//") or stripped.startswith("#"):
            continue
        match = IMPORT.match(line)
        if not match:
            break
        found.append(match.group(1))
    return found


def imports_of(folder, excluded):
    found = set()
    for directory, _, files in os.walk(folder):
        if any(os.path.commonpath([directory, e]) == e for e in excluded):
            continue
        for name in files:
            if name.endswith(".swift"):
                with open(os.path.join(directory, name), encoding="utf-8") as source:
                    found.update(header_imports(source.read()))
    return found


def main():
    package = json.loads(subprocess.check_output(["swift", "package", "dump-package"], cwd=ROOT))
    problems = []
    for target in package["targets"]:
        if target["type"] == "system":
            continue
        folder = target_folder(target)
        excluded = [os.path.join(folder, e) for e in target.get("exclude", [])]
        declared = {dependency_name(d) for d in target["dependencies"]}
        imported = imports_of(folder, excluded) - TOOLCHAIN - {target["name"]}
        for module in sorted(imported - declared):
            problems.append(f"{target['name']}: imports {module} without declaring it")
        for module in sorted(declared - imported):
            problems.append(f"{target['name']}: declares {module} but never imports it")
    if problems:
        print("Package.swift and the imports disagree:", *problems, sep="\n  ")
        return 1
    print(f"manifest: {len(package['targets'])} targets, declared dependencies equal imports")
    return 0


if __name__ == "__main__":
    sys.exit(main())
