"""Cell roles, given by cell tags: what the classroom view, the release and the grader read.

Every lesson cell carries one role tag: ``setup`` (runs first, unseen in the
classroom), ``lesson``, ``exercise``, ``solution`` or ``classroom``. A cell
without one is a lesson cell. The classroom template reads the same rule in
Jinja (``voila/templates/classroom/index.html.j2``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

ROLES = ("setup", "lesson", "exercise", "solution", "classroom")


def role_of(cell: Mapping[str, Any]) -> str:
    """The role of a cell: its first tag that is a role, 'lesson' when it has none."""
    tags = cell.get("metadata", {}).get("tags") or []
    return next((tag for tag in tags if tag in ROLES), "lesson")


def without_roles(notebook: Any, roles: Collection[str]) -> Any:
    """The notebook with the cells of ``roles`` left out (the one rule of the release, the classroom and the site).

    >>> from nbformat.v4 import new_code_cell, new_notebook
    >>> lesson = new_notebook(cells=[new_code_cell("1", metadata={"tags": ["solution"]}), new_code_cell("2")])
    >>> [cell.source for cell in without_roles(lesson, {"solution"}).cells]
    ['2']
    """
    notebook.cells = [cell for cell in notebook.cells if role_of(cell) not in roles]
    return notebook
