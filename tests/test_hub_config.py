"""The hub deployment as shipped (deploy/jupyterhub/): its config, pins and Kubernetes twin, read without a hub."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest
import yaml
from traitlets.config import Config

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy" / "jupyterhub"
HUB_PACKAGES = ("jupyterhub", "jupyterhub-idle-culler", "nbgitpuller")
CULLER_SCOPES = {"list:users", "read:users:activity", "read:servers", "delete:servers"}


def pins(path: Path) -> dict[str, str]:
    """name -> version of every 'name==version' line of a requirements file."""
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        match = re.match(r"^([A-Za-z0-9_.-]+)==(\S+)", line.strip())
        if match:
            found[match.group(1).lower()] = match.group(2)
    return found


def load_config(monkeypatch: pytest.MonkeyPatch, env: Path, exercises: Path) -> tuple[Config, dict]:
    """Run jupyterhub_config.py as JupyterHub does (get_config), for a shared environment; the config and its names."""
    monkeypatch.setenv("RANKING_METRICS_ENV", str(env))
    monkeypatch.setenv("RANKING_METRICS_EXERCISES", str(exercises))
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # the shared environment's helpers: the project's, here
    config = Config()
    path = DEPLOY / "jupyterhub_config.py"
    names = {"get_config": lambda: config, "__file__": str(path)}
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), names)
    return config, names


def jupyter_path(config: Config) -> tuple[Path, Path]:
    """The servers' JUPYTER_PATH: the folder of the classroom template, then the folder of the learners' kernel."""
    templates, kernels = config.Spawner.environment["JUPYTER_PATH"].split(os.pathsep)
    return Path(templates), Path(kernels)


@pytest.fixture(scope="module")
def shipped(tmp_path_factory: pytest.TempPathFactory) -> tuple[Config, dict, Path]:
    exercises = tmp_path_factory.mktemp("exercises")
    with pytest.MonkeyPatch.context() as monkeypatch:
        config, names = load_config(monkeypatch, Path(sys.prefix), exercises)
    return config, names, exercises


def test_the_deploy_requirements_hold_every_learner_pin_and_the_hub(tmp_path: Path):
    learner, deploy = pins(ROOT / "requirements.txt"), pins(DEPLOY / "requirements.txt")
    assert learner.items() <= deploy.items()  # the same versions a learner's laptop has
    test = pins(ROOT / "requirements-test.txt")
    for package in HUB_PACKAGES:
        assert deploy[package] == test[package]  # CI tests the versions a teacher installs
        assert package not in learner  # a learner's laptop needs no hub
    assert not any(line.startswith("-e") for line in (DEPLOY / "requirements.txt").read_text().splitlines())


def test_learners_servers_run_from_the_shared_environment_in_their_homes(shipped):
    config, _, _ = shipped
    assert config.Spawner.cmd == [str(Path(sys.prefix) / "bin" / "jupyterhub-singleuser")]
    assert Path(config.Spawner.cmd[0]).is_file()
    assert config.Spawner.notebook_dir == "~" and config.Spawner.default_url == "/lab"


def test_voila_finds_the_classroom_template_and_the_lab_its_kernel_through_jupyter_path(shipped):
    config, _, _ = shipped
    templates, kernels = jupyter_path(config)
    assert (templates / "voila" / "templates" / "classroom" / "index.html.j2").is_file()
    assert not (templates / "kernels").exists()  # the classroom's own Voilà (python -m helpers.teacher.classroom)
    assert (kernels / "kernels" / "python3" / "kernel.json").is_file()  # reads that folder and keeps Jupyter's


def test_each_new_server_gets_the_teachers_exercise_files(shipped):
    config, _, exercises = shipped
    files = config.Spawner.environment["HELPERS_EXERCISES"]
    assert files(None) == ""
    for name in ("week2.py", "week1.py", "notes.txt"):
        (exercises / name).write_text("", encoding="utf-8")
    assert files(None).split(os.pathsep) == [str(exercises / "week1.py"), str(exercises / "week2.py")]


def test_idle_servers_are_culled_by_a_service_with_only_the_scopes_it_needs(shipped):
    config, names, _ = shipped
    (culler,) = [service for service in config.JupyterHub.services if service["name"] == "idle-culler"]
    timeout = f"--timeout={names['CULL_IDLE_SECONDS']}"
    assert culler["command"] == [sys.executable, "-m", "jupyterhub_idle_culler", timeout]
    (role,) = [role for role in config.JupyterHub.load_roles if role["name"] == "idle-culler"]
    assert set(role["scopes"]) == CULLER_SCOPES and role["services"] == ["idle-culler"]


def test_the_shipped_config_keeps_a_real_authenticator_and_spawner(shipped):
    config, names, _ = shipped
    assert "authenticator_class" not in config.JupyterHub  # JupyterHub's default: PAM, the machine's accounts
    assert "spawner_class" not in config.JupyterHub  # LocalProcessSpawner: each server as its learner's account
    assert config.Authenticator.admin_users == names["TEACHERS"]
    assert config.Authenticator.allow_existing_users is True


def test_a_shared_environment_without_helpers_is_refused_clearly(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    with pytest.raises(RuntimeError, match="helpers is not installed in"):
        load_config(monkeypatch, tmp_path, tmp_path)


def test_the_kubernetes_values_are_the_same_class(shipped):
    _, names, _ = shipped
    values = yaml.safe_load((DEPLOY / "z2jh-values.yaml").read_text(encoding="utf-8"))
    assert values["cull"]["enabled"] is True and values["cull"]["timeout"] == names["CULL_IDLE_SECONDS"]
    assert values["singleuser"]["memory"]["limit"] == names["MEMORY_LIMIT"]
    assert values["singleuser"]["defaultUrl"] == "/lab"
    assert set(values["hub"]["config"]["Authenticator"]["admin_users"]) == names["TEACHERS"]
    assert values["hub"]["config"]["Authenticator"]["allow_existing_users"] is True


def test_the_kubernetes_image_installs_the_same_environment():
    dockerfile = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    assert "pip install --no-cache-dir -r /tmp/project/deploy/jupyterhub/requirements.txt /tmp/project" in dockerfile
    python = re.search(r"^FROM python:(\d+\.\d+)", dockerfile, flags=re.M).group(1)
    assert f"ENV JUPYTER_PATH=/usr/local/lib/python{python}/site-packages/helpers/teacher" in dockerfile
    assert "git" in re.search(r"apt-get install[^\n]*", dockerfile).group(0)  # nbgitpuller needs it


def test_ci_installs_the_pinned_proxy_and_the_tests_wait_for_it():
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    proxy = next(number for number, line in enumerate(lines) if "configurable-http-proxy@5.3.0" in line)
    started = next(number for number, line in enumerate(lines) if line.startswith("npm_packages ") and "&" in line)
    tests = next(number for number, line in enumerate(lines) if "python -m pytest" in line)
    assert "npm install -g" in lines[proxy] and proxy < started < tests
    assert lines[started + 1] == "echo $! >.venv/npm.pending", "the job the tests wait for (tests/conftest.py)"


def test_the_tests_wait_for_npms_packages_and_stop_when_they_failed(tmp_path, monkeypatch):
    import subprocess

    from tests import conftest

    venv = tmp_path / ".venv"
    venv.mkdir()
    monkeypatch.setattr(conftest, "TESTS", tmp_path / "tests")
    assert conftest.npm_packages_failed() == "", "no .ci/run here: nothing to wait for"
    job = subprocess.Popen(["sh", "-c", f"sleep 0.3; echo 'npm error 404 axe-core' >{venv}/npm.log; "
                                        f"touch {venv}/npm.failed"])
    (venv / "npm.pending").write_text(str(job.pid))
    try:
        said = conftest.npm_packages_failed()
        assert job.poll() is not None, "waited for the job to end"
    finally:
        job.wait()
    assert "npm error 404 axe-core" in said and ".venv/npm.log" in said
    (venv / "npm.failed").unlink()
    (venv / "npm.ready").touch()
    assert conftest.npm_packages_failed() == "", "a stamp of a run stopped half way: its job has gone"


def test_a_learners_kernel_that_lost_its_ports_restarts_on_new_ones(shipped):
    """A kernel whose port another server took is restarted by Jupyter: with the servers' arguments, on new ports."""
    import asyncio

    from jupyter_client.manager import AsyncKernelManager
    from traitlets.config.loader import KVArgParseConfigLoader

    config, _, _ = shipped
    server_config = KVArgParseConfigLoader(argv=config.Spawner.args).load_config()

    async def ports_before_and_after_a_restart(**settings) -> tuple[list[int], list[int]]:
        manager = AsyncKernelManager(**settings)
        await manager.start_kernel()
        try:
            before = list(manager.ports)
            await manager.restart_kernel(now=True, newports=True)  # what the restarter does for a kernel that died
            return before, list(manager.ports)
        finally:
            await manager.shutdown_kernel(now=True)

    before, after = asyncio.run(ports_before_and_after_a_restart(config=server_config))
    # picked anew: the system may hand one freed port out again by chance (the CI at 0d1e4ad), never all five
    assert set(after) != set(before)
    # Jupyter's default, for contrast: the restart takes the same ports, one of which is now another kernel's
    before, after = asyncio.run(ports_before_and_after_a_restart())
    assert before == after


