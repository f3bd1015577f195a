"""A grader whose Python has helpers installed as a normal package (a wheel, as the hub's image has it).

Bubblewrap shows each kernel this Python's site-packages read-only; a normal install puts the answer key
there (``site-packages/helpers/exercises/lessons``). The project's wheel is built and installed into a
folder that plays this Python's site-packages, and one notebook is graded in bubblewrap by the grader's own
code: it reads the key's files by path and lists the installed helpers, then answers an exercise through the
keyless helpers. The sandbox covers the installed helpers with an empty folder, so the key's files are not
there, and the lesson's code still runs; with that cover taken away (the control), the same notebook reads
the key, so the test can fail.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from helpers.exercises import REGISTRY
from helpers.teacher import grading, sandbox
from helpers.teacher.judging import AnswerKey
from helpers.teacher.keyless import copy_course
from helpers.teacher.limits import find_limits
from helpers.teacher.plan import Plan

pytestmark = [pytest.mark.install, pytest.mark.notebook]

ROOT = Path(__file__).resolve().parent.parent
KEY_FILE = "helpers/exercises/lessons/lesson01.py"


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """site-packages of a normal install of the project's wheel (no dependencies: those of this Python serve)."""
    if not sandbox.find_sandbox("auto").bwrap:
        pytest.skip("bubblewrap does not work here")
    folder = tmp_path_factory.mktemp("install")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(folder), str(ROOT)],
                           capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr
    (wheel,) = folder.glob("*.whl")
    site = folder / "site-packages"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q", "--target",
                           str(site), str(wheel)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert (site / KEY_FILE).is_file(), "a normal install holds the answer key"
    return site


def grade_probe(site: Path) -> dict:
    """Grade the probing notebook in bubblewrap, ``site`` being one of this Python's site-packages."""
    value = REGISTRY["explain-rr-mean"].worked().value
    probe = (
        "import os\n"
        f"key = {str(site / KEY_FILE)!r}\n"
        "try:\n    seen = 'READ ' + open(key).read()[:30]\nexcept OSError as error:\n    seen = type(error).__name__\n"
        f"listed = sorted(os.listdir({str(site / 'helpers')!r}))\n"
        "raise RuntimeError(f'seen={seen} listed={listed}')"
    )
    notebook = new_notebook(cells=[new_code_cell("from helpers.exercises import check"),
                                   new_code_cell(f"check('explain-rr-mean', '{value:.4f}')"), new_code_cell(probe)])
    session = Path(tempfile.mkdtemp(prefix="hg-", dir="/tmp"))  # short: the kernel's sockets live there
    try:
        path = session / "ann.ipynb"
        nbformat.write(notebook, path)
        settings = grading.Settings(
            sandbox=sandbox.find_sandbox("bwrap"), key=AnswerKey.build(), session=session,
            course=copy_course(session / "course", REGISTRY.values()), timeout=60,
            plan=Plan(expect={"explain-rr-mean": 1.0}), limits=find_limits("auto"),
        )
        result = grading.grade_path(path, settings)
    finally:
        shutil.rmtree(session, ignore_errors=True)
    raised = next(problem.message for problem in result.problems if problem.code == "raised")
    return {"raised": raised, "answers": {answer.exercise: answer.verdict for answer in result.answers}}


def test_a_graded_kernel_cannot_open_the_installed_answer_key_and_the_lesson_still_runs(installed, monkeypatch):
    sites = sandbox.site_folders()
    monkeypatch.setattr(sandbox, "site_folders", lambda: [*sites, installed])
    assert installed in sandbox.python_folders(), "the sandbox shows this site-packages read-only"
    assert sandbox.hidden_helpers(sandbox.python_folders()) == [installed / "helpers"]
    found = grade_probe(installed)
    assert "seen=FileNotFoundError listed=[]" in found["raised"], found
    assert found["answers"] == {"explain-rr-mean": "right"}, "the lesson's code runs on the keyless helpers"

    monkeypatch.setattr(sandbox, "hidden_helpers", lambda bound: [])  # the control: no cover
    uncovered = grade_probe(installed)
    assert "seen=READ " in uncovered["raised"] and "'exercises'" in uncovered["raised"], uncovered

