#!/usr/bin/env python3
"""Check the files in deploy/ against the gateway CLI they configure.

    python3 scripts/check-deploy.py [GATEWAY_BINARY] [--deploy-dir DIR] [--verbose]

The checks live in scripts/deploycheck/ (its __init__ says what is checked and where the truth
comes from). They need PyYAML, kubernetes-validate and dockerfile-parse, pinned in
scripts/requirements-tools.txt, which scripts/install-deps.sh installs into .venv; run with
another Python that lacks them, this script runs itself again with .venv/bin/python.
"""

import os
import sys
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent
VENV = SCRIPTS.parent / ".venv"

try:
    import dockerfile_parse  # noqa: F401
    import kubernetes_validate  # noqa: F401
    import yaml  # noqa: F401
except ImportError as error:
    python = VENV / "bin" / "python"
    if python.exists() and Path(sys.prefix).resolve() != VENV.resolve():
        os.execv(str(python), [str(python), str(Path(__file__).resolve()), *sys.argv[1:]])
    print(f"check-deploy: {error.name} is missing: run scripts/install-deps.sh, which installs "
          f"scripts/requirements-tools.txt into .venv", file=sys.stderr)
    sys.exit(2)

sys.path.insert(0, str(SCRIPTS))
from deploycheck.main import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
