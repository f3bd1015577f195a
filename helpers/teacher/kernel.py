"""Run a learner's notebook in a kernel that can only talk back through channels the grader opened first.

The grader reads nothing the kernel could have written or replaced in its
folder. What comes back:

- the check log: a pipe whose write end the kernel inherits as a file
  descriptor ($HELPERS_CHECK_FD); a thread here drains it, keeping at most
  :data:`MAX_LOG_BYTES`. Only what arrived before the grader's own last cell
  started counts (:meth:`Drain.mark`): nothing a background thread writes later;
- the kernel's stderr: another pipe, of which the last :data:`STDERR_TAIL`
  bytes are kept (a dying kernel's last words);
- the kernel's messages (zmq over local sockets): the errors of each cell, and
  the result of the grader's last cell, which carries what the learner's
  functions returned on the hidden inputs. They are counted as they arrive and
  not kept: past :data:`MAX_OUTPUT_BYTES` in all (or one message past
  :data:`MAX_MESSAGE_BYTES`) the notebook is stopped. The sockets connect once,
  while no learner code has run yet, and never reconnect, so a socket file the
  notebook replaces later leads nowhere.

:func:`run_notebook` runs every code cell, then asks ``finish`` for the last
cell's code (it sees the check log up to then), within one :class:`Budget` for
all of it: CPU seconds of all the notebook's processes (``cpu-time`` when spent),
and a much longer wall-clock safety net for a notebook that waits (a sleep, a
hang) or a machine too busy to run it (``load-timeout``: the grader's side, not
the notebook's, when the CPU budget was not spent).
"""

from __future__ import annotations

import fcntl
import os
import secrets
import select
import signal
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import zmq
from jupyter_client.connect import write_connection_file
from jupyter_client.session import Session
from zmq.utils.monitor import recv_monitor_message

from helpers.teacher.logbook import MAX_LOG_BYTES

STDERR_TAIL = 4096
MAX_OUTPUT_BYTES = 64 * 1024**2  # everything a notebook prints, plots and raises (lessons stay far below)
MAX_MESSAGE_BYTES = 16 * 1024**2
START_SECONDS = 60.0
CPU_CHECK_SECONDS = 0.5  # how often the notebook's CPU account is read while a cell runs
DISK_CHECK_SECONDS = 1.0  # how often what it wrote is sized


@dataclass
class Budget:
    """What one notebook may take: ``cpu_seconds`` of CPU in all its processes (``used()`` says how many so
    far), within ``wall_seconds`` of wall-clock time at most (the safety net), and ``disk_bytes`` written into
    its folder and /tmp together (``written(budget)`` says how many, or more than the budget)."""

    cpu_seconds: float
    wall_seconds: float
    used: Callable[[], float] = lambda: 0.0
    disk_bytes: int = 0  # 0: not checked
    written: Callable[[int], int] = lambda budget: 0
    started_cpu: float = 0.0
    started_wall: float = 0.0
    wall_deadline: float = float("inf")
    checked: float = 0.0
    sized: float = 0.0
    spent: float = 0.0

    def start(self) -> None:
        """The budget starts now (the first cell): what the kernel's start took is not counted."""
        self.started_wall = self.checked = self.sized = time.monotonic()
        self.wall_deadline = self.started_wall + self.wall_seconds
        self.started_cpu = self.used()

    def cpu(self) -> float:
        """CPU seconds the notebook used since :meth:`start`."""
        self.spent = max(self.spent, self.used() - self.started_cpu)
        return self.spent

    def check(self, now: float) -> None:
        """Raise Stopped('cpu-time') past the CPU budget, Stopped('disk-limit') past the disk budget,
        Stopped('load-timeout') past the wall-clock net."""
        if now - self.checked >= CPU_CHECK_SECONDS or now > self.wall_deadline:
            self.checked = now
            if self.cpu() > self.cpu_seconds:
                raise Stopped("cpu-time")
        if self.disk_bytes and now - self.sized >= DISK_CHECK_SECONDS:
            self.sized = now
            if self.written(self.disk_bytes) > self.disk_bytes:
                raise Stopped("disk-limit")
        if now > self.wall_deadline:
            raise Stopped("load-timeout")

    def wall(self) -> float:
        """Wall-clock seconds since :meth:`start`."""
        return time.monotonic() - self.started_wall if self.started_wall else 0.0


