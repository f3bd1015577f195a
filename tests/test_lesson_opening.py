"""A lesson opened on its own (downloaded, in Colab) says what it needs, or installs it (issue 50).

Every lesson's setup cell opens with the same check (helpers/collection.py says what it reads). The kernels
here run in a throwaway venv that sees this project's third-party packages but not its ``helpers``: the
test's own packages reached through a folder of links (a ``.pth`` line), the editable install left out.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import zipfile
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from helpers.collection import NAME, REPOSITORY_LINE, repository_address, with_repository
from tests.lessons_elsewhere import kernelspec
from tests.notebook_runner import NOTEBOOKS, IpcKernelManager, notebook_path

ROOT = NOTEBOOKS.parent
BLOCK_END = "del _check_the_collection\n"


def setup_source(notebook) -> str:
    """The source of a lesson's (first) setup code cell."""
    return next(cell.source for cell in notebook.cells
                if cell.cell_type == "code" and "setup" in cell.metadata.get("tags", []))


def check_block(source: str) -> str:
    """The collection's check at the head of a setup cell: up to its ``del`` line."""
    assert BLOCK_END in source, "the setup cell has no collection's check"
    return source[: source.index(BLOCK_END) + len(BLOCK_END)]


def lessons() -> list[Path]:
    return sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def test_every_lesson_opens_with_the_same_check_before_any_import():
    blocks = {path.name: check_block(setup_source(nbformat.read(path, as_version=4))) for path in lessons()}
    assert len(blocks) == 10
    first = blocks["00_start_here.ipynb"]
    assert all(block == first for block in blocks.values()), [name for name, b in blocks.items() if b != first]
    assert first.startswith("# "), "the check comes first: no import or magic before it"
    wanted = f'REPOSITORY = "{repository_address() or ""}"'
    assert REPOSITORY_LINE.search(first).group(0) == wanted, "pyproject's address: python -m helpers.collection"
    assert f'"{NAME}"' in first


def test_the_address_is_written_into_the_check_and_nothing_else():
    source = setup_source(nbformat.read(notebook_path("03"), as_version=4))
    written = with_repository(source, "https://github.com/o/n")
    assert 'REPOSITORY = "https://github.com/o/n"' in written
    assert written.replace('"https://github.com/o/n"', '""', 1) == source
    with pytest.raises(ValueError, match="not a repository address"):
        with_repository(source, 'x"; import os')
    with pytest.raises(ValueError, match="no REPOSITORY line"):
        with_repository("from helpers import metrics", "https://github.com/o/n")


def run_check(tmp_path: Path, repository: str = "", pythonpath: Path | None = None) -> subprocess.CompletedProcess:
    """The check run by a bare Python (-S: no site-packages, so no helpers) in an empty folder."""
    block = check_block(setup_source(nbformat.read(notebook_path("03"), as_version=4)))
    script = with_repository(block, repository) + "print('went on')\n"
    env = {key: value for key, value in os.environ.items() if not key.startswith(("COLAB_", "KAGGLE_"))}
    env.pop("PYTHONPATH", None)
    if pythonpath:
        env["PYTHONPATH"] = str(pythonpath)
    return subprocess.run([sys.executable, "-S", "-c", script], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)


def unrelated_helpers(folder: Path) -> Path:
    """A package named ``helpers`` that is not this collection's (as `pip install helpers` brings)."""
    (folder / "helpers").mkdir(parents=True)
    (folder / "helpers" / "__init__.py").write_text("def greet():\n    return 'hello'\n")
    return folder


def test_without_helpers_the_check_stops_naming_the_collection_and_how_to_get_it(tmp_path):
    done = run_check(tmp_path)
    assert done.returncode != 0 and "went on" not in done.stdout
    message = done.stderr.strip().splitlines()[-1]
    assert "Ranking metrics by hand" in message and "has no `helpers`" in message
    assert "whole-collection zip" in message and "README's first command" in message