@pytest.mark.slow  # two kernel starts and the restarter's look every 3 s
def test_a_learners_kernel_whose_port_another_kernel_holds_ends_and_answers_from_new_ports(shipped, monkeypatch):
    """The servers' own kernel and settings: one of the ports chosen for a learner's kernel is held (another server's
    kernel bound it first); the kernel ends (ipykernel's own launcher would wait for ever), Jupyter's restarter starts
    it again on new ports, and it answers."""
    import asyncio
    import socket
    import time

    from jupyter_client.ioloop import AsyncIOLoopKernelManager
    from traitlets.config.loader import KVArgParseConfigLoader

    config, _, _ = shipped
    monkeypatch.setenv("JUPYTER_PATH", config.Spawner.environment["JUPYTER_PATH"])
    server_config = KVArgParseConfigLoader(argv=config.Spawner.args).load_config()

    class LosingItsFirstPort(AsyncIOLoopKernelManager):  # a server's kernel manager, with its restarter
        """Another process binds the iopub port chosen for the first kernel right after the choice, and keeps it."""

        holder: socket.socket | None = None

        def write_connection_file(self, **kwargs) -> None:
            super().write_connection_file(**kwargs)
            if self.holder is None:
                self.holder = socket.create_server(("127.0.0.1", self.iopub_port))

    async def start_losing_a_port() -> tuple[Path, int, list[int], dict]:
        manager = LosingItsFirstPort(config=server_config, kernel_name="python3")
        await manager.start_kernel()
        try:
            held = manager.holder.getsockname()[1]
            deadline = time.monotonic() + 120
            while held in manager.ports and time.monotonic() < deadline:
                await asyncio.sleep(0.2)
            client = manager.client()
            client.start_channels()
            try:
                reply = await client.kernel_info(reply=True, timeout=120)
            finally:
                client.stop_channels()
            return Path(manager.kernel_spec.resource_dir), held, list(manager.ports), reply["content"]
        finally:
            await manager.shutdown_kernel(now=True)
            manager.holder.close()

    spec, held, ports, answer = asyncio.run(start_losing_a_port())
    assert spec == ROOT / "helpers" / "teacher" / "hub" / "kernels" / "python3"
    assert held not in ports
    assert answer["status"] == "ok" and answer["implementation"] == "ipython"


