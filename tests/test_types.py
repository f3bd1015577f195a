"""mypy over ``helpers/`` and ``website/`` (pyproject.toml's ``[tool.mypy]``), in the slow tier.

CI runs it beside the other tests, where it used to take some 20 s of one core (a cold mypy) before the first test
while the other core waited; the quick tier (``-m core``) leaves it out. ``.venv/bin/mypy`` runs the same check.
Its cache is the machine's, outside the clone (``MYPY_CACHE_DIR``, which tests/conftest.py sets unless it is set):
a fresh clone's mypy reads what an earlier run found of the modules helpers imports (pandas', numpy's, matplotlib's
types) instead of working it all out again, 13 CPU seconds; mypy checks each entry against its file's hash, as with
a checkout's own cache, so a changed module is checked again.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow


def test_mypy_finds_no_error_in_the_helpers_and_the_website_builder():
    done = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert done.stdout.startswith("Success: no issues found"), done.stdout[-2000:]
