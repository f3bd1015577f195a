"""The collection as a website: ``python -m website.build`` writes ``site/`` (open ``site/index.html``).

What it does, in a temporary folder (nothing in the repository is changed):

1. copies the README (the home page: what the collection is, the set-up, the
   lesson map), the guides in ``docs/`` and ``benchmarks/README.md``;
2. runs every lesson once, top to bottom, as the repository has it (a practice
   copy: every exercise 'not answered yet'), with its ``solution`` cells left
   out before the run (``helpers.teacher.roles``), two lessons at a time;
3. replaces each ipywidgets control by a static drawing of its state after
   the cell that shows it (``website/snapshot.py``), with a note saying where to
   run it live (the set-up commands, or Binder);
4. turns links to files the site does not hold (``../helpers/metrics.py``) into
   links to the repository (``repository.url`` in ``website/_config.yml``);
5. builds the pages with Jupyter Book 1.x (``website/_config.yml``), maths as
   MathML, and copies them to ``site/`` (or ``--out``).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path, PurePosixPath
from typing import Any

import nbformat
from nbclient import NotebookClient

from helpers.teacher.roles import role_of
from website.snapshot import WIDGET_VIEW, image_sources, snapshot

ROOT = Path(__file__).resolve().parent.parent
HERE = ROOT / "website"
GUIDES = ("docs/learners.md", "docs/teachers.md", "docs/contributors.md", "benchmarks/README.md")
LEFT_OUT = ("solution",)  # cell roles the website never shows, nor runs
LINK = re.compile(r"(\]\()([^)\s]+)(\))")


def lessons() -> list[str]:
    """The lessons' paths in the repository, in order (``notebooks/00_start_here.ipynb``, ...)."""
    return sorted(f"notebooks/{path.name}" for path in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def repository_url() -> str:
    """The repository's address, from ``repository.url`` in ``website/_config.yml``."""
    text = (HERE / "_config.yml").read_text(encoding="utf-8")
    found = re.search(r"^repository:\s*\n(?:\s+#.*\n)*\s+url:\s*(\S+)", text, flags=re.M)
    if not found:
        raise SystemExit("website/_config.yml names no repository.url")
    return found.group(1).rstrip("/")


def binder_url(notebook: str) -> str:
    """The Binder launch of one lesson (JupyterLab opened on it), from the repository's GitHub address."""
    owner_and_name = urllib.parse.urlsplit(repository_url()).path.strip("/")
    return f"https://mybinder.org/v2/gh/{owner_and_name}/HEAD?labpath={urllib.parse.quote(notebook, safe='')}"


def page_of(path: str) -> str:
    """Where a repository file is in the staged book: README.md is the home page, the rest keep their paths."""
    return "index.md" if path == "README.md" else path


def rewrite_links(text: str, source: str, staged: set[str]) -> str:
    """Markdown links of ``source`` (a repository path): to staged pages kept, to other files made absolute."""
    folder = PurePosixPath(source).parent

    def replace(match: re.Match[str]) -> str:
        target = match.group(2)
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            return match.group(0)
        path, _, anchor = target.partition("#")
        resolved = os.path.normpath(str(folder / path)).replace(os.sep, "/")
        if resolved.startswith("../"):
            return match.group(0)
        if resolved in staged:
            here, there = PurePosixPath(page_of(source)).parent, page_of(resolved)
            relative = os.path.relpath(there, here).replace(os.sep, "/")
            return f"{match.group(1)}{relative}{'#' + anchor if anchor else ''}{match.group(3)}"
        kind = "tree" if (ROOT / resolved).is_dir() else "blob"
        address = f"{repository_url()}/{kind}/main/{resolved}{'#' + anchor if anchor else ''}"
        return f"{match.group(1)}{address}{match.group(3)}"

    return LINK.sub(replace, text)


class SnapshotClient(NotebookClient):
    """nbclient's runner that draws each control as it is after the cell that shows it, then forgets the widgets."""

    def __init__(self, notebook: Any, live_note: str, **kwargs: Any):
        super().__init__(notebook, store_widget_state=True, **kwargs)
        self.live_note = live_note

    async def async_execute_cell(self, cell: Any, cell_index: int, *args: Any, **kwargs: Any) -> Any:
        executed = await super().async_execute_cell(cell, cell_index, *args, **kwargs)
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get(WIDGET_VIEW)
            if view:
                models = {key: state for key, state in self.widget_state.items() if "_model_name" in state}
                drawing = snapshot(models, view["model_id"], image_sources(models, self.widget_buffers))
                output["data"] = {"text/html": f'<div class="widget-snapshot">{drawing}{self.live_note}</div>'}
        return executed


def live_note(notebook: str) -> str:
    """What a control's snapshot says under it: it is a picture; run it live after set-up, or on Binder."""
    return (
        '<p class="snapshot-note"><strong>A snapshot of the control in its first state:</strong> '
        "nothing here can be clicked. Run it live: "
        '<a href="../index.html#set-up-two-commands">set up the collection</a> (two commands) and open '
        f"this lesson in JupyterLab, or <a href=\"{binder_url(notebook)}\">launch it on Binder</a>.</p>"
    )


def site_copy(lesson: Any, notebook: str) -> Any:
    """The lesson as the site runs it: its solution cells left out, its links to repository files made absolute."""
    lesson.cells = [cell for cell in lesson.cells if role_of(cell) not in LEFT_OUT]
    staged = set(lessons()) | set(GUIDES) | {"README.md"}
    for cell in lesson.cells:
        if cell.cell_type == "markdown":
            cell.source = rewrite_links(cell.source, notebook, staged)
    return lesson


def run_lesson(notebook: str, staging: str) -> tuple[str, float]:
    """Run one lesson, solution cells left out, in the staged notebooks folder; write it there with its outputs."""
    started = time.monotonic()
    book = Path(staging)
    lesson = site_copy(nbformat.read(ROOT / notebook, as_version=4), notebook)
    client = SnapshotClient(
        lesson,
        live_note(notebook),
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str((book / notebook).parent)}},
    )
    client.execute()
    lesson.metadata.pop("widgets", None)  # drawn already: no page loads the widget manager from a CDN
    nbformat.write(lesson, book / notebook)
    return notebook, time.monotonic() - started


