#!/usr/bin/env python3
"""Copies the browser tests' screenshots (artifacts/screenshots, from `make check-browser`) into
docs/web/ for docs/web.md, scaled to at most 1000 pixels wide and reduced to a 128-colour palette
so the committed images stay small. Needs Pillow in .venv (installed on first use):
    .venv/bin/python scripts/web-screenshots-to-docs.py
"""
import pathlib
import subprocess
import sys

root = pathlib.Path(__file__).resolve().parent.parent
try:
    from PIL import Image
except ImportError:
    subprocess.check_call([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "pillow==13.0.0"])
    from PIL import Image

source = root / "artifacts" / "screenshots"
target = root / "docs" / "web"
target.mkdir(parents=True, exist_ok=True)
shots = sorted(source.glob("*.png"))
if not shots:
    sys.exit("no screenshots in artifacts/screenshots: run `make check-browser` first")
total = 0
for shot in shots:
    image = Image.open(shot).convert("RGB")
    if image.width > 1000:
        image = image.resize((1000, round(image.height * 1000 / image.width)), Image.LANCZOS)
    image = image.quantize(colors=128, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    out = target / shot.name
    image.save(out, optimize=True)
    total += out.stat().st_size
    print(f"{out.relative_to(root)}: {out.stat().st_size // 1024} KiB")
print(f"total {total // 1024} KiB")
