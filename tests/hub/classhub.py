"""A class on a real JupyterHub, on 127.0.0.1: the shared install, the course repository, the hub, its learners.

- :func:`install_helpers`: ``helpers`` installed as a package (pip, not editable)
  into a folder of its own, the shared install every learner's server imports;
- :func:`release` and :func:`publish`: the learners' copy of the collection
  (``python -m helpers.release``), committed and pushed to a bare git repository
  that the learners' servers pull from (``file://``), as a teacher's GitHub
  repository would be;
- :class:`Hub`: JupyterHub 5 with configurable-http-proxy, configured by the
  project's ``deploy/jupyterhub/jupyterhub_config.py`` plus a test layer: the
  Dummy authenticator and SimpleLocalProcessSpawner (no user switching, homes
  under the test's folder, ``--allow-root``). A class uses the institution's
  authenticator and per-user system accounts instead;
- :class:`Learner`: one hub user with their own token, their server's REST API
  (contents, sessions, nbgitpuller) and kernels (:mod:`tests.hub.kernel`).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
import tomllib
import urllib.parse
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import nbformat
import psutil
import requests

from helpers.teacher.sandbox import kill_processes
from tests import processes
from tests.browser.servers import free_port
from tests.hub.kernel import Execution, Kernel

PROJECT = Path(__file__).resolve().parents[2]
DEPLOY_CONFIG = PROJECT / "deploy" / "jupyterhub" / "jupyterhub_config.py"
TEACHER = "teacher"  # an admin in the deploy config
LESSONS = "ranking-metrics"  # the folder of each home that nbgitpuller fills (its targetpath)
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Teacher", "GIT_AUTHOR_EMAIL": "teacher@example.org",
    "GIT_COMMITTER_NAME": "Teacher", "GIT_COMMITTER_EMAIL": "teacher@example.org",
}  # fmt: skip
TEST_SCOPES = ["admin:users", "admin:servers", "admin:server_state", "tokens", "list:services", "read:services"]

TEST_CONFIG = """\
# The hub test's configuration: the project's deployment, then what only a test may do.
load_subconfig({deploy!r})

c.JupyterHub.ip, c.JupyterHub.port = "127.0.0.1", {port}
c.JupyterHub.hub_ip, c.JupyterHub.hub_port = "127.0.0.1", {hub_port}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{api_port}"
c.ConfigurableHTTPProxy.command = [{proxy!r}]
c.JupyterHub.db_url = "sqlite:///{folder}/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = "{folder}/jupyterhub_cookie_secret"

# Tests only, never a class: any password logs in, and every server runs as this process's user
# (root here, hence --allow-root) with its home under the test's folder.
import asyncio, time
from jupyterhub.spawner import SimpleLocalProcessSpawner


# SimpleLocalProcessSpawner that looks every 0.1 s whether a stopping server has exited: the base class's checks
# back off exponentially (0.1, 0.2, 0.4, 0.8 s... with jitter), up to a second idle after each exit, and the idle
# culler stops the class's servers one after the other.
class PromptlyPolledSpawner(SimpleLocalProcessSpawner):
    async def wait_for_death(self, timeout=10):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if await self.poll() is not None:
                return True
            await asyncio.sleep(0.1)
        return False


c.JupyterHub.authenticator_class = "dummy"
c.JupyterHub.spawner_class = PromptlyPolledSpawner
c.SimpleLocalProcessSpawner.home_dir_template = "{homes}/{{username}}"
c.Spawner.args.append("--allow-root")
c.Spawner.environment["PYTHONPATH"] = {site!r}  # helpers as installed, never the project's own folder
c.Spawner.env_keep.append({run_env!r})  # the test run's mark: a server left running is found (tests/processes.py)

# The test's client (an admin token), and a second idle culler that holds the shipped culler's role.
c.JupyterHub.services += [
    {{"name": "class-test", "api_token": {token!r}}},
    {{"name": "cull-now", "api_token": {cull_token!r}}},
]
c.JupyterHub.load_roles.append({{"name": "class-test", "scopes": {scopes!r}, "services": ["class-test"]}})
next(role for role in c.JupyterHub.load_roles if role["name"] == "idle-culler")["services"].append("cull-now")
"""


def proxy_command() -> str | None:
    """The configurable-http-proxy program (npm install -g configurable-http-proxy), or None."""
    return shutil.which("configurable-http-proxy")


def run(command: Sequence[str | Path], **kwargs) -> subprocess.CompletedProcess:
    """Run a command; on failure raise with what it printed."""
    done = subprocess.run([str(part) for part in command], capture_output=True, text=True, **kwargs)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, command))} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done


def install_build_backend(folder: Path) -> Path:
    """The project's build requirements (pyproject.toml's [build-system] requires) installed into ``folder``: what
    pip's build isolation installs afresh for every build, made once for several :func:`install_helpers`."""
    with open(PROJECT / "pyproject.toml", "rb") as file:
        requires = tomllib.load(file)["build-system"]["requires"]
    run([sys.executable, "-m", "pip", "install", "--quiet", "--target", folder, *requires], timeout=600)
    return folder


