"""Classroom kernels forked from a process that has already imported what every lesson imports.

A preheated kernel of the classroom view costs a Python start, ipykernel's
start and the lesson's imports (pandas, matplotlib, ipywidgets, the helpers)
before the lesson's own cells: over half of the 4-5 CPU-seconds it takes on
two cores. A teacher's laptop runs the browser on the same cores, and a page
that finds its kernel still heating waits for it. Here one process, the
*zygote*, imports all of that once when the classroom starts; each kernel is
a ``fork()`` of it that goes on as ``python -m ipykernel_launcher -f FILE``
would, with the kernel's own environment, folder and connection file, in a
session of its own. It shares the zygote's imported modules until it writes
to them.

Jupyter starts kernels through a provisioner: :class:`ForkedProvisioner`
(registered as ``classroom-forked`` in ``pyproject.toml``) asks the zygote for
a fork when the command is the plain ``ipykernel_launcher`` of this Python,
and starts the kernel the usual way otherwise (another kernel, other streams,
no ``fork`` on the system, a zygote that failed). The classroom command turns
it on for its Voila only (:func:`helpers.teacher.classroom.voila_command`).

The zygote: ``python -m helpers.teacher.forked_kernels REPLY_FD`` reads one
JSON request a line on its standard input (``argv``, ``env``, ``cwd``),
answers each with the forked kernel's process id on ``REPLY_FD``, and ends
when its standard input closes (Voila has gone).
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import json
import os
import signal
import subprocess
import sys
import threading
import traceback
from pathlib import Path
from typing import Any

import psutil
from jupyter_client.connect import KernelConnectionInfo
from jupyter_client.provisioning import LocalProvisioner

# imported once by the zygote: what a lesson's setup cell and ipykernel import. Their import reads nothing that
# differs between the classroom's kernels (the zygote has Voila's environment; a kernel's adds Voila's own
# variables). Not matplotlib_inline's backend: it hooks into a running IPython when imported, and the lesson's
# %matplotlib inline sets it up in the kernel.
PRELOADED = (
    "ipykernel.kernelapp",
    "ipykernel.ipkernel",
    "IPython.display",
    "numpy",
    "pandas",
    "matplotlib.pyplot",
    "ipywidgets",
    "helpers",
    "helpers.plots",
    "helpers.tables",
    "helpers.mistakes",
    "helpers.sheet",
    "helpers.widgets",
    "helpers.exercises",
)
LAUNCHER = ["-m", "ipykernel_launcher"]


def forkable(cmd: list[str], kwargs: dict[str, Any]) -> bool:
    """True for this Python's plain ipykernel launcher, with the streams Jupyter gives a kernel by default."""
    if not hasattr(os, "fork") or cmd[1:3] != LAUNCHER:
        return False
    if any(kwargs.get(stream) is not None for stream in ("stdin", "stdout", "stderr")):
        return False
    try:
        return Path(cmd[0]).resolve() == Path(sys.executable).resolve()
    except OSError:
        return False


def runs(process: psutil.Process | None) -> bool:
    """True while a process runs as itself: not ended, not a zombie, its id not taken by another since."""
    try:
        return process is not None and process.is_running() and process.status() not in (
            psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD)
    except psutil.NoSuchProcess:
        return False
    except psutil.Error:
        return True  # not ours to look at, but there: it runs


class ForkedProcess:
    """A kernel forked by the zygote, as Jupyter's provisioner sees a process (the zygote is its parent, and
    reaps it: this process can only ask whether it still runs)."""

    stdin = stdout = stderr = None
    returncode: int | None = None

    def __init__(self, pid: int):
        self.pid = pid
        try:  # a psutil.Process remembers its start: an id reused later is never taken for this kernel
            self._process: psutil.Process | None = psutil.Process(pid)
        except psutil.NoSuchProcess:
            self._process = None

    def poll(self) -> int | None:
        if self.returncode is None and not runs(self._process):
            self.returncode = 0  # ended and reaped: its status went to the zygote
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        import time

        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(f"kernel {self.pid}", timeout or 0)
            time.sleep(0.05)
        return self.returncode or 0

    def send_signal(self, signum: int) -> None:
        if self.poll() is None and self._process is not None:
            try:
                self._process.send_signal(signum)
            except psutil.NoSuchProcess:
                pass

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


