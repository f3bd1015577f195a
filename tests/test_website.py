"""The website's build steps without building it: solution cells left out, links made absolute, controls drawn."""

from __future__ import annotations

import base64
import copy
import subprocess

import nbformat
import pytest
import yaml

from website import build
from website.snapshot import image_sources, snapshot


def test_a_solution_cell_is_left_out_before_the_lesson_runs():
    lesson = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("Step 1", metadata={"tags": ["lesson"]}),
        nbformat.v4.new_code_cell("check('x', answer)", metadata={"tags": ["exercise"]}),
        nbformat.v4.new_code_cell("print('THE ANSWER 0.6181')", metadata={"tags": ["solution"]}),
        nbformat.v4.new_code_cell("x = 1"),
    ])
    kept = build.site_copy(lesson).cells
    assert [cell.source for cell in kept] == ["Step 1", "check('x', answer)", "x = 1"]


ADDRESS = "https://github.com/example-owner/ranking-metrics-by-hand"


@pytest.mark.parametrize("remote", [
    "https://github.com/example-owner/ranking-metrics-by-hand",
    "https://github.com/example-owner/ranking-metrics-by-hand.git",
    "git@github.com:example-owner/ranking-metrics-by-hand.git",
    "ssh://git@github.com/example-owner/ranking-metrics-by-hand.git\n",
])
def test_a_public_github_remote_gives_the_repository_s_web_address(remote):
    assert build.public_address(remote) == ADDRESS


@pytest.mark.parametrize("remote", [
    "", "/work/main", "../upstream.git", "file:///srv/git/ranking.git", "https://gitlab.example.org/o/n.git",
    "https://user:secret-token@github.com/example-owner/ranking-metrics-by-hand.git",
    "https://github.com/example-owner", "git@example.org:o/n.git",
])
def test_any_other_remote_gives_no_address(remote):
    assert build.public_address(remote) is None


def test_the_checkout_s_address_comes_from_its_origin_remote_if_public(tmp_path, monkeypatch):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    monkeypatch.setattr(build, "ROOT", tmp_path)
    assert build.address_of_checkout() is None  # no remote
    subprocess.run(["git", "-C", str(tmp_path), "remote", "add", "origin", "/srv/git/copy.git"], check=True)
    assert build.address_of_checkout() is None  # a local path is not a public address
    subprocess.run(["git", "-C", str(tmp_path), "remote", "set-url", "origin",
                    "git@github.com:example-owner/ranking-metrics-by-hand.git"], check=True)
    assert build.address_of_checkout() == ADDRESS


LINKS = ("[next](02_dcg_and_ndcg_by_hand.ipynb) [code](../helpers/metrics.py#L3) [data](../data/) "
         "[`helpers/mistakes.py`](../helpers/mistakes.py) [set up](../README.md#set-up-two-commands) "
         "[web](https://example.org/a) [here](#step-1)")
STAGED = {"notebooks/02_dcg_and_ndcg_by_hand.ipynb", "docs/learners.md", "README.md"}


def test_with_an_address_links_to_other_files_point_at_the_repository():
    rewritten = build.rewrite_links(LINKS, "notebooks/01_hit_rate_and_mrr.ipynb", STAGED, ADDRESS)
    assert rewritten == (
        f"[next](02_dcg_and_ndcg_by_hand.ipynb) [code]({ADDRESS}/blob/HEAD/helpers/metrics.py#L3) "
        f"[data]({ADDRESS}/tree/HEAD/data) [`helpers/mistakes.py`]({ADDRESS}/blob/HEAD/helpers/mistakes.py) "
        "[set up](../index.md#set-up-two-commands) [web](https://example.org/a) [here](#step-1)"
    )


def test_without_an_address_links_to_other_files_become_their_names_and_links_to_pages_stay():
    rewritten = build.rewrite_links(LINKS, "notebooks/01_hit_rate_and_mrr.ipynb", STAGED, None)
    assert rewritten == (
        "[next](02_dcg_and_ndcg_by_hand.ipynb) code (`helpers/metrics.py`) `data/` `helpers/mistakes.py` "
        "[set up](../index.md#set-up-two-commands) [web](https://example.org/a) [here](#step-1)"
    )