def toc() -> str:
    """The book's table of contents: the home page, the lessons in order, then the guides."""
    lines = ["format: jb-book", "root: index", "parts:", "  - caption: Lessons", "    chapters:"]
    lines += [f"      - file: {Path(path).with_suffix('').as_posix()}" for path in lessons()]
    lines += ["  - caption: Guides", "    chapters:"]
    lines += [f"      - file: {Path(path).with_suffix('').as_posix()}" for path in GUIDES]
    return "\n".join(lines) + "\n"


def stage(book: Path, jobs: int) -> None:
    """Everything Jupyter Book reads, in ``book``: config, contents, home page, guides, and the lessons run."""
    shutil.copy(HERE / "_config.yml", book / "_config.yml")
    shutil.copytree(HERE / "_ext", book / "_ext", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(HERE / "_static", book / "_static")
    (book / "_toc.yml").write_text(toc(), encoding="utf-8")
    staged = set(lessons()) | set(GUIDES) | {"README.md"}
    for path in ("README.md", *GUIDES):
        target = book / page_of(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        text = rewrite_links((ROOT / path).read_text(encoding="utf-8"), path, staged)
        target.write_text(text, encoding="utf-8")
    (book / "notebooks").mkdir()
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for notebook, seconds in pool.map(run_lesson, lessons(), [str(book)] * len(lessons())):
            print(f"ran {notebook} in {seconds:.1f} s", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m website.build", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "site", help="where the pages go (default: site/)")
    parser.add_argument("--jobs", type=int, default=2, help="lessons run at a time (default: 2)")
    args = parser.parse_args(argv)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="website-") as folder:
        book = Path(folder) / "book"
        book.mkdir()
        stage(book, args.jobs)
        built = Path(folder) / "built"
        command = [str(Path(sys.executable).parent / "jupyter-book"), "build", str(book), "--path-output", str(built)]
        done = subprocess.run(command, cwd=folder)
        if done.returncode != 0:
            return done.returncode
        if args.out.exists():
            shutil.rmtree(args.out)
        shutil.copytree(built / "_build" / "html", args.out)
    print(f"wrote {args.out / 'index.html'} in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
