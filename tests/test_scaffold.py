"""The contributor's scaffold: ``python -m helpers.exercises.new`` puts the exercise where it is asked, numbered,
ruff-clean, and the quick tests accept it once its TODOs are replaced."""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.exercises import new
from tests.test_lesson_cells import exercise_cell_problems

ROOT = Path(__file__).resolve().parent.parent
RUFF = Path(sys.executable).parent / "ruff"
NUMBER = re.compile(r"^\*\*(\d+)\. ")


def project_copy(folder: Path, names=("helpers", "notebooks", "data", "pyproject.toml")) -> Path:
    for name in names:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, folder / name, ignore=shutil.ignore_patterns("__pycache__", "*.xlsx"))
        else:
            shutil.copy(ROOT / name, folder / name)
    return folder


def run(folder: Path, *arguments: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(folder), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, *arguments], capture_output=True, text=True, timeout=120, cwd=folder,
                          env=env)


def exercise_items(folder: Path, lesson: str) -> list[tuple[int | None, str]]:
    """(number, exercise id or '') of each exercise question cell of a lesson, in the notebook's order."""
    cells = json.loads(next((folder / "notebooks").glob(f"{lesson}_*.ipynb")).read_text(encoding="utf-8"))["cells"]
    items = []
    for index, cell in enumerate(cells):
        text = "".join(cell["source"])
        if cell["cell_type"] == "markdown" and cell["metadata"].get("tags") == ["exercise"]:
            found = NUMBER.match(text)
            following = "".join(cells[index + 1]["source"]) if index + 1 < len(cells) else ""
            checked = re.search(r'check(?:_function)?\("([a-z0-9-]+)"', following)
            items.append((int(found.group(1)) if found else None, checked.group(1) if checked else ""))
    return items


def registered_order(folder: Path, lesson: str) -> list[str]:
    """The ids a lesson module registers, in the order it registers them (read without running it)."""
    tree = ast.parse((folder / "helpers" / "exercises" / "lessons" / f"lesson{lesson}.py").read_text())
    return [
        node.value.value
        for node in ast.walk(tree)
        if isinstance(node, ast.keyword) and node.arg == "id" and isinstance(node.value, ast.Constant)
    ]


@pytest.mark.slow  # fresh Pythons: the scaffold command and ruff
def test_the_guides_example_follows_its_exercise_numbered_ruff_clean_and_registered(tmp_path):
    folder = project_copy(tmp_path)
    before = [(number, found) for number, found in exercise_items(folder, "03") if number is not None]
    done = run(folder, "-m", "helpers.exercises.new", "03", "x-guide-example", "--after", "sheet-ndcg3",
               "--template", "dcg")
    assert done.returncode == 0, done.stderr
    assert "as exercise 2, after sheet-ndcg3" in done.stdout and "replace every TODO" in done.stdout
    numbered = [(number, found) for number, found in exercise_items(folder, "03") if number is not None]
    assert numbered[:2] == [(1, "sheet-ndcg3"), (2, "x-guide-example")], numbered
    assert numbered[2:] == [(number + 1, found) for number, found in before[1:]], "the later ones renumbered"
    module = folder / "helpers" / "exercises" / "lessons" / "lesson03.py"
    linted = subprocess.run([str(RUFF), "check", "--no-cache", str(module)], capture_output=True, text=True,
                            cwd=folder, timeout=60)
    assert linted.returncode == 0, linted.stdout
    said = run(folder, "-c", """
import json
from helpers.exercises import REGISTRY, check, exercises_of
found = REGISTRY["x-guide-example"]
print(json.dumps({"ids": [e.id for e in exercises_of("03")], "kind": found.kind,
                  "right": check("x-guide-example", f"{found.worked().value:.3f}").correct}))
""")
    assert said.returncode == 0, said.stderr
    result = json.loads(said.stdout)
    assert result["ids"] == [found for _, found in numbered if found], "registered in the notebook's order"
    assert result["ids"][:2] == ["sheet-ndcg3", "x-guide-example"]
    assert result["right"]
    cells = json.loads(next((folder / "notebooks").glob("03_*.ipynb")).read_text())["cells"]

    class Registered:
        id, kind, name = "x-guide-example", result["kind"], ""

    assert exercise_cell_problems(cells, [Registered]) == []
    ids = [cell.get("id") for cell in cells]
    assert len(set(ids)) == len(ids)


