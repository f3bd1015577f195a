"""Compile ranx's numba kernels for this environment, at the lowest priority; started by tests/conftest.py.

ranx compiles a kernel for each measure and each type of input at their first call, and numba caches them beside
ranx, so only the first run in a fresh venv pays: about 70 s of CPU, which held one worker in the reference tier.
On a whole run tests/conftest.py starts this script before any test, niced to 19, so that the compiling fills the
moments the cores wait for a browser or a server. It runs tests/test_ranx_reference.py once, its results
discarded: the one sure way to meet every kernel and type the module meets. When it ends, the stamp file it was
given disappears, and the module, which waited for that, runs on the compiled kernels.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests import processes

MODULE = Path(__file__).resolve().parent / "test_ranx_reference.py"


def stamp() -> Path | None:
    """The file that is there while ranx's kernels are being compiled for this test run (None outside a run)."""
    folder = processes.run_folder()
    return folder / "ranx-warm-up" if folder is not None else None


def main(compiling: Path) -> None:
    os.nice(19)
    try:
        pytest.main(["-q", "-p", "no:cacheprovider", str(MODULE)])
    finally:
        compiling.unlink(missing_ok=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
