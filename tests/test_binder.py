"""Binder builds the repository as the README's first command does: repo2docker's steps for ``binder/``, repeated.

repo2docker, when a ``binder/`` folder exists, reads only it: Python from
``binder/runtime.txt``, ``pip install -r binder/requirements.txt`` run from the
repository's folder, then ``binder/postBuild``, and every session started
through ``binder/start``. Here the same steps run on a copy of the checkout in
a fresh virtual environment, then lessons 01 and 05 run through ``binder/start``
and must import ``helpers`` from that copy (the editable install), with
JupyterLab's settings from ``jupyter-config/`` in force; the install passes
``pip check``, Notebook accepts the pinned JupyterLab, and each way a session
starts its server (``jupyter lab``, ``jupyter notebook``,
``jupyterhub-singleuser``) sends ``/`` to lesson 00.

To stay quick, the fresh environment sees the test environment's packages (a
``.pth`` line), so pip resolves every pinned requirement from what is installed
and builds only the editable ``helpers`` (and installs Notebook, which only
Binder's list names); its own site-packages come first, so what pip installs
there is what the lessons import."""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import sysconfig
import threading
import time
import tomllib
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.servers import free_port

pytestmark = pytest.mark.install

ROOT = Path(__file__).resolve().parent.parent
BINDER = ROOT / "binder"
# what a lesson's last cell reports from inside its kernel
REPORT = ("import helpers, json, os\n"
          "print('__BINDER__' + json.dumps({'helpers': helpers.__file__, "
          "'config': os.environ.get('JUPYTER_CONFIG_PATH', '')}))")
# run each lesson (argv[2:]) top to bottom, with the cell argv[1] at its end; print what each printed and raised
# (its kernels on ZeroMQ's ipc sockets in a short folder, as tests/notebook_runner.py's IpcKernelManager: no TCP port
# another process of the run could take before the kernel binds it)
RUN_LESSONS = """
import json, pathlib, shutil, sys, tempfile
import nbformat
from nbclient import NotebookClient
from traitlets.config import Config

report = {}
for path in sys.argv[2:]:
    lesson = nbformat.read(path, as_version=4)
    lesson.cells.append(nbformat.v4.new_code_cell(sys.argv[1]))
    sockets = tempfile.mkdtemp(prefix="k-", dir="/tmp")
    ipc = Config({"KernelManager": {"transport": "ipc", "ip": f"{sockets}/k"}})
    try:
        NotebookClient(lesson, timeout=300, kernel_name="python3", iopub_timeout=60, raise_on_iopub_timeout=True,
                       resources={"metadata": {"path": str(pathlib.Path(path).parent)}}, config=ipc).execute()
    finally:
        shutil.rmtree(sockets, ignore_errors=True)
    printed = "".join(o.get("text", "") for cell in lesson.cells for o in cell.get("outputs", []))
    errors = [o["ename"] for cell in lesson.cells for o in cell.get("outputs", []) if o["output_type"] == "error"]
    report[path] = {"printed": printed, "errors": errors}
print(json.dumps(report))
"""


def checkout_copy(target: Path) -> Path:
    """The repository's files (tracked, and new ones not ignored) copied to ``target``: the folder Binder clones."""
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout: the files Binder would clone are unknown")
    for name in filter(None, listed.stdout.split("\0")):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


