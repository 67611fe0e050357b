"""`python -m deploycheck` (from scripts/, with .venv's Python): the same as scripts/check-deploy.py."""

import sys

from .main import main

sys.exit(main())