def install_helpers(folder: Path, origin: Path = PROJECT, backend: Path | None = None) -> Path:
    """helpers installed as a package (pip, not editable) from a copy of the project, or of an assignment release
    (its keyless helpers: a graded class); the folder to import it from.

    ``backend``: a folder from :func:`install_build_backend`, which pip then builds with (no build isolation).
    """
    source = folder / "source"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.xlsx", ".ipynb_checkpoints")
    for name in ("helpers", "data"):
        shutil.copytree(origin / name, source / name, ignore=ignore)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(origin / name, source / name)
    site = folder / "site-packages"
    isolation, env = ["--no-build-isolation"], {**os.environ, "PYTHONPATH": str(backend)}  # its setuptools first
    if backend is None:
        isolation, env = [], None
    run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", *isolation, "--target", site, source],
        env=env, timeout=600)
    shutil.rmtree(source)
    return site


def project_env() -> dict[str, str]:
    """The environment of the teacher's commands: the project's own helpers first."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(PROJECT), os.environ.get("PYTHONPATH")]))}


def release(
    folder: Path, exercises: Sequence[Path] = (), kind: str = "assignment", options: Sequence[str] = ()
) -> Path:
    """The learners' copy of the collection (python -m helpers.release --KIND), written or replaced in folder."""
    extra = [part for path in exercises for part in ("--exercises", str(path))]
    run([sys.executable, "-m", "helpers.release", folder, "--force", f"--{kind}", *extra, *options],
        env=project_env(), timeout=300)
    return folder


def publish(release_folder: Path, bare: Path, message: str) -> str:
    """Commit the release and push it to the bare repository the learners pull from; its file:// URL."""
    env = {**os.environ, **GIT_IDENTITY}
    if not bare.exists():
        run(["git", "init", "--quiet", "--bare", "--initial-branch=main", bare], env=env)
    if not (release_folder / ".git").exists():
        run(["git", "init", "--quiet", "--initial-branch=main", release_folder], env=env)
    run(["git", "add", "--all"], cwd=release_folder, env=env)
    run(["git", "commit", "--quiet", "--message", message], cwd=release_folder, env=env)
    run(["git", "push", "--quiet", str(bare), "main"], cwd=release_folder, env=env)
    return bare.as_uri()


def tree_memory(pid: int) -> dict[str, float]:
    """Resident (RSS) and proportional (PSS: shared pages split) memory in MB of a process with its children,
    and of the process alone (``server_``: a learner's server without its kernels)."""
    top = psutil.Process(pid)
    processes = [top, *top.children(recursive=True)]
    rss = pss = 0
    for process in processes:
        try:
            info = process.memory_full_info()
        except psutil.NoSuchProcess:
            continue
        rss, pss = rss + info.rss, pss + info.pss
    alone = top.memory_full_info()
    return {"rss_mb": rss / 2**20, "pss_mb": pss / 2**20, "processes": len(processes),
            "server_rss_mb": alone.rss / 2**20, "server_pss_mb": alone.pss / 2**20}  # fmt: skip


