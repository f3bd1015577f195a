"""The lessons on the other Pythons and at the lowest versions, run in the background from a whole run's start.

``.ci/run`` makes three venvs in the background (Python 3.12 and 3.13 with the README's requirements, and the
package at its lowest declared versions); tests/test_other_pythons.py runs every lesson in the first two and
tests/test_lowest_versions.py every lesson and the learner-core tests in the third. Each of those modules held a
worker for over a minute (69 and 75 s in a fresh-clone run) while, after the run's first minutes, the cores were
idle a sixth of the time (a worker waiting on a culler, a timeout or a server). On a whole run tests/conftest.py
starts this script before any test, in a session of its own whose autogroup is niced to 19 (as
tests/ranx_warm_up.py), and niced so too is each lesson's kernel once it has started: the lessons run in the moments
the tests leave a core idle. Each outcome is written to the run's folder as it ends; the two modules come last and
read them (waiting while this script runs), and run themselves whatever it did not (a venv it found failed or
missing, a run of the module alone).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from helpers.teacher.files import write_text_atomic
from helpers.teacher.limits import lower_priority
from tests import processes
from tests.notebook_runner import NOTEBOOKS, IpcKernelManager
from tests.waiting import wait_until

ROOT = NOTEBOOKS.parent
LESSONS = sorted(path.name for path in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
OTHER_PYTHONS = ROOT / ".venv" / "other-pythons"
VERSIONS = ("3.12", "3.13")
LOWEST = ROOT / ".venv" / "lowest"
# the learner-core tests run in the lowest venv: the metrics, tables, plots, widgets, worksheets, golden sets, bad input
LEARNER_CORE = ("test_worked_examples.py", "test_tables.py", "test_plots.py", "test_widgets.py",
                "test_widget_models.py", "test_sheet_model.py", "test_data.py", "test_bad_input.py")
LEARNER_CORE_TESTS = "learner-core tests"
WAIT = 15 * 60  # seconds: CI makes the venvs while the first tests run


def folder() -> Path | None:
    """Where this run's background lessons write their outcomes (None outside a test run)."""
    run = processes.run_folder()
    return run / "lessons-elsewhere" if run is not None else None


def running_stamp() -> Path | None:
    """The file that is there while this script runs for the test run (None outside a run)."""
    place = folder()
    return place / "running" if place is not None else None


def outcome_file(venv: Path, item: str) -> Path | None:
    """Where the outcome of ``item`` (a lesson, or the learner-core tests) in ``venv`` is written."""
    place = folder()
    return place / f"{venv.name}--{item}.json" if place is not None else None


def kernelspec(venv: Path, jupyter: Path, name: str) -> str:
    """Write a kernelspec named ``name`` under ``jupyter/kernels`` that starts ``venv``'s Python; its name."""
    spec = jupyter / "kernels" / name
    spec.mkdir(parents=True)
    argv = [str(venv / "bin" / "python"), "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": name, "language": "python"}))
    return name


def venv_ready(venv: Path, timeout: float = WAIT) -> bool:
    """Whether .ci/run's background job stamps ``venv`` ready (False once it stamps it failed, or after ``timeout``)."""
    failed = venv.with_name(f"{venv.name}.failed")
    try:
        wait_until(lambda: (venv / ".ready").is_file() or failed.is_file(), f"the venv {venv}", timeout, every=2)
    except TimeoutError:
        return False
    return (venv / ".ready").is_file()


def run_lesson(kernel: str, lesson: str, place: Path, where: str, niced: bool = False, timeout: int = 300) -> None:
    """Run ``lesson`` in the kernel named ``kernel``, in ``place``: every cell runs and none writes to stderr.

    ``niced``: the kernel's autogroup is niced to 19 once it has started (it leads a session of its own).
    """
    notebook = nbformat.read(NOTEBOOKS / lesson, as_version=4)
    client = NotebookClient(notebook, timeout=timeout, kernel_name=kernel, resources={"metadata": {"path": str(place)}},
                            iopub_timeout=60, raise_on_iopub_timeout=True, kernel_manager_class=IpcKernelManager)
    if niced:
        client.on_notebook_start = lambda **_: lower_priority(client.km.provisioner.pid, 19, session=True)
    client.execute()
    said = [output.get("text", "") for cell in notebook.cells for output in cell.get("outputs", [])
            if output.get("name") == "stderr"]
    assert not any(said), f"{lesson} wrote to stderr {where}: {said}"
    assert all(cell.execution_count for cell in notebook.cells if cell.cell_type == "code")


def learner_core_failure(venv: Path) -> str:
    """Run the learner-core tests with ``venv``'s Python: '' when they pass, else pytest's last words."""
    done = subprocess.run([str(venv / "bin" / "python"), "-m", "pytest", "-n0", "-q", "-m", "core",
                           *(f"tests/{name}" for name in LEARNER_CORE)], cwd=ROOT, capture_output=True, text=True)
    return "" if done.returncode == 0 else done.stdout[-4000:] + done.stderr[-2000:]


def record(venv: Path, item: str, failure: str) -> None:
    """Write the outcome of ``item`` in ``venv`` ('' when it passed), whole or not at all."""
    target = outcome_file(venv, item)
    assert target is not None
    write_text_atomic(target, json.dumps({"failure": failure}))


def outcome(venv: Path, item: str) -> str | None:
    """The failure written for ``item`` in ``venv`` ('' when it passed), waiting while this script runs; None when
    it wrote none (no background run, or a venv it did not run in)."""
    target, running = outcome_file(venv, item), running_stamp()
    if target is None or running is None:
        return None
    # no deadline of its own: the background run's lessons have theirs, and the waiting test its timeout mark
    wait_until(lambda: target.is_file() or not running.is_file(), f"{item} in {venv} (tests/lessons_elsewhere.py)",
               timeout=math.inf, every=0.5)
    return json.loads(target.read_text(encoding="utf-8"))["failure"] if target.is_file() else None


def run_everything(work: Path) -> None:
    """Every lesson in each ready venv, and the learner-core tests in the lowest one, two at a time."""
    jupyter = work / "jupyter"
    venvs = {OTHER_PYTHONS / version: f"python{version}" for version in VERSIONS} | {LOWEST: "lowest"}
    for venv, name in venvs.items():
        kernelspec(venv, jupyter, name)
    os.environ["JUPYTER_PATH"] = str(jupyter)

    def run(venv: Path, item: str) -> None:
        if not venv.is_dir() or not venv_ready(venv):
            return  # no outcome: the test runs it itself, and says why it cannot
        if item == LEARNER_CORE_TESTS:
            failure = learner_core_failure(venv)
        else:
            place = work / venv.name / item.removesuffix(".ipynb")
            place.mkdir(parents=True)
            try:
                run_lesson(venvs[venv], item, place, f"in {venv}", niced=True, timeout=900)
                failure = ""
            except Exception as raised:  # any failure of the lesson is its test's failure
                failure = f"{type(raised).__name__}: {raised}"
        record(venv, item, failure)

    work_items = [(venv, lesson) for venv in venvs for lesson in LESSONS] + [(LOWEST, LEARNER_CORE_TESTS)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(run, *zip(*work_items, strict=True)))


def main(running: Path) -> None:
    lower_priority(os.getpid(), 19, session=True)  # conftest starts it in a session of its own
    try:
        run_everything(running.parent)
    finally:
        running.unlink(missing_ok=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
