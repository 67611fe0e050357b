"""Runs the browser tests and closes with one 'browser: N passed, N failed' line."""
import pathlib
import sys
import unittest

here = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(here))
suite = unittest.defaultTestLoader.discover(str(here), pattern="test_*.py", top_level_dir=str(here))
result = unittest.TextTestRunner(verbosity=2).run(suite)
failed = len(result.failures) + len(result.errors)
passed = result.testsRun - failed - len(result.skipped)
print(f"browser: {passed} passed, {failed} failed" + (f", {len(result.skipped)} skipped" if result.skipped else ""))
sys.exit(0 if result.wasSuccessful() and result.testsRun > 0 else 1)
