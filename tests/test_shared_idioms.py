"""Each idiom written once: "did you mean", dropping cells by role, hashing a tree (teacher's tools, the site)."""

from __future__ import annotations

import doctest

from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from helpers import _checks
from helpers.teacher import roles
from helpers.teacher.fingerprint import files_digest
from helpers.teacher.grade import unknown_message
from helpers.teacher.logbook import did_you_mean as named_with_nearest


def test_did_you_mean_is_one_lookup_in_three_phrasings():
    known = ["explain-rr-mean", "ndcg-3", "mrr-1"]
    assert _checks.close_names("explain-rr-mea", known) == ["explain-rr-mean"]
    assert _checks.close_names("zzz", known) == []
    assert _checks.did_you_mean("explain-rr-mea", known) == "; did you mean 'explain-rr-mean'?"
    assert named_with_nearest("explain-rr-mea", known) == "'explain-rr-mea' (did you mean 'explain-rr-mean'?)"
    assert "explain-rr-mea (ann.ipynb): did you mean 'explain-rr-mean'?" in unknown_message(
        {"explain-rr-mea": ["ann.ipynb"]})


def test_cells_are_dropped_by_role_and_an_untagged_cell_is_a_lesson_cell():
    lesson = new_notebook(cells=[
        new_markdown_cell("Step", metadata={"tags": ["lesson"]}),
        new_code_cell("check('x', answer)", metadata={"tags": ["exercise"]}),
        new_code_cell("0.6181", metadata={"tags": ["solution"]}),
        new_code_cell("x = 1"),
    ])
    kept = roles.without_roles(lesson, ("exercise", "solution"))
    assert kept is lesson and [cell.source for cell in kept.cells] == ["Step", "x = 1"]
    assert doctest.testmod(roles).failed == 0
    assert doctest.testmod(_checks).failed == 0


def test_a_tree_hash_follows_paths_and_bytes_and_a_file_is_hashed_alone(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.py").write_text("1")
    (tmp_path / "a" / "__pycache__").mkdir()
    (tmp_path / "a" / "__pycache__" / "x.pyc").write_bytes(b"cache")
    before = files_digest(tmp_path / "a")
    (tmp_path / "a" / "__pycache__" / "x.pyc").write_bytes(b"other cache")
    assert files_digest(tmp_path / "a") == before, "caches do not count"
    (tmp_path / "a" / "x.py").write_text("2")
    assert files_digest(tmp_path / "a") != before
    single = files_digest(tmp_path / "a" / "x.py")
    assert len(single) == 64 and single != files_digest(tmp_path / "a")
    (tmp_path / "a" / "x.py").write_text("3")
    assert files_digest(tmp_path / "a" / "x.py") != single
