"""The package layout: a small learner core on top, the two teacher's commands by their short names."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import helpers

HELPERS = Path(helpers.__file__).resolve().parent
ROOT = HELPERS.parent
COMMANDS = {"grade.py": "helpers.teacher.grade", "release.py": "helpers.teacher.release"}  # python -m helpers.grade
# every module of an installed helpers imported (a package's __main__ runs its command, so it is only found)
IMPORT_EVERY_MODULE = """
import importlib, json, pkgutil, helpers
walked = [m.name for m in pkgutil.walk_packages(helpers.__path__, "helpers.")]
failed = {}
for name in walked:
    if not name.endswith(".__main__"):
        try:
            importlib.import_module(name)
        except Exception as error:
            failed[name] = repr(error)
print(json.dumps({"file": helpers.__file__, "walked": walked, "failed": failed}))
"""


def test_the_top_level_holds_at_most_eight_modules_and_the_two_commands():
    modules = sorted(path.name for path in HELPERS.glob("*.py") if path.name not in COMMANDS)
    assert len(modules) <= 8, modules
    assert {"metrics.py", "data.py", "plots.py", "mistakes.py"} <= set(modules)
    for name, module in COMMANDS.items():  # each command's short name runs the module, and holds nothing else
        code = [line for line in (HELPERS / name).read_text().splitlines()[1:] if line.strip()]
        assert code == [f"from {module} import main", 'if __name__ == "__main__":', "    raise SystemExit(main())"]


def test_the_metrics_offer_metrics_not_their_input_checks():
    from helpers import metrics

    assert not [name for name in metrics.__all__ if name.startswith("check_")]
    assert {"ndcg", "dcg", "mean_reciprocal_rank", "average_precision"} <= set(metrics.__all__)


def test_no_import_hook_is_installed():
    assert not any(type(finder).__module__.startswith("helpers") for finder in sys.meta_path)


@pytest.mark.slow  # a fresh Python each
@pytest.mark.parametrize("command", ["helpers.grade", "helpers.release", "helpers.sheet"])
def test_the_commands_run_with_python_dash_m(command):
    done = subprocess.run(
        [sys.executable, "-m", command, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"usage: python -m {command}")


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

    source = tmp_path / "source"  # built from a copy: a build writes build/ and *.egg-info next to its source
    for name in ("helpers", "data"):
        shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.xlsx"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(source)],
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
        "helpers/teacher/hub/kernels/python3/kernel.json",
        "helpers/teacher/hub/kernels/python3/start_or_end.py",
    ):
        assert expected in names, expected
    assert not any(name.startswith(("tests/", "notebooks/", "data/")) for name in names)
    site = tmp_path / "site-packages"  # the wheel installed alone: its dependencies are this Python's
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q", "--target",
                           str(site), str(wheel)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    shown = subprocess.run([sys.executable, "-c", IMPORT_EVERY_MODULE], cwd=tmp_path, capture_output=True, text=True,
                           timeout=300, env={**os.environ, "PYTHONPATH": str(site)}, check=True)
    report = json.loads(shown.stdout)
    assert Path(report["file"]).is_relative_to(site), "the installed helpers, not the checkout's"
    in_wheel = {name.removesuffix(".py").removesuffix("/__init__").replace("/", ".") for name in names
                if name.startswith("helpers/") and name.endswith(".py")
                and f"{name.rpartition('/')[0]}/__init__.py" in names}  # modules: not the hub kernel's script
    assert {"helpers", *report["walked"]} == in_wheel and len(in_wheel) > 90
    assert report["failed"] == {}
