"""Every import declared where it is used, and nothing declared unused: deptry over the code and its requirements.

- ``helpers/`` and the lessons (``notebooks/``) against ``pyproject.toml``: no import missing or reached only
  through another package, no dependency they never import (``[tool.deptry]`` names the two applications run
  as commands);
- the website's builder against ``requirements-site.txt``, the tests and benchmarks against
  ``requirements-test.txt``: no import missing or only transitive (those files also pin tools, such as pytest's
  plugins or ruff, that nothing imports, so unused pins are not counted there).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# a benchmark times it when it is installed, and says so; nothing else imports it
OPTIONAL_IN_BENCHMARKS = ["polars"]


def deptry(*arguments: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "deptry", "--no-ansi", *arguments]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=120)


def requirements_only_config(folder: Path, **ignores: list[str]) -> Path:
    """A deptry configuration without [project], so that deptry reads the requirements files given instead."""
    rules = "".join(f"{rule} = {names!r}\n" for rule, names in ignores.items())
    config = folder / "deptry.toml"
    config.write_text('[tool.deptry]\nknown_first_party = ["helpers", "website", "tests", "benchmarks"]\n'
                      f"[tool.deptry.per_rule_ignores]\n{rules}", encoding="utf-8")
    return config


def test_helpers_and_the_lessons_import_exactly_what_pyproject_declares():
    result = deptry("helpers", "notebooks")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_website_builder_imports_only_what_its_requirements_declare(tmp_path):
    config = requirements_only_config(tmp_path)
    result = deptry("website", "--config", str(config), "--requirements-files", "requirements-site.txt",
                    "--ignore", "DEP002")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_tests_and_benchmarks_import_only_what_their_requirements_declare(tmp_path):
    config = requirements_only_config(tmp_path, DEP001=OPTIONAL_IN_BENCHMARKS)
    result = deptry("tests", "benchmarks", "--config", str(config), "--requirements-files", "requirements-test.txt",
                    "--exclude", "tests/data", "--ignore", "DEP002")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_check_fails_on_a_missing_a_transitive_and_an_unused_dependency(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "p"\nversion = "1"\ndependencies = ["pandas", "pillow"]\n', encoding="utf-8")
    (tmp_path / "p").mkdir()
    # numpy arrives only through pandas; no_such_package is declared nowhere; pillow is declared and unused
    (tmp_path / "p" / "__init__.py").write_text("import numpy\nimport pandas\nimport no_such_package\n")
    result = deptry("p", cwd=tmp_path)
    assert result.returncode == 1
    assert "DEP001 'no_such_package' imported but missing" in result.stderr
    assert "DEP003 'numpy' imported but it is a transitive dependency" in result.stderr
    assert "DEP002 'pillow' defined as a dependency but not used" in result.stderr
