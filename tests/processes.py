"""The processes a test run starts, found by their environment and ended: nothing outlives the tests.

``tests/conftest.py`` puts :data:`RUN_ENV` into the environment before any test runs: the run's
id, and in each pytest-xdist worker the run's id and the worker's (``<run>.gw0``); a server started
by the tests' helpers gets a mark of its own below it (:func:`marked`, ``<run>.gw0.jupyterlab-...``). Every process a
test starts (a server, the kernels it starts, a browser, a grader and its sandboxed kernels, a
learner's server on the hub) inherits it, and keeps it when its parent dies. So a process left
running is found by reading ``/proc/<pid>/environ``, even once it has been handed to init, and it
is ended by its id (and its process group when it leads one), never by its name.

The same run id names a folder shared by the run's processes (:func:`run_folder`), where
:func:`claim` hands out a port (or any name) once across all of them.
"""

from __future__ import annotations

import itertools
import os
import signal
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

RUN_ENV = "HELPERS_TEST_RUN"


@dataclass(frozen=True)
class Found:
    """One running process: its id, its start time (to recognise it later) and its command line."""

    pid: int
    started: str
    command: str

    def __str__(self) -> str:
        return f"pid {self.pid}: {self.command[:200]}"


def run_id() -> str:
    """This process's run id (``<run>`` or ``<run>.gw0``), or '' outside a test run."""
    return os.environ.get(RUN_ENV, "")


def run_folder() -> Path | None:
    """The folder every process of this test run shares (None outside a test run)."""
    run = run_id().split(".", 1)[0]
    return Path(tempfile.gettempdir()) / f"helpers-test-run-{run}" if run else None


def claim(kind: str, name: object) -> bool:
    """True the first time any process of this run claims ``name`` of ``kind`` (a port, ...), False after.

    Outside a test run every claim succeeds (the caller keeps its own record).
    """
    folder = run_folder()
    if folder is None:
        return True
    (folder / kind).mkdir(parents=True, exist_ok=True)
    try:
        os.close(os.open(folder / kind / str(name), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return False
    return True


def _stat(pid: int) -> tuple[str, str] | None:
    """(state, start time) of a process from /proc, or None once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return fields[0], fields[19]


def marked(env: dict[str, str], name: str) -> tuple[dict[str, str], str]:
    """``env`` with a mark of its own for one server (``<run>.<name>-<n>``), and that mark: what the server and every
    process it starts carry, so that stopping it ends them all, even those whose parent has gone."""
    mark = f"{run_id() or 'no-run'}.{name}-{os.getpid()}-{next(_numbers)}"
    return {**env, RUN_ENV: mark}, mark


_numbers = itertools.count(1)


def running(mark: str) -> list[Found]:
    """The live processes (no zombies) carrying this mark, or a mark below it (``<mark>.<more>``)."""
    wanted, below = f"{RUN_ENV}={mark}".encode(), f"{RUN_ENV}={mark}.".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        if not any(item == wanted or item.startswith(below) for item in environ):
            continue
        state = _stat(int(entry.name))
        if state is not None and state[0] not in "ZX":
            found.append(Found(int(entry.name), state[1], command))
    return found


def still_running(processes: list[Found]) -> list[Found]:
    """Those of ``processes`` that still run as the same process (same start time, not a zombie)."""
    return [found for found in processes if _same_and_alive(found)]


def _same_and_alive(found: Found) -> bool:
    state = _stat(found.pid)
    return state is not None and state[0] not in "ZX" and state[1] == found.started


def wait_gone(processes: list[Found], seconds: float) -> list[Found]:
    """Wait up to ``seconds`` for the processes to end by themselves; those still running."""
    deadline = time.monotonic() + seconds
    left = still_running(processes)
    while left and time.monotonic() < deadline:
        time.sleep(0.2)
        left = still_running(left)
    return left


def end(processes: list[Found], grace: float = 3) -> None:
    """End the processes (and the process group of each that leads one): SIGTERM, then SIGKILL after ``grace``."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for found in still_running(processes):
            try:
                if os.getpgid(found.pid) == found.pid:
                    os.killpg(found.pid, sig)
                else:
                    os.kill(found.pid, sig)
            except (ProcessLookupError, PermissionError):
                pass
        if not wait_gone(processes, grace):
            return


def descendants(pid: int) -> list[int]:
    """Every process below pid, found through their parents (for a test that started pid itself)."""
    parents = {}
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
    found, frontier = [], [pid]
    while frontier:
        children = [child for child, parent in parents.items() if parent in frontier]
        found += children
        frontier = children
    return found


def alive(pid: int) -> bool:
    """True while the process runs (a zombie, dead and not yet reaped, is not)."""
    state = _stat(pid)
    return state is not None and state[0] not in "ZX"