class Zygote:
    """The process that forks the kernels: started once per classroom, asked for one kernel at a time."""

    _running: Zygote | None = None
    _lock = threading.Lock()

    def __init__(self) -> None:
        reply_read, reply_write = os.pipe()
        self.process = subprocess.Popen(
            [sys.executable, "-m", __name__, str(reply_write)],
            stdin=subprocess.PIPE,
            pass_fds=(reply_write,),
        )
        os.close(reply_write)
        self.replies = os.fdopen(reply_read, "r", encoding="utf-8")

    @classmethod
    def running(cls) -> Zygote | None:
        """The zygote of this process, started on first use; None once it has failed."""
        with cls._lock:
            zygote = cls._running
            if zygote is None or zygote.process.poll() is not None:
                if zygote is not None:  # it died: the kernels start the usual way from now on
                    return None
                cls._running = zygote = Zygote()
            return zygote

    @classmethod
    def stop(cls) -> None:
        """End the zygote (its kernels are Jupyter's to end)."""
        with cls._lock:
            zygote, cls._running = cls._running, None
        if zygote is not None and zygote.process.poll() is None:
            assert zygote.process.stdin is not None
            zygote.process.stdin.close()
            try:
                zygote.process.wait(5)
            except subprocess.TimeoutExpired:
                zygote.process.kill()

    def fork(self, argv: list[str], env: dict[str, str], cwd: str) -> int:
        """A new kernel: the zygote forks, the child runs ipykernel with ``argv`` in ``env`` and ``cwd``."""
        request = json.dumps({"argv": argv, "env": env, "cwd": cwd}) + "\n"
        with self._lock:
            assert self.process.stdin is not None
            self.process.stdin.write(request.encode())
            self.process.stdin.flush()
            answer = self.replies.readline()
        if not answer.strip().isdigit():
            raise RuntimeError(f"the kernel zygote did not fork: {answer.strip() or 'it has ended'}")
        return int(answer)


class ForkedProvisioner(LocalProvisioner):
    """Jupyter's local provisioner, with the kernel forked by the :class:`Zygote` where it can be."""

    async def launch_kernel(self, cmd: list[str], **kwargs: Any) -> KernelConnectionInfo:
        zygote = Zygote.running() if forkable(cmd, kwargs) else None
        if zygote is None:
            return await super().launch_kernel(cmd, **kwargs)
        env = {str(name): str(value) for name, value in (kwargs.get("env") or os.environ).items()}
        cwd = str(kwargs.get("cwd") or os.getcwd())
        try:
            pid = await asyncio.get_running_loop().run_in_executor(None, zygote.fork, cmd, env, cwd)
        except (OSError, RuntimeError, ValueError) as error:
            self.log.warning("Starting the kernel the usual way: %s", error)
            return await super().launch_kernel(cmd, **kwargs)
        self.process = ForkedProcess(pid)  # type: ignore[assignment]  # what the provisioner asks of a Popen
        self.pid = self.pgid = pid  # the kernel leads a session of its own
        self.cwd = cwd
        return self.connection_info


# --- the zygote's side -------------------------------------------------------------------------------------------


def preload() -> None:
    """Import what every kernel needs, as a kernel would (matplotlib told of the inline backend first)."""
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    try:
        import setproctitle

        setproctitle.getproctitle()  # set up here, with the environment intact: a kernel then only renames itself
    except ImportError:
        pass
    for name in PRELOADED:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 (a module that fails here fails in the kernel, where it is reported)
            pass
    gc.collect()
    gc.freeze()  # the imported objects stay out of the kernels' collections: fewer pages copied after the fork


def serve(requests: Any, reply_fd: int) -> None:
    """Fork a kernel for each request until the requests end."""
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the system reaps the kernels that end
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C is the classroom's to handle
    for line in requests:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            become_kernel(request, (requests.fileno(), reply_fd))
        os.write(reply_fd, f"{pid}\n".encode())


def become_kernel(request: dict, inherited: tuple[int, ...]) -> None:
    """The forked child: the kernel's session, streams, folder and environment, then ipykernel. Never returns."""
    status = 1
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.setsid()
        for fd in inherited:
            os.close(fd)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
        argv = request["argv"]
        try:
            from setproctitle import setproctitle

            setproctitle(" ".join(argv))  # ps, and anything that looks for kernels, see the kernel's command
        except ImportError:
            pass
        sys.argv = [argv[2], *argv[3:]]
        if sys.path and sys.path[0] in ("", os.getcwd()):
            del sys.path[0]  # as ipykernel_launcher: the kernel adds the folder back itself
        import numpy

        numpy.random.seed()  # the zygote's random state is not every kernel's (Python's random reseeds itself)
        from ipykernel.kernelapp import IPKernelApp

        app = IPKernelApp.instance()
        # the zygote is the kernel's parent: the kernel ends when it does (when Voila ends), and, started by a
        # parent, prints no "Ctrl-C will not work" banner into the teacher's terminal
        app.initialize([*argv[3:], f"--IPKernelApp.parent_handle={os.getppid()}"])
        import ipywidgets

        ipywidgets.register_comm_target()  # imported before the kernel existed: it registers with the kernel now
        app.start()
        status = 0
    except SystemExit as stop:
        status = stop.code if isinstance(stop.code, int) else 1
    except BaseException:  # noqa: BLE001 (the child must never return into the zygote's loop)
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)


if __name__ == "__main__":
    reply = int(sys.argv[1])
    preload()
    serve(sys.stdin, reply)
