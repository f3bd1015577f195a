"""The learners' notebooks in a submissions folder: who handed in what, read once before any notebook runs.

Layout: ``SUBMISSIONS/<learner>/<any name>.ipynb`` (one folder per learner,
as the collection from JupyterHub homes writes it) or
``SUBMISSIONS/<learner>.ipynb`` (one notebook per learner). Jupyter's
``.ipynb_checkpoints`` copies are skipped. Every file is read (and its SHA-256
taken) before grading starts, so a notebook that changes a neighbour's file
cannot change what that neighbour is graded on.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from helpers.exercises import REGISTRY

if TYPE_CHECKING:  # nbformat itself is imported when first needed: it takes seconds (jsonschema)
    from nbformat import NotebookNode

CHECK_CALL = re.compile(r"""\bcheck(?:_function)?\(\s*["']([a-z0-9-]+)["']""")
LESSON_IN_NAME = re.compile(r"^(\d{2})(?:[_\- .]|$)")


@dataclass(frozen=True)
class Submission:
    """One notebook handed in: where, by whom, and its bytes as read before grading."""

    path: Path
    learner: str
    notebook: str
    data: bytes

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


def find_notebooks(folder: Path) -> list[Path]:
    """Every .ipynb under folder, sorted, without Jupyter's checkpoint copies."""
    return sorted(
        path for path in folder.rglob("*.ipynb") if ".ipynb_checkpoints" not in path.parts and path.is_file()
    )


def learner_of(relative: Path) -> str:
    """The learner: the first folder of the path inside SUBMISSIONS, or the file name for a loose notebook."""
    return relative.parts[0] if len(relative.parts) > 1 else relative.stem


def read_submissions(folder: Path) -> list[Submission]:
    """Read every notebook under folder now (an unreadable one keeps empty bytes and fails as invalid)."""
    found = []
    for path in find_notebooks(folder):
        relative = path.relative_to(folder)
        try:
            data = path.read_bytes()
        except OSError:
            data = b""
        found.append(Submission(path, learner_of(relative), relative.as_posix(), data))
    return found


def read_notebook(data: bytes) -> NotebookNode:
    """Parse and validate notebook bytes; ValueError with a readable reason."""
    import nbformat

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"the file is not UTF-8 text ({error.reason})") from None
    try:
        notebook = nbformat.reads(text, as_version=4)
        nbformat.validate(notebook)
    except Exception as error:  # nbformat raises several unrelated types for a broken file
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise ValueError(f"not a valid notebook: {reason[:200]}") from None
    return notebook


def checked_ids(notebook: NotebookNode) -> list[str]:
    """The exercise ids its code cells pass to check / check_function, in order."""
    return [match for cell in notebook.cells if cell.cell_type == "code" for match in CHECK_CALL.findall(cell.source)]


def lessons_of(notebook: NotebookNode, name: str) -> list[str]:
    """The lessons a notebook is graded on: the release's mark, its file name ('01_...'), the ids its cells check.

    All three count, so editing the mark or renaming the file does not drop a lesson's exercises.
    """
    found = []
    marked = notebook.metadata.get("helpers", {}).get("lesson")
    if isinstance(marked, str) and marked:
        found.append(marked)
    named = LESSON_IN_NAME.match(Path(name).name)
    if named:
        found.append(named.group(1))
    checked = Counter(REGISTRY[i].lesson for i in checked_ids(notebook) if i in REGISTRY)
    found += [lesson for lesson, _ in checked.most_common()]
    return list(dict.fromkeys(found))


def lesson_of(notebook: NotebookNode, name: str) -> str:
    """The notebook's own lesson (the first of :func:`lessons_of`), or ''."""
    return next(iter(lessons_of(notebook, name)), "")