@pytest.fixture(scope="module")
def binder_build(tmp_path_factory) -> dict:
    """repo2docker's steps for binder/, on a copy of the checkout in a fresh environment: where and what they gave."""
    folder = tmp_path_factory.mktemp("binder")
    repository = checkout_copy(folder / "repository")
    environment = folder / "environment"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(environment)], check=True)
    site_packages = Path(sysconfig.get_path("purelib", vars={"base": str(environment),
                                                             "platbase": str(environment)}))
    (site_packages / "test-environment.pth").write_text(sysconfig.get_path("purelib") + "\n", encoding="utf-8")
    env = {**os.environ, "PATH": f"{environment / 'bin'}{os.pathsep}{os.environ['PATH']}",
           "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("JUPYTER_CONFIG_PATH", None)
    env.pop("PYTHONPATH", None)
    python = str(environment / "bin" / "python")
    steps = {
        "install": [python, "-m", "pip", "install", "-q", "-r", "binder/requirements.txt"],
        "postBuild": ["./binder/postBuild"],
    }
    done = {}
    for step, command in steps.items():
        done[step] = subprocess.run(command, cwd=repository, env=env, capture_output=True, text=True, timeout=600)
        assert done[step].returncode == 0, f"{step}: {done[step].stdout[-2000:]}{done[step].stderr[-2000:]}"
    return {"repository": repository, "environment": environment, "python": python, "env": env, "done": done}


def through_start(build: dict, *command: str) -> str:
    """A command run as a Binder session runs it: through binder/start, from the repository's folder."""
    done = subprocess.run([str(build["repository"] / "binder" / "start"), *command], cwd=build["repository"],
                          env=build["env"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done.stdout


def test_binder_asks_for_the_python_the_readme_asks_for():
    runtime = (BINDER / "runtime.txt").read_text(encoding="utf-8").strip()
    version = re.fullmatch(r"python-(\d+\.\d+)", runtime).group(1)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"Python {version}" in readme
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["requires-python"]
    assert requires == f">={version}"
    assert not (ROOT / "runtime.txt").exists(), "repo2docker reads binder/ only: a second runtime.txt misleads"


def test_binder_installs_the_readme_s_requirements_with_helpers_editable():
    """The same list as the README's first command: requirements.txt, whose `-e .` keeps helpers in the checkout."""
    lines = [line.split("#", 1)[0].strip() for line in (BINDER / "requirements.txt").read_text().splitlines()]
    assert [line for line in lines if line] == ["-r ../requirements.txt", f"notebook=={binder_pins()['notebook']}"]
    assert "-e ." in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()


def test_postbuild_and_start_are_executable_scripts():
    for name in ("postBuild", "start"):
        script = BINDER / name
        assert os.access(script, os.X_OK) and script.read_text(encoding="utf-8").startswith("#!/bin/bash"), name


def test_lessons_01_and_05_run_with_helpers_from_the_checkout(binder_build):
    repository = binder_build["repository"]
    assert "helpers imports from" in binder_build["done"]["postBuild"].stdout
    lessons = [str(repository / "notebooks" / name) for name in ("01_hit_rate_and_mrr.ipynb", "05_metrics_lab.ipynb")]
    report = json.loads(through_start(binder_build, binder_build["python"], "-c", RUN_LESSONS, REPORT, *lessons))
    for lesson in lessons:
        assert report[lesson]["errors"] == [], f"{lesson} raised {report[lesson]['errors']}"
        inside = json.loads(report[lesson]["printed"].split("__BINDER__", 1)[1].splitlines()[0])
        assert Path(inside["helpers"]).resolve() == (repository / "helpers" / "__init__.py").resolve(), inside
        assert inside["config"].split(os.pathsep)[0] == str(repository / "jupyter-config"), inside
    assert re.search(r"(?<![\d.])0\.750(?!\d)", report[lessons[0]]["printed"])  # example A's MRR of OLD
    assert re.search(r"(?<![\d.])0\.417(?!\d)", report[lessons[0]]["printed"])  # and of NEW


def test_an_edit_to_the_checkout_s_helpers_is_what_the_lessons_import(binder_build):
    """Editable, not a copy: what a learner changes in helpers/ is what the next kernel imports."""
    marker = binder_build["repository"] / "helpers" / "binder_check.py"
    marker.write_text("WHERE = 'the checkout'\n", encoding="utf-8")
    printed = through_start(binder_build, binder_build["python"], "-c",
                            "from helpers.binder_check import WHERE; print(WHERE)")
    assert printed.strip() == "the checkout"


def test_jupyterlab_reads_the_lessons_settings(binder_build):
    printed = through_start(binder_build, binder_build["python"], "-c", (
        "import json\n"
        "from jupyter_server.services.config import ConfigManager\n"
        "print(json.dumps(ConfigManager(config_dir_name='labconfig').get('default_setting_overrides')))"
    ))
    expected = json.loads((ROOT / "jupyter-config" / "labconfig" / "default_setting_overrides.json").read_text())
    assert json.loads(printed) == expected


def binder_pins() -> dict[str, str]:
    """Every `name==version` of Binder's install, binder/requirements.txt and the requirements.txt it includes."""
    pins = {}
    for path in (ROOT / "requirements.txt", BINDER / "requirements.txt"):
        for line in path.read_text(encoding="utf-8").splitlines():
            found = re.fullmatch(r"([A-Za-z0-9_.-]+)==(\S+)", line.split("#", 1)[0].strip())
            if found:
                pins[found.group(1).lower().replace("_", "-")] = found.group(2)
    return pins


def test_binder_pins_the_notebook_release_of_our_jupyterlab():
    """repo2docker's base environment holds an older Notebook, which pip would keep next to a newer JupyterLab."""
    pins = binder_pins()
    assert pins["notebook"].split(".")[0] == "7" and pins["jupyterlab"].split(".")[0] == "4"
    assert pins["notebook"].split(".")[1] == pins["jupyterlab"].split(".")[1], "Notebook 7.N is made for JupyterLab 4.N"


def test_binder_s_install_is_consistent_and_notebook_accepts_the_pinned_jupyterlab(binder_build):
    """What pip installed says itself: notebook's declared requirements hold for the pins; `pip check` is clean."""
    from packaging.requirements import Requirement

    printed = through_start(binder_build, binder_build["python"], "-c", (
        "import importlib.metadata as m, json\n"
        "print(json.dumps({name: [m.version(name), m.requires(name) or []] for name in ('notebook', 'jupyterlab')}))"
    ))
    installed = json.loads(printed)
    pins = binder_pins()
    assert installed["notebook"][0] == pins["notebook"] and installed["jupyterlab"][0] == pins["jupyterlab"]
    needs = [Requirement(text) for text in installed["notebook"][1]]
    lab = [need for need in needs if need.name == "jupyterlab" and need.marker is None]
    assert lab and all(need.specifier.contains(pins["jupyterlab"]) for need in lab), lab
    checked = subprocess.run([binder_build["python"], "-m", "pip", "check"], env=binder_build["env"],
                             capture_output=True, text=True, timeout=300)
    assert checked.returncode == 0, checked.stdout + checked.stderr


LESSON_00 = "notebooks/00_start_here.ipynb"
# each way a Binder session starts its server (the module its command runs), and where `/` must lead
STARTS = {
    "jupyter lab": (["-m", "jupyterlab"], f"/lab/tree/{LESSON_00}"),
    "jupyter notebook": (["-m", "notebook"], f"/notebooks/{LESSON_00}"),
    "jupyterhub-singleuser": (["-m", "jupyterhub.singleuser"], f"/lab/tree/{LESSON_00}"),
}


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def get(url: str) -> tuple[int, str]:
    """The status of a GET of ``url`` (0: no answer) and where it redirects to ('' if nowhere), not followed."""
    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(url, timeout=30) as answer:
            return answer.status, ""
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Location", "")
    except (urllib.error.URLError, OSError):  # not listening yet
        return 0, ""


def followed(url: str, hops: int = 5) -> list[tuple[int, str]]:
    """Each (status, path) from ``url`` on, following redirects while they stay on the same server."""
    seen = []
    for _ in range(hops):
        status, location = get(url)
        seen.append((status, urllib.parse.urlsplit(url).path))
        next_url = urllib.parse.urljoin(url, location) if location else ""
        if not next_url or urllib.parse.urlsplit(next_url).netloc != urllib.parse.urlsplit(url).netloc:
            break
        url = next_url
    return seen


@contextlib.contextmanager
def stand_in_hub(port: int) -> Iterator[str]:
    """A stand-in for the Hub's REST API root, which a single-user server asks for its version at start."""
    from jupyterhub import __version__

    class Hub(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = json.dumps({"version": __version__}).encode()
            self.send_response(200)
            self.send_header("X-JupyterHub-Version", __version__)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Hub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}/hub/api"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("start", STARTS)
def test_every_way_binder_starts_a_server_opens_lesson_00(binder_build, tmp_path, start):
    """The server, started through binder/start as each command starts it, sends `/` to lesson 00.

    An extension started as the main app (JupyterLab, Notebook) puts its own default URL over ServerApp's;
    jupyter-config/jupyter_server_config.json gives each of them lesson 00. A single-user server of JupyterHub
    (mybinder.org's command) reads ServerApp's, and here asks a stand-in Hub for its version.
    """
    module, lesson_page = STARTS[start]
    port, token = free_port(), secrets.token_hex(16)
    env = {**binder_build["env"], "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
           "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"), "JUPYTER_DATA_DIR": str(tmp_path / "data"),
           "JUPYTERLAB_SETTINGS_DIR": str(tmp_path / "lab-settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "workspaces"), "IPYTHONDIR": str(tmp_path / "ipython"),
           # JupyterLab's pages are in the test environment, whose packages the fresh one borrows (see the top)
           "JUPYTERLAB_DIR": str(Path(sys.prefix) / "share" / "jupyter" / "lab")}
    prefix = "/"
    arguments = ["--ServerApp.allow_root=True", "--ServerApp.open_browser=False"]  # the test may run as root
    with contextlib.ExitStack() as stack:
        if start == "jupyterhub-singleuser":
            prefix = "/user/learner/"
            hub = stack.enter_context(stand_in_hub(free_port()))
            env.update({"JUPYTERHUB_API_TOKEN": token, "JUPYTERHUB_API_URL": hub, "JUPYTERHUB_USER": "learner",
                        "JUPYTERHUB_CLIENT_ID": "jupyterhub-user-learner", "JUPYTERHUB_SERVICE_PREFIX": prefix,
                        "JUPYTERHUB_SERVICE_URL": f"http://127.0.0.1:{port}{prefix}", "JUPYTERHUB_BASE_URL": "/",
                        "JUPYTERHUB_OAUTH_CALLBACK_URL": f"{prefix}oauth_callback"})
        else:
            arguments += ["--ServerApp.ip=127.0.0.1", f"--port={port}", "--ServerApp.port_retries=0",
                          f"--ServerApp.token={token}"]
        log = stack.enter_context(open(tmp_path / "server.log", "w"))
        server = subprocess.Popen([str(binder_build["repository"] / "binder" / "start"), binder_build["python"],
                                   *module, *arguments], cwd=binder_build["repository"], env=env,
                                  stdout=log, stderr=subprocess.STDOUT)
        stack.callback(stop, server)
        base = f"http://127.0.0.1:{port}{prefix}"
        deadline = time.monotonic() + 180
        while get(f"{base}api")[0] != 200:
            assert server.poll() is None and time.monotonic() < deadline, (tmp_path / "server.log").read_text()[-3000:]
            time.sleep(0.2)
        # a learner's browser on Binder has the token (or the Hub's login) already; the Hub's is not a stand-in's
        seen = followed(base if start == "jupyterhub-singleuser" else f"{base}?token={token}")
    expected = prefix.rstrip("/") + lesson_page
    assert seen[0][0] in (301, 302) and seen[1][1] == expected, seen
    if start != "jupyterhub-singleuser":  # the page of lesson 00 itself (a hub's learner would log in first)
        assert seen[-1] == (200, expected), seen


def stop(server: subprocess.Popen) -> None:
    """Stop a server started by a test, and wait for it."""
    if server.poll() is None:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
