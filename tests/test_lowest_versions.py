"""Every lesson and the learner-core tests run with each dependency at the lowest version pyproject.toml declares.

``.ci/run`` makes the venv (``.venv/lowest``) in the background while CI installs the rest: uv installs the package
with its lessons extra, each declared dependency pinned at its lower bound (tests/lowest_bounds.py) and everything
else at its newest, then pytest and hypothesis as requirements-test.txt pins them. It ends with a stamp, ``.ready``
or ``.venv/lowest.failed``, which these tests wait for (tests/test_other_pythons.py's mechanism). Without the venv
(a run outside CI, or ``CI_LOWEST=0``) they skip and say so. On a whole run the lessons and the learner-core tests
have run in the background since its start (tests/lessons_elsewhere.py): the tests read their outcomes, and run here
only what it did not.
"""

from __future__ import annotations

import json
import subprocess

import pytest
from packaging.version import Version

from tests.lessons_elsewhere import LEARNER_CORE_TESTS, LESSONS, LOWEST, WAIT, learner_core_failure, outcome
from tests.lowest_bounds import lowest_bounds
from tests.test_other_pythons import run_lesson_in, wait_for

pytestmark = [pytest.mark.notebook, pytest.mark.timeout(WAIT + 600)]
VERSIONS = ("import importlib.metadata as m, json\n"
            "print(json.dumps({d.metadata['Name']: d.version for d in m.distributions()}))")


def ready_lowest():
    if not LOWEST.is_dir():
        pytest.skip(f"no venv of the lowest declared versions in {LOWEST} (.ci/run makes it unless CI_LOWEST=0)")
    return wait_for(LOWEST, "the package at its lowest declared versions")


def canonical(name: str) -> str:
    return name.lower().replace("_", "-")


def test_the_venv_holds_every_dependency_at_its_lowest_declared_version():
    venv = ready_lowest()
    shown = subprocess.run([str(venv / "bin" / "python"), "-c", VERSIONS], capture_output=True, text=True, check=True)
    installed = {canonical(name): version for name, version in json.loads(shown.stdout).items()}
    wrong = {name: installed.get(canonical(name)) for name, low in lowest_bounds().items()
             if canonical(name) not in installed or Version(installed[canonical(name)]) != Version(low)}
    assert not wrong, f"not at the declared lower bound (the installed version, or None): {wrong}"


@pytest.mark.parametrize("lesson", LESSONS)
def test_the_lesson_runs_at_the_lowest_versions(lesson, tmp_path, monkeypatch):
    failure = outcome(LOWEST, lesson)
    if failure is None:  # not run in the background
        run_lesson_in(ready_lowest(), lesson, tmp_path, monkeypatch)
    assert not failure, failure


def test_the_learner_core_tests_pass_at_the_lowest_versions():
    failure = outcome(LOWEST, LEARNER_CORE_TESTS)
    if failure is None:  # not run in the background
        failure = learner_core_failure(ready_lowest())
    assert not failure, failure