# A kernel spec for the test below: the servers' own kernel, whose iopub port is held when it first starts.
LOSING_A_PORT = """import json, runpy, socket, sys
from pathlib import Path

connection = json.loads(Path(sys.argv[sys.argv.index("-f") + 1]).read_text())
lost_once = Path(__file__).with_name("lost_once")
if not lost_once.exists():
    lost_once.touch()
    held = socket.create_server((connection["ip"], connection["iopub_port"]))  # until this process ends
runpy.run_path({start_or_end!r}, run_name="__main__")
"""


@pytest.mark.slow  # a Jupyter server, a kernel that ends and the one started again
def test_the_lab_connects_to_a_learners_kernel_restarted_on_new_ports(shipped, tmp_path, monkeypatch):
    """A learner's server with the servers' settings and kernel, opened as the lab opens a notebook: the kernel's
    iopub port is held when it starts, the kernel ends, the restarter starts it on new ports, and the connection
    opened meanwhile gets its kernel_info reply. Without the servers' kernel manager (helpers/teacher/hub_kernels.py)
    the server watches the old ports: the connection waits a minute and is closed, and so is every later one."""
    import json
    import urllib.request

    from tests.browser import servers
    from tests.hub.kernel import Kernel

    config, _, _ = shipped
    spec = tmp_path / "kernels" / "kernels" / "python3"
    spec.mkdir(parents=True)
    shipped_spec = jupyter_path(config)[1] / "kernels" / "python3"  # the learners' kernel, as the servers find it
    (spec / "losing_a_port.py").write_text(LOSING_A_PORT.format(start_or_end=str(shipped_spec / "start_or_end.py")))
    (spec / "kernel.json").write_text(json.dumps({
        **json.loads((shipped_spec / "kernel.json").read_text()),
        "argv": [sys.executable, "{resource_dir}/losing_a_port.py", "-f", "{connection_file}"],
    }))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "kernels"))
    servers.write_notebook(tmp_path / "lesson.ipynb", ["1 + 1"])
    server = servers.start_jupyterlab(tmp_path, tmp_path / "home", extra=config.Spawner.args)
    try:
        opened = urllib.request.Request(
            server.page("api/sessions"), method="POST", headers={"Content-Type": "application/json"},
            data=json.dumps({"path": "lesson.ipynb", "type": "notebook", "kernel": {"name": "python3"}}).encode(),
        )
        with urllib.request.urlopen(opened, timeout=60) as answer:
            kernel_id = json.load(answer)["kernel"]["id"]
        # within jupyter_server's minute for a kernel_info reply, after which it goes on without one
        kernel = Kernel(server.url, server.token, kernel_id, timeout=45, attempts=1)
        try:
            said = kernel.execute("1 + 1")
        finally:
            kernel.close()
    finally:
        servers.stop(server)
    log = server.log_text()
    assert (spec / "lost_once").exists() and "Address already in use" in log and "new random ports" in log
    assert said.status == "ok" and said.text == "2"


