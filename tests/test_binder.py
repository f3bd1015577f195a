"""Binder builds the repository as the README's first command does: repo2docker's steps for ``binder/``, repeated.

repo2docker, when a ``binder/`` folder exists, reads only it: Python from
``binder/runtime.txt``, ``pip install -r binder/requirements.txt`` run from the
repository's folder, then ``binder/postBuild``, and every session started
through ``binder/start``. Here the same steps run on a copy of the checkout in
a fresh virtual environment, then lessons 01 and 05 run through ``binder/start``
and must import ``helpers`` from that copy (the editable install), with
JupyterLab's settings from ``jupyter-config/`` in force.

To stay quick, the fresh environment sees the test environment's packages (a
``.pth`` line), so pip resolves every pinned requirement from what is installed
and builds only the editable ``helpers``; its own site-packages come first, so
what pip installs there is what the lessons import.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest

pytestmark = pytest.mark.install

ROOT = Path(__file__).resolve().parent.parent
BINDER = ROOT / "binder"
# what a lesson's last cell reports from inside its kernel
REPORT = ("import helpers, json, os\n"
          "print('__BINDER__' + json.dumps({'helpers': helpers.__file__, "
          "'config': os.environ.get('JUPYTER_CONFIG_PATH', '')}))")
# run each lesson (argv[2:]) top to bottom, with the cell argv[1] at its end; print what each printed and raised
RUN_LESSONS = """
import json, pathlib, sys
import nbformat
from nbclient import NotebookClient

report = {}
for path in sys.argv[2:]:
    lesson = nbformat.read(path, as_version=4)
    lesson.cells.append(nbformat.v4.new_code_cell(sys.argv[1]))
    NotebookClient(lesson, timeout=300, kernel_name="python3", iopub_timeout=60, raise_on_iopub_timeout=True,
                   resources={"metadata": {"path": str(pathlib.Path(path).parent)}}).execute()
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
    assert [line for line in lines if line] == ["-r ../requirements.txt"]
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


def test_jupyterlab_reads_the_lessons_settings_and_opens_on_lesson_00(binder_build):
    printed = through_start(binder_build, binder_build["python"], "-c", (
        "import json\n"
        "from jupyter_server.services.config import ConfigManager\n"
        "from jupyter_core.paths import jupyter_config_path\n"
        "print(json.dumps({'overrides': ConfigManager(config_dir_name='labconfig').get('default_setting_overrides'),"
        " 'paths': jupyter_config_path()}))"
    ))
    found = json.loads(printed)
    expected = json.loads((ROOT / "jupyter-config" / "labconfig" / "default_setting_overrides.json").read_text())
    assert found["overrides"] == expected
    server_config = [Path(path) / "jupyter_server_config.d" / "ranking-metrics-by-hand.json" for path in found["paths"]]
    opened = [json.loads(path.read_text()) for path in server_config if path.is_file()]
    assert opened == [{"ServerApp": {"default_url": "/lab/tree/notebooks/00_start_here.ipynb"}}]
    assert (binder_build["repository"] / "notebooks" / "00_start_here.ipynb").is_file()
