"""The classroom view of a lesson: Voilà on a projector, the demonstration only.

Usage (from the repository root)::

    python -m helpers.teacher.classroom 05 [--port 8866] [--scale 1.25] [--theme dark] [--no-browser]

The command copies the lesson into a temporary folder without its
``exercise`` and ``solution`` cells (they never run, so nothing gives an
answer away and nothing is written into the repository), and serves the copy
with Voilà and the ``classroom`` template: code hidden, setup cells run
unseen, text and numbers sized for a room. A preheated kernel makes the page
usable as soon as it opens; kernels idle for ``--cull`` seconds are shut down,
so a morning of reloads keeps memory flat. ``?scale=1.5`` on the URL (or
``--scale``) makes everything larger.

The same template works wherever Voilà runs, e.g. through JupyterHub:
``/voila/render/notebooks/05_metrics_lab.ipynb?template=classroom``
with ``JUPYTER_PATH`` naming :data:`TEMPLATES_ROOT` (there the hidden cells
still run, hidden).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import webbrowser
from collections.abc import Callable
from datetime import UTC, datetime
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import nbformat
import psutil
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from nbformat.sign import NotebookNotary

from helpers._checks import check_number, check_whole
from helpers.teacher import limits
from helpers.teacher.forked_kernels import runs
from helpers.teacher.names import shown
from helpers.teacher.roles import without_roles

TEMPLATES_ROOT = Path(__file__).resolve().parent  # holds voila/templates/classroom
NOTEBOOKS = Path(__file__).resolve().parent.parent.parent / "notebooks"
HIDDEN_ROLES = ("exercise", "solution")
FILL_DELAY = 1  # seconds
MOST_KERNELS = 8  # preheated kernels waiting: five pages opened together, or ten reloads 1 s apart on a busy
# machine (the pool refills one kernel per few seconds), each find one
KERNEL_MIB = 250  # what a kernel that has run a lesson holds in memory (190-230 MiB measured for lesson 05)
HEAT_NICENESS = 10  # a kernel runs the lesson at this niceness, so the pages being opened meanwhile come first


def default_pool_size(available_mib: float | None = None) -> int:
    """The preheated kernels for this machine: MOST_KERNELS if they take at most a quarter of the memory available
    (``available_mib``, asked of psutil when None), fewer when they would not, and never fewer than 2."""
    if available_mib is None:
        available_mib = _available_mib()
    return max(2, min(MOST_KERNELS, int(available_mib / 4 // KERNEL_MIB)))


def _available_mib() -> float:
    """The memory available to new processes, in MiB (Linux's MemAvailable)."""
    return psutil.virtual_memory().available / 2**20


POOL_SIZE = default_pool_size()


def lesson_path(lesson: str | Path) -> Path:
    """The notebook of a lesson given as '05', '5' or a path."""
    if not str(lesson).strip():
        raise ValueError(f"no lesson given: choose one of {', '.join(known_lessons())}, or give a notebook path")
    path = Path(lesson)
    if path.suffix == ".ipynb":
        if not path.is_file():
            raise ValueError(f"no notebook {path}")
        return path
    prefix = str(lesson).zfill(2)
    found = sorted(NOTEBOOKS.glob(f"{prefix}_*.ipynb"))
    if len(found) != 1:
        raise ValueError(f"no lesson {lesson!r}: choose one of {', '.join(known_lessons())}, or give a notebook path")
    return found[0]


def known_lessons() -> list[str]:
    """The lessons' numbers: '00', '01', ..."""
    return [path.name[:2] for path in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))]


# run first, unseen: the lesson's matplotlib figures at twice their pixels, crisp on a projector, their text
# 20 px on the page (14.4 pt at 100 dots per inch; ticks, labels and legends take the base size); applied when the
# lesson's own %matplotlib inline runs
CRISP_PLOTS = (
    '%config InlineBackend.figure_formats = ["retina"]\n'
    '%config InlineBackend.rc = {"figure.dpi": 100, "font.size": 14.4, "axes.titlesize": "large"}'
)