def test_learners_starting_at_the_same_moment_are_given_different_ports(shipped, monkeypatch):
    """The system can offer one free port twice in a row (no server holds it yet): the second server gets another."""
    from types import SimpleNamespace

    config, names, _ = shipped
    assert config.Spawner.pre_spawn_hook is names["a_port_of_its_own"]
    offered = iter([40001, 40001, 40002, 40001, 40002, 40003])
    monkeypatch.setitem(names, "random_port", lambda: next(offered))
    starting = [SimpleNamespace(port=0) for _ in range(3)]
    for spawner in starting:
        config.Spawner.pre_spawn_hook(spawner)
    assert [spawner.port for spawner in starting] == [40001, 40002, 40003]


@pytest.fixture(scope="module")
def keyless_env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the keyless helpers of an assignment copy (what a graded class's environment installs)."""
    from helpers.exercises import REGISTRY
    from helpers.teacher.keyless import copy_keyless_helpers

    folder = tmp_path_factory.mktemp("keyless")
    copy_keyless_helpers(folder, REGISTRY.values())
    return folder


def load_graded_config(monkeypatch: pytest.MonkeyPatch, keyless: Path, exercises: Path) -> tuple[Config, dict]:
    """The shipped config for a shared environment whose helpers is the keyless one."""
    monkeypatch.setenv("RANKING_METRICS_ENV", sys.prefix)
    monkeypatch.setenv("RANKING_METRICS_EXERCISES", str(exercises))
    monkeypatch.setenv("PYTHONPATH", str(keyless))  # the environment's helpers: the assignment copy's
    config = Config()
    path = DEPLOY / "jupyterhub_config.py"
    names = {"get_config": lambda: config, "__file__": str(path)}
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), names)
    return config, names


def test_a_graded_class_gives_its_servers_no_exercise_file_and_a_practice_class_does(keyless_env, shipped, tmp_path,
                                                                                      monkeypatch):
    practice, names, _ = shipped
    assert names["CLASS_KIND"] == "practice" and "HELPERS_EXERCISES" in practice.Spawner.environment
    private = tmp_path / "teacher"
    private.mkdir(mode=0o700)
    (private / "week3.py").write_text("# the teacher's answer key", encoding="utf-8")
    graded, names = load_graded_config(monkeypatch, keyless_env, private)
    assert names["CLASS_KIND"] == "assignment"
    assert "HELPERS_EXERCISES" not in graded.Spawner.environment, "a graded class's servers never get the key"
    templates, kernels = jupyter_path(graded)
    assert (templates / "voila" / "templates" / "classroom").is_dir()
    assert (kernels / "kernels" / "python3" / "kernel.json").is_file()  # the keyless helpers carry the lab's kernel
    assert templates.is_relative_to(keyless_env) and kernels.is_relative_to(keyless_env)


def test_a_graded_class_refuses_exercise_files_learners_could_read(keyless_env, monkeypatch):
    import shutil
    import tempfile

    top = Path(tempfile.mkdtemp(prefix="hub-config-", dir="/tmp"))  # /tmp is open to every account
    try:
        shared = top / "shared" / "exercises"
        shared.mkdir(parents=True)
        for folder in (top, top / "shared", shared):
            folder.chmod(0o755)
        (shared / "week3.py").write_text("# the teacher's answer key", encoding="utf-8")
        (shared / "week3.py").chmod(0o644)
        with pytest.raises(RuntimeError, match="learners could read your exercise files"):
            load_graded_config(monkeypatch, keyless_env, shared)
        shared.chmod(0o700)
        load_graded_config(monkeypatch, keyless_env, shared)  # only the teacher can read them now
    finally:
        shutil.rmtree(top)
