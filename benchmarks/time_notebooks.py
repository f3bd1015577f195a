"""Time every lesson notebook, top to bottom, as CI runs it (a fresh kernel, a temporary copy).

Run: .venv/bin/python benchmarks/time_notebooks.py
Prints one row per notebook: the wall time including the kernel start.
"""

import shutil
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def time_notebook(path: Path) -> float:
    """Seconds to execute a temporary copy of one notebook in a fresh kernel."""
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / path.name
        shutil.copy(path, copy)
        notebook = nbformat.read(copy, as_version=4)
        start = time.perf_counter()
        NotebookClient(notebook, timeout=300, resources={"metadata": {"path": folder}}).execute()
        return time.perf_counter() - start


def main() -> None:
    print(f"{'notebook':45} seconds")
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        print(f"{path.name:45} {time_notebook(path):7.1f}")


if __name__ == "__main__":
    main()