def classroom_notebook(path: Path) -> nbformat.NotebookNode:
    """The lesson without its exercise and solution cells, clean of outputs, its plots drawn for a projector."""
    notebook = nbformat.read(path, as_version=4)
    notebook = without_roles(notebook, HIDDEN_ROLES)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    first = nbformat.v4.new_code_cell(CRISP_PLOTS, metadata={"tags": ["setup"]})
    first.id = "classroom-crisp-plots"
    notebook.cells.insert(0, first)
    return notebook


class ClassroomKernelManager(AsyncMappingKernelManager):
    """Jupyter's kernel manager for the classroom: a pool heated one kernel at a time (``start_kernel``), every kernel
    killed at once when the classroom stops (``shutdown_all``), and culling with a preheated kernel's idle time
    counted from when a page took it.

    A preheated kernel ran the lesson when it was heated, maybe an hour before
    anyone opened the page; Jupyter's culler would count all that time as idle
    and could shut the kernel down in the seconds between a page taking it and
    the page connecting to it. Voila asks this culler only about kernels that
    have left the pool, so the first time it asks about one, a page has just
    taken it: its idle time starts then.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._taken_at: dict[str, datetime] = {}
        self._starting: asyncio.Lock | None = None
        self._stopping = False
        if self.config.KernelProvisionerFactory.get("default_provisioner_name") == FORKED_PROVISIONER:
            from helpers.teacher.forked_kernels import Zygote

            Zygote.running()  # it imports while Voila starts: the first kernel is forked from it at once

    async def start_kernel(self, *args: Any, **kwargs: Any) -> str:  # type: ignore[override]  # async, as in Jupyter Server
        """Start the pool's kernels one at a time, each once the kernels before it have run the lesson and Voila has
        served the pages being opened (all are quiet).

        Voila heats the whole pool at once; on two cores the kernels would then
        share the processors and the first would be ready last. One at a time,
        the first page's kernel is ready first and a page that loads meanwhile
        keeps a core for itself. A class opening the link takes several kernels
        at once: the refill waits until Voila has sent them their pages and
        files, so it does not take a core from them. Every pool kernel but the
        first (which the first page waits for) runs the lesson at a lower
        priority (HEAT_NICENESS), which puts it after Voila and the browsers
        where a niceness counts across sessions (not under Linux's autogroups:
        see the comment where it is set).
        """
        quiet_closed_pages(asyncio.get_running_loop())
        if self._stopping:
            raise RuntimeError("the classroom is stopping: no new kernel")
        if (kwargs.get("env") or {}).get("VOILA_PREHEAT") != "True":
            return await super().start_kernel(*args, **kwargs)  # a page's own kernel (the pool was empty): at once
        if self._starting is None:
            self._starting = asyncio.Lock()
        async with self._starting:
            others = bool(self._kernels)
            if others:
                await self._until_quiet()
            if self._stopping:  # the stop came while this kernel waited its turn
                raise RuntimeError("the classroom is stopping: no new kernel")
            kernel_id = await super().start_kernel(*args, **kwargs)
            if others:  # the first kernel is the one the first page waits for: it heats at full speed
                # its niceness alone: a kernel leads its own session, so with Linux's autogroups this counts
                # for nothing against Voila and the browsers; niced with its autogroup too, a pool kernel heated
                # so slowly beside two busy processes that the laptop's reloads took 4.8 s, not 1.6 (p50 of
                # benchmarks/bench_classroom.py --laptop-only 1 --busy 2, the same hour)
                limits.lower_priority(_kernel_pid(self._kernels.get(kernel_id)), HEAT_NICENESS)
            return kernel_id

    async def _until_quiet(self, timeout: float = 20, window: float = 0.4) -> None:
        """Wait (at most ``timeout`` seconds) until neither a kernel nor Voila (this process) used over 5 % of a core
        in two windows running."""
        deadline, quiet = time.monotonic() + timeout, 0
        while quiet < 2 and time.monotonic() < deadline:
            pids = [pid for kernel in list(self._kernels.values()) if (pid := _kernel_pid(kernel))] + [os.getpid()]
            before = {pid: cpu_seconds(pid) for pid in pids}
            await asyncio.sleep(window)
            limit = 0.05 * window
            quiet = quiet + 1 if all(cpu_seconds(pid) - used <= limit for pid, used in before.items()) else 0

    async def cull_kernel_if_idle(self, kernel_id: str) -> None:
        taken_at = self._taken_at.setdefault(kernel_id, datetime.now(UTC))
        kernel = self._kernels[kernel_id]
        if getattr(kernel, "last_activity", taken_at) < taken_at:
            kernel.last_activity = taken_at
        for gone in [known for known in self._taken_at if known not in self._kernels]:
            del self._taken_at[gone]
        await super().cull_kernel_if_idle(kernel_id)

    async def shutdown_all(self, now: bool = False) -> None:  # type: ignore[override]  # async, as in Jupyter Server
        """End every kernel at once: Voila calls this when the classroom stops (Ctrl-C or SIGTERM).

        A kernel asked to shut down while it runs the lesson (a pool refill
        heating) closes its sockets before its code has finished, then prints a
        traceback when it fails to send the reply. Nothing in a classroom
        kernel needs a graceful goodbye, so each is killed, idle or not.

        A stop right after Voila starts finds the first kernel still starting:
        Jupyter lists it among the kernels to end but does not know it yet, and
        fails ("Kernel does not exist"). Here no kernel starts once the stop has
        begun, a kernel being started is waited for (``STARTING_GRACE`` seconds
        at most) and then killed with the others, and a kernel that has gone
        meanwhile is no error. Voila stops its event loop first and runs this on
        another: a start begun on the stopped loop can never finish, so it is not
        waited for (that only held the stop for the whole grace); the kernel it
        forks ends with Voila (its parent), or is ended by the command.
        """
        self._stopping = True
        starting = finishable(
            [task for kernel_id, task in self._pending_kernels.items() if kernel_id not in self._kernels]
        )
        if starting:
            await asyncio.wait(starting, timeout=STARTING_GRACE)
        ending = [AsyncMappingKernelManager.shutdown_kernel(self, kernel, now=True) for kernel in list(self._kernels)]
        await asyncio.gather(*ending, return_exceptions=True)
        from helpers.teacher.forked_kernels import Zygote

        Zygote.stop()


STARTING_GRACE = 20  # seconds a stop waits for a kernel that is being started, before killing it with the others


def finishable(tasks: list[asyncio.Future]) -> list[asyncio.Future]:
    """The tasks of the running event loop: only they can finish while the classroom stops (issue 43)."""
    loop = asyncio.get_running_loop()
    return [task for task in tasks if task.get_loop() is loop]


def quiet_closed_pages(loop: asyncio.AbstractEventLoop) -> None:
    """Say nothing when a page closed abruptly leaves a message to it unsent.

    Jupyter Server sends a kernel's messages to a page without waiting for the
    sending to finish; when the page has gone meanwhile (a tab closed, a laptop
    put to sleep), the failed send is printed as "Task exception was never
    retrieved ... WebSocketClosedError", a traceback in the teacher's terminal
    about nothing to act on. Every other unhandled error is reported as before.
    """
    if getattr(loop.get_exception_handler(), "classroom", False):
        return
    from tornado.iostream import StreamClosedError
    from tornado.websocket import WebSocketClosedError

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if isinstance(context.get("exception"), (WebSocketClosedError, StreamClosedError)):
            return
        loop.default_exception_handler(context)

    handler.classroom = True  # type: ignore[attr-defined]
    loop.set_exception_handler(handler)


def _kernel_pid(kernel: Any) -> int | None:
    """The process id of a kernel started on this machine (None if it has none yet)."""
    provisioner = getattr(kernel, "provisioner", None)
    pid = getattr(provisioner, "pid", None) or getattr(getattr(provisioner, "process", None), "pid", None)
    return pid if isinstance(pid, int) else None


def cpu_seconds(pid: int) -> float:
    """The CPU time a process has used so far, user and system, in seconds (0 once it is gone)."""
    try:
        times = psutil.Process(pid).cpu_times()
    except psutil.Error:
        return 0.0
    return times.user + times.system


# The kernels speak to Voila over local sockets, not TCP ports, where the system has them. A TCP kernel's ports are
# picked before it binds them, so another Jupyter starting kernels at that moment can take one; jupyter_client then
# restarts the kernel on the same ports, it never answers, and the page stays on "Running..." (seen with six
# classroom servers started at once; jupyter/jupyter_client#276). Jupyter has them on Linux and macOS: TCP elsewhere.
KERNEL_SOCKETS = ["--KernelManager.transport=ipc"] if os.name == "posix" else []


def forked_kernels_installed() -> bool:
    """True if Jupyter can find the classroom's provisioner (the package installed with its entry points)."""
    found = entry_points(group="jupyter_client.kernel_provisioners", name=FORKED_PROVISIONER)
    return any(True for _ in found)


