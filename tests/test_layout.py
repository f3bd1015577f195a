"""The package layout: a small learner core on top, and the old module names still working."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import helpers

HELPERS = Path(helpers.__file__).resolve().parent
ROOT = HELPERS.parent


def test_the_top_level_holds_at_most_eight_modules():
    modules = sorted(path.name for path in HELPERS.glob("*.py"))
    assert len(modules) <= 8, modules
    assert {"metrics.py", "data.py", "plots.py", "mistakes.py"} <= set(modules)


@pytest.mark.parametrize("old, new", sorted(helpers.MOVED_MODULES.items()))
def test_an_old_module_name_is_the_module_at_its_new_home(old, new):
    assert importlib.import_module(old) is importlib.import_module(new)
    assert importlib.import_module(new).__spec__.name == new


def test_old_from_imports_of_lessons_and_readme_work():
    from helpers.batch import compare as new_compare
    from helpers.batch import evaluate as new_evaluate
    from helpers.compare import compare
    from helpers.evaluate import evaluate
    from helpers.sheet import ndcg_worksheet as new_worksheet
    from helpers.sheet import save_example_workbook as new_save
    from helpers.sheets import save_example_workbook
    from helpers.sheetview import ndcg_worksheet

    assert (evaluate, compare, ndcg_worksheet, save_example_workbook) == (
        new_evaluate, new_compare, new_worksheet, new_save,
    )


@pytest.mark.parametrize("command", ["helpers.grade", "helpers.sheets", "helpers.sheet"])
def test_old_and_new_commands_run_with_python_dash_m(command):
    done = subprocess.run(
        [sys.executable, "-m", command, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage:")


def test_pyproject_lists_every_package_folder():
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    folders = {
        ".".join(path.parent.relative_to(ROOT).parts)
        for path in HELPERS.rglob("__init__.py")
        if "__pycache__" not in path.parts
    }
    assert set(config["packages"]) == folders | {"helpers._golden_sets"}
    assert config["package-dir"]["helpers._golden_sets"] == "data"


@pytest.mark.install
def test_the_wheel_carries_every_package_the_golden_sets_and_the_classroom_template(tmp_path):
    import zipfile

    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        capture_output=True, text=True, timeout=300,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = tmp_path.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for expected in (
        "helpers/metrics.py",
        "helpers/exercises/lessons/lesson01.py",
        "helpers/_golden_sets/example_c/judgments.csv",
        "helpers/_golden_sets/README.md",
        "helpers/teacher/voila/templates/classroom/index.html.j2",
        "helpers/teacher/voila/templates/classroom/conf.json",
    ):
        assert expected in names, expected
    assert not any(name.startswith(("tests/", "notebooks/", "data/")) for name in names)
