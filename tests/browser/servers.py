"""Start JupyterLab and Voilà for the browser tests, on free local ports, and stop them cleanly.

Each server runs in its own session (``start_new_session=True``) with an
isolated Jupyter configuration (settings, workspaces, config, runtime and
IPython folders under a temporary directory) and serves a temporary copy of the
notebooks, so nothing tracked is modified. ``stop`` ends the server's process
group and any process it started (kernels), by their ids.
"""

from __future__ import annotations

import json
import os
import random
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import nbformat
import psutil

from helpers.teacher.classroom import cpu_seconds, port_taken
from tests import processes, waiting

BIN = Path(sys.executable).parent
REPOSITORY = Path(__file__).resolve().parents[2]
# the repository's JupyterLab settings, which the README's open command points JupyterLab at
REPOSITORY_LAB_CONFIG = REPOSITORY / "jupyter-config"


HANDED_OUT: set[int] = set()  # the ports free_port gave this process


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now, and that this test run has not handed out before.

    The system can offer a port again as long as nothing binds it, so servers started together (six classrooms,
    a hub and its proxy, two pytest-xdist workers) could otherwise be given the same one: each port is claimed
    once across every process of the run (:func:`tests.processes.claim`). Where the system's range of ports for a
    bind to port 0 can be read (Linux), the port is picked below it: a kernel's five ZMQ ports and every other
    client that asks for any port come from that range, so none of them takes the port between the moment it is
    handed out and the moment its server binds it (a classroom's Voilà, which must not look for another, lost
    its port so in a run with three workers).
    """
    below = range(10_000, ephemeral_ports().start)
    while True:
        port = random.choice(below) if below else any_port()
        if not port_taken(port) and port not in HANDED_OUT and processes.claim("ports", port):
            HANDED_OUT.add(port)
            return port


def ephemeral_ports() -> range:
    """The ports the system hands out for a bind to port 0 (Linux's ip_local_port_range; all of them elsewhere)."""
    try:
        low, high = map(int, Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
    except (OSError, ValueError):
        return range(1, 65536)
    return range(low, high + 1)


def any_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def isolated_env(home: Path) -> dict[str, str]:
    """Environment for a server whose Jupyter and IPython state lives under ``home``.

    The JupyterLab user settings render every cell of a notebook (no windowing),
    so the widgets are in the page to click.
    """
    folders = {
        "JUPYTERLAB_SETTINGS_DIR": home / "lab-settings",
        "JUPYTERLAB_WORKSPACES_DIR": home / "lab-workspaces",
        "JUPYTER_CONFIG_DIR": home / "config",
        "JUPYTER_RUNTIME_DIR": home / "runtime",
        "IPYTHONDIR": home / "ipython",
        "MPLCONFIGDIR": home / "matplotlib",
    }
    for folder in folders.values():
        folder.mkdir(parents=True, exist_ok=True)
    settings = folders["JUPYTERLAB_SETTINGS_DIR"] / "@jupyterlab"
    user_settings = {
        "notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    }
    for name, value in user_settings.items():
        path = settings / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value), encoding="utf-8")
    env = {name: value for name, value in os.environ.items() if name != "MPLBACKEND"}
    env.update({name: str(folder) for name, folder in folders.items()})
    env["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"
    return env


@dataclass
class Server:
    """A running server: its process, URL, token and log file, and the mark every process it starts carries."""

    name: str
    process: subprocess.Popen
    url: str
    token: str
    log: Path
    mark: str = ""

    def page(self, path: str = "") -> str:
        """A URL on this server, with the token if it has one."""
        if not self.token:
            return f"{self.url}/{path.lstrip('/')}"
        separator = "&" if "?" in path else "?"
        return f"{self.url}/{path.lstrip('/')}{separator}token={self.token}"

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace") if self.log.exists() else ""

    def log_tail(self, lines: int = 40) -> str:
        text = self.log.read_text(encoding="utf-8", errors="replace") if self.log.exists() else ""
        return "\n".join(text.splitlines()[-lines:])


def start(name: str, command: list[str], cwd: Path, env: dict, log: Path, url: str, token: str) -> Server:
    """Start a server in a session of its own, marked (:func:`tests.processes.marked`) so that :func:`stop` ends it
    and every process it started, even one whose parent has gone."""
    env, mark = processes.marked(env, name.split()[0])
    handle = log.open("w", encoding="utf-8")
    process = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True
    )
    handle.close()
    return Server(name, process, url, token, log, mark)


def lessons_copy(folder: Path) -> Path:
    """The notebooks (no workbooks, no checkpoints) and the data in ``folder``, laid out as in the repository."""
    ignored = shutil.ignore_patterns("*.xlsx", ".ipynb_*")
    shutil.copytree(REPOSITORY / "notebooks", folder / "notebooks", ignore=ignored)
    shutil.copytree(REPOSITORY / "data", folder / "data")
    return folder


def write_notebook(path: Path, cells: Sequence[str]) -> Path:
    """A notebook of these code cells, for the Python 3 kernel, written to ``path`` for a server to open."""
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in cells])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, path)
    return path


