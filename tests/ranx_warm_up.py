"""Compile ranx's numba kernels for this environment, at the lowest priority; started by tests/conftest.py.

ranx compiles a kernel for each measure and each type of input at their first call (a width of doc id is a type:
the tests give ranx ids of one width, tests/test_ranx_reference.py's ``ranx_input``), and numba caches them in
NUMBA_CACHE_DIR, which tests/conftest.py sets outside the clone (``~/.cache/ranking-metrics-by-hand/numba``, as uv
keeps its wheels there): only the first run on a machine pays (for each path of a venv), about 60 s of CPU, which
held one worker in the reference tier. On a whole run where they are not cached tests/conftest.py starts this
script before any test, in a session of its own, at the lowest priority
(:func:`helpers.teacher.limits.lower_priority`: its autogroup too), so that the compiling fills the moments the
cores wait for a browser or a server. It runs the tests that call ranx once (tests/test_ranx_reference.py and the
RBP test of tests/test_measure_registry_reference.py), their results discarded: the one sure way to meet every
kernel and type they meet. When it ends, the stamp file it was given disappears, and those tests, which wait for
that (the ``ranx_compiled`` fixture of tests/conftest.py), run on the compiled kernels.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from helpers.teacher.limits import lower_priority
from tests import processes

TESTS = Path(__file__).resolve().parent
CALLING_RANX = [str(TESTS / "test_ranx_reference.py"),
                f"{TESTS / 'test_measure_registry_reference.py'}::test_rbp_equals_ranx_on_binary_judgments"]


def stamp() -> Path | None:
    """The file that is there while ranx's kernels are being compiled for this test run (None outside a run)."""
    folder = processes.run_folder()
    return folder / "ranx-warm-up" if folder is not None else None


def main(compiling: Path) -> None:
    lower_priority(os.getpid(), 19, session=True)  # conftest starts it in a session of its own
    try:
        pytest.main(["-q", "-p", "no:cacheprovider", *CALLING_RANX])
    finally:
        compiling.unlink(missing_ok=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
