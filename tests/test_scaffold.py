"""The contributor's scaffold: ``python -m helpers.exercises.new`` writes an exercise the quick tests accept."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.test_lesson_cells import exercise_cell_problems

ROOT = Path(__file__).resolve().parent.parent


def project_copy(folder: Path) -> Path:
    for name in ("helpers", "notebooks", "data"):
        shutil.copytree(ROOT / name, folder / name, ignore=shutil.ignore_patterns("__pycache__", "*.xlsx"))
    return folder


def run(folder: Path, *arguments: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(folder), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, *arguments], capture_output=True, text=True, timeout=120, cwd=folder,
                          env=env)


def test_the_scaffold_writes_an_entry_and_its_cells_that_pass_the_quick_checks(tmp_path):
    folder = project_copy(tmp_path)
    done = run(folder, "-m", "helpers.exercises.new", "03", "sheet-new", "--after", "sheet-ndcg3")
    assert done.returncode == 0, done.stderr
    assert "replace every TODO" in done.stdout
    said = run(folder, "-c", """
import json
from helpers.exercises import REGISTRY, check, exercises_of
found = REGISTRY["sheet-new"]
value = found.worked().value
print(json.dumps({"ids": [e.id for e in exercises_of("03")], "right": check("sheet-new", f"{value:.3f}").correct,
                  "kind": found.kind, "name": getattr(found, "name", "")}))
""")
    assert said.returncode == 0, said.stderr
    result = json.loads(said.stdout)
    assert result["right"] and result["ids"][-1] == "sheet-new"
    cells = json.loads(next((folder / "notebooks").glob("03_*.ipynb")).read_text())["cells"]

    class Registered:
        id, kind, name = "sheet-new", result["kind"], result["name"]

    assert exercise_cell_problems(cells, [Registered]) == []
    sources = ["".join(cell["source"]) for cell in cells if cell["metadata"].get("tags") == ["exercise"]]
    numbered = [text.split(".", 1)[0] for text in sources if text.startswith("**") and text[2].isdigit()]
    assert numbered[:4] == ["**1", "**2", "**3", "**4"], "the new one is 2, the ones after it renumbered"
    ids = [cell.get("id") for cell in cells]
    assert len(set(ids)) == len(ids)


def test_the_scaffold_refuses_before_writing_anything(tmp_path):
    folder = project_copy(tmp_path)
    before = (folder / "helpers" / "exercises" / "lessons" / "lesson03.py").read_text()
    for arguments, said in [(["03", "sheet-ndcg3"], "already registers"), (["03", "x-new", "--after", "nope"],
                            "no answer cell of 'nope'"), (["42", "x-new"], "no notebook"), (["03", "Bad Id"], "id")]:
        done = run(folder, "-m", "helpers.exercises.new", *arguments)
        assert done.returncode == 2 and said in done.stderr, (arguments, done.stderr)
    assert (folder / "helpers" / "exercises" / "lessons" / "lesson03.py").read_text() == before
