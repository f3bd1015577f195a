"""The grader's records read back with every field checked: a wrong type is a ValueError naming the field."""

from __future__ import annotations

import json

import pytest

from helpers.teacher.manifest import FORMAT, VERSION, Assigned, LearnerEntry, Manifest
from helpers.teacher.results import Judged, NotebookResult, Problem
from helpers.teacher.shards import SHARD_FILE, ShardRecord


def manifest() -> dict:
    ann = LearnerEntry("ann", ("03",), (Assigned("sheet-ndcg3", "03", 2.0, 123, "v1"),
                                        Assigned("kb04-graded-2", "03", 1.0)), {"03.ipynb": "d"}, ("c",))
    return Manifest(("03",), (ann,), {"03.ipynb": "d"}, True, "abc", "2026-12-06T00:00:00+00:00").to_json()


def result() -> NotebookResult:
    judged = Judged("sheet-ndcg3", "03", "number", "0.550", "right", True, 2.0, 2.0, help_used=("hint",))
    return NotebookResult("ann", "ann/03.ipynb", "03", answers=[judged], problems=[Problem("raised", "ZeroDivision")])


def shard() -> ShardRecord:
    return ShardRecord(0, 2, "a" * 64, None, "k", "e", {"timeout": 60.0}, ["said"], ["ann"],
                       {"ann": {"exercises": {"sheet-ndcg3": 1.0}, "questions": {}}}, ["ann/03.ipynb"], [], True)


def test_each_record_reads_back_as_written(tmp_path):
    assert Manifest.from_json(json.loads(json.dumps(manifest()))).to_json() == manifest()
    assert NotebookResult.from_json(result().to_json()) == result()
    shard().write(tmp_path)
    assert ShardRecord.read(tmp_path) == shard()


@pytest.mark.parametrize(("change", "message"), [
    (lambda m: m.update(lessons="03"), "lessons: expected a list of text, got text '03'"),
    (lambda m: m["learners"][0].update(lessons="03"), r"learners\[0\]\.lessons: expected a list of text, got text"),
    (lambda m: m["learners"][0]["exercises"][1].update(points="2"),
     r"learners\[0\]\.exercises\[1\]\.points: expected a number, got text '2'"),
    (lambda m: m["learners"][0]["exercises"][0].update(seed=1.5),
     r"learners\[0\]\.exercises\[0\]\.seed: expected a whole number or null, got a number 1\.5"),
    (lambda m: m["learners"][0].update(id=7), r"learners\[0\]\.id: expected text, got a number 7"),
    (lambda m: m.update(per_learner="no"), "per_learner: expected true or false, got text 'no'"),
    (lambda m: m.update(learners={"ann": {}}), "learners: expected a list, got an object"),
    (lambda m: m["learners"][0].pop("exercises"), r"learners\[0\]\.exercises: missing"),
    (lambda m: m.update(lesons=["03"]), "lesons: not a field of this record"),
])
def test_a_manifest_field_of_the_wrong_type_is_named(tmp_path, change, message):
    data = manifest()
    change(data)
    path = tmp_path / "week3.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match=f"^{path}: {message}"):
        Manifest.read(path)


@pytest.mark.parametrize(("change", "message"), [
    (lambda r: r.update(learner=["ann"]), "learner: expected text, got a list"),
    (lambda r: r["answers"][0].update(correct="yes"), r"answers\[0\]\.correct: expected true or false, got text"),
    (lambda r: r["answers"][0].update(points=None), r"answers\[0\]\.points: expected a number, got null"),
    (lambda r: r["answers"][0].update(help_used="hint"), r"answers\[0\]\.help_used: expected a list of text"),
    (lambda r: r["problems"][0].pop("code"), r"problems\[0\]\.code: missing"),
    (lambda r: r.update(seconds=True), "seconds: expected a number, got true/false True"),
])
def test_a_result_field_of_the_wrong_type_is_named(change, message):
    data = json.loads(result().to_json())
    change(data)
    with pytest.raises(ValueError, match=f"^{message}"):
        NotebookResult.from_json(json.dumps(data))


@pytest.mark.parametrize(("change", "message"), [
    (lambda s: s.update(shard="0"), "shard: expected a whole number, got text '0'"),
    (lambda s: s.update(roster="ann"), "roster: expected a list of text, got text 'ann'"),
    (lambda s: s.update(learners={"ann": ["sheet-ndcg3"]}), "learners.ann: expected an object, got a list"),
    (lambda s: s.update(complete="true"), "complete: expected true or false, got text 'true'"),
    (lambda s: s.update(manifest=1), "manifest: expected text or null, got a number 1"),
])
def test_a_shard_field_of_the_wrong_type_is_named(tmp_path, change, message):
    data = shard().to_json()
    change(data)
    (tmp_path / SHARD_FILE).write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match=f"^{tmp_path / SHARD_FILE}: {message}"):
        ShardRecord.read(tmp_path)


def test_the_format_and_version_are_checked_first(tmp_path):
    with pytest.raises(ValueError, match="not an assignment manifest"):
        Manifest.from_json({"format": "other", "lessons": "03"})
    with pytest.raises(ValueError, match="update helpers"):
        Manifest.from_json({"format": FORMAT, "version": VERSION + 1, "lessons": "03"})