class Drain:
    """A pipe the kernel writes into and a thread here reads from, keeping at most ``keep`` bytes.

    ``tail``: keep the last bytes rather than the first. The kernel never blocks
    on a full pipe: past the limit the bytes are read and dropped (``overflow``).
    """

    def __init__(self, keep: int, tail: bool = False) -> None:
        self.reader, self.writer = os.pipe()
        os.set_blocking(self.reader, False)  # a read takes what the pipe holds and never waits for more
        self.keep, self.tail = keep, tail
        self.data = bytearray()
        self.total = 0
        self.lock = threading.Lock()
        self.closing = threading.Event()
        self.thread = threading.Thread(target=self._drain, daemon=True)

    @property
    def overflow(self) -> bool:
        return self.total > self.keep

    def start(self) -> None:
        """Start reading; the write end stays open only in the kernel (call after it started)."""
        os.close(self.writer)
        self.writer = -1
        self.thread.start()

    def _drain(self) -> None:
        while not self.closing.is_set():
            ready, _, _ = select.select([self.reader], [], [], 0.2)
            if ready and not self._read(1 << 20):
                return

    def _read(self, most: int) -> bool:
        """Read and keep up to ``most`` bytes of what the pipe holds now; False at its end (the kernel closed it).

        A read and its keeping are one step under the lock: :meth:`mark` never finds bytes taken from the pipe
        and not kept yet (a grader on a busy machine lost a learner's last answer so, between the two).
        """
        with self.lock:
            while most > 0:
                try:
                    chunk = os.read(self.reader, min(most, 65536))
                except BlockingIOError:
                    return True
                if not chunk:
                    return False
                self._take(chunk)
                most -= len(chunk)
        return True

    def _take(self, chunk: bytes) -> None:
        """Keep what fits of a chunk (the caller holds the lock)."""
        self.total += len(chunk)
        if self.tail:
            self.data = (self.data + chunk)[-self.keep :]
        elif len(self.data) < self.keep:
            self.data += chunk[: self.keep - len(self.data)]

    def pending(self) -> int:
        """Bytes written into the pipe and not read yet."""
        count = bytearray(4)
        try:
            fcntl.ioctl(self.reader, termios.FIONREAD, count)
        except OSError:
            return 0
        return int.from_bytes(count, sys.byteorder)

    def mark(self) -> bytes:
        """What was written up to now: what the pipe holds is read here and then, whether the thread has run or not."""
        self._read(self.pending())
        with self.lock:
            return bytes(self.data)

    def close(self) -> bytes:
        """Stop reading (once the kernel is gone), take what is left in the pipe, close it; what was kept."""
        self.closing.set()
        if self.thread.ident is not None:
            self.thread.join()
        if self.writer >= 0:
            os.close(self.writer)
            self.writer = -1
        self._read(1 << 20)  # the last words of a kernel that died, at most 1 MB more
        os.close(self.reader)
        with self.lock:
            return bytes(self.data)


@dataclass
class CellError:
    """A cell that raised: its number among the notebook's cells (1-based), the error's name and text."""

    cell: int
    name: str
    text: str


@dataclass
class Run:
    """What running a notebook gave: cell errors, how it ended, the check log, the last cell's result."""

    errors: list[CellError] = field(default_factory=list)
    ended: str = "done"  # done, cpu-time, load-timeout, disk-limit, died, too-much-output, no-start
    detail: str = ""
    log: bytes = b""
    log_overflow: bool = False
    finish_result: dict | None = None
    finish_error: str = ""
    stderr: bytes = b""
    output_bytes: int = 0
    cpu_seconds: float = 0.0  # CPU the notebook's processes used, from its first cell on
    wall_seconds: float = 0.0

    def last_words(self) -> str:
        """The kernel's last line on stderr, short (for a kernel that died or did not start)."""
        lines = self.stderr.decode("utf-8", "replace").strip().splitlines()
        return lines[-1][:200] if lines else ""


class Stopped(Exception):
    """The notebook has to stop: ``reason`` is one of Run.ended."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(reason)
        self.reason, self.detail = reason, detail


@dataclass
class KernelProcess:
    """A started kernel: its process, its connection (held here, never read back) and its pipes."""

    process: subprocess.Popen
    info: dict
    log: Drain
    stderr: Drain
    pipes: tuple[bytes, bytes] | None = None  # what the two pipes held, once closed
    reach: Callable[[int], Path | None] | None = None  # where its folder is seen from here, given its pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def close_pipes(self) -> tuple[bytes, bytes]:
        """Close both pipes (once: a kernel started ahead and never run is closed the same way); what they held."""
        if self.pipes is None:
            self.pipes = (self.log.close(), self.stderr.close())
        return self.pipes

    def kill(self) -> None:
        """Kill the kernel's whole process group (bwrap takes its namespace with it)."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass


