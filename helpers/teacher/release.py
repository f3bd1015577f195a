"""Student copies: ``python -m helpers.release DIR`` writes what learners get, ready to install and open.

Usage::

    python -m helpers.release DIR [--assignment | --practice] [--hints] [--exercises FILE ...] [--force]
                              [--lessons 01,03] [--roster FILE] [--secret FILE] [--manifest FILE] [--points FILE]

Two kinds of copy:

- ``--assignment`` (the default, for graded work): the questions, their
  precision and points, and no answer key: no expected value, no hidden case,
  no solution anywhere in it. ``helpers/`` comes without
  :mod:`helpers.exercises.lessons`, with ``helpers/exercises/questions.json``
  (:mod:`helpers.teacher.keyless`); ``check`` records what it read and never
  says right or wrong; ``--hints`` adds the hints. The grader judges.
- ``--practice``: the collection as in the repository: ``check`` judges and
  names the slip, ``hint``, ``solution`` and ``reveal`` work, and the
  teacher's exercise files go into ``exercises/``, run by every kernel.

Both receive ``notebooks/``: the learner version of every lesson: cells whose
role is ``solution`` removed, every output, execution count and widget state
cleared (nbconvert's preprocessors), each notebook marked with its lesson
(``metadata.helpers.lesson``, read by the grader); the teacher's exercises
added as tagged exercise cells at the end of their lesson's "Try it yourself",
before its closing "More practice" cell (or in a notebook of their own); and ``data/``, ``helpers/``,
``pyproject.toml``, ``requirements.txt`` and a README saying how to install and
open the lessons and what the copy promises.

The release refuses a lesson whose cells give away an answer: a ``check`` called
with anything but ``answer``, a ``solution`` / ``reveal`` call, an unknown
exercise id, or a check outside a cell tagged ``exercise``.

Graded work: ``--lessons`` keeps the assignment to some lessons; ``--roster``
gives each learner their own folder ``notebooks/<id>/`` (with ``--secret``,
their own numbers); ``--manifest FILE`` writes what the grader needs to judge
exactly this release (:mod:`helpers.teacher.manifest`), where the teacher keeps
it, never in the copy. An assignment copy's ``pyproject.toml`` installs its
keyless ``helpers`` as it is (``pip install DIR``: a hub for graded classes).
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

import nbformat
from nbconvert.preprocessors import ClearOutputPreprocessor
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from helpers.exercises import REGISTRY, Exercise, load_extra_exercises
from helpers.exercises.calls import check_calls
from helpers.exercises.new import CLOSING
from helpers.exercises.registry import EXTRA_EXERCISES_ENV, EXTRA_EXERCISES_FOLDER, AnyExercise
from helpers.teacher import manifest as manifests
from helpers.teacher.keyless import copy_keyless_helpers, keyless_pyproject, parameters_of
from helpers.teacher.names import shown
from helpers.teacher.per_learner import personalised, read_roster, read_secret, roster_id_problem
from helpers.teacher.roles import role_of, without_roles

PROJECT_ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = PROJECT_ROOT / "notebooks"
WRITTEN = ("notebooks", "exercises", "data", "helpers", "pyproject.toml", "requirements.txt", "README.md")
SHOWS_SOLUTION = re.compile(r"^\s*(solution|reveal)\(", flags=re.M)
ANSWER_TEMPLATE = "answer = None  # your answer: a number such as 0.123 (3/8 or 37.5% work too)\ncheck({id!r}, answer)"
LEARNER_README = """# Ranking metrics by hand: your copy

Python 3.11 or newer (3.11 to 3.13 tested) and a shell (Linux, macOS or WSL). In this folder:

```bash
python3 -m venv .venv && .venv/bin/pip install -r requirements.txt
.venv/bin/jupyter lab notebooks/00_start_here.ipynb
```

{promise}

