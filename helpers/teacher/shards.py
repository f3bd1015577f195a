"""A class graded in shards (``grade --shard K/N``), and the shards merged into one output (``grade --merge``).

``--shard K/N`` grades the learners whose id falls in shard K of N
(:func:`helpers.teacher.plan.shard_of`: the first 8 bytes of the SHA-256 of the
NFC id, mod N), roster learners with no hand-in included, into a folder of its
own, and writes :data:`SHARD_FILE` there beside the usual files::

    {"format": "ranking-metrics-grading-shard", "version": 1,
     "shard": 2, "of": 4, "complete": true,
     "assignment": "<SHA-256 of the manifest, or of --expect and the secret's check>",
     "manifest": "<SHA-256 of the manifest>" or null,
     "key_version": "<helpers.teacher.fingerprint.key_version>",
     "exercises": "<SHA-256 of the register: ids, lessons, kinds, points, questions>",
     "settings": {"timeout": 60.0, "memory_mb": 4096, "sandbox": "bwrap", "limits": "cgroup v2"},
     "said": ["sandbox: ...", "limits: ..."],
     "roster": ["ann", ...],                   # the manifest's learners of this shard ([] without one)
     "learners": {"ann": {"exercises": {"sheet-ndcg3": 1.0}, "questions": {...}}, ...},
     "notebooks": ["ann/03_the_ndcg_spreadsheet.ipynb", ...],   # each has its record in results/
     "unmatched": ["stranger/03.ipynb"]}

``complete`` is false until the shard's last notebook is graded; a shard run
again in its folder resumes there. ``learners`` holds what the gradebook and the
feedback need of the plan for each learner (their exercises and points, the
question each was asked), so the merge needs neither the manifest nor the
course secret: only the shard folders (and the teacher's ``--exercises`` files,
for the register).

:func:`merge` refuses unless every shard has the same N, assignment, key version,
settings and register, each index 0..N-1 appears once and is complete, no
learner is in two shards, and every notebook listed has its record; then it
writes one output folder from all the records, the same as one run over the
whole class would have written (the records' times aside).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from helpers.teacher.files import write_text_atomic
from helpers.teacher.records import Fields
from helpers.teacher.results import NotebookResult, read_result, result_file

FORMAT = "ranking-metrics-grading-shard"
VERSION = 1
SHARD_FILE = "shard.json"


def parse_shard(text: str) -> tuple[int, int]:
    """'K/N' -> (K, N), with 0 <= K < N; ValueError saying what is wrong."""
    parts = text.strip().split("/")
    if len(parts) != 2 or not all(part.strip().isdigit() for part in parts):
        raise ValueError(f"--shard {text!r}: give K/N, the shard K of N counted from 0 (e.g. 0/4)")
    index, count = (int(part) for part in parts)
    if count < 1 or index >= count:
        raise ValueError(f"--shard {text!r}: K must be 0 to N - 1 and N at least 1 (e.g. 0/4 to 3/4)")
    return index, count


def register_digest() -> str:
    """SHA-256 of the register as the reports read it: each exercise's id, lesson, kind, points, question."""
    from helpers.exercises import REGISTRY
    from helpers.teacher.fingerprint import sha256

    return sha256([[e.id, e.lesson, e.kind, float(e.points), e.question] for e in REGISTRY.values()])


@dataclass
class ShardRecord:
    """What :data:`SHARD_FILE` holds (see the module docstring)."""

    index: int
    count: int
    assignment: str
    manifest: str | None
    key_version: str
    exercises: str
    settings: dict[str, Any]
    said: list[str] = field(default_factory=list)
    roster: list[str] = field(default_factory=list)
    learners: dict[str, dict[str, Any]] = field(default_factory=dict)
    notebooks: list[str] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)
    complete: bool = False

    def to_json(self) -> dict:
        return {"format": FORMAT, "version": VERSION, "shard": self.index, "of": self.count,
                "complete": self.complete, "assignment": self.assignment, "manifest": self.manifest,
                "key_version": self.key_version, "exercises": self.exercises, "settings": self.settings,
                "said": self.said, "roster": self.roster, "learners": self.learners, "notebooks": self.notebooks,
                "unmatched": self.unmatched}

    def write(self, folder: Path) -> None:
        """Write shard.json into the shard's folder, atomically."""
        path = folder / SHARD_FILE
        write_text_atomic(path, json.dumps(self.to_json(), indent=1, ensure_ascii=False) + "\n")

    @classmethod
    def read(cls, folder: Path) -> ShardRecord:
        """The record of a shard folder; ValueError naming the folder and what is wrong."""
        path = folder / SHARD_FILE
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ValueError(f"{folder} is not a shard's folder: it has no {SHARD_FILE} (grade --shard K/N "
                             "writes it)") from None
        except (OSError, ValueError) as error:
            raise ValueError(f"{path}: {error}") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"{path}: not a shard record (its format is not {FORMAT!r})")
        if not isinstance(data.get("version"), int) or data["version"] > VERSION:
            raise ValueError(f"{path}: shard record version {data.get('version')!r}; this grader reads "
                             f"version {VERSION}: update helpers")
        try:
            record = Fields(data)
            record.only(("format", "version", "shard", "of", "complete", "assignment", "manifest", "key_version",
                         "exercises", "settings", "said", "roster", "learners", "notebooks", "unmatched"))
            learners = {learner: Fields(entry, f"learners.{learner}").data
                        for learner, entry in record.mapping("learners", {}).items()}
            return cls(record.whole("shard"), record.whole("of"), record.text("assignment"),
                       record.optional_text("manifest"), record.text("key_version"), record.text("exercises"),
                       record.mapping("settings"), record.texts("said", []), record.texts("roster", []), learners,
                       record.texts("notebooks", []), record.texts("unmatched", []), record.flag("complete", False))
        except ValueError as error:
            raise ValueError(f"{path}: {error}") from None