def start_kernel(root: Path, work: Path, prefix: Sequence[str], env: dict[str, str], seen_as: Path | None = None,
                 reach: Callable[[int], Path | None] | None = None) -> KernelProcess:
    """Start ``prefix`` + ipykernel with local sockets in ``root`` and the two pipes; return at once.

    ``seen_as``: ``root`` as the kernel sees it (in the sandbox), for its connection file and command line;
    ``reach``: where the grader finds that folder, given the process's pid (a sandbox's own tmpfs, seen through
    /proc; None until it can be), else ``root``. bwrap's options go through a file descriptor
    (:func:`helpers.teacher.sandbox.by_descriptor`).
    """
    from helpers.teacher.sandbox import by_descriptor, close_all

    inside = seen_as or root
    key = secrets.token_hex(32).encode()
    _, info = write_connection_file(str(root / "kernel.json"), ip=str(inside / "k"), key=key, transport="ipc")
    log, stderr = Drain(MAX_LOG_BYTES), Drain(STDERR_TAIL, tail=True)
    # the standard library's json, never orjson (jupyter_client's choice when it is installed): under the
    # address-space cap a failed allocation must be a MemoryError, and orjson crashes the kernel instead
    command, descriptors = by_descriptor([*prefix, sys.executable, "-m", "ipykernel_launcher", "-f",
                                          str(inside / "kernel.json"), "--Session.packer=json",
                                          "--Session.unpacker=json"])
    try:
        process = subprocess.Popen(
            command, cwd=work, env={**env, "HELPERS_CHECK_FD": str(log.writer)}, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=stderr.writer, start_new_session=True,
            pass_fds=(log.writer, *descriptors),
        )
    finally:
        close_all(descriptors)
    log.start()
    stderr.start()
    return KernelProcess(process, {**info, "ip": str(root / "k")}, log, stderr, reach=reach)  # seen from here


def reach_sockets(kernel: KernelProcess, deadline: float) -> None:
    """Point ``kernel.info['ip']`` at its sockets as seen from here, once its ``reach`` can say where."""
    if kernel.reach is None:
        return
    while (folder := kernel.reach(kernel.process.pid)) is None:
        if not kernel.alive():
            raise Stopped("died")
        if time.monotonic() > deadline:
            raise Stopped("no-start", "the kernel's sandbox did not start within a minute")
        time.sleep(0.02)
    kernel.info["ip"] = str(folder / "k")


class Client:
    """The grader's side of the kernel's shell and iopub sockets: send a cell, count and read what comes back."""

    def __init__(self, kernel: KernelProcess, reconnect: bool) -> None:
        self.kernel = kernel
        info = kernel.info
        self.session = Session(key=info["key"] if isinstance(info["key"], bytes) else info["key"].encode(),
                               signature_scheme=info.get("signature_scheme", "hmac-sha256"))
        self.context = zmq.Context()
        if not reconnect:  # set before connecting: a socket never follows its path a second time
            self.context.setsockopt(zmq.RECONNECT_IVL, -1)
        self.context.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES)
        self.context.setsockopt(zmq.LINGER, 0)
        self.shell = self.context.socket(zmq.DEALER)
        self.iopub = self.context.socket(zmq.SUB)
        self.iopub.setsockopt(zmq.SUBSCRIBE, b"")
        self.monitors = [sock.get_monitor_socket(zmq.EVENT_DISCONNECTED) for sock in (self.shell, self.iopub)]
        self.shell.connect(f"ipc://{info['ip']}-{info['shell_port']}")
        self.iopub.connect(f"ipc://{info['ip']}-{info['iopub_port']}")
        self.poller = zmq.Poller()
        for sock in (self.shell, self.iopub, *self.monitors):
            self.poller.register(sock, zmq.POLLIN)
        self.received = 0

    def close(self) -> None:
        for sock in (self.shell, self.iopub):
            sock.disable_monitor()
        for sock in (*self.monitors, self.shell, self.iopub):
            sock.close(linger=0)
        self.context.term()

    def disconnected(self) -> None:
        """A socket lost the kernel: it died (it takes bwrap a moment to follow), or a message was too big."""
        try:
            self.kernel.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            raise Stopped("too-much-output", f"it sent over {MAX_MESSAGE_BYTES // 1024**2} MB of output at once "
                          "(or closed its connection to the grader)") from None
        raise Stopped("died")

    def send(self, msg_type: str, content: dict) -> str:
        sent = self.session.send(self.shell, msg_type, content)
        assert sent is not None
        return sent["header"]["msg_id"]

    def poll(self, seconds: float) -> list[tuple[str, dict]]:
        """Messages that arrived within ``seconds``: ('shell' | 'iopub', message); raises Stopped."""
        found = []
        for sock, _ in self.poller.poll(max(0, int(seconds * 1000))):
            if sock in self.monitors:
                if recv_monitor_message(sock)["event"] == zmq.EVENT_DISCONNECTED:
                    self.disconnected()
                continue
            frames = sock.recv_multipart()
            self.received += sum(len(frame) for frame in frames)
            if self.received > MAX_OUTPUT_BYTES:
                raise Stopped("too-much-output", f"over {MAX_OUTPUT_BYTES // 1024**2} MB of output")
            try:
                _, parts = self.session.feed_identities(frames)
                message = self.session.deserialize(parts)
            except Exception:  # a message that is not the kernel's (bad signature, broken framing): not heard
                continue
            found.append(("shell" if sock is self.shell else "iopub", message))
        if not found and not self.kernel.alive():
            raise Stopped("died", "")
        return found