def test_with_an_unrelated_helpers_the_check_says_so(tmp_path):
    done = run_check(tmp_path, pythonpath=unrelated_helpers(tmp_path / "other"))
    message = done.stderr.strip().splitlines()[-1]
    assert done.returncode != 0 and "went on" not in done.stdout
    assert "unrelated package named `helpers`" in message


def test_with_an_address_the_message_gives_the_install_command(tmp_path):
    message = run_check(tmp_path, repository="https://github.com/o/n").stderr.strip().splitlines()[-1]
    assert 'pip install "ranking-metrics-by-hand[lessons] @ git+https://github.com/o/n"' in message


def test_with_the_collection_the_check_lets_the_lesson_go_on(tmp_path):
    done = subprocess.run([sys.executable, "-c", check_block(setup_source(nbformat.read(notebook_path("03"),
                           as_version=4))) + "print('went on')"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "went on", done.stderr


# -- in a kernel of a throwaway venv ------------------------------------------------------------------------------

def throwaway_venv(tmp_path: Path, *extra_paths: Path, with_pip: bool = False, leave_out: tuple[str, ...] = ()) -> Path:
    """A venv whose Python sees this project's third-party packages (a folder of links), not its helpers.

    ``leave_out``: more names (lower case prefixes of the site-packages' entries) it does not see.
    """
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", *([] if with_pip else ["--without-pip"]), str(venv)], check=True)
    links = tmp_path / "packages"
    links.mkdir()
    ours = sysconfig.get_paths()["purelib"]
    for entry in Path(ours).iterdir():
        name = entry.name.lower()
        if "ranking_metrics_by_hand" in name or name.startswith(("__editable__", "helpers", "pip", *leave_out)) or \
                entry.suffix == ".pth":
            continue
        (links / entry.name).symlink_to(entry)
    site_packages = next((venv / "lib").glob("python3*/site-packages"))
    lines = [str(links), *map(str, extra_paths)]
    (site_packages / "_project_packages.pth").write_text("\n".join(lines) + "\n")
    return venv


def kernel_of(venv: Path, tmp_path: Path, monkeypatch, name: str = "lone") -> str:
    """A kernelspec (found through JUPYTER_PATH, ``tmp_path/jupyter``) that starts the venv's Python; its name."""
    kernelspec(venv, tmp_path / "jupyter", name)
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    for key in [key for key in os.environ if key.startswith(("COLAB_", "KAGGLE_"))]:
        monkeypatch.delenv(key)
    return name


def lone_lesson(prefix: str, folder: Path, repository: str = "") -> Path:
    """The lesson alone in an empty folder, as downloaded (its address written in, if any)."""
    folder.mkdir(parents=True, exist_ok=True)
    lesson = nbformat.read(notebook_path(prefix), as_version=4)
    for cell in lesson.cells:
        if cell.cell_type == "code" and "setup" in cell.metadata.get("tags", []):
            cell.source = with_repository(cell.source, repository)
            break
    target = folder / notebook_path(prefix).name
    nbformat.write(lesson, target)
    return target


def run_in(kernel: str, path: Path, timeout: int = 300):
    lesson = nbformat.read(path, as_version=4)
    client = NotebookClient(lesson, timeout=timeout, kernel_name=kernel,
                            resources={"metadata": {"path": str(path.parent)}}, kernel_manager_class=IpcKernelManager)
    try:
        client.execute()
    except CellExecutionError:
        return lesson, True
    return lesson, False


def assert_stops_at_the_setup_cell(lesson, wanted: str):
    code = [cell for cell in lesson.cells if cell.cell_type == "code"]
    errors = [output for output in code[0].outputs if output.output_type == "error"]
    assert len(errors) == 1, code[0].outputs
    assert len(errors[0].traceback) == 1, "the message alone, no traceback"
    message = errors[0].traceback[0]
    assert "Ranking metrics by hand" in message and wanted in message and "importlib" not in message
    assert all(not cell.outputs and cell.execution_count is None for cell in code[1:]), "Run All stops there"


@pytest.mark.notebook
@pytest.mark.parametrize("prefix", ["03", "08"])
def test_a_lone_lesson_in_a_venv_without_helpers_stops_at_its_setup_cell(tmp_path, monkeypatch, prefix):
    kernel = kernel_of(throwaway_venv(tmp_path), tmp_path, monkeypatch)
    lesson, stopped = run_in(kernel, lone_lesson(prefix, tmp_path / "downloads"))
    assert stopped
    assert_stops_at_the_setup_cell(lesson, "has no `helpers`")


@pytest.mark.notebook
def test_a_lone_lesson_with_an_unrelated_helpers_installed_stops_at_its_setup_cell(tmp_path, monkeypatch):
    kernel = kernel_of(throwaway_venv(tmp_path, unrelated_helpers(tmp_path / "other")), tmp_path, monkeypatch)
    lesson, stopped = run_in(kernel, lone_lesson("03", tmp_path / "downloads"))
    assert stopped
    assert_stops_at_the_setup_cell(lesson, "unrelated package named `helpers`")


def test_lesson_08_without_the_lessons_extra_names_what_is_missing(monkeypatch):
    from helpers import collection

    real = collection.importlib.util.find_spec
    monkeypatch.setattr(collection.importlib.util, "find_spec",
                        lambda name, *args: None if name == "ir_measures" else real(name, *args))
    with pytest.raises(collection.LessonNeeds) as stopped:
        collection.need_lessons_extra()
    message = stopped.value._render_traceback_()
    assert len(message) == 1 and "lacks ir-measures." in message[0] and 'pip install ".[lessons]"' in message[0]
    monkeypatch.undo()
    collection.need_lessons_extra()  # this venv has the extra: nothing to say


@pytest.mark.notebook
def test_lesson_08_in_a_venv_without_the_lessons_extra_stops_naming_it(tmp_path, monkeypatch):
    extra = ("ir_measures", "ir-measures", "pytrec_eval", "sklearn", "scikit_learn")
    kernel = kernel_of(throwaway_venv(tmp_path, ROOT, leave_out=extra), tmp_path, monkeypatch)
    lesson, stopped = run_in(kernel, lone_lesson("08", tmp_path / "collection"))
    assert stopped
    code = [cell for cell in lesson.cells if cell.cell_type == "code"]
    error = next(output for output in code[0].outputs if output.output_type == "error")
    assert error.traceback == [
        "Lesson 08 compares the helpers with ir-measures, pytrec-eval-terrier, scikit-learn; this Python lacks "
        "ir-measures, pytrec-eval-terrier, scikit-learn. They come with the collection's `lessons` extra: from the "
        'collection\'s folder, `pip install ".[lessons]"` (the README\'s first command installs them too), then '
        "restart the kernel."
    ]
    assert all(not cell.outputs for cell in code[1:])


def local_repository(folder: Path) -> str:
    """This checkout's files (as they are now, uncommitted edits too) as a git repository; its file:// address."""
    tracked = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=True).stdout
    for name in tracked.decode().split("\0"):
        if name and (ROOT / name).is_file():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, folder / name)
    for path in (ROOT / "helpers").rglob("*.py"):  # new modules not yet added
        target = folder / path.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
    git = ["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "the collection"], check=True)
    return f"file://localhost{folder.as_posix()}"  # pip 23's parser refuses git+file:/// (no host)


@pytest.mark.slow
@pytest.mark.notebook
def test_in_a_stand_in_colab_a_lone_lesson_installs_the_collection_and_runs_to_the_end(tmp_path, monkeypatch):
    colab = tmp_path / "colab"
    (colab / "google" / "colab").mkdir(parents=True)  # google stays a namespace package
    (colab / "google" / "colab" / "__init__.py").write_text('"""A stand-in for Colab\'s module."""\n')
    venv = throwaway_venv(tmp_path, colab, with_pip=True)
    kernel = kernel_of(venv, tmp_path, monkeypatch)
    address = local_repository(tmp_path / "repository")
    lesson, stopped = run_in(kernel, lone_lesson("03", tmp_path / "content", address), timeout=900)
    setup = next(cell for cell in lesson.cells if cell.cell_type == "code")
    assert not stopped, [output for output in setup.outputs if output.output_type == "error"]
    said = "".join(output.get("text", "") for output in setup.outputs)
    assert f"Installing the collection from {address}" in said
    installed = subprocess.run(
        [str(venv / "bin" / "python"), "-c", textwrap.dedent("""
            import helpers.collection, importlib.metadata as m
            print(helpers.collection.__file__, m.version('ranking-metrics-by-hand'))""")],
        capture_output=True, text=True, check=True, cwd=tmp_path / "content").stdout
    assert str(venv) in installed, "installed into the venv, not found in the checkout"
    assert all(cell.execution_count for cell in lesson.cells if cell.cell_type == "code")


# -- the website's downloads (website/downloads.py) -----------------------------------------------------------------

def unpacked_zip(tmp_path: Path, address: str | None) -> Path:
    from website.downloads import write_collection_zip

    archive = write_collection_zip(tmp_path, address)
    with zipfile.ZipFile(archive) as opened:
        assert all(name.startswith(f"{NAME}/") for name in opened.namelist()), "one folder inside"
        opened.extractall(tmp_path / "unpacked")
    return tmp_path / "unpacked" / NAME


def test_the_collection_zip_holds_what_the_readme_s_first_command_needs(tmp_path):
    folder = unpacked_zip(tmp_path, None)
    text = (folder / "README.md").read_text(encoding="utf-8")
    first = text.split("## Set-up: two commands", 1)[1].split("```bash\n", 1)[1].split("\n```", 1)[0]
    named = [word.split("=", 1)[-1] for word in first.split() if re.search(r"\.(py|txt|ipynb)$|config$", word)]
    assert {"check_python.py", "requirements.txt", "jupyter-config", "notebooks/00_start_here.ipynb"} <= set(named)
    for path in named:
        assert (folder / path).exists(), f"the first command reads {path}, not in the zip"
    for name in ("helpers/collection.py", "data/example_c", "pyproject.toml", "LICENSE", "LICENSE-CC-BY-4.0.txt",
                 "requirements-test.txt", "jupyter-config/labconfig/default_setting_overrides.json"):
        assert (folder / name).exists(), name
    assert len(list((folder / "notebooks").glob("[0-9][0-9]_*.ipynb"))) == 10
    assert not list(folder.rglob("__pycache__")) and not (folder / "tests").exists()
    assert "-e ." in (folder / "requirements.txt").read_text(), "the collection itself, from the unpacked folder"


@pytest.mark.install
def test_pip_reads_the_zip_s_pyproject(tmp_path):
    """pip builds the unpacked collection's metadata (setuptools from the index, as the first command does)."""
    folder = unpacked_zip(tmp_path, None)
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--no-deps", "-q",
         "--report", str(tmp_path / "report.json"), str(folder)],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    metadata = json.loads((tmp_path / "report.json").read_text())["install"][0]["metadata"]
    assert metadata["name"] == NAME and "lessons" in metadata["provides_extra"]


