#!/usr/bin/env python3
"""Prints the project's target graph from Package.swift, one `Target: Dep, Dep` line per target
(project targets only; external products left out), as docs/architecture.md's ```targets block.
With `--update`, rewrites that block in docs/architecture.md. ModuleBoundaryTests checks the
block against Package.swift."""
import re, pathlib, sys
manifest = (pathlib.Path(__file__).resolve().parent.parent / "Package.swift").read_text()
chunks = manifest.split("\n        .")[1:]
names = {}
for chunk in chunks:
    if not re.match(r"(target|executableTarget|testTarget|systemLibrary)\(", chunk):
        continue
    m = re.search(r'name: "([A-Za-z0-9_-]+)"', chunk)
    if m:
        names[m.group(1)] = chunk
lines = []
for name in sorted(names, key=str.lower):
    chunk = names[name]
    deps = []
    i = chunk.find("dependencies: [")
    if i >= 0:
        rest = chunk[i + len("dependencies: ["):]
        rest = rest[: rest.find("]")]
        rest = re.sub(r"\.product\([^)]*\)", "", rest)
        deps = sorted({d for d in re.findall(r'"([A-Za-z0-9_-]+)"', rest) if d in names}, key=str.lower)
    lines.append(f"{name}: {', '.join(deps)}".rstrip())
if "--update" in sys.argv:
    doc = pathlib.Path(__file__).resolve().parent.parent / "docs" / "architecture.md"
    text = doc.read_text()
    start = text.index("```targets\n") + len("```targets\n")
    end = text.index("```", start)
    doc.write_text(text[:start] + "\n".join(lines) + "\n" + text[end:])
else:
    print("\n".join(lines))
