"""A copy of helpers without its answer key: what an assignment copy ships and what a graded kernel imports.

The answer key is :mod:`helpers.exercises.lessons` (and the teacher's exercise
files, which are never copied). :func:`copy_keyless_helpers` copies the package
without it and writes ``helpers/exercises/questions.json`` in its place, so
``helpers.exercises`` starts in assignment mode (:mod:`helpers.exercises.assignment`).
"""

from __future__ import annotations

import ast
import json
import shutil
import tomllib
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path

from helpers.exercises.fresh import VARIANTS
from helpers.exercises.questions import Question
from helpers.exercises.registry import Exercise

PROJECT_ROOT = Path(__file__).resolve().parents[2]
NOT_COPIED = ("__pycache__", "*.pyc", ".ipynb_checkpoints", "*.xlsx", "questions.json")


def copy_keyless_helpers(target: Path, exercises: Iterable, with_hints: bool = False) -> Path:
    """Copy helpers/ into ``target/helpers`` without the answer key, with the questions of ``exercises``."""
    helpers = target / "helpers"
    shutil.copytree(PROJECT_ROOT / "helpers", helpers, ignore=_ignore)
    write_questions(helpers / "exercises" / "questions.json", exercises, with_hints)
    return helpers


def question_of(exercise, with_hints: bool = False) -> Question:
    """The question of a registered exercise, without its answer (the release and the grader write these)."""
    hints = tuple(exercise.hints) if with_hints else ()
    if isinstance(exercise, Exercise):
        return Question(exercise.id, exercise.lesson, exercise.kind, exercise.question, exercise.precision,
                        float(exercise.points), exercise.decimals, exercise.min_decimals, hints=hints,
                        variants=exercise.id in VARIANTS)
    return Question(exercise.id, exercise.lesson, exercise.kind, exercise.question, exercise.precision,
                    float(exercise.points), name=exercise.name, parameters=parameters_of(exercise), hints=hints)


def parameters_of(exercise) -> str:
    """The parameters of the function an exercise asks for, read from its solution code ('*args' if absent)."""
    try:
        tree = ast.parse(exercise.code)
    except SyntaxError:
        return "*args"
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == exercise.name:
            return ast.unparse(node.args)
    return "*args"


def write_questions(path: Path, exercises: Iterable, with_hints: bool = False) -> None:
    """Write the questions of these exercises as JSON (no answers: see :mod:`helpers.exercises.questions`)."""
    entries = [asdict(question_of(exercise, with_hints)) for exercise in exercises]
    path.write_text(json.dumps({"questions": entries}, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def keyless_pyproject(text: str) -> str:
    """The project's pyproject.toml for a keyless copy: no answer-key package, the questions file installed.

    So ``pip install`` of an assignment copy installs the very helpers the copy holds (a hub for graded work).
    The edit is checked on the TOML it gives: a pyproject.toml it no longer fits raises ValueError.
    """
    edited = text.replace('"helpers.exercises.lessons", ', "")
    marker = "[tool.setuptools.package-data]\n"
    edited = edited.replace(marker, marker + '"helpers.exercises" = ["questions.json"]\n', 1)
    try:
        setuptools = tomllib.loads(edited)["tool"]["setuptools"]
        keyless = ("helpers.exercises.lessons" not in setuptools["packages"]
                   and setuptools["package-data"]["helpers.exercises"] == ["questions.json"])
    except (tomllib.TOMLDecodeError, KeyError, TypeError):
        keyless = False
    if not keyless:
        raise ValueError("pyproject.toml no longer has the lines the assignment copy's edit replaces: its "
                         "[tool.setuptools] packages must list \"helpers.exercises.lessons\", (then a space), and "
                         "it must have a [tool.setuptools.package-data] table without \"helpers.exercises\"; "
                         "update helpers/teacher/keyless.py")
    return edited


def copy_course(target: Path, exercises: Iterable) -> Path:
    """The grader's course folder: keyless helpers (compiled once, so no kernel compiles them) and the data.

    The compiled files are checked by nothing (unchecked hash pycs): the sandbox copies the course in, which gives
    each source a new time, and a time-checked pyc would then be stale in every kernel.
    """
    import compileall
    import py_compile

    helpers = copy_keyless_helpers(target, exercises)
    compileall.compile_dir(str(helpers), quiet=1, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
    shutil.copytree(PROJECT_ROOT / "data", target / "data", ignore=shutil.ignore_patterns(*NOT_COPIED))
    return target


def _ignore(folder: str, names: list[str]) -> set[str]:
    """shutil's ignore: the usual caches, and the answer key's folder."""
    ignored = set(shutil.ignore_patterns(*NOT_COPIED)(folder, names))
    if Path(folder).resolve() == (PROJECT_ROOT / "helpers" / "exercises").resolve():
        ignored.add("lessons")
    return ignored