def test_the_zip_s_lessons_carry_the_address():
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        lesson = nbformat.read(unpacked_zip(Path(folder), "https://github.com/o/n") / "notebooks" /
                               "03_the_ndcg_spreadsheet.ipynb", as_version=4)
    assert 'REPOSITORY = "https://github.com/o/n"' in setup_source(lesson)
    assert all(not cell.get("outputs") for cell in lesson.cells if cell.cell_type == "code")


def site_lesson(address: str | None):
    from website.downloads import SITE_SET_UP, standalone_lesson

    lesson = nbformat.read(notebook_path("03"), as_version=4)
    lesson.cells.append(nbformat.v4.new_markdown_cell("See [lesson 01](01_hit_rate_and_mrr.ipynb) and [x](#top)."))
    drawn = nbformat.v4.new_code_cell("w")
    html = f"<p>Run it live: {SITE_SET_UP} and go.</p>"
    drawn.outputs = [nbformat.v4.new_output("display_data", {"text/html": html})]
    lesson.cells.append(drawn)
    return standalone_lesson(lesson, address)


def test_a_downloaded_lesson_holds_no_link_that_works_only_on_the_site():
    for address in (None, "https://github.com/o/n"):
        assert "index.html" not in nbformat.writes(site_lesson(address))
    assert "](../" not in nbformat.writes(site_lesson("https://github.com/o/n"))
    with_address = site_lesson("https://github.com/o/n")
    assert "[lesson 01](https://github.com/o/n/blob/HEAD/notebooks/01_hit_rate_and_mrr.ipynb)" in \
        with_address.cells[-2].source and "[x](#top)" in with_address.cells[-2].source
    assert '<a href="https://github.com/o/n#set-up-two-commands">set up the collection</a> (the README\'s two ' \
        "commands)" in with_address.cells[-1].outputs[0]["data"]["text/html"]
    without = site_lesson(None)
    assert "[lesson 01](01_hit_rate_and_mrr.ipynb)" in without.cells[-2].source, "works in the unpacked zip"
    assert "Run it live: set up the collection (the README's two commands) and go." in \
        without.cells[-1].outputs[0]["data"]["text/html"]