def start_jupyterlab(root: Path, home: Path, extra: Sequence[str] = (), theme: str | None = None) -> Server:
    """JupyterLab run in ``root`` (``extra``: more command-line arguments); returns once its REST API answers.

    It serves ``root`` unless ``extra`` names its own root folder (relative to ``root``). ``theme`` ("JupyterLab
    Dark", ...) is set as the user's choice in its isolated settings folder.
    """
    if theme is not None:
        themes = home / "lab-settings" / "@jupyterlab" / "apputils-extension" / "themes.jupyterlab-settings"
        themes.parent.mkdir(parents=True)
        themes.write_text(json.dumps({"theme": theme}), encoding="utf-8")
    port, token = free_port(), secrets.token_hex(16)
    root_given = any(argument.startswith("--ServerApp.root_dir") for argument in extra)
    command = [
        str(BIN / "jupyter-lab"),
        "--no-browser",
        f"--port={port}",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.token={token}",
        *([] if root_given else [f"--ServerApp.root_dir={root}"]),
        "--ServerApp.port_retries=0",
        "--LabApp.news_url=None",
        "--allow-root",
        *extra,
    ]
    # the repository's settings, as the README's open command gives them (no news pop-up, ...)
    env = {**isolated_env(home), "JUPYTER_CONFIG_PATH": str(REPOSITORY_LAB_CONFIG)}
    server = start(
        "jupyterlab",
        command,
        root,
        env,
        home / "jupyterlab.log",
        f"http://127.0.0.1:{port}",
        token,
    )
    wait_until(server, lambda: http_ok(server.page("api/status")), "its REST API to answer")
    return server


def start_themed_lab(tmp_path_factory, theme: str, notebooks: dict[str, Sequence[str]]) -> Server:
    """JupyterLab in ``theme`` serving a temporary copy of the repository with ``notebooks/<name>`` made of its cells
    for each name of ``notebooks`` (the theme is kept on the server as ``.theme``)."""
    copy = lessons_copy(tmp_path_factory.mktemp("repository"))
    for name, cells in notebooks.items():
        write_notebook(copy / "notebooks" / name, cells)
    server = start_jupyterlab(copy, tmp_path_factory.mktemp("lab-home"), theme=theme)
    server.theme = theme  # type: ignore[attr-defined]
    return server


def start_voila(notebook: Path, home: Path) -> Server:
    """Voilà serving one notebook as an app; returns once its port accepts connections.

    Only a TCP connect is used to wait: a GET of the page would run the notebook.
    """
    port, token = free_port(), secrets.token_hex(16)
    command = [
        str(BIN / "voila"),
        notebook.name,
        "--no-browser",
        f"--port={port}",
        "--Voila.ip=127.0.0.1",
        f"--token={token}",
    ]
    server = start(
        "voila",
        command,
        notebook.parent,
        isolated_env(home),
        home / "voila.log",
        f"http://127.0.0.1:{port}",
        token,
    )
    wait_until(server, lambda: port_open(port), "its port to open")
    return server


def launch_classroom(lesson: str, cwd: Path, home: Path, cull: int = 10, pool: int | None = None) -> Server:
    """The classroom command for a lesson, run from ``cwd`` on a free port (see :func:`wait_for_preheat`).

    ``pool``: the preheated kernels it keeps (the command's default if None).
    """
    port = free_port()
    command = [
        sys.executable, "-m", "helpers.teacher.classroom", lesson,
        f"--port={port}", "--no-browser", f"--cull={cull}", *([f"--pool={pool}"] if pool else []),
    ]  # fmt: skip
    return start(
        f"classroom {lesson}", command, cwd, isolated_env(home), home / "classroom.log", f"http://127.0.0.1:{port}", ""
    )