def test_the_binder_link_opens_the_lesson_in_jupyterlab_from_the_repository():
    assert build.binder_url(ADDRESS, "notebooks/05_metrics_lab.ipynb") == (
        "https://mybinder.org/v2/gh/example-owner/ranking-metrics-by-hand/HEAD?labpath=notebooks%2F05_metrics_lab.ipynb"
    )


def test_a_control_s_note_links_to_binder_only_with_an_address():
    drawn = nbformat.v4.new_output("display_data", data={"text/html": f"<div>plot{build.LIVE_NOTE}</div>"})
    lesson = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("lab()", outputs=[drawn])])
    with_binder = build.with_address(copy.deepcopy(lesson), "notebooks/05_metrics_lab.ipynb", ADDRESS)
    note = with_binder.cells[0].outputs[0]["data"]["text/html"]
    assert build.binder_url(ADDRESS, "notebooks/05_metrics_lab.ipynb") in note and "set up the collection" in note
    without = build.with_address(copy.deepcopy(lesson), "notebooks/05_metrics_lab.ipynb", None)
    note = without.cells[0].outputs[0]["data"]["text/html"]
    assert "Binder" not in note and "http" not in note and "set up the collection" in note


def test_the_home_page_says_how_to_get_the_code_with_and_without_an_address():
    readme = "# Title\n\n*One line.*\n\nIntro.\n\n## Set-up: two commands\n\nrun this\n"
    with_address = build.home_page(readme, ADDRESS)
    assert with_address.index("**Get the code.**") < with_address.index("## Set-up")
    assert f"git clone {ADDRESS}.git" in with_address and "mybinder.org/v2/gh/example-owner/" in with_address
    without = build.home_page(readme, None)
    assert "**Get the code.**" in without and "github" not in without.lower() and "binder" not in without.lower()
    assert without.startswith("# Title\n\n*One line.*\n\nIntro.")


def test_the_book_names_a_repository_and_has_binder_buttons_only_with_an_address():
    bare = yaml.safe_load(build.book_config(None))
    assert "repository" not in bare and not bare.get("launch_buttons", {}).get("binderhub_url")
    assert bare["html"]["use_repository_button"] is False
    assert bare["author"] == "the Ranking metrics by hand contributors"
    full = yaml.safe_load(build.book_config(ADDRESS))
    assert full["repository"]["url"] == ADDRESS and full["launch_buttons"]["binderhub_url"] == "https://mybinder.org"
    assert full["html"]["use_repository_button"] is True
    assert f"{ADDRESS}/blob/HEAD/LICENSE" in full["html"]["extra_footer"]
    assert "sphinx_thebe" not in full["sphinx"]["config"]["extensions"]  # its script threw on every page


def test_a_lesson_run_is_reused_only_while_its_inputs_are_unchanged(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    for name, text in {"notebooks/00_a.ipynb": "{}", "helpers/m.py": "x = 1", "data/d.csv": "1",
                       "website/build.py": "", "website/snapshot.py": ""}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    monkeypatch.setattr(build, "ROOT", root)
    before = build.fingerprint("notebooks/00_a.ipynb")
    assert build.fingerprint("notebooks/00_a.ipynb") == before
    (root / "helpers" / "__pycache__").mkdir()
    (root / "helpers" / "__pycache__" / "m.pyc").write_bytes(b"compiled")
    assert build.fingerprint("notebooks/00_a.ipynb") == before
    (root / "data" / "d.csv").write_text("2")
    assert build.fingerprint("notebooks/00_a.ipynb") != before


def test_the_site_s_lessons_record_nothing_and_read_no_ones_progress_record(tmp_path, monkeypatch):
    from helpers.exercises import check, progress, record

    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "builder"))
    monkeypatch.setenv(record.PROGRESS_ENV, "on")  # both put back after the test
    check("sheet-ndcg3", 0.665)  # the builder's own record
    assert progress(lesson="03").counts()["not right yet"] == 1
    build.keep_the_builders_record_out(tmp_path / "runs")
    shown = progress(lesson="03")
    assert shown.counts() == {"right": 0, "not right yet": 0, "not tried": len(shown.table)}
    assert shown.note == f"the record is off here ({record.PROGRESS_ENV}=off)"
    check("sheet-ndcg3", 0.665)
    assert record.read_events(tmp_path / "builder" / record.FOLDER / record.FILE)[1:] == []
    assert not (tmp_path / "runs").exists()


