"""The collection itself: its name, its public address and its optional part (every lesson's setup cell; lesson 00).

Every lesson's setup cell opens with the same check: ``helpers.collection.NAME`` must be this collection's
name, else the lesson stops there and says how to get the collection (an unrelated package named
``helpers`` has no such module). Lesson 08 calls :func:`need_lessons_extra` before it imports the
libraries it compares with.
"""

from __future__ import annotations

import importlib.util
import re
import tomllib
from pathlib import Path

NAME = "ranking-metrics-by-hand"
TITLE = "Ranking metrics by hand"
# the libraries lesson 08 compares the helpers with (import name: distribution), from the `lessons` extra
LESSONS_EXTRA = {"ir_measures": "ir-measures", "pytrec_eval": "pytrec-eval-terrier", "sklearn": "scikit-learn"}
ROOT = Path(__file__).resolve().parent.parent
# the notebooks' line that holds the address (the setup cell's check): empty in the repository
REPOSITORY_LINE = re.compile(r'^REPOSITORY = "[^"\n]*"', re.MULTILINE)


class LessonNeeds(Exception):
    """What a lesson needs and how to get it; IPython shows the message alone, with no traceback."""

    def _render_traceback_(self) -> list[str]:
        return [str(self)]


def need_lessons_extra(lesson: str = "08") -> None:
    """Stop lesson 08's setup, naming what is missing, when the ``lessons`` extra is not installed."""
    missing = [dist for module, dist in LESSONS_EXTRA.items() if importlib.util.find_spec(module) is None]
    if missing:
        raise LessonNeeds(
            f"Lesson {lesson} compares the helpers with {', '.join(LESSONS_EXTRA.values())}; this Python lacks "
            f"{', '.join(missing)}. They come with the collection's `lessons` extra: from the collection's folder, "
            '`pip install ".[lessons]"` (the README\'s first command installs them too), then restart the kernel.'
        )


def repository_address(pyproject: Path | None = None) -> str | None:
    """The collection's public address: ``Repository`` in pyproject.toml's ``[project.urls]``, or None."""
    path = pyproject or ROOT / "pyproject.toml"
    if not path.is_file():
        return None
    urls = tomllib.loads(path.read_text(encoding="utf-8")).get("project", {}).get("urls", {})
    address = urls.get("Repository")
    return address.rstrip("/") if isinstance(address, str) and address.strip() else None


def with_repository(source: str, address: str | None) -> str:
    """A setup cell's source with ``address`` written into its ``REPOSITORY`` line (empty for None)."""
    if '"' in (address or "") or "\n" in (address or ""):
        raise ValueError(f"not a repository address: {address!r}")
    if not REPOSITORY_LINE.search(source):
        raise ValueError("the setup cell has no REPOSITORY line (the collection's check)")
    return REPOSITORY_LINE.sub(f'REPOSITORY = "{address or ""}"', source, count=1)


def write_address_into_lessons(notebooks: Path | None = None) -> list[Path]:
    """Write pyproject.toml's ``Repository`` into every lesson's check (``python -m helpers.collection``)."""
    import nbformat

    address, changed = repository_address(), []
    for path in sorted((notebooks or ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        lesson = nbformat.read(path, as_version=4)
        setup = next(
            cell for cell in lesson.cells if cell.cell_type == "code" and "setup" in cell.metadata.get("tags", [])
        )
        written = with_repository(setup.source, address)
        if written != setup.source:
            setup.source = written
            nbformat.write(lesson, path)
            changed.append(path)
    return changed


if __name__ == "__main__":
    for changed_path in write_address_into_lessons():
        print(f"wrote the address into {changed_path.name}")