Hand in the `.ipynb` files of `notebooks/` as your teacher asks; when `notebooks/`
holds a folder with your id, that is your own copy (your own numbers): work and
hand in there. The grader runs
each one again from the top in a fresh kernel: check that Kernel > Restart and
Run All works before you hand it in.
"""
PROMISES = {
    "practice": (
        "This is a practice copy. In each exercise cell replace `None` with your answer and run it: "
        '`check("id", answer)` says whether it is right, or names the mistake your number shows. Stuck? '
        '`hint("id")` gives a nudge, `solution("id")` the worked solution.'
    ),
    "assignment": (
        "This is an assignment copy: it holds the questions and no answers. In each exercise cell replace "
        '`None` with your answer and run it: `check("id", answer)` records it and tells you what it read '
        '(for example "recorded: 0.125, a number with 3 decimals"); it does not say whether it is right. '
        "Your teacher's grader judges your answers after you hand in."
    ),
}
ASSIGNMENT_NOTE = (
    "**Assignment copy.** `check` records your answers and says what it read; it does not say whether they are "
    "right, and there are no solutions in this copy. The lesson's text about the checker describes the practice "
    "copy. Your teacher's grader judges your answers after you hand in."
)


def lesson_notebooks() -> dict[str, Path]:
    """lesson number -> notebook of the project (e.g. '01' -> notebooks/01_hit_rate_and_mrr.ipynb)."""
    return {path.name[:2]: path for path in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))}


def is_teachers(exercise: AnyExercise) -> bool:
    """True for an exercise registered by a teacher's file rather than by the lessons' own modules."""
    function = exercise.answer if isinstance(exercise, Exercise) else exercise.cases
    module = getattr(function, "__module__", "") or ""
    return not module.startswith("helpers.exercises.lessons")


def refuse_solutions(notebook: nbformat.NotebookNode, name: str) -> None:
    """ValueError when a cell of the lesson gives an answer away (see the module docstring)."""
    for number, cell in enumerate(notebook.cells, start=1):
        if cell.cell_type != "code" or role_of(cell) == "solution":
            continue
        where = f"{name}, cell {number}"
        calls = check_calls(cell.source)
        for call in calls:
            if call.function == "check" and not call.passes_answer:
                raise ValueError(f"{where}: check({call.exercise_id!r}, {call.argument}) gives the answer away")
        for call in calls:
            if call.exercise_id not in REGISTRY:
                raise ValueError(f"{where}: unknown exercise id {call.exercise_id!r}")
            if role_of(cell) != "exercise":
                raise ValueError(f"{where}: a check outside a cell tagged 'exercise'")
        if SHOWS_SOLUTION.search(cell.source):
            raise ValueError(f"{where}: calls solution() or reveal()")


def stripped(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The notebook without its solution cells, outputs, execution counts and cell metadata beyond the tags."""
    notebook = without_roles(notebook, {"solution"})
    notebook, _ = ClearOutputPreprocessor().preprocess(notebook, {})
    for cell in notebook.cells:
        cell.metadata = {"tags": list(cell.metadata.get("tags", []))}
    return notebook


def learner_copy(
    notebook: nbformat.NotebookNode, lesson: str, extra: Sequence[AnyExercise] = (), kind: str = "practice"
):
    """The learner version of a lesson: no solution cells, no outputs, the lesson marked, extra exercises added."""
    cells = stripped(notebook).cells
    at = added_at(cells)
    added = [new for exercise in extra for new in exercise_cells(exercise)]
    notebook.cells = cells[:at] + added + cells[at:]
    if kind == "assignment" and notebook.cells:
        note = new_markdown_cell(ASSIGNMENT_NOTE)
        note.metadata = {"tags": ["lesson"]}
        notebook.cells.insert(1, note)
    kept = {key: notebook.metadata[key] for key in ("kernelspec", "language_info") if key in notebook.metadata}
    notebook.metadata = {**kept, "helpers": {"lesson": lesson}}
    return notebook


