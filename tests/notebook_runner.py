"""Execute a lesson notebook from a temporary copy and read variables back from its kernel.

:func:`run_notebook` runs a lesson for the caller alone. :func:`shared_run` runs an untouched lesson once for the
whole test run, whichever module (and worker) asks first, and hands every later asker the same executed notebook:
the lesson modules and tests/test_lesson_exercises.py read the same run of lessons 01-08.
"""

from __future__ import annotations

import fcntl
import json
import shutil
import tempfile
from pathlib import Path

import nbformat
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from traitlets import default

from tests import processes

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


class IpcKernelManager(AsyncKernelManager):
    """A kernel whose sockets are files in a short folder of its own (ZeroMQ's ipc), not TCP ports, as the grader's.

    A port jupyter_client found free can be taken by another process of the test run before the kernel binds it: the
    kernel then fails to bind, hangs on its way out, and nbclient waits a minute for it ("Kernel didn't respond in
    60 seconds", a fresh-clone run at 13043b4).
    """

    @default("transport")
    def _ipc(self) -> str:
        return "ipc"

    @default("ip")
    def _socket_prefix(self) -> str:
        return str(Path(tempfile.mkdtemp(prefix="k-", dir="/tmp")) / "k")  # short: a socket's path has 107 bytes

    def cleanup_ipc_files(self) -> None:
        super().cleanup_ipc_files()
        shutil.rmtree(Path(self.ip).parent, ignore_errors=True)


def notebook_path(prefix: str) -> Path:
    """The lesson notebook whose file name starts with ``prefix`` (e.g. "03")."""
    matches = sorted(NOTEBOOKS.glob(f"{prefix}*.ipynb"))
    if len(matches) != 1:
        raise FileNotFoundError(f"expected one notebook starting with {prefix!r}, found {matches}")
    return matches[0]


def reader_of(variables) -> str:
    """The cell that prints ``variables`` as JSON after the lesson's last cell."""
    wanted = {name: name for name in variables}
    return (
        "import json as _json\n"
        f"_wanted = {wanted!r}\n"
        "print('__VARS__' + _json.dumps({n: globals()[n] for n in _wanted}, default=float))"
    )


# the shared run's reader: every global that JSON holds (numbers, strings, lists, dicts of those), for any asker
READ_ALL = (
    "import json as _json\n"
    "def _held(value):\n"
    "    try:\n"
    "        _json.dumps(value, default=float)\n"
    "    except (TypeError, ValueError, OverflowError):\n"
    "        return False\n"
    "    return True\n"
    "print('__VARS__' + _json.dumps({n: v for n, v in globals().items() if not n.startswith('_') and _held(v)},\n"
    "                               default=float))"
)


def run_notebook(prefix: str, tmp_path: Path, variables=(), timeout: int = 120):
    """Run a copy of the notebook in tmp_path; return (executed notebook, {name: value}).

    ``variables`` are read after the last cell through a JSON cell: each must hold
    a JSON-serialisable value (numbers, strings, lists, dicts of those).
    """
    return _run(prefix, tmp_path, reader_of(variables), timeout)


def shared_run(prefix: str, variables=(), timeout: int = 120) -> tuple:
    """The untouched lesson run once for the whole test run; return (executed notebook, {name: value}, its folder).

    The first asker runs it (as :func:`run_notebook`) while any other waits on a lock, and keeps the executed
    notebook and every JSON-held variable in the run's shared folder; each asker gets a fresh copy, its reader
    cell and that cell's output exactly as :func:`run_notebook` would have left them for ``variables``. A variable
    not held is left out of the values (the caller says which it misses). Outside a test run it runs the lesson.
    """
    shared = processes.run_folder()
    folder = (shared if shared is not None else Path(tempfile.mkdtemp())) / "lessons" / prefix
    folder.mkdir(parents=True, exist_ok=True)
    executed, read = folder / "executed.ipynb", folder / "values.json"
    with (folder / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not read.is_file():
            notebook, values = _run(prefix, folder, READ_ALL, timeout)
            nbformat.write(notebook, executed)
            read.write_text(json.dumps(values), encoding="utf-8")
    notebook = nbformat.read(executed, as_version=4)
    values = json.loads(read.read_text(encoding="utf-8"))
    asked = {name: values[name] for name in variables if name in values}
    reader = notebook.cells[-1]
    reader.source = reader_of(variables)
    reader.outputs = [nbformat.v4.new_output("stream", name="stdout", text="__VARS__" + json.dumps(asked) + "\n")]
    return notebook, asked, folder


def _run(prefix: str, tmp_path: Path, reader: str, timeout: int):
    source = notebook_path(prefix)
    copy = tmp_path / source.name
    shutil.copy(source, copy)
    notebook = nbformat.read(copy, as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell(reader))
    # iopub_timeout: on a busy machine a cell's printed output can trail its reply by more than nbclient's
    # 4 s default, and would be dropped without a word; wait for it (raise if it never comes)
    client = NotebookClient(
        notebook, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}},
        iopub_timeout=60, raise_on_iopub_timeout=True, kernel_manager_class=IpcKernelManager,
    )
    client.execute()
    text = "".join(
        output.get("text", "") for output in notebook.cells[-1].outputs if output.get("name") == "stdout"
    )
    values = json.loads(text.split("__VARS__", 1)[1]) if "__VARS__" in text else {}
    return notebook, values


def merged_outputs(cell) -> list[dict]:
    """A cell's outputs as JupyterLab shows them: a stream output that follows one of the same stream is one text.

    On a busy machine the kernel can send one ``print`` in two messages (its output thread flushed between the
    print's parts), which nbclient keeps as two outputs.
    """
    merged: list[dict] = []
    for output in cell.get("outputs", []):
        if (output.get("output_type") == "stream" and merged and merged[-1].get("output_type") == "stream"
                and merged[-1].get("name") == output.get("name")):
            merged[-1] = {**merged[-1], "text": merged[-1]["text"] + output["text"]}
        else:
            merged.append(output)
    return merged


def printed_text(notebook) -> str:
    """Everything the notebook printed or displayed as text, cell after cell (:func:`merged_outputs`)."""
    parts = []
    for cell in notebook.cells:
        for output in merged_outputs(cell):
            if "text" in output:
                parts.append(output["text"])
            elif "data" in output and "text/plain" in output["data"]:
                parts.append(output["data"]["text/plain"])
    return "\n".join(parts)
