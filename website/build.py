"""The collection as a website: ``python -m website.build`` writes ``site/`` (open ``site/index.html``).

What it does, in a temporary folder (nothing in the repository is changed):

1. copies the README (the home page: what the collection is, how to get the
   code, the set-up, the lesson map), the guides in ``docs/`` and
   ``benchmarks/README.md``;
2. runs every lesson once, top to bottom, as the repository has it (a practice
   copy: every exercise 'not answered yet'), with its ``solution`` cells left
   out before the run (``helpers.teacher.roles``), two lessons at a time;
3. replaces each ipywidgets control by a static drawing of its state after
   the cell that shows it (``website/snapshot.py``), under a note saying it is a
   picture and where to run it live (the set-up commands, or Binder);
4. takes the repository's public address from ``--repository``, or else from
   pyproject.toml's ``[project.urls] Repository``, or else from
   ``git remote get-url origin`` when that is a public GitHub address. With one,
   links to files the site does not hold (``../helpers/metrics.py``) lead there,
   and the lessons have Binder and Colab buttons; without one, those links become the
   file's name as text and there is no Binder, Colab or repository button;
5. builds the pages with Jupyter Book 1.x (``website/_config.yml``), maths as
   MathML, writes the pages' text for the search's excerpts
   (``_static/page-texts.js``, read by ``_static/site.js``) and copies them to
   ``site/`` (or ``--out``);
6. writes the whole collection's zip beside the pages, offers it in every lesson
   page's download menu, and makes each lesson's downloadable ``.ipynb`` work away
   from the site (``website/downloads.py``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
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
import yaml
from bs4 import BeautifulSoup, Comment, NavigableString
from bs4.dammit import EntitySubstitution
from nbclient import NotebookClient
from traitlets.config import Config

from helpers.collection import repository_address
from helpers.teacher.fingerprint import files_digest
from helpers.teacher.roles import without_roles
from website.downloads import offer_downloads
from website.snapshot import WIDGET_VIEW, image_sources, snapshot

ROOT = Path(__file__).resolve().parent.parent
HERE = ROOT / "website"
GUIDES = ("docs/learners.md", "docs/teachers.md", "docs/contributors.md", "benchmarks/README.md")
LEFT_OUT = ("solution",)  # cell roles the website never shows, nor runs
LINK = re.compile(r"(?<!!)\[([^\]\n]*)\]\(([^)\s]+)\)")
# a GitHub repository as git names it: https://github.com/o/n(.git), git@github.com:o/n(.git), ssh://git@github.com/o/n
GITHUB_REMOTE = re.compile(
    r"^(?:https://github\.com/|git@github\.com:|ssh://git@github\.com/)([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+?)(?:\.git)?/?$"
)
BINDERHUB = "https://mybinder.org"
COLAB = "https://colab.research.google.com"
# where the snapshot of a control gets its note, once the site's repository address is known
LIVE_NOTE = "<!-- run it live -->"
# what a run of a lesson depends on besides the lesson itself: a cached run is used only while none of it changed
RUN_INPUTS = ("helpers", "data", "website/build.py", "website/snapshot.py")
# the kernels get CurveZMQ keys from their manager when their kernelspec supports it (ipykernel does): else each
# warns on stderr that it "is running over TCP without encryption", once a lesson
# what a build that ran every lesson afresh says at its end
REUSE_HINT = ("next time, `--runs DIR` keeps the lessons as run in DIR: a build with it runs again only the lessons "
              "whose inputs changed")
KERNEL_CONFIG = Config({"KernelManager": {"transport_encryption": "auto"}})


def lessons() -> list[str]:
    """The lessons' paths in the repository, in order (``notebooks/00_start_here.ipynb``, ...)."""
    return sorted(f"notebooks/{path.name}" for path in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def public_address(remote: str) -> str | None:
    """The web address of a public GitHub repository from a git remote, or None for any other remote.

    ``git@github.com:o/n.git`` and ``https://github.com/o/n.git`` both give ``https://github.com/o/n``; a
    local path, another host or an address with a user name or token in it give None.
    """
    found = GITHUB_REMOTE.match(remote.strip())
    return f"https://github.com/{found.group(1)}/{found.group(2)}" if found else None


def address_of_checkout() -> str | None:
    """The repository's public address from ``git remote get-url origin``, or None (no git, no remote, not public)."""
    try:
        done = subprocess.run(["git", "-C", str(ROOT), "remote", "get-url", "origin"],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return public_address(done.stdout) if done.returncode == 0 else None


def binder_url(address: str, notebook: str | None = None) -> str:
    """The Binder launch of the repository at ``address``: JupyterLab opened on ``notebook``, or on the lessons."""
    owner_and_name = urllib.parse.urlsplit(address).path.strip("/")
    opened = notebook or "notebooks/00_start_here.ipynb"
    return f"{BINDERHUB}/v2/gh/{owner_and_name}/HEAD?labpath={urllib.parse.quote(opened, safe='')}"


def page_of(path: str) -> str:
    """Where a repository file is in the staged book: README.md is the home page, the rest keep their paths."""
    return "index.md" if path == "README.md" else path


def staged_pages() -> set[str]:
    """The repository files that are pages of the site: the README, the lessons and the guides."""
    return set(lessons()) | set(GUIDES) | {"README.md"}


def rewrite_links(text: str, source: str, staged: set[str], address: str | None) -> str:
    """Markdown links of ``source`` (a repository path): to staged pages kept, to other repository files made absolute.

    Without a repository ``address`` a link to a file the site does not hold becomes its text and the file's
    path, with no link: ``[the code](../helpers/metrics.py)`` reads "the code (`helpers/metrics.py`)".
    """
    folder = PurePosixPath(source).parent

    def replace(match: re.Match[str]) -> str:
        label, target = match.group(1), match.group(2)
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            return match.group(0)
        path, _, anchor = target.partition("#")
        resolved = os.path.normpath(str(folder / path)).replace(os.sep, "/")
        if resolved.startswith("../"):
            return match.group(0)
        if resolved in staged:
            here, there = PurePosixPath(page_of(source)).parent, page_of(resolved)
            relative = os.path.relpath(there, here).replace(os.sep, "/")
            return f"[{label}]({relative}{'#' + anchor if anchor else ''})"
        is_folder = (ROOT / resolved).is_dir()
        if address is None:
            name = resolved + ("/" if is_folder else "")
            return f"`{name}`" if label.strip("`").rstrip("/") == resolved else f"{label} (`{name}`)"
        kind = "tree" if is_folder else "blob"
        return f"[{label}]({address}/{kind}/HEAD/{resolved}{'#' + anchor if anchor else ''})"

    return LINK.sub(replace, text)


def get_the_code(address: str | None) -> str:
    """The home page's paragraph on where the code is: the repository's address, or how to get it without one."""
    if address:
        return (
            f"**Get the code.** The lessons, `helpers/` and `data/` are in the repository [{address}]({address}): "
            f"`git clone {address}.git`, then follow the set-up below from its folder. To try the lessons "
            f"without installing anything, [open them on Binder]({binder_url(address)}) (the first start takes a "
            "few minutes).\n"
        )
    return (
        "**Get the code.** This copy of the website was built without the address of its repository. The lessons, "
        "`helpers/` and `data/` are in the repository it was built from: the folder whose `README.md` is this "
        "page. Ask whoever gave you the site for that folder (a `git clone` of it, or a copy), then follow the "
        "set-up below from it.\n"
    )


def home_page(readme: str, address: str | None) -> str:
    """The README as the home page: with 'Get the code' before its first section."""
    first_section = readme.index("\n## ")
    return f"{readme[:first_section]}\n\n{get_the_code(address)}{readme[first_section:]}"


class SnapshotClient(NotebookClient):
    """nbclient's runner that draws each control as it is after the cell that shows it, then forgets the widgets."""

    def __init__(self, notebook: Any, **kwargs: Any):
        super().__init__(notebook, store_widget_state=True, **kwargs)

    async def async_execute_cell(self, cell: Any, cell_index: int, *args: Any, **kwargs: Any) -> Any:
        executed = await super().async_execute_cell(cell, cell_index, *args, **kwargs)
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get(WIDGET_VIEW)
            if view:
                models = {key: state for key, state in self.widget_state.items() if "_model_name" in state}
                drawing = snapshot(models, view["model_id"], image_sources(models, self.widget_buffers))
                output["data"] = {"text/html": snapshot_html(drawing)}
        return executed


def snapshot_html(drawing: str) -> str:
    """A control's drawing in its frame, its note first: a reader learns it is a picture before seeing it."""
    return f'<div class="widget-snapshot">{LIVE_NOTE}{drawing}</div>'


def live_note(notebook: str, address: str | None) -> str:
    """What a control's snapshot says above it: it is a picture; run it live after set-up, or on Binder."""
    binder = f', or <a href="{binder_url(address, notebook)}">launch it on Binder</a>' if address else ""
    return (
        '<p class="snapshot-note"><strong>A snapshot of the control below, in its first state:</strong> '
        "nothing in it can be clicked. Run it live: "
        '<a href="../index.html#set-up-two-commands">set up the collection</a> (two commands) and open '
        f"this lesson in JupyterLab{binder}.</p>"
    )


def site_copy(lesson: Any) -> Any:
    """The lesson as the site runs it: its solution cells left out."""
    return without_roles(lesson, LEFT_OUT)


def with_address(lesson: Any, notebook: str, address: str | None) -> Any:
    """A lesson as run, made for a site with or without a repository address: its links, its controls' notes."""
    staged = staged_pages()
    for cell in lesson.cells:
        if cell.cell_type == "markdown":
            cell.source = rewrite_links(cell.source, notebook, staged, address)
        for output in cell.get("outputs", []):
            drawn = output.get("data", {}).get("text/html")
            if isinstance(drawn, str) and LIVE_NOTE in drawn:
                output["data"]["text/html"] = drawn.replace(LIVE_NOTE, live_note(notebook, address))
    return lesson


def fingerprint(notebook: str) -> str:
    """What a run of the lesson depends on, hashed: the lesson, ``helpers/``, ``data/`` and this builder."""
    digest = hashlib.sha256((ROOT / notebook).read_bytes())
    for name in RUN_INPUTS:
        digest.update(f"{name}\0{files_digest(ROOT / name)}\n".encode())
    return digest.hexdigest()


def run_lesson(notebook: str, runs: str) -> tuple[str, float]:
    """Run one lesson, solution cells left out, in the folder ``runs``; write it there with its outputs."""
    started = time.monotonic()
    target = Path(runs) / notebook
    lesson = site_copy(nbformat.read(ROOT / notebook, as_version=4))
    client = SnapshotClient(
        lesson, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(target.parent)}},
        config=KERNEL_CONFIG,
    )
    client.execute()
    lesson.metadata.pop("widgets", None)  # drawn already: no page loads the widget manager from a CDN
    lesson.metadata["website_run"] = fingerprint(notebook)
    nbformat.write(lesson, target)
    return notebook, time.monotonic() - started