# Each preheated kernel is a fork of a process that has imported what every lesson imports (forked_kernels.py):
# heating one costs the lesson's own cells, not a Python start and its imports, so the pool keeps up with a
# teacher reloading while the browser shares the laptop's cores.
FORKED_PROVISIONER = "classroom-forked"
FORKED_KERNELS = (
    [f"--KernelProvisionerFactory.default_provisioner_name={FORKED_PROVISIONER}"] if forked_kernels_installed() else []
)


THEMES = ("light", "dark")


def voila_command(
    notebook: Path,
    port: int,
    cull_seconds: int,
    open_browser: bool,
    scale: float = 1.0,
    pool: int = POOL_SIZE,
    theme: str = "light",
) -> list[str]:
    """The Voilà command line of the classroom view (the notary's files beside the notebook: see :func:`trusted`)."""
    command = [
        sys.executable, "-m", "voila", str(notebook),
        # this port or none: a busy port is an error, never another port behind the link printed
        f"--port={port}", "--Voila.port_retries=0", "--Voila.ip=127.0.0.1",
        "--template=classroom", "--strip_sources=True", "--show_tracebacks=False",
        # the room's scale, the page's default (the page Voila opens has no ?scale= on its URL)
        f"--VoilaConfiguration.resources=classroom_scale={scale:g}",
        # light (dark text on white) or dark (light text on near-black): a page's ?theme= chooses for itself
        f"--theme={theme}",
        # the copy is signed (trusted) by a notary of its own, so Voila does not warn that it is not trusted and
        # writes no signing key into the teacher's home
        f"--NotebookNotary.data_dir={notary_folder(notebook)}",
        # the kernels' connection files (and their sockets) in the copy's folder too, which the command removes
        # whatever happens: Voila leaves its own folder in the system's temporary folder when stopped as it starts
        f"--Voila.connection_dir_root={notebook.parent}",
        # a kernel is started and the lesson run before anyone asks: the page is usable at once
        "--preheat_kernel=True", f"--VoilaConfiguration.default_pool_size={pool}",
        "--VoilaConfiguration.multi_kernel_manager_class=helpers.teacher.classroom.ClassroomKernelManager",
        # the next kernel is heated a second after a page takes one (and after the kernels before it are quiet)
        f"--VoilaKernelManager.fill_delay={FILL_DELAY}",
        *KERNEL_SOCKETS,
        *FORKED_KERNELS,
        f"--MappingKernelManager.cull_idle_timeout={cull_seconds}",
        f"--MappingKernelManager.cull_interval={max(5, cull_seconds // 4)}",
        "--MappingKernelManager.cull_connected=False",
        # a page that is closed or reloaded asks Voila to shut its kernel down at once; Voila's page sends
        # that request without an XSRF token (voila-dashboards/voila#1458), so the check is off for this
        # local server. Cross-origin requests are still refused (the API checks the Origin header).
        "--Voila.tornado_settings=disable_check_xsrf=True",
    ]  # fmt: skip
    if not open_browser:
        command.append("--no-browser")
    return command


