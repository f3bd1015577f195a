"""Committed notebooks hold no outputs, execution counts or widget state, and follow the lesson shape."""

import json
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks():
    assert NOTEBOOKS, "no notebooks found in notebooks/"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_committed_clean(path):
    notebook = json.loads(path.read_text(encoding="utf-8"))
    assert "widgets" not in notebook.get("metadata", {}), "widget state saved in metadata"
    for number, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] == "code":
            assert cell.get("outputs") == [], f"cell {number} has outputs"
            assert cell.get("execution_count") is None, f"cell {number} has an execution count"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_opens_with_title_and_one_line(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    first = "".join(cells[0]["source"])
    assert cells[0]["cell_type"] == "markdown" and first.startswith("# "), "first cell must be a '# title'"
    lines = [line for line in first.splitlines()[1:] if line.strip()]
    assert lines and lines[0].startswith("*") and lines[0].endswith("*"), (
        "title needs one italic line below it"
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_read_the_code_links_name_real_functions_in_real_files(path):
    import importlib
    import re

    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        text = "".join(cell["source"])
        if "*Read the code:*" not in text:
            continue
        line = text.split("*Read the code:*", 1)[1]
        for target in re.findall(r"\]\((\.\./helpers/\w+\.py)\)", line):
            assert (path.parent / target).resolve().is_file(), target
        for module, name in re.findall(r"`(metrics|mistakes)\.(\w+)`", line):
            assert hasattr(importlib.import_module(f"helpers.{module}"), name), (module, name)


def test_most_lessons_link_the_code_they_rebuild():
    linked = [path for path in NOTEBOOKS if "*Read the code:*" in path.read_text(encoding="utf-8")]
    assert len(linked) >= 7
