"""A new exercise for a lesson, scaffolded: ``python -m helpers.exercises.new 03 my-id --after sheet-ndcg3``.

It writes the two halves a lesson's exercise needs, so neither is forgotten:

- the register entry, in ``helpers/exercises/lessons/lesson<NN>.py`` right after the entry of
  ``--after`` (so the register lists the lesson's exercises in the notebook's order), from a
  ``worked_*`` template (``--template ndcg``, ``mrr``, ``hit-rate``, ``dcg``, ``recall``,
  ``precision``, ``ap``) whose inputs you then replace by a computation from the lesson's data;
- the question cell and the answer cell, both tagged ``exercise``, in the lesson's notebook right
  after the cells of ``--after`` (by default the lesson's last exercise that is checked), numbered
  one more than it, the exercises after it renumbered; where the lesson's exercises do not end with the
  "More practice" cell and the cell showing ``progress(lesson="NN")``, those are added after them.

The quick tests (``pytest -n 2 -m core``) then check the entry and the cells, and fail while a TODO is left.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell

from helpers.exercises.calls import ids_checked

PROJECT_ROOT = Path(__file__).resolve().parents[2]
ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{1,48}$")
NUMBERED = re.compile(r"^\*\*(\d+)\. ")
LINE_LENGTH = 120  # ruff's, in pyproject.toml
ANSWER_CELL = 'answer = None  # your answer: a number such as 0.123 (3/8 or 37.5% work too)\ncheck("{id}", answer)'
CLOSING = "**More practice.**"  # opens the markdown cell that closes a lesson's exercises; the progress cell follows
CLOSING_NOTE = (
    "**More practice.** `from helpers.exercises import practice`, then `practice()` deals the exercise you most "
    "need on new numbers.\n\n**Your progress in this lesson.** The cell below shows each of its exercises as your "
    "own record has it (answers, slips, hints) and what to do next (lesson 00, \"Your progress\")."
)
PROGRESS_CELL = 'from helpers.exercises import progress\n\nprogress(lesson="{lesson}")'
TEMPLATES = {  # the worked_* call and the placeholder inputs a contributor replaces with the lesson's data
    "ndcg": ("worked_ndcg", "[2, 0, 3, 1, 0], [3, 2, 2, 1, 0, 0], k=3"),
    "dcg": ("worked_dcg", "[2, 0, 3, 1, 0], k=3"),
    "mrr": ("worked_mrr", "[1, 3, 0, 2], k=3"),
    "hit-rate": ("worked_hit_rate", "[1, 3, 0, 2], k=2"),
    "recall": ("worked_recall", '["d1", "d2", "d3", "d4"], {"d1", "d4", "d9"}, k=3'),
    "precision": ("worked_precision", '["d1", "d2", "d3", "d4"], {"d1", "d4", "d9"}, k=3'),
    "ap": ("worked_average_precision", '["d1", "d2", "d3", "d4"], {"d1", "d4", "d9"}, k=3'),
}
ENTRY = '''

def {function}() -> Worked:
    """{id}: TODO say what it computes (scaffolded by python -m helpers.exercises.new)."""
    # TODO: compute the inputs from the lesson's data (load_example)
    return {worked}({inputs})


register(
    Exercise(
        id="{id}",
        lesson=LESSON,
        question="TODO: the question, with the example it is about and its precision. Give 3 decimals.",
        answer={function},
        hints=("TODO: a nudge, never the number.", "TODO: the method, step by step."),
        code="""TODO: the few lines solution() shows""",
    )
)
'''


def lesson_module(lesson: str) -> Path:
    """helpers/exercises/lessons/lesson<NN>.py of a lesson that exists."""
    path = PROJECT_ROOT / "helpers" / "exercises" / "lessons" / f"lesson{lesson}.py"
    if not path.is_file():
        raise ValueError(f"lesson {lesson!r} has no exercise module {path.name}: give a lesson such as 03")
    return path


def lesson_notebook(lesson: str) -> Path:
    """The notebook of a lesson, notebooks/<NN>_*.ipynb."""
    found = sorted((PROJECT_ROOT / "notebooks").glob(f"{lesson}_*.ipynb"))
    if not found:
        raise ValueError(f"lesson {lesson!r} has no notebook in notebooks/")
    return found[0]


# --- the register entry ---------------------------------------------------------------------------


def add_entry(lesson: str, exercise_id: str, template: str, after: str) -> Path:
    """Write the register entry right after ``after``'s (the names it uses imported, in ruff's order)."""
    path = lesson_module(lesson)
    text = path.read_text(encoding="utf-8")
    if f'id="{exercise_id}"' in text:
        raise ValueError(f"{path.name} already registers {exercise_id!r}")
    worked, inputs = TEMPLATES[template]
    text = with_import(text, "helpers.exercises.registry", ["Exercise", "register"])
    text = with_import(text, "helpers.exercises.worked", ["Worked", worked])
    lines = text.splitlines(keepends=True)
    end = entry_end(text, after)
    entry = ENTRY.format(id=exercise_id, function=exercise_id.replace("-", "_"), worked=worked, inputs=inputs)
    before, rest = "".join(lines[:end]).rstrip("\n") + "\n", "".join(lines[end:]).lstrip("\n")
    path.write_text(before + entry + ("\n\n" + rest if rest else ""), encoding="utf-8")
    return path


def entry_end(text: str, exercise_id: str) -> int:
    """The line after the top-level statement that registers ``exercise_id`` (the module's end if none does)."""
    tree = ast.parse(text)
    for statement in tree.body:
        for node in ast.walk(statement):
            if isinstance(node, ast.keyword) and node.arg == "id" and isinstance(node.value, ast.Constant):
                if node.value.value == exercise_id and statement.end_lineno is not None:
                    return statement.end_lineno
    return len(text.splitlines())


def with_import(text: str, module: str, names: Sequence[str]) -> str:
    """The module's text with ``from <module> import`` holding ``names`` too, written as ruff's isort writes it."""
    tree = ast.parse(text)
    imports = [node for node in tree.body if isinstance(node, ast.ImportFrom) and node.level == 0]
    found = next((node for node in imports if node.module == module), None)
    have = [] if found is None else imported_names(found)
    if found is not None and all(name in have for name in names):
        return text
    if found is None:
        start = end = new_import_line(imports, module)
    else:
        start, end = found.lineno - 1, found.end_lineno or found.lineno
    statement = import_statement(module, sorted({*have, *names}, key=isort_key), wrapped=end - start > 1)
    lines = text.splitlines(keepends=True)
    return "".join(lines[:start]) + statement + "".join(lines[end:])


def imported_names(node: ast.ImportFrom) -> list[str]:
    """The names one ``from ... import`` statement takes, each as written ('a' or 'a as b')."""
    return [alias.name if alias.asname is None else f"{alias.name} as {alias.asname}" for alias in node.names]


def new_import_line(imports: Sequence[ast.ImportFrom], module: str) -> int:
    """Where a new ``from <module> import`` line goes (a 0-based line): before the first ``from helpers...``
    import that sorts after it, else after the last one."""
    helpers = [node for node in imports if (node.module or "").startswith("helpers")]
    later = [node for node in helpers if (node.module or "") > module]
    if later:
        return later[0].lineno - 1
    if helpers:
        return helpers[-1].end_lineno or helpers[-1].lineno
    raise ValueError(f"no 'from helpers ... import' line to put 'from {module} import ...' beside")


def isort_key(name: str) -> tuple[int, str]:
    """ruff's order of the names in one import: CONSTANTS, then Classes, then the rest."""
    kind = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
    return kind, name


def import_statement(module: str, names: Sequence[str], wrapped: bool) -> str:
    """``from module import a, b`` on one line, or one name per line when it was so or is too long."""
    line = f"from {module} import {', '.join(names)}\n"
    if not wrapped and len(line) - 1 <= LINE_LENGTH:
        return line
    return f"from {module} import (\n" + "".join(f"    {name},\n" for name in names) + ")\n"


# --- the cells ------------------------------------------------------------------------------------


def is_exercise(cell) -> bool:
    return "exercise" in cell.metadata.get("tags", [])


def checked_ids(cells: list) -> list[tuple[int, str]]:
    """(index, id) of every exercise-tagged code cell that checks an exercise, in the notebook's order."""
    return [
        (index, found)
        for index, cell in enumerate(cells)
        if cell.cell_type == "code" and is_exercise(cell)
        for found in ids_checked(cell.source)
    ]


def starts_an_item(cell) -> bool:
    """A markdown cell that opens the next item: a question (**2. ...), a bold title (**More to try**), a heading."""
    return cell.cell_type == "markdown" and cell.source.lstrip().startswith(("**", "#"))


def insertion_point(cells: list, after: str | None, name: str) -> tuple[int, int]:
    """Where the new cells go and their number: after ``after``'s own exercise cells (its answer cell and
    any that continue it), or after the lesson's last checked exercise."""
    checked = checked_ids(cells)
    if not checked:
        raise ValueError(f"{name} has no exercise cell that checks an answer: give the first exercise by hand")
    if after is None:
        after = checked[-1][1]
    holders = [index for index, found in checked if found == after]
    if not holders:
        known = ", ".join(found for _, found in checked)
        raise ValueError(f"{name} has no answer cell of {after!r} (its checked exercises: {known})")
    place = holders[0] + 1
    while place < len(cells) and is_exercise(cells[place]) and not starts_an_item(cells[place]):
        place += 1
    question = cells[holders[0] - 1] if holders[0] else None
    numbered = NUMBERED.match(question.source) if question is not None and question.cell_type == "markdown" else None
    if numbered:
        return place, int(numbered.group(1)) + 1
    earlier = [NUMBERED.match(cell.source) for cell in cells[:place] if is_exercise(cell)]
    return place, max((int(found.group(1)) for found in earlier if found), default=0) + 1


def add_cells(lesson: str, exercise_id: str, after: str | None) -> tuple[Path, int]:
    """Insert the tagged question and answer cells after ``after``'s cells, numbered; return the number."""
    path = lesson_notebook(lesson)
    notebook = nbformat.read(path, as_version=4)
    cells = notebook.cells
    place, number = insertion_point(cells, after, path.name)
    for cell in cells[place:]:
        found = NUMBERED.match(cell.source) if cell.cell_type == "markdown" and is_exercise(cell) else None
        if found and int(found.group(1)) >= number:
            cell.source = f"**{int(found.group(1)) + 1}. " + cell.source[found.end():]
    question = new_markdown_cell(f"**{number}. TODO a title.** TODO one sentence on what to do.")
    answer = new_code_cell(ANSWER_CELL.format(id=exercise_id))
    taken = {cell.get("id") for cell in cells}
    for cell in (question, answer):
        cell.metadata = {"tags": ["exercise"]}
        cell.id = next(new for new in iter(lambda: uuid.uuid4().hex[:8], None) if new not in taken)
    cells[place:place] = [question, answer]
    with_closing(cells, lesson)
    nbformat.validate(notebook)
    nbformat.write(notebook, path)
    return path, number


def with_closing(cells: list, lesson: str) -> None:
    """Close the lesson's exercises with the "More practice" cell and the progress cell, where either is missing
    (after the last exercise cell; the progress cell right after "More practice")."""
    closing = next((index for index, cell in enumerate(cells) if CLOSING in cell.source), None)
    added = []
    if closing is None:
        closing = max(index for index, cell in enumerate(cells) if is_exercise(cell)) + 1
        added.append(new_markdown_cell(CLOSING_NOTE))
    shows = PROGRESS_CELL.format(lesson=lesson)
    if closing + 1 >= len(cells) or cells[closing + 1].source != shows:
        added.append(new_code_cell(shows))
    taken = {cell.get("id") for cell in cells}
    for cell in added:
        cell.metadata = {"tags": ["exercise"]}
        cell.id = next(new for new in iter(lambda: uuid.uuid4().hex[:8], None) if new not in taken)
    at = closing if len(added) == 2 else closing + 1
    cells[at:at] = added


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m helpers.exercises.new LESSON ID [--after ID] [--template ndcg]``: 0 when written, 2 when refused."""
    parser = argparse.ArgumentParser(prog="python -m helpers.exercises.new", description=__doc__.splitlines()[0])
    parser.add_argument("lesson", help="the lesson's two digits, e.g. 03")
    parser.add_argument("id", help="the new exercise's id: lower-case letters, digits and dashes")
    parser.add_argument("--after", help="the exercise whose cells the new ones follow (default: the last checked one)")
    parser.add_argument("--template", choices=sorted(TEMPLATES), default="ndcg",
                        help="the worked_* helper to start from (ndcg)")
    args = parser.parse_args(argv)
    try:
        if not ID_PATTERN.match(args.id):
            raise ValueError(f"exercise id {args.id!r}: use 2-49 lower-case letters, digits and dashes")
        notebook_path = lesson_notebook(args.lesson)
        cells = nbformat.read(notebook_path, as_version=4).cells
        insertion_point(cells, args.after, notebook_path.name)
        after = args.after or checked_ids(cells)[-1][1]
        module = add_entry(args.lesson, args.id, args.template, after)
        notebook, number = add_cells(args.lesson, args.id, after)
    except (ValueError, OSError, SyntaxError) as error:
        print(f"python -m helpers.exercises.new: error: {error}", file=sys.stderr)
        return 2
    print(f"added {args.id} as exercise {number}, after {after}: its entry in {module.relative_to(PROJECT_ROOT)}, "
          f"its cells in {notebook.relative_to(PROJECT_ROOT)}. Now replace every TODO, then run: "
          ".venv/bin/python -m pytest -n 2 -m core")
    return 0


if __name__ == "__main__":
    sys.exit(main())