def added_at(cells: Sequence[nbformat.NotebookNode]) -> int:
    """Where a teacher's exercises go: before the lesson's closing "More practice" cell (its progress cell stays
    last), else after the last exercise cell."""
    exercises = [i for i, cell in enumerate(cells) if role_of(cell) == "exercise"]
    closing = [i for i in exercises if cells[i].cell_type == "markdown" and CLOSING in cells[i].source]
    return closing[0] if closing else max(exercises, default=len(cells) - 1) + 1


def exercise_cells(exercise: AnyExercise) -> list[nbformat.NotebookNode]:
    """A teacher's exercise as a tagged question cell and a tagged answer cell (a template to fill in)."""
    question = new_markdown_cell(f"**Exercise `{exercise.id}`.** {exercise.question}")
    if isinstance(exercise, Exercise):
        code = ANSWER_TEMPLATE.format(id=exercise.id)
    else:
        code = (
            f"def {exercise.name}({parameters_of(exercise)}):\n"
            f'    raise NotImplementedError("replace this line with your code")\n\n\n'
            f"check_function({exercise.id!r}, {exercise.name})"
        )
    cells = [question, new_code_cell(code)]
    for cell in cells:
        cell.metadata = {"tags": ["exercise"]}
    return cells


def extra_notebook(lesson: str, exercises: Sequence[AnyExercise], kind: str = "practice") -> nbformat.NotebookNode:
    """A notebook for a teacher's lesson that has no notebook of its own."""
    title = new_markdown_cell(f"# {lesson} · Exercises\n\n*Your teacher's exercises: run the setup cell first.*")
    setup = new_code_cell("from helpers.exercises import check, check_function, exercise, hint, solution")
    title.metadata, setup.metadata = {"tags": ["lesson"]}, {"tags": ["setup"]}
    return learner_copy(new_notebook(cells=[title, setup]), lesson, exercises, kind)


def teacher_files(extra: Sequence[Path]) -> list[Path]:
    """The teacher's exercise files: the project's exercises/ folder, $HELPERS_EXERCISES, and those given."""
    import os

    found = sorted(EXTRA_EXERCISES_FOLDER.glob("*.py")) if EXTRA_EXERCISES_FOLDER.is_dir() else []
    found += [Path(p) for p in os.environ.get(EXTRA_EXERCISES_ENV, "").split(os.pathsep) if p]
    found += list(extra)
    return list(dict.fromkeys(path.resolve() for path in found))


def check_target(target: Path, force: bool) -> Path:
    """The release folder, refused when it would overwrite something (without --force) or hold the project."""
    target = target.expanduser().resolve()
    if target.exists() and not target.is_dir():
        raise ValueError(f"{target} is a file: give a folder")
    if PROJECT_ROOT.is_relative_to(target) or any(target.is_relative_to(PROJECT_ROOT / n) for n in WRITTEN[:4]):
        raise ValueError(f"{target} would hold (or sit inside) the project's own files: choose another folder")
    if target.is_dir() and any(target.iterdir()) and not force:
        raise ValueError(f"{target} is not empty: choose a new folder, or --force to replace a release in it")
    return target


def chosen_lessons(text: str, available: Sequence[str]) -> list[str]:
    """--lessons '01,03': lesson numbers that have exercises, checked; '' is every lesson."""
    if not text.strip():
        return list(available)
    wanted = [part.strip().zfill(2) for part in text.split(",") if part.strip()]
    unknown = [lesson for lesson in wanted if lesson not in available]
    if unknown:
        raise ValueError(f"--lessons: no lesson {', '.join(unknown)} with exercises; these have: "
                         f"{', '.join(available)}")
    return list(dict.fromkeys(wanted))