def record_of(plan, index: int, count: int, key_version: str, settings: dict[str, Any], said: Sequence[str],
              learners: Sequence[str], notebooks: Sequence[str], unmatched: Sequence[str]) -> ShardRecord:
    """The shard record of a run (``complete`` false: set when its last notebook is graded)."""
    table = {learner: {"exercises": plan.exercises(learner), "questions": plan.questions(learner)}
             for learner in sorted(learners)}
    return ShardRecord(
        index, count, plan.assignment_digest(),
        plan.assignment_digest() if plan.manifest is not None else None,
        key_version, register_digest(), dict(settings), list(said), sorted(plan.roster), table,
        sorted(notebooks), sorted(unmatched),
    )


@dataclass(frozen=True)
class RecordedPlan:
    """The plan of a merged class, as the shards recorded it: each learner's exercises and questions."""

    learners: dict[str, dict[str, Any]]
    listed: tuple[str, ...] = ()

    @property
    def roster(self) -> list[str]:
        return list(self.listed)

    def exercises(self, learner: str) -> dict[str, float] | None:
        chosen = self.learners.get(learner, {}).get("exercises")
        return {str(key): float(value) for key, value in chosen.items()} if isinstance(chosen, dict) else None

    def questions(self, learner: str) -> dict[str, str]:
        asked = self.learners.get(learner, {}).get("questions")
        return {str(key): str(value) for key, value in asked.items()} if isinstance(asked, dict) else {}


def check_shards(records: Sequence[tuple[Path, ShardRecord]]) -> None:
    """Refuse (ValueError) shards that do not make one class: see the module docstring."""
    if not records:
        raise ValueError("--merge: name the output folder, then every shard's folder")
    first_folder, first = records[0]
    for what, name in (("count", "N"), ("assignment", "assignment (manifest, --expect, --secret)"),
                       ("key_version", "key version (answer key, helpers, course, libraries)"),
                       ("settings", "settings (--timeout, --memory, sandbox, limits)"),
                       ("exercises", "register of exercises (--exercises files)")):
        for folder, record in records[1:]:
            if getattr(record, what) != getattr(first, what):
                raise ValueError(f"--merge: {folder} and {first_folder} differ in their {name}: grade every shard "
                                 "of a class with the same command and helpers")
    indices = sorted(record.index for _, record in records)
    if indices != list(range(first.count)):
        twice = sorted({index for index in indices if indices.count(index) > 1})
        missing = sorted(set(range(first.count)) - set(indices))
        said = "; ".join(part for part in (f"twice: {', '.join(map(str, twice))}" if twice else "",
                                           f"missing: {', '.join(map(str, missing))}" if missing else "") if part)
        raise ValueError(f"--merge: the shards must be 0 to {first.count - 1} of {first.count}, each once ({said})")
    for folder, record in records:
        if not record.complete:
            raise ValueError(f"--merge: shard {record.index}/{record.count} ({folder}) is not complete: run it "
                             "again (it resumes in its folder), then merge")
    seen: dict[str, int] = {}
    for _, record in records:
        for learner in record.learners:
            if learner in seen:
                raise ValueError(f"--merge: learner {learner!r} is in shard {seen[learner]} and in shard "
                                 f"{record.index}")
            seen[learner] = record.index


def shard_results(folder: Path, record: ShardRecord) -> list[NotebookResult]:
    """The records of every notebook a shard lists, checked against the shard's key version and learners."""
    found = []
    for notebook in record.notebooks:
        result = read_result(folder / "results" / result_file(notebook))
        if result is None or result.notebook != notebook:
            raise ValueError(f"--merge: {folder} lists {notebook} but has no record of it in results/")
        if result.key_version != record.key_version or result.learner not in record.learners:
            raise ValueError(f"--merge: the record of {notebook} in {folder} is not of this shard's run")
        found.append(result)
    return found


def merge(out: Path, folders: Sequence[Path]) -> tuple[Any, list[str]]:
    """Write one output folder from the shards' records; the folder (an OutputFolder) and the lines said."""
    from helpers.teacher.reports import OutputFolder

    records = [(folder, ShardRecord.read(folder)) for folder in folders]
    check_shards(records)
    own = register_digest()
    if records[0][1].exercises != own:
        raise ValueError("--merge: the shards were graded with a register of exercises this command does not have: "
                         "pass the same --exercises FILE as the shards")
    results = [result for folder, record in records for result in shard_results(folder, record)]
    learners = {learner: entry for _, record in records for learner, entry in record.learners.items()}
    roster = sorted(learner for _, record in records for learner in record.roster)
    said = list(dict.fromkeys(line for _, record in records for line in record.said))
    unmatched = sorted(name for _, record in records for name in record.unmatched)
    store = OutputFolder(out, RecordedPlan(learners, tuple(roster)), None, unmatched=unmatched, every=float("inf"))
    for result in results:
        store.add(result)
    store.finish(said)
    return store, said
