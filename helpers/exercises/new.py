"""A new exercise for a lesson, scaffolded: ``python -m helpers.exercises.new 03 my-id --after sheet-ndcg3``.

It writes the two halves a lesson's exercise needs, so neither is forgotten:

- the register entry, at the end of ``helpers/exercises/lessons/lesson<NN>.py``,
  from a ``worked_*`` template (``--template ndcg``, ``mrr``, ``hit-rate``,
  ``dcg``, ``recall``, ``precision``, ``ap``) whose inputs you then replace by a
  computation from the lesson's data;
- the question cell and the answer cell, both tagged ``exercise``, in the
  lesson's notebook right after the cells of ``--after`` (or after its last
  exercise), numbered, the exercises after it renumbered.

The quick tests (``pytest -n 2 -m core``) then check the entry and the cells.
"""

from __future__ import annotations

import argparse
import re
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell

PROJECT_ROOT = Path(__file__).resolve().parents[2]
ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{1,48}$")
NUMBERED = re.compile(r"^\*\*(\d+)\. ")
ANSWER_CELL = 'answer = None  # your answer: a number such as 0.123 (3/8 or 37.5% work too)\ncheck("{id}", answer)'
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
    return {worked}({inputs})  # TODO: compute the inputs from the lesson's data (load_example)


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


def add_entry(lesson: str, exercise_id: str, template: str) -> Path:
    """Append the register entry to the lesson's module (the worked_* helper imported when missing)."""
    path = lesson_module(lesson)
    text = path.read_text(encoding="utf-8")
    if f'id="{exercise_id}"' in text:
        raise ValueError(f"{path.name} already registers {exercise_id!r}")
    worked, inputs = TEMPLATES[template]
    if not re.search(rf"\b{worked}\b", text.split("\n\n\n", 1)[0]):
        text = text.replace("from __future__ import annotations\n",
                            f"from __future__ import annotations\n\nfrom helpers.exercises.worked import {worked}\n", 1)
    for name in ("Exercise", "register", "Worked"):
        if not re.search(rf"\b{name}\b", text):
            raise ValueError(f"{path.name} does not import {name}: add it to the module's imports first")
    function = exercise_id.replace("-", "_")
    text = text.rstrip("\n") + "\n" + ENTRY.format(id=exercise_id, function=function, worked=worked, inputs=inputs)
    path.write_text(text, encoding="utf-8")
    return path


def insertion_point(cells: list, after: str | None, name: str) -> int:
    """The index the new cells go to: after ``after``'s answer cell, or after the lesson's last exercise cell."""
    if after is None:
        exercise_cells = [i for i, cell in enumerate(cells) if "exercise" in cell.metadata.get("tags", [])]
        return exercise_cells[-1] + 1 if exercise_cells else len(cells)
    holders = [i for i, cell in enumerate(cells) if cell.cell_type == "code" and f'"{after}"' in cell.source]
    if not holders:
        raise ValueError(f"{name} has no answer cell of {after!r}")
    return holders[0] + 1


def add_cells(lesson: str, exercise_id: str, after: str | None) -> Path:
    """Insert the tagged question and answer cells after ``after``'s answer cell, numbered."""
    path = lesson_notebook(lesson)
    notebook = nbformat.read(path, as_version=4)
    cells = notebook.cells
    exercise_cells = [i for i, cell in enumerate(cells) if "exercise" in cell.metadata.get("tags", [])]
    place = insertion_point(cells, after, path.name)
    earlier = [NUMBERED.match(cells[i].source) for i in exercise_cells if i < place]
    number = max((int(m.group(1)) for m in earlier if m), default=0) + 1
    for cell in cells[place:]:
        found = NUMBERED.match(cell.source) if cell.cell_type == "markdown" else None
        if found and "exercise" in cell.metadata.get("tags", []):
            cell.source = f"**{int(found.group(1)) + 1}. " + cell.source[found.end():]
    question = new_markdown_cell(f"**{number}. TODO a title.** TODO one sentence on what to do.")
    answer = new_code_cell(ANSWER_CELL.format(id=exercise_id))
    for cell in (question, answer):
        cell.metadata = {"tags": ["exercise"]}
        cell.id = uuid.uuid4().hex[:8]
    cells[place:place] = [question, answer]
    nbformat.validate(notebook)
    nbformat.write(notebook, path)
    return path


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m helpers.exercises.new LESSON ID [--after ID] [--template ndcg]``: 0 when written, 2 when refused."""
    parser = argparse.ArgumentParser(prog="python -m helpers.exercises.new", description=__doc__.splitlines()[0])
    parser.add_argument("lesson", help="the lesson's two digits, e.g. 03")
    parser.add_argument("id", help="the new exercise's id: lower-case letters, digits and dashes")
    parser.add_argument("--after", help="the exercise whose cells the new ones follow (default: the last one)")
    parser.add_argument("--template", choices=sorted(TEMPLATES), default="ndcg",
                        help="the worked_* helper to start from (ndcg)")
    args = parser.parse_args(argv)
    try:
        if not ID_PATTERN.match(args.id):
            raise ValueError(f"exercise id {args.id!r}: use 2-49 lower-case letters, digits and dashes")
        notebook_path = lesson_notebook(args.lesson)
        insertion_point(nbformat.read(notebook_path, as_version=4).cells, args.after, notebook_path.name)
        module = add_entry(args.lesson, args.id, args.template)
        notebook = add_cells(args.lesson, args.id, args.after)
    except (ValueError, OSError) as error:
        print(f"python -m helpers.exercises.new: error: {error}", file=sys.stderr)
        return 2
    print(f"added {args.id}: its entry at the end of {module.relative_to(PROJECT_ROOT)}, its cells in "
          f"{notebook.relative_to(PROJECT_ROOT)}. Now replace every TODO, then run: pytest -n 2 -m core")
    return 0


if __name__ == "__main__":
    sys.exit(main())
