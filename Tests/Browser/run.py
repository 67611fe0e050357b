"""Runs the browser tests and closes with one 'browser: N passed, N failed' line.
BROWSER_TESTS (a file name pattern, test_*.py by default) runs only some of the modules."""
import os
import pathlib
import sys
import unittest

here = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(here))
suite = unittest.defaultTestLoader.discover(str(here), pattern=os.environ.get("BROWSER_TESTS") or "test_*.py", top_level_dir=str(here))
result = unittest.TextTestRunner(verbosity=2).run(suite)
# A test whose subtests fail (one per view in test_accessibility) counts once.
failed = len({getattr(test, "test_case", test).id() for test, _ in result.failures + result.errors})
passed = result.testsRun - failed - len(result.skipped)
print(f"browser: {passed} passed, {failed} failed" + (f", {len(result.skipped)} skipped" if result.skipped else ""))
sys.exit(0 if result.wasSuccessful() and result.testsRun > 0 else 1)
