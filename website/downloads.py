"""What the website offers to download (issue 50): the whole collection as a zip, and lessons that work away from it.

- :func:`write_collection_zip`: what the README's first command needs (the lessons, ``helpers/``, ``data/``,
  ``jupyter-config/``, ``pyproject.toml``, the requirement files, the README and the licence files), in one
  folder inside a zip, the lessons' check given the repository's address;
- :func:`standalone_lesson`: a lesson's downloadable copy (``_sources/notebooks/*.ipynb``), its address written
  into the setup cell's check and no link that works only on the site;
- :func:`link_the_zip`: each lesson page's download menu offers the zip beside the lesson's ``.ipynb``.
"""

from __future__ import annotations

import posixpath
import re
import zipfile
from pathlib import Path
from typing import Any

import nbformat
from bs4 import BeautifulSoup

from helpers.collection import NAME, with_repository

ROOT = Path(__file__).resolve().parent.parent
ZIP_NAME = f"{NAME}.zip"
# the folders and files the README's first command reads (tests/test_lesson_opening.py checks it works)
COLLECTION = ("check_python.py", "notebooks", "helpers", "data", "jupyter-config", "pyproject.toml", "requirements.txt",
              "requirements-test.txt", "requirements-site.txt", "README.md", "LICENSE", "LICENSE-CC-BY-4.0.txt")
LEFT_OUT = ("__pycache__", ".ipynb_checkpoints")
# where a control's note sends the reader to set up the collection: the site's home page
SITE_SET_UP = '<a href="../index.html#set-up-two-commands">set up the collection</a>'
# a Markdown link to a relative address (not a scheme, not an anchor)
RELATIVE_LINK = re.compile(r"(?<!!)\[([^\]\n]*)\]\((?![a-z][a-z0-9+.-]*:|#)([^)\s]+)\)")


def collection_files(root: Path = ROOT) -> list[Path]:
    """The collection's files the zip holds, as paths relative to ``root``, in order."""
    files = []
    for name in COLLECTION:
        top = root / name
        for path in sorted([top] if top.is_file() else top.rglob("*")):
            if path.is_file() and not any(part in LEFT_OUT or part.endswith(".egg-info") for part in path.parts):
                files.append(path.relative_to(root))
    return files


def with_address(lesson: Any, address: str | None) -> Any:
    """The lesson's setup cell given the repository's address (its check installs from it in Colab or Kaggle)."""
    for cell in lesson.cells:
        if cell.cell_type == "code" and "setup" in cell.metadata.get("tags", []):
            cell.source = with_repository(cell.source, address)
            return lesson
    raise ValueError("the lesson has no setup cell")


def write_collection_zip(out: Path, address: str | None, root: Path = ROOT) -> Path:
    """``out/ranking-metrics-by-hand.zip``: the collection in a folder of that name, the lessons given ``address``."""
    target = out / ZIP_NAME
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for relative in collection_files(root):
            name = f"{NAME}/{relative.as_posix()}"
            if relative.parts[0] == "notebooks" and relative.suffix == ".ipynb":
                lesson = with_address(nbformat.read(root / relative, as_version=4), address)
                archive.writestr(name, nbformat.writes(lesson) + "\n")
            else:
                archive.write(root / relative, name)
    return target


def standalone_lesson(lesson: Any, address: str | None) -> Any:
    """A lesson as the site offers it for download: its address written in, no link that only works on the site.

    The site's "set up the collection" link becomes the repository's README (or plain words without an address);
    with an address, relative links (other lessons) lead to the repository; without one they stay, and work in
    the unpacked zip.
    """
    set_up = "set up the collection"
    if address:
        set_up = f'<a href="{address}#set-up-two-commands">{set_up}</a>'
    for cell in with_address(lesson, address).cells:
        if cell.cell_type == "markdown" and address:
            cell.source = RELATIVE_LINK.sub(
                lambda m: f"[{m.group(1)}]({address}/blob/HEAD/{posixpath.normpath('notebooks/' + m.group(2))})",
                cell.source,
            )
        for output in cell.get("outputs", []):
            drawn = output.get("data", {}).get("text/html")
            if isinstance(drawn, str) and SITE_SET_UP in drawn:
                output["data"]["text/html"] = drawn.replace(SITE_SET_UP, f"{set_up} (the README's two commands)")
    return lesson


def link_the_zip(page: str, zip_href: str) -> str:
    """A lesson page with the whole collection's zip offered in its download menu, beside its ``.ipynb``."""
    soup = BeautifulSoup(page, "html.parser")
    notebook = soup.find("a", href=re.compile(r"_sources/.*\.ipynb$"))
    if notebook is None:
        raise ValueError("the page offers no .ipynb to download")
    item = notebook.find_parent("li") or notebook
    offered = BeautifulSoup(
        f'<li><a href="{zip_href}" class="btn btn-sm dropdown-item collection-zip" download '
        'title="The whole collection: the lessons, helpers/ and data/ (then the README\'s first command)">'
        '<span class="btn__text-container">whole collection (.zip)</span></a></li>', "html.parser")
    item.insert_after(offered if item.name == "li" else offered.li or offered)
    return str(soup)


def offer_downloads(html_folder: Path, address: str | None) -> Path:
    """In a built site: the collection's zip, standalone downloadable lessons, every lesson page linking the zip."""
    archive = write_collection_zip(html_folder, address)
    for source in sorted((html_folder / "_sources" / "notebooks").glob("*.ipynb")):
        lesson = standalone_lesson(nbformat.read(source, as_version=4), address)
        nbformat.write(lesson, source)
    for page in sorted((html_folder / "notebooks").glob("*.html")):
        page.write_text(link_the_zip(page.read_text(encoding="utf-8"), f"../{ZIP_NAME}"), encoding="utf-8")
    return archive