def keep_the_builders_record_out(runs: Path) -> None:
    """The lessons run for the site record nothing and read no one's progress record (lesson 00 and each lesson's
    last exercise cell show ``progress()``): the record off, and an empty Jupyter data folder of the run's own (set
    in each process that runs lessons, never in the builder's own)."""
    os.environ["RANKING_METRICS_PROGRESS"] = "off"
    os.environ["JUPYTER_DATA_DIR"] = str((runs / "jupyter-data").resolve())


def run_lessons(runs: Path, jobs: int) -> None:
    """Every lesson run into ``runs/notebooks/``, except those already there from a run of the same inputs."""
    (runs / "notebooks").mkdir(parents=True, exist_ok=True)
    stale = []
    for notebook in lessons():
        kept = runs / notebook
        if not kept.is_file() or nbformat.read(kept, as_version=4).metadata.get("website_run") != fingerprint(notebook):
            stale.append(notebook)
    if len(stale) < len(lessons()):
        print(f"{len(lessons()) - len(stale)} lessons kept as run before in {runs} (their inputs are unchanged)")
    if stale:
        print(f"running {len(stale)} lessons, {jobs} at a time: most of the build's time", flush=True)
    with ProcessPoolExecutor(max_workers=jobs, initializer=keep_the_builders_record_out, initargs=(runs,)) as pool:
        for notebook, seconds in pool.map(run_lesson, stale, [str(runs)] * len(stale)):
            print(f"ran {notebook} in {seconds:.1f} s", flush=True)