# the download menu of a lesson page as Jupyter Book 1.x (sphinx-book-theme) writes it, shortened
DOWNLOAD_MENU = """<div class="dropdown dropdown-download-buttons"><ul class="dropdown-menu">
<li><a href="../_sources/notebooks/03_the_ndcg_spreadsheet.ipynb" class="btn btn-sm btn-download-source-button
 dropdown-item" title="Download source file"><span class="btn__text-container">.ipynb</span></a></li>
<li><button onclick="window.print()" class="btn btn-sm dropdown-item">.pdf</button></li></ul></div>"""


def test_every_lesson_page_offers_the_zip_beside_its_ipynb():
    from bs4 import BeautifulSoup

    from website.downloads import ZIP_NAME, link_the_zip

    page = BeautifulSoup(link_the_zip(DOWNLOAD_MENU, f"../{ZIP_NAME}"), "html.parser")
    offered = [item.get_text(strip=True) for item in page.select("ul.dropdown-menu > li")]
    assert offered == [".ipynb", "whole collection (.zip)", ".pdf"]
    assert page.select_one("a.collection-zip")["href"] == "../ranking-metrics-by-hand.zip"
    with pytest.raises(ValueError, match="no .ipynb"):
        link_the_zip("<p>no menu</p>", ZIP_NAME)