def test_a_control_is_drawn_from_its_widget_state_with_its_values_and_picture():
    png = base64.b64encode(b"\x89PNG fake").decode()
    models = {
        "box": {"_model_name": "VBoxModel", "children": ["IPY_MODEL_html", "IPY_MODEL_k", "IPY_MODEL_gain",
                                                         "IPY_MODEL_hidden", "IPY_MODEL_plot"],
                "_dom_classes": ["control-main"], "layout": "IPY_MODEL_layout"},
        "layout": {"_model_name": "LayoutModel", "width": "40em"},
        "html": {"_model_name": "HTMLModel", "value": "<b>nDCG@3 = 0.7003</b>"},
        "k": {"_model_name": "IntSliderModel", "description": "K", "value": 3},
        "gain": {"_model_name": "ToggleButtonsModel", "description": "gain", "_options_labels": ["linear", "exp"],
                 "index": 1},
        "hidden": {"_model_name": "HTMLModel", "value": "SECRET", "layout": "IPY_MODEL_none"},
        "none": {"_model_name": "LayoutModel", "display": "none"},
        "plot": {"_model_name": "ImageModel", "format": "png"},
    }
    buffers = {"plot": {("value",): {"path": ["value"], "data": png, "encoding": "base64"}}}
    drawn = snapshot(models, "box", image_sources(models, buffers))
    assert drawn.startswith('<div class="snapshot-vbox control-main" style="width: 40em">')
    assert "<b>nDCG@3 = 0.7003</b>" in drawn and "SECRET" not in drawn
    assert '<span class="snapshot-label">K</span> <span class="snapshot-input">3</span>' in drawn
    assert '<span class="snapshot-input snapshot-chosen">✓ exp</span>' in drawn and ">linear<" in drawn
    assert f'src="data:image/png;base64,{png}"' in drawn


def test_a_control_s_note_comes_before_its_picture():
    """On a phone a control's picture can be two screens tall: the note saying it is a picture comes first."""
    lesson = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("lab()", outputs=[
        nbformat.v4.new_output("display_data", data={"text/html": build.snapshot_html('<div class="drawn">')})])])
    drawn = build.with_address(lesson, "notebooks/05_metrics_lab.ipynb", None).cells[0].outputs[0]["data"]["text/html"]
    assert drawn.startswith('<div class="widget-snapshot"><p class="snapshot-note">')
    assert drawn.index("nothing in it can be clicked") < drawn.index('<div class="drawn">')


@pytest.mark.notebook
def test_the_build_s_kernels_start_without_the_unencrypted_transport_warning(capfd):
    """ipykernel warns on stderr, once a kernel, when its manager gives it no CurveZMQ keys: the build's does."""
    lesson = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(6 * 7)")])
    build.SnapshotClient(lesson, timeout=120, kernel_name="python3", config=build.KERNEL_CONFIG).execute()
    assert lesson.cells[0].outputs[0]["text"] == "42\n"
    assert "without encryption" not in capfd.readouterr().err


def test_a_build_without_runs_says_how_to_keep_the_lessons_run(tmp_path, monkeypatch, capsys):
    """Every step of main() but the hint stood in for: a build without --runs names the option at its end."""
    def jupyter_book(command, **kwargs):
        (tmp_path / "out-html").mkdir(exist_ok=True)
        return subprocess.CompletedProcess(command, 0, stdout="")

    monkeypatch.setattr(build, "run_lessons", lambda runs, jobs: None)
    monkeypatch.setattr(build, "stage", lambda book, runs, address: None)
    monkeypatch.setattr(build.subprocess, "run", jupyter_book)
    monkeypatch.setattr(build, "write_page_texts", lambda folder: None)
    monkeypatch.setattr(build, "offer_downloads", lambda *args, **kwargs: None)
    monkeypatch.setattr(build.shutil, "copytree", lambda source, target: target.mkdir())
    for runs in ([], ["--runs", str(tmp_path / "runs")]):
        out = tmp_path / f"site{len(runs)}"
        assert build.main(["--out", str(out), "--repository", "none", *runs]) == 0
        printed = capsys.readouterr().out.splitlines()
        assert printed[-1].startswith("built in ") and printed[-1].endswith((out / "index.html").as_uri())
        assert (build.REUSE_HINT in printed) == (not runs)