class Hub:
    """JupyterHub and its proxy, running from the deploy config plus the test layer (see TEST_CONFIG)."""

    def __init__(self, folder: Path, site: Path, proxy: str, exercises: Path):
        self.folder, self.homes = folder, folder / "homes"
        self.homes.mkdir(parents=True, exist_ok=True)
        self.port, hub_port, api_port = free_port(), free_port(), free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.token, self.cull_token = secrets.token_hex(16), secrets.token_hex(16)
        config = TEST_CONFIG.format(
            deploy=str(DEPLOY_CONFIG), port=self.port, hub_port=hub_port, api_port=api_port, proxy=proxy,
            folder=folder, homes=self.homes, site=str(site), token=self.token, cull_token=self.cull_token,
            scopes=TEST_SCOPES, run_env=processes.RUN_ENV,
        )  # fmt: skip
        (folder / "jupyterhub_config.py").write_text(config, encoding="utf-8")
        self.log = folder / "jupyterhub.log"
        env, self.mark = processes.marked(
            {**os.environ, "PYTHONPATH": str(site), "RANKING_METRICS_EXERCISES": str(exercises)}, "jupyterhub"
        )  # the hub, its proxy, every learner's server and kernel carry the mark (Spawner.env_keep)
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "jupyterhub", "-f", "jupyterhub_config.py"],
                cwd=folder, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )
        self.servers: list[psutil.Process] = []  # every server it started, kernels below them
        try:
            self.wait_until_up()
        except BaseException:  # never up: nothing of it is left running
            self.stop()
            raise

    def log_tail(self, lines: int = 40) -> str:
        """The end of the hub's log (the hub, the proxy and every server write there)."""
        return "\n".join(self.log.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])

    def wait_until_up(self, timeout: float = 120) -> None:
        """Wait until the hub answers through its proxy."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"JupyterHub exited ({self.process.returncode}):\n{self.log_tail()}")
            try:
                if requests.get(f"{self.url}/hub/api/", timeout=5).status_code == 200:
                    return
            except requests.ConnectionError:
                pass
            time.sleep(0.5)
        raise RuntimeError(f"JupyterHub did not answer within {timeout:g} s:\n{self.log_tail()}")

    def api(self, method: str, path: str, **kwargs) -> requests.Response:
        """A call to the hub's REST API with the test's admin token; raises on an error status."""
        response = requests.request(
            method, f"{self.url}/hub/api{path}", headers={"Authorization": f"token {self.token}"}, timeout=60, **kwargs
        )
        if response.status_code >= 400:
            raise RuntimeError(f"{method} {path}: {response.status_code} {response.text[:300]}")
        return response

    def add_learners(self, names: Sequence[str]) -> None:
        """Create hub users, as the teacher does on the admin page."""
        self.api("POST", "/users", json={"usernames": list(names)})

    def start_servers(self, names: Sequence[str], timeout: float = 300) -> float:
        """Start every named user's server at once, as a class logging in together; seconds until all are ready.

        The requests go out together: the hub answers each one when its server is up or after 10 s.
        """
        start = time.perf_counter()
        with ThreadPoolExecutor(max_workers=len(names)) as pool:
            list(pool.map(lambda name: self.api("POST", f"/users/{name}/server"), names))
        waiting = set(names)
        while waiting:
            if time.perf_counter() - start > timeout:
                raise RuntimeError(f"servers not ready after {timeout:g} s: {sorted(waiting)}\n{self.log_tail()}")
            servers = {user["name"]: user["servers"].get("") for user in self.api("GET", "/users").json()}
            for name in sorted(waiting):  # one request for all, not one per learner: the hub's CPU is theirs too
                server = servers[name]
                if server is None:
                    raise RuntimeError(f"{name}'s server failed to start:\n{self.log_tail()}")
                if server["ready"]:
                    waiting.discard(name)
                    self.servers.append(psutil.Process(self.server_pid(name)))
            time.sleep(0.25)
        return time.perf_counter() - start

    def stop_server(self, name: str, timeout: float = 120) -> None:
        """Stop a user's server, as the Hub Control Panel's "Stop My Server" does; wait until it is gone."""
        self.api("DELETE", f"/users/{name}/server")
        deadline = time.monotonic() + timeout
        while self.api("GET", f"/users/{name}").json()["servers"]:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{name}'s server still runs after {timeout:g} s")
            time.sleep(0.25)

    def server_pid(self, name: str) -> int:
        """The process id of a user's running server (from the spawner's state)."""
        return int(self.api("GET", f"/users/{name}").json()["servers"][""]["state"]["pid"])

    def learner(self, name: str) -> Learner:
        """A user with a fresh token of their own (created through the hub's API)."""
        token = self.api("POST", f"/users/{name}/tokens", json={"note": "hub test", "expires_in": 7200}).json()
        return Learner(self, name, token["token"])

    def stop(self) -> None:
        """End the servers, their kernels and the hub's other children (its services, the proxy), then stop the hub.

        They are killed first: the hub's own clean-up would stop each one gracefully, seconds that a test which has
        finished with them does not need (a graceful stop is the culler test's subject; the idle-culler service
        alone takes 10 s, SIGINT then SIGTERM). Processes are held as psutil objects, which refuse to signal a
        process id since reused by another program.
        """
        started = list(self.servers)
        owners = [server for server in self.servers if server.is_running()]  # is_running: not a reused id
        if self.process.poll() is None:
            owners.append(psutil.Process(self.process.pid))
        for owner in owners:
            try:
                started += owner.children(recursive=True)
            except psutil.NoSuchProcess:
                pass
        kill_processes(started)  # SIGKILL; its parent (the hub, a server) reaps it
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=30)
        kill_processes(started)  # SIGKILL; its parent (the hub, a server) reaps it
        processes.end(processes.running(self.mark))  # a kernel whose server had gone before: found by its mark