def toc() -> str:
    """The book's table of contents: the home page, the lessons in order, then the guides."""
    lines = ["format: jb-book", "root: index", "parts:", "  - caption: Lessons", "    chapters:"]
    lines += [f"      - file: {Path(path).with_suffix('').as_posix()}" for path in lessons()]
    lines += ["  - caption: Guides", "    chapters:"]
    lines += [f"      - file: {Path(path).with_suffix('').as_posix()}" for path in GUIDES]
    return "\n".join(lines) + "\n"


def book_config(address: str | None) -> str:
    """``website/_config.yml`` with the repository's address, its repository button and Binder buttons, if any."""
    config = yaml.safe_load((HERE / "_config.yml").read_text(encoding="utf-8"))
    if address:
        config["repository"] = {"url": address, "branch": "HEAD", "path_to_book": ""}
        config["launch_buttons"] = {"binderhub_url": BINDERHUB, "colab_url": COLAB, "notebook_interface": "jupyterlab"}
        config["html"]["use_repository_button"] = True
        licence = f'<a href="{address}/blob/HEAD/LICENSE">LICENSE</a>'
        config["html"]["extra_footer"] = config["html"]["extra_footer"].replace("LICENSE", licence)
    return yaml.safe_dump(config, sort_keys=False)


def stage(book: Path, runs: Path, address: str | None) -> None:
    """Everything Jupyter Book reads, in ``book``: config, contents, home page, guides, and the lessons as run."""
    (book / "_config.yml").write_text(book_config(address), encoding="utf-8")
    shutil.copytree(HERE / "_ext", book / "_ext", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(HERE / "_static", book / "_static")
    (book / "_toc.yml").write_text(toc(), encoding="utf-8")
    staged = staged_pages()
    for path in ("README.md", *GUIDES):
        target = book / page_of(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        text = rewrite_links((ROOT / path).read_text(encoding="utf-8"), path, staged, address)
        target.write_text(home_page(text, address) if path == "README.md" else text, encoding="utf-8")
    (book / "notebooks").mkdir()
    for notebook in lessons():
        lesson = nbformat.read(runs / notebook, as_version=4)
        lesson.metadata.pop("website_run", None)
        nbformat.write(with_address(lesson, notebook, address), book / notebook)


# the elements after which a page's text starts a new line; those left out of it, with all they hold
TEXT_BLOCKS = frozenset({"p", "div", "li", "pre", "tr", "td", "th", "dt", "dd", "h1", "h2", "h3", "h4", "h5", "h6",
                         "caption"})
NOT_TEXT = frozenset({"img", "script", "style", "svg", "nav", "button", "annotation"})


def text_of(node: Any) -> str:
    """A part of a page as the search's excerpts read it: its text (HTML-escaped), a line after each block, its
    sections (with their ids) kept; comments, pictures, scripts, buttons and headings' link marks left out."""
    if isinstance(node, Comment):
        return ""
    if isinstance(node, NavigableString):
        return node.output_ready()
    if node.name in NOT_TEXT or "headerlink" in node.get("class", ()):
        return ""
    inner = "".join(text_of(child) for child in node.children)
    if node.name == "section" and node.get("id"):
        return f"<section id={EntitySubstitution.quoted_attribute_value(node['id'])}>{inner}</section>"
    return inner + "\n" if node.name in TEXT_BLOCKS else inner


def page_texts(html_folder: Path) -> dict[str, str]:
    """Each page's main text, by its path in the site, as a small HTML page: its sections and their ids, no markup."""
    texts = {}
    for page in sorted(html_folder.rglob("*.html")):
        name = page.relative_to(html_folder).as_posix()
        if name.startswith(("_", "genindex", "search")):
            continue
        # the page's own text (its article), not its header's buttons
        main = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser").select_one('[role="main"] article')
        if main is None:
            continue
        contents = "".join(text_of(child) for child in main.children)
        text = re.sub(r"[ \t]*\n\s*", "\n", re.sub(r"[ \t]+", " ", contents))
        texts[name] = f'<div role="main">{text.strip()}</div>'
    return texts


def write_page_texts(html_folder: Path) -> None:
    """``_static/page-texts.js``: the search page's excerpts from disk, where a browser may not read other pages."""
    script = f"window.SITE_PAGE_TEXTS = {json.dumps(page_texts(html_folder), ensure_ascii=False)};\n"
    (html_folder / "_static" / "page-texts.js").write_text(script, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m website.build", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "site", help="where the pages go (default: site/)")
    parser.add_argument("--jobs", type=int, default=2, help="lessons run at a time (default: 2)")
    parser.add_argument(
        "--repository", metavar="ADDRESS",
        help="the repository's public GitHub address, or 'none' (default: pyproject.toml's [project.urls] "
             "Repository, else `git remote get-url origin`, if public)",
    )
    parser.add_argument(
        "--runs", type=Path, default=None,
        help="a folder to keep the lessons as run in; a later build with it runs again only the lessons whose "
             "inputs (the lesson, helpers/, data/, this builder) changed; empty it after installing other "
             "versions (default: a temporary folder)",
    )
    args = parser.parse_args(argv)
    if args.repository is None:
        address = repository_address() or address_of_checkout()
    elif args.repository.lower() == "none":
        address = None
    elif not (address := public_address(args.repository)):
        parser.error(f"--repository {args.repository}: not a public GitHub address (https://github.com/OWNER/NAME)")
    print(f"repository: {address or 'none (no public address: no Binder or repository links)'}", flush=True)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="website-") as folder:
        runs = args.runs or Path(folder) / "runs"
        run_lessons(runs, args.jobs)
        book = Path(folder) / "book"
        book.mkdir()
        stage(book, runs, address)
        built = Path(folder) / "built"
        command = [str(Path(sys.executable).parent / "jupyter-book"), "build", "--quiet", str(book),
                   "--path-output", str(built)]
        # Sphinx's warnings go to stderr as they come; Jupyter Book's closing banner names the temporary folder
        done = subprocess.run(command, cwd=folder, stdout=subprocess.PIPE, text=True)
        if done.returncode != 0:
            print(done.stdout)
            return done.returncode
        html_folder = built / "_build" / "html"
        write_page_texts(html_folder)
        offer_downloads(html_folder, address)
        if args.out.exists():
            shutil.rmtree(args.out)
        shutil.copytree(html_folder, args.out)
    index = args.out.resolve() / "index.html"
    if args.runs is None:
        print(REUSE_HINT)
    print(f"built in {time.monotonic() - started:.0f} s; open {index.as_uri()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
