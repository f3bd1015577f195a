"""The learners' notebooks in a submissions folder: who handed in what, read once before any notebook runs.

Layout: ``SUBMISSIONS/<learner>/<any name>.ipynb`` (one folder per learner,
as the collection from JupyterHub homes writes it) or
``SUBMISSIONS/<learner>.ipynb`` (one notebook per learner). Jupyter's
``.ipynb_checkpoints`` copies are skipped. Every file is read (and its SHA-256
taken) before grading starts, so a notebook that changes a neighbour's file
cannot change what that neighbour is graded on.

The folder is not trusted: a symbolic link (to a file or a folder), a device or
a pipe is never followed nor read; it becomes a hand-in with the problem
``not-a-file``, named in the report. A hand-in is sized before it is parsed:
over :data:`MAX_HAND_IN_BYTES` (its size, before a byte is read) or
:data:`MAX_CELLS` cells (counted in its bytes, without nbformat) it is
``too-large`` and never parsed (:func:`too_large`). The learner is exactly the folder's or the
file's name, as on the roster (compared in Unicode NFC).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import unicodedata
import warnings
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from helpers.exercises import REGISTRY
from helpers.exercises.calls import ids_checked
from helpers.teacher.files import open_plain

if TYPE_CHECKING:  # nbformat itself is imported when first needed: it takes seconds (jsonschema)
    from nbformat import NotebookNode

MAX_HAND_IN_BYTES = 50 * 1024**2  # a lesson's notebook is well under 1 MB
MAX_CELLS = 5000  # a lesson has about 60
LESSON_IN_NAME = re.compile(r"^(\d{2})(?:[_\- .]|$)")


@dataclass(frozen=True)
class Submission:
    """One notebook handed in: where, by whom, and its bytes as read before grading."""

    path: Path
    learner: str
    notebook: str
    data: bytes
    refused: str = ""  # why the file was not read (a link, a device, a pipe), or ''
    too_large: str = ""  # why the file is over a cap and is not parsed, or ''
    digest: str = ""  # the SHA-256 of a file too large to be kept (its data is then b'')

    @property
    def sha256(self) -> str:
        return self.digest or hashlib.sha256(self.data).hexdigest()


def find_notebooks(folder: Path) -> list[Path]:
    """Every entry named *.ipynb under folder, sorted, links included but never followed; no checkpoint copies."""
    found = []
    for current, folders, files in os.walk(folder):  # os.walk does not follow linked folders
        folders[:] = sorted(name for name in folders if name != ".ipynb_checkpoints")
        linked = [name for name in folders if os.path.islink(os.path.join(current, name))]
        found += [Path(current) / name for name in [*files, *linked] if name.endswith(".ipynb")]
        found += [Path(current) / name / "(a linked folder)" for name in linked if not name.endswith(".ipynb")]
    return sorted(found)


def learner_of(relative: Path) -> str:
    """The learner: the first folder of the path inside SUBMISSIONS, or the file name for a loose notebook.

    In Unicode NFC, as roster ids are compared (a zip made on macOS spells é as e and a combining accent).
    """
    return unicodedata.normalize("NFC", relative.parts[0] if len(relative.parts) > 1 else relative.stem)


def not_a_file(path: Path) -> str:
    """Why a hand-in is not read: '' for a plain file, else what it is (looked at without following links)."""
    try:
        mode = path.lstat().st_mode
    except OSError as error:
        return f"it cannot be looked at ({error.strerror})"
    if stat.S_ISLNK(mode):
        return "it is a symbolic link: hand in the file itself"
    if stat.S_ISDIR(mode):
        return "it is a folder, not a notebook file"
    if not stat.S_ISREG(mode):
        return "it is a device, a pipe or a socket, not a notebook file"
    return ""


def read_submissions(folder: Path) -> list[Submission]:
    """Read every notebook under folder now; a link, device or pipe is refused unread (see the module docstring)."""
    found = []
    for path in find_notebooks(folder):
        relative = path.relative_to(folder)
        if path.name == "(a linked folder)":
            said = "it is a symbolic link to a folder: its notebooks were not read"
            found.append(Submission(path.parent, relative.parts[0], relative.parent.as_posix(), b"", said))
            continue
        linked = [part for part in _folders_between(folder, path) if part.is_symlink()]
        refused = "it is inside a symbolic link to a folder" if linked else not_a_file(path)
        if refused:
            found.append(Submission(path, learner_of(relative), relative.as_posix(), b"", refused))
            continue
        found.append(read_hand_in(path, learner_of(relative), relative.as_posix()))
    return found


def read_hand_in(path: Path, learner: str, notebook: str) -> Submission:
    """A plain file's hand-in, sized first: over :data:`MAX_HAND_IN_BYTES` only its digest is taken."""
    try:
        file = open_plain(path)
    except OSError:
        return Submission(path, learner, notebook, b"")
    with file:
        status = os.fstat(file.fileno())
        if status.st_size > MAX_HAND_IN_BYTES:
            digest = hashlib.sha256()
            while chunk := file.read(1024**2):
                digest.update(chunk)
            said = f"{status.st_size / 1024**2:.0f} MB: over the grader's cap of {MAX_HAND_IN_BYTES // 1024**2} MB"
            return Submission(path, learner, notebook, b"", too_large=said, digest=digest.hexdigest())
        data = file.read()
    return Submission(path, learner, notebook, data, too_large=too_large(data))