def release(
    target: Path, exercise_files: Sequence[Path] = (), force: bool = False, kind: str = "assignment",
    hints: bool = False, roster: Sequence[str] = (), secret: bytes | None = None, lessons: str = "",
    manifest: Path | None = None, points: dict[str, float] | None = None,
) -> list[Path]:
    """Write the learners' copy into ``target`` (see the module docstring); return the notebooks written."""
    check_options(kind, roster, secret, manifest)
    target = check_target(target, force)
    manifest = manifests.check_place(manifest, target) if manifest is not None else None
    load_teachers_exercises(exercise_files, points)
    files = teacher_files(exercise_files) if kind == "practice" else []
    graded = chosen_lessons(lessons, sorted({exercise.lesson for exercise in REGISTRY.values()}))
    copies = learner_copies(kind, graded if lessons else None)
    _clear(target)
    written = write_notebooks(target, copies, roster, secret)
    _copy_project(target, files, kind, hints)
    if manifest is not None:
        graded_exercises = {lesson: [e for e in REGISTRY.values() if e.lesson == lesson] for lesson in graded}
        manifests.build(roster, graded_exercises, points or {}, copies, secret).write(manifest)
    return written


def check_options(kind: str, roster: Sequence[str], secret: bytes | None, manifest: Path | None) -> None:
    """ValueError when the options do not make one kind of copy: a roster or a manifest with the wrong kind."""
    if kind not in PROMISES:
        raise ValueError(f"kind must be 'assignment' or 'practice', got {kind!r}")
    if roster and (kind != "assignment" or (secret is None and manifest is None)):
        raise ValueError("a roster (--roster) needs an assignment copy, and the course secret (--secret) for "
                         "per-learner numbers or a manifest (--manifest) for a graded class")
    refused = next((roster_id_problem(learner) for learner in roster if roster_id_problem(learner)), "")
    if refused:
        raise ValueError(f"--roster: {refused}")
    if manifest is not None and (kind != "assignment" or not roster):
        raise ValueError("--manifest is for graded work: an assignment copy with a roster (--roster)")


def load_teachers_exercises(exercise_files: Sequence[Path], points: dict[str, float] | None) -> None:
    """Register the exercises of the teacher's files given; ValueError for --points naming an unknown id."""
    for path in exercise_files:
        load_extra_exercises(str(path))
    unknown = sorted(set(points or {}) - set(REGISTRY))
    if unknown:
        raise ValueError(f"--points: unknown exercise ids: {', '.join(unknown)}")


def learner_copies(kind: str, chosen: Sequence[str] | None) -> dict[str, nbformat.NotebookNode]:
    """File name -> the learner's copy of each lesson (of ``chosen`` and lesson 00; every one for None), and a
    notebook for each lesson of the teacher's exercises that has none of its own."""
    extra: dict[str, list[AnyExercise]] = {}
    for exercise in REGISTRY.values():
        if is_teachers(exercise):
            extra.setdefault(exercise.lesson, []).append(exercise)
    notebooks = lesson_notebooks()
    copies = {}
    for lesson, path in notebooks.items():
        if chosen is None or lesson in chosen or lesson == "00":
            notebook = nbformat.read(path, as_version=4)
            refuse_solutions(notebook, path.name)
            copies[path.name] = learner_copy(notebook, lesson, extra.get(lesson, []), kind)
    for lesson in sorted(set(extra) - set(notebooks)):
        if chosen is None or lesson in chosen:
            copies[f"{lesson}_exercises.ipynb"] = extra_notebook(lesson, extra[lesson], kind)
    return copies


def write_notebooks(target: Path, copies: dict[str, nbformat.NotebookNode], roster: Sequence[str],
                    secret: bytes | None) -> list[Path]:
    """The copies into ``target/notebooks``, and each learner's own (their numbers with the secret) into
    ``notebooks/<roster id>/``; return the first ones' paths."""
    written = []
    (target / "notebooks").mkdir(parents=True)
    for name, notebook in copies.items():
        nbformat.validate(notebook)
        nbformat.write(notebook, target / "notebooks" / name)
        written.append(target / "notebooks" / name)
    for learner in roster:
        (target / "notebooks" / learner).mkdir()
        for name, notebook in copies.items():
            own = personalised(notebook, secret, learner) if secret is not None else notebook
            nbformat.write(own, target / "notebooks" / learner / name)
    return written


def _clear(target: Path) -> None:
    for name in WRITTEN:
        path = target / name
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()