def connect(kernel: KernelProcess, deadline: float) -> Client:
    """Wait for the kernel to answer, then connect for good (no reconnection) and make sure iopub hears."""
    reach_sockets(kernel, deadline)
    first = Client(kernel, reconnect=True)  # finds the sockets whenever the kernel makes them
    try:
        _handshake(first, deadline, need_iopub=False)
    finally:
        first.close()
    client = Client(kernel, reconnect=False)  # the sockets exist now and no learner code ran yet
    try:
        _handshake(client, deadline, need_iopub=True)
    except BaseException:
        client.close()
        raise
    return client


def _handshake(client: Client, deadline: float, need_iopub: bool) -> None:
    """kernel_info until a reply (and, with ``need_iopub``, a message on iopub) comes back before ``deadline``."""
    replied = heard = False
    while not (replied and (heard or not need_iopub)):
        if time.monotonic() > deadline:
            raise Stopped("no-start", "the kernel did not answer within a minute")
        if not replied or not heard:
            client.send("kernel_info_request", {})
        for channel, message in client.poll(0.5):
            replied |= channel == "shell" and message["msg_type"] == "kernel_info_reply"
            heard |= channel == "iopub"


def execute(client: Client, code: str, budget: Budget, number: int, run: Run) -> dict | None:
    """Run one cell; note its error in ``run``; its execute_result's data (None without one). Raises Stopped."""
    msg_id = client.send("execute_request", {
        "code": code, "silent": False, "store_history": True, "user_expressions": {}, "allow_stdin": False,
        "stop_on_error": False,
    })
    replied = idle = False
    result = None
    after_reply = None
    errors = len(run.errors)
    while not (replied and idle):
        now = time.monotonic()
        budget.check(now)
        if after_reply is not None and now > after_reply:
            break  # the reply came; a status message lost on the way is not waited for
        for channel, message in client.poll(max(0.0, min(CPU_CHECK_SECONDS, budget.wall_deadline - now))):
            if message.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind, content = message["msg_type"], message.get("content", {})
            if channel == "shell" and kind == "execute_reply":
                replied, after_reply = True, time.monotonic() + 2
                if content.get("status") == "error" and len(run.errors) == errors:  # an error iopub never carried
                    run.errors.append(CellError(number, str(content.get("ename", ""))[:100],
                                                str(content.get("evalue", ""))[:300]))
            elif kind == "status" and content.get("execution_state") == "idle":
                idle = True
            elif kind == "error" and len(run.errors) == errors:  # once per cell, whichever channel said it first
                run.errors.append(CellError(number, str(content.get("ename", ""))[:100],
                                            str(content.get("evalue", ""))[:300]))
            elif kind == "execute_result":
                result = content.get("data")
    return result


def run_notebook(
    cells: Sequence[str], finish: Callable[[bytes], str | None], kernel: KernelProcess, budget: Budget,
    stop_leftovers: Callable[[], None],
) -> Run:
    """Run each code cell (``cells``: their sources, '' for a markdown cell), then the grader's last cell.

    ``finish`` gets the check log as it stood when the learner's cells were
    done and gives the last cell's code (or None: nothing to run). One
    ``budget``, started when the kernel answered, covers everything.
    """
    run = Run()
    client = None
    try:
        client = connect(kernel, time.monotonic() + START_SECONDS)
        budget.start()
        for number, source in enumerate(cells, start=1):
            if source.strip():
                execute(client, source, budget, number, run)
        run.log = kernel.log.mark()
        code = finish(run.log)
        if code:
            before = len(run.errors)
            run.finish_result = execute(client, code, budget, len(cells) + 1, run)
            finishing = run.errors[before:]
            del run.errors[before:]
            run.finish_error = f"{finishing[0].name}: {finishing[0].text}" if finishing else ""
    except Stopped as stop:
        run.ended, run.detail = stop.reason, stop.detail
        if not run.log:
            run.log = kernel.log.mark()
    finally:
        if client is not None:
            run.output_bytes = client.received
            run.cpu_seconds, run.wall_seconds = round(budget.cpu(), 2), round(budget.wall(), 2)
        stop_leftovers()
        kernel.kill()
        if client is not None:
            client.close()
        run.stderr = kernel.close_pipes()[1]
        run.log_overflow = kernel.log.overflow
    return run
