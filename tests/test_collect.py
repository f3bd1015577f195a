"""Collecting one lesson from the learners' homes (python -m helpers.teacher.collect), no hub needed."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from helpers.teacher import collect
from helpers.teacher.submissions import read_submissions

ROOT = Path(__file__).resolve().parent.parent
LESSON = "ranking-metrics/notebooks/03_the_ndcg_spreadsheet.ipynb"


def write_notebook(path: Path, answer: str) -> Path:
    """A small lesson-03 notebook whose one cell holds the learner's answer."""
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(new_notebook(cells=[new_code_cell(f"answer = {answer}")]), path)
    return path


@pytest.fixture
def homes(tmp_path: Path) -> Path:
    """Three learners' homes, each with their copy of lesson 03 (and lesson 05 next to it)."""
    root = tmp_path / "home"
    for number, learner in enumerate(["ada", "ben", "cleo"]):
        write_notebook(root / learner / LESSON, str(number))
        write_notebook(root / learner / "ranking-metrics/notebooks/05_metrics_lab.ipynb", "None")
    return root


def test_each_learner_is_named_by_their_home_folder(homes: Path, tmp_path: Path):
    out = tmp_path / "submissions"
    collection = collect.find(f"{homes}/*/ranking-metrics/notebooks/03*.ipynb")
    copies = collect.copy_all(collection, out)
    assert [copy.name for copy in copies] == ["ada.ipynb", "ben.ipynb", "cleo.ipynb"]
    for copy in copies:
        source = homes / copy.stem / LESSON
        assert copy.read_bytes() == source.read_bytes()
        assert copy.stat().st_mtime == pytest.approx(source.stat().st_mtime, abs=1e-3)
    assert [s.learner for s in read_submissions(out)] == ["ada", "ben", "cleo"]  # what the grader will see