def test_with_an_address_the_lesson_pages_have_open_in_colab_beside_binder():
    import yaml

    from website.build import book_config

    buttons = yaml.safe_load(book_config("https://github.com/o/n"))["launch_buttons"]
    assert buttons["colab_url"] == "https://colab.research.google.com" and buttons["binderhub_url"]
    assert "launch_buttons" not in yaml.safe_load(book_config(None))


def test_the_address_comes_from_pyproject_s_project_urls(tmp_path):
    from helpers.collection import repository_address

    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[project]\nname = "x"\n')
    assert repository_address(pyproject) is None
    pyproject.write_text('[project]\nname = "x"\n[project.urls]\nRepository = "https://github.com/o/n/"\n')
    assert repository_address(pyproject) == "https://github.com/o/n"


def test_the_learners_guide_says_what_the_lessons_extra_gives():
    import tomllib

    guide = (ROOT / "docs" / "learners.md").read_text(encoding="utf-8")
    heading = '## Installing the collection as a package: `pip install ".[lessons]"`'
    section = guide.split(heading, 1)[1].split("\n## ")[0]
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    for requirement in extra["lessons"]:
        name = re.split(r"[<>=\[ ]", requirement, maxsplit=1)[0]
        shown = {"jupyterlab": "JupyterLab", "voila": "Voilà", "ir-measures": "ir_measures"}.get(name, name)
        assert shown in section, f"the guide does not say that [lessons] brings {name}"
    assert 'pip install ".[lessons]"' in section and "lesson 08 stops at its setup cell" in section