@pytest.fixture()
def lessons_copy(tmp_path, monkeypatch):
    """The lesson modules and notebooks copied; the scaffold run in this process, on the copy."""
    (tmp_path / "helpers" / "exercises").mkdir(parents=True)
    shutil.copytree(ROOT / "helpers" / "exercises" / "lessons", tmp_path / "helpers" / "exercises" / "lessons",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "notebooks", tmp_path / "notebooks")
    monkeypatch.setattr(new, "PROJECT_ROOT", tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    "lesson, after",
    [("03", "sheet-ndcg3"), ("03", "kb04-graded-2"), ("04", "advisor-mrr2"), ("05", "lab-swap-ndcg3"),
     ("05", "lab-ndcg5-linear"), ("01", "mrr-function"), ("09", None)],
)
def test_the_new_exercise_follows_its_own_exercise_and_the_later_ones_are_renumbered(lessons_copy, lesson, after):
    before = exercise_items(lessons_copy, lesson)
    arguments = [lesson, "x-new", *(["--after", after] if after else [])]
    assert new.main(arguments) == 0
    items = exercise_items(lessons_copy, lesson)
    previous = after or [found for _, found in before if found][-1]
    number = next(n for n, found in before if found == previous) + 1  # one more than the exercise it follows
    at = [found for _, found in items].index("x-new")
    assert items[at][0] == number, items
    assert items[at - 1][1] == previous, "right after the question of the exercise it follows"
    later = [(n + 1 if n is not None and n >= number else n, found) for n, found in before[at:]]
    assert items[at + 1:] == later, "the exercises after it renumbered by one"
    order = registered_order(lessons_copy, lesson)
    assert order[order.index("x-new") - 1] == previous, "registered right after it too"


def test_the_scaffold_refuses_before_writing_anything(lessons_copy, capsys):
    module = lessons_copy / "helpers" / "exercises" / "lessons" / "lesson03.py"
    before = module.read_text()
    for arguments, said in [(["03", "sheet-ndcg3"], "already registers"),
                            (["03", "x-new", "--after", "nope"], "no answer cell of 'nope'"),
                            (["03", "x-new", "--after", "sheet-ndcg"], "its checked exercises: sheet-ndcg3"),
                            (["42", "x-new"], "no notebook"), (["03", "Bad Id"], "id")]:
        assert new.main(arguments) == 2
        assert said in capsys.readouterr().err, arguments
    assert module.read_text() == before


def closing_of(folder: Path, lesson: str) -> list[tuple[str, str, list]]:
    """(cell type, source, tags) of the lesson's cells from its "More practice" cell to its last exercise cell."""
    cells = json.loads(next((folder / "notebooks").glob(f"{lesson}_*.ipynb")).read_text(encoding="utf-8"))["cells"]
    shown = [(cell["cell_type"], "".join(cell["source"]), cell["metadata"].get("tags")) for cell in cells]
    start = next(index for index, (_, source, _) in enumerate(shown) if new.CLOSING in source)
    end = max(index for index, (_, _, tags) in enumerate(shown) if tags == ["exercise"])
    return shown[start: end + 1]


def without_cells(folder: Path, lesson: str, *words: str) -> None:
    """The lesson's notebook in ``folder`` without the cells holding any of ``words``."""
    path = next((folder / "notebooks").glob(f"{lesson}_*.ipynb"))
    notebook = json.loads(path.read_text(encoding="utf-8"))
    notebook["cells"] = [cell for cell in notebook["cells"] if not any(w in "".join(cell["source"]) for w in words)]
    path.write_text(json.dumps(notebook), encoding="utf-8")


@pytest.mark.parametrize("removed", [(new.CLOSING, "progress(lesson="), ("progress(lesson=",), ()],
                         ids=["both-missing", "progress-cell-missing", "both-there"])
def test_the_scaffold_closes_the_lessons_exercises_with_more_practice_and_the_progress_cell(lessons_copy, removed):
    without_cells(lessons_copy, "04", *removed)
    assert new.main(["04", "x-new"]) == 0
    closing = closing_of(lessons_copy, "04")
    if new.CLOSING in removed:
        assert closing[0] == ("markdown", new.CLOSING_NOTE, ["exercise"])
    assert closing[1:] == [("code", 'from helpers.exercises import progress\n\nprogress(lesson="04")', ["exercise"])]
    items = [found for _, found in exercise_items(lessons_copy, "04")]
    assert items.index("x-new") < len(items) - 1, "the new exercise goes before the closing cells"
    cells = json.loads(next((lessons_copy / "notebooks").glob("04_*.ipynb")).read_text(encoding="utf-8"))["cells"]
    assert len({cell["id"] for cell in cells}) == len(cells)