@dataclass
class Learner:
    """A hub user seen from their browser: their server's REST API and kernels, with their own token."""

    hub: Hub
    name: str
    token: str

    @property
    def home(self) -> Path:
        return self.hub.homes / self.name

    @property
    def server(self) -> str:
        return f"{self.hub.url}/user/{self.name}"

    def call(self, method: str, path: str, **kwargs) -> requests.Response:
        """A request to this learner's server (or the hub, for /hub/... paths) with their token."""
        url = f"{self.hub.url}{path}" if path.startswith("/hub/") else f"{self.server}/{path.lstrip('/')}"
        kwargs.setdefault("timeout", 120)
        return requests.request(method, url, headers={"Authorization": f"token {self.token}"}, **kwargs)

    def browser(self) -> requests.Session:
        """A session logged in through the hub's login form, as a browser is (any password passes here)."""
        session = requests.Session()
        session.get(f"{self.hub.url}/hub/login", timeout=60).raise_for_status()
        form = {"username": self.name, "password": "any", "_xsrf": session.cookies.get("_xsrf", "")}
        session.post(f"{self.hub.url}/hub/login", data=form, timeout=60).raise_for_status()
        if "jupyterhub-session-id" not in session.cookies:
            raise RuntimeError(f"{self.name} could not log in")
        return session

    def pull(self, repo: str, branch: str = "main") -> list[dict]:
        """Pull the collection into the home through nbgitpuller's endpoint, as the README's link does."""
        query = urllib.parse.urlencode({"repo": repo, "branch": branch, "targetpath": LESSONS})
        events = []
        with self.call("GET", f"git-pull/api?{query}", stream=True, timeout=300) as response:
            response.raise_for_status()
            for line in response.iter_lines(decode_unicode=True):
                if line and line.startswith("data:"):
                    events.append(json.loads(line[len("data:") :]))
        if not events or events[-1].get("phase") != "finished":
            raise RuntimeError(f"{self.name}: the pull did not finish: {events[-3:]}")
        return events

    def read_notebook(self, path: str) -> nbformat.NotebookNode:
        """A notebook of the home, through the contents API."""
        response = self.call("GET", f"api/contents/{path}", params={"content": "1", "type": "notebook"})
        response.raise_for_status()
        return nbformat.from_dict(response.json()["content"])

    def write_notebook(self, path: str, notebook: nbformat.NotebookNode) -> None:
        """Save a notebook into the home, as JupyterLab does."""
        body = {"type": "notebook", "format": "json", "content": notebook}
        self.call("PUT", f"api/contents/{path}", json=body).raise_for_status()

    def open_kernel(self, notebook_path: str) -> tuple[Kernel, str]:
        """A kernel for a notebook (a session, as opening it in JupyterLab makes); the kernel and the session id."""
        body = {"path": notebook_path, "type": "notebook", "name": Path(notebook_path).name,
                "kernel": {"name": "python3"}}  # fmt: skip
        response = self.call("POST", "api/sessions", json=body)
        response.raise_for_status()
        session = response.json()
        return Kernel(self.server, self.token, session["kernel"]["id"], timeout=300), session["id"]

    def close_session(self, session_id: str) -> None:
        """Close a notebook's session; its kernel is shut down."""
        self.call("DELETE", f"api/sessions/{session_id}").raise_for_status()

    def run_cells(self, kernel: Kernel, notebook: nbformat.NotebookNode) -> list[Execution]:
        """Run every code cell in order, as Run All does; stop at the first error."""
        done = []
        for cell in notebook.cells:
            if cell.cell_type != "code":
                continue
            execution = kernel.execute(cell.source)
            cell.outputs = execution.outputs
            done.append(execution)
            if execution.status != "ok":
                break
        return done