def preheated(server: Server) -> int:
    """How many times the classroom server has filled its pool of preheated kernels so far."""
    return server.log_text().count("is filled with")


@contextmanager
def classrooms(lessons: Sequence[str], cwd: Path, home_of: Callable[[str], Path], **launch) -> Iterator[dict]:
    """The classroom command for each lesson, started at once, preheated, and stopped at the end."""
    started = {lesson: launch_classroom(lesson, cwd, home_of(lesson), **launch) for lesson in lessons}
    try:
        for server in started.values():
            wait_for_preheat(server)
        yield started
    finally:
        stop_all(list(started.values()))


def wait_for_preheat(server: Server, times: int = 1, timeout: float = 180) -> None:
    """Wait until the classroom server has preheated a kernel ``times`` times in all, and its kernels are quiet.

    Voila reports the pool filled once the kernel has started; the kernel then
    still runs the lesson, so a page opened at once would wait for it.
    """
    wait_until(server, lambda: preheated(server) >= times, f"preheated kernel number {times}", timeout=timeout)
    wait_until(server, lambda: kernels_quiet(server), "its kernels to finish running the lesson", timeout=timeout)


def kernels_quiet(server: Server, seconds: float = 0.5) -> bool:
    """True if no kernel of the server used more than 2 % of a core over ``seconds``."""
    before = {pid: cpu_seconds(pid) for pid in kernels(server)}
    time.sleep(seconds)
    return all(cpu_seconds(pid) - used <= 0.02 * seconds for pid, used in before.items())


def kernels(server: Server) -> dict[int, int]:
    """The server's running kernels: process id -> resident memory in KiB."""
    return kernels_below(server.process.pid)


def kernels_below(pid: int) -> dict[int, int]:
    """The kernels started, directly or not, by ``pid``: process id -> resident memory in KiB."""
    found = {}
    for process in descendants(pid):
        try:
            if "ipykernel_launcher" in " ".join(process.cmdline()):
                found[process.pid] = process.memory_info().rss // 1024
        except psutil.Error:
            continue
    return found


def http_ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return False


def port_open(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def wait_until(server: Server, ready, what: str, timeout: float = 90) -> None:
    """``ready()`` polled (tests/waiting.py) while the server runs; its log's tail when it exits or times out."""

    def ready_while_running():
        if server.process.poll() is not None:
            raise RuntimeError(f"{server.name} exited ({server.process.returncode}):\n{server.log_tail()}")
        return ready()

    try:
        waiting.wait_until(ready_while_running, what, timeout, every=0.25)
    except TimeoutError:
        stop(server)
        said = f"{server.name} did not get ready ({what}) in {timeout:.0f} s:\n{server.log_tail()}"
        raise TimeoutError(said) from None


def stop_all(started: Sequence[Server]) -> None:
    """:func:`stop` each server, all at once (each waits for its own kernels to end, not for the others')."""
    with ThreadPoolExecutor(max(1, len(started))) as pool:
        list(pool.map(stop, started))


def descendants(pid: int) -> list[psutil.Process]:
    """Every process started, directly or not, by ``pid`` (a psutil.Process knows its start: a reused id is not it)."""
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []


def still_running(processes: list[psutil.Process]) -> list[psutil.Process]:
    """Those of ``processes`` that still run as the same process (not gone, not a zombie, the id not reused)."""
    alive = []
    for process in processes:
        try:
            if process.is_running() and process.status() != psutil.STATUS_ZOMBIE:
                alive.append(process)
        except psutil.Error:
            continue
    return alive


def stop(server: Server, grace: float = 10) -> None:
    """End the server's process group, then any process it started (kernels) that is still running, then any
    process still carrying its mark."""
    process = server.process
    children = descendants(process.pid)
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            process.wait(grace)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            process.wait(5)
    deadline = time.monotonic() + grace
    while still_running(children) and time.monotonic() < deadline:
        time.sleep(0.2)
    for child in still_running(children):
        try:
            child.kill()
        except psutil.Error:
            pass
    if server.mark:  # a kernel whose parent had gone before the stop: found by its mark
        processes.end(processes.running(server.mark))
