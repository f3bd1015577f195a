"""The processes a test run starts, found by their environment and ended: nothing outlives the tests.

``tests/conftest.py`` puts :data:`RUN_ENV` into the environment before any test runs: the run's
id, and in each pytest-xdist worker the run's id and the worker's (``<run>.gw0``); a server started
by the tests' helpers gets a mark of its own below it (:func:`marked`, ``<run>.gw0.jupyterlab-...``). Every process a
test starts (a server, the kernels it starts, a browser, a grader and its sandboxed kernels, a
learner's server on the hub) inherits it, and keeps it when its parent dies. So a process left
running is found by its environment (psutil), even once it has been handed to init, and it
is ended by its id (and its process group when it leads one), never by its name; psutil signals
none whose id has been reused by another process since.

The same run id names a folder shared by the run's processes (:func:`run_folder`), where
:func:`claim` hands out a port (or any name) once across all of them.
"""

from __future__ import annotations

import itertools
import os
import signal
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from helpers.teacher.limits import every_process

RUN_ENV = "HELPERS_TEST_RUN"


@dataclass(frozen=True)
class Found:
    """One running process: its id, its start time (to recognise it later) and its command line."""

    pid: int
    started: float
    command: str
    process: psutil.Process = field(compare=False, repr=False)

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


def _runs(process: psutil.Process) -> bool:
    """True while the process runs as itself: not gone, not a zombie, its id not taken by another since."""
    try:
        return process.is_running() and process.status() not in (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD)
    except psutil.Error:
        return False


def marked(env: dict[str, str], name: str) -> tuple[dict[str, str], str]:
    """``env`` with a mark of its own for one server (``<run>.<name>-<n>``), and that mark: what the server and every
    process it starts carry, so that stopping it ends them all, even those whose parent has gone."""
    mark = f"{run_id() or 'no-run'}.{name}-{os.getpid()}-{next(_numbers)}"
    return {**env, RUN_ENV: mark}, mark


_numbers = itertools.count(1)


def running(mark: str) -> list[Found]:
    """The live processes (no zombies) carrying this mark, or a mark below it (``<mark>.<more>``)."""
    found = []
    for process in every_process(["environ", "cmdline", "create_time"]):
        value = (process.info["environ"] or {}).get(RUN_ENV)  # None: no mark, gone, or not ours to read
        if process.pid == os.getpid() or value is None or not (value == mark or value.startswith(f"{mark}.")):
            continue
        if _runs(process):
            command = " ".join(process.info["cmdline"] or []).strip()
            found.append(Found(process.pid, process.info["create_time"], command, process))
    return found


def still_running(processes: list[Found]) -> list[Found]:
    """Those of ``processes`` that still run as the same process (same start time, not a zombie)."""
    return [found for found in processes if _runs(found.process)]


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
                if os.getpgid(found.pid) == found.pid:  # checked as itself just now by still_running
                    os.killpg(found.pid, sig)
                else:
                    found.process.send_signal(sig)
            except (ProcessLookupError, PermissionError, psutil.Error):
                pass
        if not wait_gone(processes, grace):
            return


def descendants(pid: int) -> list[psutil.Process]:
    """Every process below pid, found through their parents (for a test that started pid itself)."""
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []


def alive(process: psutil.Process) -> bool:
    """True while the process runs as itself (a zombie, dead and not yet reaped, is not; nor another in its id)."""
    return _runs(process)