def browser_found() -> bool:
    """True when a browser can open the link here; on a server without one, Voila would print a warning."""
    try:
        webbrowser.get()
    except webbrowser.Error:
        return False
    return True


def notary_folder(notebook: Path) -> Path:
    """Where the classroom's notary keeps its key and signatures: beside the copy, in the temporary folder."""
    return notebook.parent / ".notary"


def trusted(notebook: Path) -> None:
    """Sign the classroom's copy as trusted: it holds the lesson's cells only, and its outputs come from running it."""
    notary_folder(notebook).mkdir(exist_ok=True)
    with NotebookNotary(data_dir=str(notary_folder(notebook))) as notary:
        notary.sign(nbformat.read(notebook, as_version=4))


def port_taken(port: int) -> bool:
    """True if something listens on 127.0.0.1:port already (a port that was just let go of counts as free)."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as Voila binds: a closed port waits for none
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def claim_port(port: int) -> socket.socket | None:
    """Claim the port for this classroom view while it runs: None if another classroom view has claimed it.

    Two views started at the same moment on one port would both find it free
    and print their links; one Voila would then serve both links. The claim is
    a local socket of Linux's abstract namespace, named after the port: no file
    to leave behind, and let go of when the process ends, however it ends.
    Elsewhere every claim succeeds (the check that the port is free remains).
    """
    claim = socket.socket(socket.AF_UNIX) if sys.platform.startswith("linux") else None
    if claim is None:
        return socket.socket()  # nothing to hold: a placeholder the caller closes
    try:
        claim.bind(f"\0helpers.teacher.classroom port {port}")
    except OSError:
        claim.close()
        return None
    return claim


def classroom_environment() -> dict[str, str]:
    """The environment of Voilà: the classroom template on JUPYTER_PATH, inline plots, no progress record (a
    reveal on the projector is the room's, not a learner's: :mod:`helpers.exercises.record`)."""
    from helpers.exercises.record import PROGRESS_ENV

    env = dict(os.environ)
    env[PROGRESS_ENV] = "off"
    env["JUPYTER_PATH"] = os.pathsep.join(filter(None, [str(TEMPLATES_ROOT), env.get("JUPYTER_PATH", "")]))
    env.pop("MPLBACKEND", None)  # with MPLBACKEND=Agg a notebook shows no inline plot
    return env


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m helpers.teacher.classroom",
        description="Show a lesson in Voilà for a projector: the demonstration only, no exercises or solutions.",
    )
    parser.add_argument("lesson", help="the lesson, e.g. 05 (or a notebook path)")
    parser.add_argument("--port", type=int, default=8866, help="the port to serve on (default 8866)")
    parser.add_argument("--scale", type=float, default=1.0, help="text size factor for the room (default 1)")
    parser.add_argument(
        "--theme", default="light", help="light (dark text on white, the default) or dark (light text on black)"
    )
    parser.add_argument(
        "--pool",
        type=int,
        default=POOL_SIZE,
        help=f"preheated kernels kept (default {MOST_KERNELS}, fewer when memory is short: {POOL_SIZE} here)",
    )
    parser.add_argument("--cull", type=int, default=120, help="shut kernels down after this many idle seconds")
    parser.add_argument("--no-browser", action="store_true", help="do not open a browser")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        path = lesson_path(args.lesson)
        port = check_whole(args.port, "port", minimum=1)
        scale = check_number(args.scale, "scale", above=0)
        cull = check_whole(args.cull, "cull", minimum=10)
        pool = check_whole(args.pool, "pool", minimum=1)
        if args.theme not in THEMES:
            raise ValueError(f"theme must be light or dark, not {args.theme!r}")
    except (TypeError, ValueError) as error:
        print(f"error: {shown(error)}", file=sys.stderr)
        return 2
    claim = claim_port(port)
    if claim is None or port_taken(port):
        if claim is not None:
            claim.close()
        print(
            f"error: port {port} is in use (another classroom view?): stop it, or choose another port with --port",
            file=sys.stderr,
        )
        return 2
    folder = Path(tempfile.mkdtemp(prefix="classroom-"))
    try:
        copy = folder / path.name
        nbformat.write(classroom_notebook(path), copy)
        trusted(copy)
        command = voila_command(copy, port, cull, not args.no_browser and browser_found(), scale, pool, args.theme)

        def start() -> subprocess.Popen:
            link = f"http://127.0.0.1:{port}/?scale={scale:g}"
            print(f"Classroom view of {shown(path.name)}: {link}  (Ctrl-C to stop)", flush=True)
            # Voila in a session of its own: a Ctrl-C in the terminal reaches this process only, which stops Voila
            # once, cleanly (a second signal to Voila would interrupt its shutdown and leave kernels behind)
            return subprocess.Popen(command, cwd=folder, env=classroom_environment(), start_new_session=True)

        return serve_until_stopped(start)
    except KeyboardInterrupt:  # Ctrl-C while the copy was being made: nothing runs yet
        return 0
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        claim.close()


def serve_until_stopped(start: Callable[[], subprocess.Popen], grace: float = 30) -> int:
    """Start Voila (``start``) and wait for it; on Ctrl-C or SIGTERM stop it once and end its kernels: 0 for a stop
    asked for.

    Voila stops on SIGTERM the way it does on Ctrl-C: it shuts its kernels down, then exits. Any kernel still
    running after that (or after ``grace`` seconds) is ended by its process id. Further signals while Voila
    shuts down are ignored, so a second Ctrl-C cannot cut the shutdown short. The signals are caught before Voila
    starts: a Ctrl-C as the link is printed stops Voila as soon as it has started.
    """
    kernels: list[psutil.Process] = []
    stopping: list[float] = []  # when the stop was asked for
    started: list[subprocess.Popen] = []
    told: list[bool] = []  # Voila has been told to stop

    def tell() -> None:
        if started and stopping and not told:
            told.append(True)
            kernels.extend(kernel_processes(started[0].pid))
            started[0].send_signal(signal.SIGTERM)

    def stop(_signum: int, _frame: object) -> None:
        if not stopping:
            stopping.append(time.monotonic())
            tell()

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        started.append(start())
        process = started[0]
        tell()  # a stop asked for while Voila was starting
        while True:
            try:
                returncode = process.wait(timeout=0.5)
                break
            except subprocess.TimeoutExpired:
                if stopping:  # a kernel forked since the stop began is ended with the others
                    kernels.extend(kernel for kernel in kernel_processes(process.pid) if kernel not in kernels)
                if stopping and time.monotonic() - stopping[0] > grace:
                    process.kill()
            except KeyboardInterrupt:  # SIGINT before our handler was set
                stop(signal.SIGINT, None)
        if not stopping:
            return returncode
        end_processes(kernels)
        return 0
    finally:
        for sig, handler in previous.items():
            # a stop asked for: the command is ending, and a second Ctrl-C after Voila has gone (it stops in well
            # under a second now) must not end it with a KeyboardInterrupt
            signal.signal(sig, signal.SIG_IGN if stopping else handler)


def kernel_processes(pid: int) -> list[psutil.Process]:
    """The processes started by ``pid`` (its kernels), and theirs ([] once it is gone)."""
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []


def end_processes(processes: list[psutil.Process], grace: float = 5) -> None:
    """End the processes that still run: SIGTERM, then SIGKILL after ``grace`` seconds (psutil signals a process
    only while its id still names the same process, never one that took a reused id)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for process in running(processes):
            try:
                process.send_signal(sig)
            except psutil.Error:
                pass
        deadline = time.monotonic() + grace
        while running(processes) and time.monotonic() < deadline:
            time.sleep(0.1)


def running(processes: list[psutil.Process]) -> list[psutil.Process]:
    """Those of ``processes`` still running as themselves (not gone, not a zombie, their id not reused)."""
    return [process for process in processes if runs(process)]


if __name__ == "__main__":
    sys.exit(main())