def too_large(data: bytes) -> str:
    """'' for a hand-in within the caps, else why not: over :data:`MAX_HAND_IN_BYTES`, or :data:`MAX_CELLS` cells.

    Cells are counted without nbformat: a cell's ``"cell_type"`` key can only be written so in JSON (a quote
    inside a string is escaped), so the count of those bytes bounds the number of cells; only past the cap is
    the JSON read (not validated) to count them exactly.
    """
    if len(data) > MAX_HAND_IN_BYTES:
        return f"{len(data) / 1024**2:.0f} MB: over the grader's cap of {MAX_HAND_IN_BYTES // 1024**2} MB"
    if data.count(b'"cell_type"') <= MAX_CELLS:
        return ""
    try:
        cells = json.loads(data).get("cells")
    except (ValueError, AttributeError, RecursionError):
        return ""  # not a notebook: invalid-notebook when it is parsed
    if isinstance(cells, list) and len(cells) > MAX_CELLS:
        return f"{len(cells):,} cells: over the grader's cap of {MAX_CELLS:,}"
    return ""


def _folders_between(folder: Path, path: Path) -> list[Path]:
    """The folders between ``folder`` and ``path``."""
    parts = path.relative_to(folder).parts
    return [folder.joinpath(*parts[: i + 1]) for i in range(len(parts) - 1)]


def read_plain(path: Path) -> bytes:
    """The bytes of a plain file, opened without following a link (a file swapped for one since is refused);
    b'' past :data:`MAX_HAND_IN_BYTES`, unread (as :func:`read_hand_in` keeps such a hand-in)."""
    try:
        file = open_plain(path)
    except OSError:
        return b""
    with file:
        return b"" if os.fstat(file.fileno()).st_size > MAX_HAND_IN_BYTES else file.read()


def read_notebook(data: bytes, warned: list[str] | None = None) -> NotebookNode:
    """Parse and validate notebook bytes; ValueError with a readable reason.

    nbformat's warnings about the file (a duplicate cell id it repaired, ...) go into ``warned``, never to the
    teacher's terminal.
    """
    import nbformat
    from nbformat.warnings import MissingIDFieldWarning

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"the file is not UTF-8 text ({error.reason})") from None
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            # cells without ids (a hand-edited or older notebook): nbformat adds them; its warning is about its
            # own future, not the hand-in
            warnings.simplefilter("ignore", MissingIDFieldWarning)
            notebook = nbformat.reads(text, as_version=4)
            nbformat.validate(notebook)
    except Exception as error:  # nbformat raises several unrelated types for a broken file
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise ValueError(f"not a valid notebook: {reason[:200]}") from None
    if warned is not None:
        warned += list(dict.fromkeys(str(warning.message)[:200] for warning in caught))
    return notebook


def peek_notebook(data: bytes) -> NotebookNode | None:
    """The notebook's JSON as attribute-access nodes, not converted nor validated (None when it is not one):
    enough for its metadata and cell sources, without nbformat's checks (a rerun, the read ahead)."""
    from nbformat import from_dict

    try:
        found = json.loads(data)
    except (ValueError, RecursionError):
        return None
    if not isinstance(found, dict) or not isinstance(found.get("cells"), list):
        return None
    if not all(isinstance(cell, dict) for cell in found["cells"]) or not isinstance(found.get("metadata", {}), dict):
        return None
    found.setdefault("metadata", {})
    for cell in found["cells"]:
        source = cell.get("source", "")
        cell["source"] = "".join(source) if isinstance(source, list) else str(source)
        cell.setdefault("cell_type", "")
    return from_dict(found)


def checked_ids(notebook: NotebookNode) -> list[str]:
    """The exercise ids its code cells pass to check / check_function, in order."""
    return [found for cell in notebook.cells if cell.cell_type == "code" for found in ids_checked(cell.source)]


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


def lessons_of_name(name: str) -> list[str]:
    """The lesson a hand-in's file name gives ('03_...ipynb' -> ['03']), or []."""
    named = LESSON_IN_NAME.match(Path(name).name)
    return [named.group(1)] if named else []


def lesson_of(notebook: NotebookNode, name: str) -> str:
    """The notebook's own lesson (the first of :func:`lessons_of`), or ''."""
    return next(iter(lessons_of(notebook, name)), "")
