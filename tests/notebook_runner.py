"""Execute a lesson notebook from a temporary copy and read variables back from its kernel."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def notebook_path(prefix: str) -> Path:
    """The lesson notebook whose file name starts with ``prefix`` (e.g. "03")."""
    matches = sorted(NOTEBOOKS.glob(f"{prefix}*.ipynb"))
    if len(matches) != 1:
        raise FileNotFoundError(f"expected one notebook starting with {prefix!r}, found {matches}")
    return matches[0]


def run_notebook(prefix: str, tmp_path: Path, variables=(), timeout: int = 120):
    """Run a copy of the notebook in tmp_path; return (executed notebook, {name: value}).

    ``variables`` are read after the last cell through a JSON cell: each must hold
    a JSON-serialisable value (numbers, strings, lists, dicts of those).
    """
    source = notebook_path(prefix)
    copy = tmp_path / source.name
    shutil.copy(source, copy)
    notebook = nbformat.read(copy, as_version=4)
    wanted = {name: name for name in variables}
    reader = (
        "import json as _json\n"
        f"_wanted = {wanted!r}\n"
        "print('__VARS__' + _json.dumps({n: globals()[n] for n in _wanted}, default=float))"
    )
    notebook.cells.append(nbformat.v4.new_code_cell(reader))
    # iopub_timeout: on a busy machine a cell's printed output can trail its reply by more than nbclient's
    # 4 s default, and would be dropped without a word; wait for it (raise if it never comes)
    client = NotebookClient(
        notebook, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}},
        iopub_timeout=60, raise_on_iopub_timeout=True,
    )
    client.execute()
    text = "".join(
        output.get("text", "") for output in notebook.cells[-1].outputs if output.get("name") == "stdout"
    )
    values = json.loads(text.split("__VARS__", 1)[1]) if "__VARS__" in text else {}
    return notebook, values


def printed_text(notebook) -> str:
    """Everything the notebook printed or displayed as text, cell after cell."""
    parts = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if "text" in output:
                parts.append(output["text"])
            elif "data" in output and "text/plain" in output["data"]:
                parts.append(output["data"]["text/plain"])
    return "\n".join(parts)