def _copy_project(target: Path, files: Sequence[Path], kind: str, hints: bool = False) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints", "*.xlsx", "questions.json")
    shutil.copytree(PROJECT_ROOT / "data", target / "data", ignore=ignore)
    if kind == "practice":
        shutil.copytree(PROJECT_ROOT / "helpers", target / "helpers", ignore=ignore)
    else:
        copy_keyless_helpers(target, REGISTRY.values(), with_hints=hints)
    shutil.copy2(PROJECT_ROOT / "requirements.txt", target / "requirements.txt")
    pyproject = (PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8")
    (target / "pyproject.toml").write_text(pyproject if kind == "practice" else keyless_pyproject(pyproject),
                                           encoding="utf-8")
    (target / "README.md").write_text(LEARNER_README.format(promise=PROMISES[kind]), encoding="utf-8")
    if kind == "assignment":
        return
    (target / "exercises").mkdir()
    for number, path in enumerate(files, start=1):
        name = path.name if sum(p.name == path.name for p in files) == 1 else f"{number:02d}_{path.name}"
        shutil.copy2(path, target / "exercises" / name)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m helpers.release DIR``: 0 when written, 2 when refused."""
    parser = argparse.ArgumentParser(
        prog="python -m helpers.release",
        description="Write the learners' copy of every lesson (no solutions, no outputs) with data and helpers.",
    )
    parser.add_argument("target", type=Path, help="folder to write (new or empty; --force replaces a release)")
    kinds = parser.add_mutually_exclusive_group()
    kinds.add_argument("--assignment", dest="kind", action="store_const", const="assignment",
                       help="graded work (the default): the questions and no answer key; check only records")
    kinds.add_argument("--practice", dest="kind", action="store_const", const="practice",
                       help="self-study: check judges, hint, solution and reveal work")
    parser.set_defaults(kind="assignment")
    parser.add_argument("--hints", action="store_true", help="an assignment copy: include the hints")
    parser.add_argument("--lessons", default="", help="the lessons of this assignment (01,03; default: every one)")
    parser.add_argument("--roster", type=Path,
                        help="learner ids, one a line: each gets notebooks/<id>/ (own numbers with --secret)")
    parser.add_argument("--secret", type=Path,
                        help="the course secret for --roster (created if missing; keep it, never hand it out)")
    parser.add_argument("--manifest", type=Path,
                        help="write the assignment's manifest here (outside DIR; grade --assignment reads it)")
    parser.add_argument("--points", type=Path, help="CSV 'exercise,points': the points the manifest records")
    parser.add_argument("--exercises", type=Path, action="append", default=[],
                        help="a teacher's exercise file (register(Exercise(...)) entries); may repeat")
    parser.add_argument("--force", action="store_true", help="replace the release files in a folder that has them")
    args = parser.parse_args(argv)
    try:
        roster = read_roster(args.roster) if args.roster else []
        if args.secret and args.secret.resolve().is_relative_to(args.target.expanduser().resolve()):
            raise ValueError(f"--secret {args.secret} would be inside the learners' copy: keep it elsewhere")
        secret = read_secret(args.secret, create=True) if args.secret else None
        from helpers.teacher.judging import read_points

        points = read_points(args.points) if args.points else None
        written = release(args.target, args.exercises, args.force, args.kind, args.hints, roster, secret,
                          args.lessons, args.manifest, points)
    except (ValueError, TypeError, OSError) as error:
        print(f"python -m helpers.release: error: {shown(error)}", file=sys.stderr)
        return 2
    lessons = {path.name[:2] for path in written}
    released = [exercise for exercise in REGISTRY.values() if exercise.lesson in lessons]
    extra = sum(is_teachers(exercise) for exercise in released)
    print(f"wrote {args.kind} copies of {len(written)} notebooks ({len(released)} exercises, {extra} from your "
          f"files) to {shown(args.target)}")
    print("learners: see README.md there; after they hand in, grade with python -m helpers.grade")
    if args.manifest:
        manifest = shown(args.manifest)
        print(f"manifest: {manifest} (keep it with your secret; grade with --assignment {manifest})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