def test_the_manifest_says_where_each_notebook_came_from(homes: Path, tmp_path: Path):
    out = tmp_path / "submissions"
    collect.copy_all(collect.find(f"{homes}/*/ranking-metrics/notebooks/03*.ipynb"), out)
    with open(out / collect.MANIFEST, encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    assert [row["learner"] for row in rows] == ["ada", "ben", "cleo"]
    assert rows[1]["source"] == str(homes / "ben" / LESSON)
    assert int(rows[1]["bytes"]) == (homes / "ben" / LESSON).stat().st_size
    assert len(rows[1]["sha256"]) == 64


def test_user_field_strips_the_home_prefix_of_the_littlest_jupyterhub(tmp_path: Path):
    for learner in ("ada", "ben"):
        write_notebook(tmp_path / f"jupyter-{learner}" / LESSON, "1")
    collection = collect.find(f"{tmp_path}/jupyter-{{user}}/ranking-metrics/notebooks/03*.ipynb")
    assert [item.learner for item in collection.found] == ["ada", "ben"]


def test_each_learner_s_own_copy_is_collected_from_their_folder_of_the_release(tmp_path: Path):
    # a release with a roster puts every learner's folder in every home: only ann's folder of ann's home counts
    for learner in ("ann", "bob"):
        for owner in ("ann", "bob"):
            write_notebook(tmp_path / learner / "ranking-metrics" / "notebooks" / owner / "03_x.ipynb",
                           f"'{owner} in {learner}'s home'")
        write_notebook(tmp_path / learner / "ranking-metrics" / "notebooks" / "03_x.ipynb", "'the base copy'")
    pattern = f"{tmp_path}/{{user}}/ranking-metrics/notebooks/{{user}}/03*.ipynb"
    for users in (None, ["ann", "bob"]):
        collection = collect.find(pattern, users)
        assert [(item.learner, item.path.parts[-2]) for item in collection.found] == [("ann", "ann"), ("bob", "bob")]
        assert all(item.path.parts[-5] == item.learner for item in collection.found)
    out = tmp_path / "submissions"
    collect.copy_all(collect.find(pattern), out)
    assert "'ann in ann's home'" in (out / "ann.ipynb").read_text()


def test_the_users_given_are_collected_and_the_missing_named(homes: Path):
    pattern = f"{homes}/{{user}}/ranking-metrics/notebooks/03*.ipynb"
    collection = collect.find(pattern, users=["ben", "dora", "ada"])
    assert [item.learner for item in collection.found] == ["ada", "ben"]
    assert collection.missing == ["dora"]
    by_glob = collect.find(f"{homes}/*/ranking-metrics/notebooks/03*.ipynb", users=["cleo", "eve"])
    assert [item.learner for item in by_glob.found] == ["cleo"] and by_glob.missing == ["eve"]


def test_two_notebooks_for_one_learner_are_refused_and_nothing_is_written(homes: Path, tmp_path: Path):
    write_notebook(homes / "ben/ranking-metrics/notebooks/03_the_ndcg_spreadsheet-Copy1.ipynb", "2")
    out = tmp_path / "submissions"
    code, _, error = run_cli(f"{homes}/*/ranking-metrics/notebooks/03*.ipynb", "--out", str(out))
    assert code == 2
    assert "more than one notebook for a learner (ben:" in error and "Copy1" in error
    assert not out.exists()


def test_no_match_is_refused(homes: Path, tmp_path: Path):
    with pytest.raises(collect.Refused, match="no notebook matches"):
        collect.find(f"{homes}/*/ranking-metrics/notebooks/04*.ipynb")
    with pytest.raises(collect.Refused, match="for the 1 learners given"):
        collect.find(f"{homes}/{{user}}/ranking-metrics/notebooks/03*.ipynb", users=["nobody"])


@pytest.mark.parametrize(
    ("pattern", "says"),
    [
        ("/home/*/ranking-metrics/notebooks/03*", "end it with .ipynb"),
        ("/home/ada/ranking-metrics/notebooks/03.ipynb", "names no learner"),
        ("/home/{user}/{user}.ipynb", "more than once"),
        ("/home/{user}-{user}/03.ipynb", "more than once"),
        ("/home/jupyter-*{user}/notebooks/03.ipynb", "only {user} may vary"),
    ],
)
def test_patterns_that_cannot_name_learners_are_refused(pattern: str, says: str):
    with pytest.raises(collect.Refused, match=says.replace("{", r"\{").replace("}", r"\}")):
        collect.find(pattern)


def test_a_pattern_must_be_text():
    with pytest.raises(TypeError, match="must be text"):
        collect.find(Path("/home/*/03.ipynb"))  # type: ignore[arg-type]


def test_a_learner_name_that_cannot_be_a_file_name_is_refused(homes: Path):
    with pytest.raises(collect.Refused, match="cannot name a learner"):
        collect.find(f"{homes}/{{user}}/ranking-metrics/notebooks/03*.ipynb", users=["ada", ".."])


def test_an_out_folder_with_files_is_refused(homes: Path, tmp_path: Path):
    out = tmp_path / "submissions"
    out.mkdir()
    (out / "old.ipynb").write_text("{}", encoding="utf-8")
    code, _, error = run_cli(f"{homes}/*/ranking-metrics/notebooks/03*.ipynb", "--out", str(out))
    assert code == 2 and "is not empty" in error
    with pytest.raises(collect.Refused, match="is a file"):
        collect.check_out(out / "old.ipynb")


def test_a_notebook_reached_through_a_link_is_skipped_and_named(homes: Path, tmp_path: Path):
    (homes / "cleo" / LESSON).unlink()
    (homes / "cleo" / LESSON).symlink_to(homes / "ada" / LESSON)  # cleo hands in ada's work
    eve = homes / "eve"
    eve.mkdir()
    (eve / "ranking-metrics").symlink_to(homes / "ben" / "ranking-metrics")  # eve links ben's whole folder
    code, printed, _ = run_cli(f"{homes}/*/ranking-metrics/notebooks/03*.ipynb", "--out", str(tmp_path / "s"))
    assert code == 0
    assert sorted(path.name for path in (tmp_path / "s").glob("*.ipynb")) == ["ada.ipynb", "ben.ipynb"]
    assert f"skipped {homes / 'cleo' / LESSON}" in printed and f"skipped {eve / LESSON}" in printed


def test_jupyter_checkpoints_are_not_collected(homes: Path):
    write_notebook(homes / "ada/ranking-metrics/notebooks/.ipynb_checkpoints/03_x-checkpoint.ipynb", "9")
    collection = collect.find(f"{homes}/*/ranking-metrics/**/03*.ipynb")
    assert [item.path for item in collection.found if item.learner == "ada"] == [homes / "ada" / LESSON]


def test_the_command_line_collects_and_says_who_is_missing(homes: Path, tmp_path: Path):
    out = tmp_path / "submissions"
    code, printed, _ = run_cli(
        f"{homes}/{{user}}/ranking-metrics/notebooks/03*.ipynb", "--out", str(out), "--users", "ada,cleo,dora"
    )
    assert code == 0
    assert "collected 2 notebooks" in printed and "no notebook for 1: dora" in printed
    assert sorted(path.name for path in out.iterdir()) == ["ada.ipynb", "cleo.ipynb", collect.MANIFEST]


class FakeHub:
    """A JupyterHub user list in pages of two, as its REST API answers with the pagination header."""

    def __init__(self, users: list[dict]):
        self.users, self.requests = users, []

    def __call__(self, request, timeout):
        self.requests.append(request)
        query = dict(part.split("=") for part in request.full_url.split("?", 1)[1].split("&"))
        offset = int(query["offset"])
        items = self.users[offset : offset + 2]
        following = {"offset": offset + 2} if offset + 2 < len(self.users) else None
        return io.BytesIO(json.dumps({"items": items, "_pagination": {"next": following}}).encode())


def test_the_hubs_user_list_is_read_page_by_page_without_admins():
    hub = FakeHub([{"name": "teacher", "admin": True}] + [{"name": f"learner{i}", "admin": False} for i in range(4)])
    names = collect.hub_users("http://127.0.0.1:8000/", "secret", opener=hub)
    assert names == ["learner0", "learner1", "learner2", "learner3"]
    assert [request.full_url.split("?")[0] for request in hub.requests] == ["http://127.0.0.1:8000/hub/api/users"] * 3
    assert hub.requests[0].get_header("Authorization") == "token secret"
    assert hub.requests[0].get_header("Accept") == collect.PAGINATION


def test_the_hubs_user_list_needs_a_token():
    with pytest.raises(collect.Refused, match="JUPYTERHUB_API_TOKEN"):
        collect.hub_users("http://127.0.0.1:8000", None)


def run_cli(*args: str) -> tuple[int, str, str]:
    """Run ``python -m helpers.teacher.collect`` with args; (exit code, stdout, stderr)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run(
        [sys.executable, "-m", "helpers.teacher.collect", *args], capture_output=True, text=True, env=env, timeout=60
    )
    return done.returncode, done.stdout, done.stderr
