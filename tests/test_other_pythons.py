"""Every lesson runs on the other Pythons learners have, 3.12 and 3.13, from a fresh venv (issue 50).

``.ci/run`` makes the venvs (``.venv/other-pythons/3.12`` and ``3.13``, from pyenv's Pythons, with the README's
requirements.txt) in the background while CI installs the rest; each ends with a stamp, ``.ready`` or
``<venv>.failed``, which these tests wait for. Without the venvs (a run outside CI, or no pyenv Python), they skip
and say so. On a whole run the lessons have run in the background since its start (tests/lessons_elsewhere.py):
the tests read their outcomes, and run here only what it did not.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.lessons_elsewhere import LESSONS, OTHER_PYTHONS, ROOT, VERSIONS, WAIT, outcome, run_lesson, venv_ready
from tests.test_lesson_opening import kernel_of


def ready_venv(version: str) -> Path:
    """The venv of Python ``version`` made by .ci/run, once it is ready; skip when there is none."""
    if not OTHER_PYTHONS.is_dir():
        pytest.skip(f"no venvs of other Pythons in {OTHER_PYTHONS} (.ci/run makes them from pyenv's 3.12 and 3.13)")
    if not (OTHER_PYTHONS / version).is_dir():
        pytest.skip(f"no venv of Python {version} in {OTHER_PYTHONS} (.ci/run found no pyenv Python {version})")
    return wait_for(OTHER_PYTHONS / version, f"the README's requirements on Python {version}")


def wait_for(venv: Path, what: str) -> Path:
    """``venv`` once .ci/run's background job stamps it ``.ready``; fail with its log when it stamps it failed."""
    if venv_ready(venv):
        return venv
    failed, log = venv.with_name(f"{venv.name}.failed"), venv.with_name(f"{venv.name}.log")
    if failed.is_file():
        pytest.fail(f"{what} did not install:\n"
                    + (log.read_text(errors="replace")[-3000:] if log.is_file() else "(no log)"))
    pytest.fail(f"the venv of {what} was not ready after {WAIT // 60} min")


def run_lesson_in(venv: Path, lesson: str, tmp_path: Path, monkeypatch) -> None:
    """Run ``lesson`` in a kernel of ``venv``'s Python: every cell runs and none writes to stderr."""
    run_lesson(kernel_of(venv, tmp_path, monkeypatch), lesson, tmp_path, f"in {venv}")


@pytest.fixture(scope="module")
def lessons_run(tmp_path_factory) -> dict[tuple[str, str], BaseException | None]:
    """Every lesson run on each other Python, two at a time: (version, lesson) -> what it raised (None: nothing).

    One lesson after another left a core idle while each kernel started and the client waited on it (71 s for the
    twenty lessons in a fresh-clone run); two at a time keep both busy. A venv that is missing or failed gives its
    lessons its skip or failure. On a whole run the background run's outcomes come first (waited for while it
    runs); only the lessons it wrote none for run here.
    """
    folder = tmp_path_factory.mktemp("other-pythons")
    outcomes: dict[tuple[str, str], BaseException | None] = {}
    kernels: dict[str, str] = {}

    def run(version: str, lesson: str) -> BaseException | None:
        place = folder / version / lesson.removesuffix(".ipynb")
        place.mkdir(parents=True)
        try:
            run_lesson(kernels[version], lesson, place, f"on Python {version}")
        except Exception as raised:  # handed to the lesson's own test
            return raised
        return None

    for version in VERSIONS:  # what the background run wrote
        for lesson in LESSONS:
            failure = outcome(OTHER_PYTHONS / version, lesson)
            if failure is not None:
                outcomes[version, lesson] = pytest.fail.Exception(failure, pytrace=False) if failure else None
    with pytest.MonkeyPatch.context() as patch:
        for version in VERSIONS:
            try:
                kernels[version] = kernel_of(ready_venv(version), folder, patch, name=f"python{version}")
            except (pytest.skip.Exception, pytest.fail.Exception) as why:
                outcomes.update({(version, lesson): why for lesson in LESSONS})
        pairs = [(version, lesson) for version in kernels for lesson in LESSONS if (version, lesson) not in outcomes]
        with ThreadPoolExecutor(max_workers=2) as pool:
            outcomes.update(zip(pairs, pool.map(run, *zip(*pairs, strict=True)), strict=True) if pairs else ())
    return outcomes


@pytest.mark.notebook
@pytest.mark.timeout(WAIT + 1200)
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("lesson", LESSONS)
def test_the_lesson_runs_on_the_other_python(version, lesson, lessons_run):
    raised = lessons_run[version, lesson]
    if raised is not None:
        raise raised


def pyenv_python(version: str) -> Path | None:
    """pyenv's newest Python ``version`` (e.g. "3.10"), or None."""
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    found = sorted(root.glob(f"versions/{version}.*/bin/python3"), key=lambda path: [
        int(part) if part.isdigit() else 0 for part in path.parent.parent.name.split(".")])
    return found[-1] if found else None


def first_command() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return text.split("## Set-up: two commands", 1)[1].split("```bash\n", 1)[1].split("\n```", 1)[0]


def test_the_first_command_checks_the_python_before_anything_else():
    assert first_command().startswith("python3 check_python.py && python3 -m venv .venv && ")
    assert 'requires-python = ">=3.11"' in (ROOT / "pyproject.toml").read_text(), "the check's 3.11"
    assert "NEEDED = (3, 11)" in (ROOT / "check_python.py").read_text()


@pytest.mark.parametrize("version", ["3.10", "3.9", "2.7"])
def test_on_an_older_python_the_first_command_stops_at_once_naming_both_versions(version, tmp_path):
    python = pyenv_python(version)
    if python is None:
        pytest.skip(f"pyenv holds no Python {version} (pyenv install {version})")
    shutil.copy(ROOT / "check_python.py", tmp_path)
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "python3").symlink_to(python)
    done = subprocess.run(["bash", "-c", first_command()], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PATH": f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}"})
    assert done.returncode == 1
    assert done.stderr == f"Python {version} found; the collection needs 3.11 or newer\n" and not done.stdout
    assert not (tmp_path / ".venv").exists(), "stopped before the venv and pip"


def test_on_a_supported_python_the_check_says_nothing():
    done = subprocess.run([sys.executable, str(ROOT / "check_python.py")], capture_output=True, text=True)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
