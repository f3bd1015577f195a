"""The assignment manifest: what the teacher released, so the grader judges exactly that (release, grade).

``python -m helpers.release DIR --assignment --roster R --manifest FILE`` writes
it where the teacher keeps it (never inside the learners' copy);
``python -m helpers.grade SUBMISSIONS --out OUT --assignment FILE`` grades by it:
every roster id gets a row, each learner is judged on their own exercises for
their points and on their own variant of each, and whatever a hand-in claims
(its lesson mark, its check cells, its log lines) cannot add an exercise or
shrink the total. The manifest holds each learner's variant seeds: keep it like
the course secret (the file is written readable by you alone).

The file is JSON, stable and versioned (:data:`FORMAT`, :data:`VERSION`)::

    {
      "format": "ranking-metrics-assignment", "version": 1,
      "created": "2025-01-31T12:00:00+00:00",
      "lessons": ["03"],                                  # the lessons released
      "released": {"03_the_ndcg_spreadsheet.ipynb": "<content digest>"},
      "per_learner": true,                                # variants drawn from the course secret
      "secret_check": "<16 hex digits>",                  # tells a wrong --secret, reveals nothing ("" without)
      "learners": [
        {"id": "ann",                                     # the roster id, Unicode NFC
         "lessons": ["03"],
         "exercises": [{"id": "sheet-ndcg3", "lesson": "03", "points": 1.0,
                        "seed": 123456789, "variant": "<digest of its question and data>"},
                       {"id": "kb04-graded-2", "lesson": "03", "points": 1.0, "seed": null, "variant": null}],
         "copies": {"03_the_ndcg_spreadsheet.ipynb": "<content digest>"},
         "own_cells": ["<digest of each question cell with the learner's own numbers>"]}
      ]
    }

A *content digest* is the SHA-256 of a notebook's cells (type and source, in
order; outputs and metadata left out: :func:`content_digest`), so a copy opened
and saved unchanged still matches. :meth:`LearnerEntry.digest` is the SHA-256 of
a learner's entry as canonical JSON (sorted keys, no spaces, UTF-8): it changes
exactly when what that learner is graded on changes. A reader refuses a file of
another format or a newer version.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from helpers.teacher.files import atomic_open
from helpers.teacher.records import Fields

FORMAT = "ranking-metrics-assignment"
VERSION = 1


def nfc(text: str) -> str:
    """A learner id as the grader compares it: Unicode NFC (macOS zips write é as e + a combining accent)."""
    return unicodedata.normalize("NFC", text)


def canonical(data: Any) -> bytes:
    """JSON with sorted keys and no spaces, UTF-8: the same data always gives the same bytes."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def content_digest(cells: Iterable[tuple[str, str]]) -> str:
    """The SHA-256 of a notebook's cells as (cell type, source) pairs, in order."""
    return hashlib.sha256(canonical([[kind, source] for kind, source in cells])).hexdigest()


def notebook_digest(notebook) -> str:
    """The content digest of an nbformat notebook (see :func:`content_digest`)."""
    return content_digest((cell.cell_type, _source(cell.get("source", ""))) for cell in notebook.cells)


def _source(source: str | list[str]) -> str:
    return "".join(source) if isinstance(source, list) else str(source)


def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def secret_check(secret: bytes) -> str:
    """A short value that tells whether a course secret is the release's, and from which nothing follows."""
    return hmac.new(secret, b"ranking-metrics-assignment manifest", hashlib.sha256).hexdigest()[:16]


@dataclass(frozen=True)
class Assigned:
    """One exercise of one learner: its points and, for an exercise with variants, the learner's seed."""

    id: str
    lesson: str
    points: float
    seed: int | None = None
    variant: str | None = None  # the digest of the variant's question and data, to notice a changed generator


@dataclass(frozen=True)
class LearnerEntry:
    """One learner of the roster: their lessons, exercises, copies and own question cells."""

    id: str
    lessons: tuple[str, ...]
    exercises: tuple[Assigned, ...]
    copies: dict[str, str] = field(default_factory=dict)
    own_cells: tuple[str, ...] = ()

    @property
    def points(self) -> dict[str, float]:
        """exercise id -> points, in the manifest's order."""
        return {exercise.id: exercise.points for exercise in self.exercises}

    @property
    def seeds(self) -> dict[str, int]:
        return {exercise.id: exercise.seed for exercise in self.exercises if exercise.seed is not None}

    def to_json(self) -> dict:
        return {"id": self.id, "lessons": list(self.lessons), "exercises": [asdict(e) for e in self.exercises],
                "copies": dict(self.copies), "own_cells": list(self.own_cells)}

    def digest(self) -> str:
        """SHA-256 of the entry as canonical JSON: a key for 'this learner, graded on exactly this'."""
        return hashlib.sha256(canonical(self.to_json())).hexdigest()


@dataclass(frozen=True)
class Manifest:
    """The release, as the grader needs it (see the module docstring)."""

    lessons: tuple[str, ...]
    learners: tuple[LearnerEntry, ...]
    released: dict[str, str] = field(default_factory=dict)
    per_learner: bool = False
    secret_check: str = ""
    created: str = ""

    def learner(self, learner_id: str) -> LearnerEntry | None:
        """The roster entry of an id (compared in NFC), or None."""
        wanted = nfc(learner_id)
        return next((entry for entry in self.learners if entry.id == wanted), None)

    @property
    def roster(self) -> list[str]:
        return [entry.id for entry in self.learners]

    def exercise_ids(self) -> list[str]:
        """Every exercise id of every learner, each once, in the manifest's order."""
        return list(dict.fromkeys(exercise.id for entry in self.learners for exercise in entry.exercises))

    def to_json(self) -> dict:
        return {"format": FORMAT, "version": VERSION, "created": self.created, "lessons": list(self.lessons),
                "released": dict(self.released), "per_learner": self.per_learner,
                "secret_check": self.secret_check, "learners": [entry.to_json() for entry in self.learners]}

    def write(self, path: Path) -> None:
        """Write the manifest (readable by its owner alone: it holds the variant seeds)."""
        with atomic_open(path, private=True) as handle:
            json.dump(self.to_json(), handle, indent=1, ensure_ascii=False)
            handle.write("\n")

    @classmethod
    def from_json(cls, data: dict) -> Manifest:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"not an assignment manifest (its format is not {FORMAT!r})")
        if not isinstance(data.get("version"), int) or data["version"] > VERSION:
            raise ValueError(f"manifest version {data.get('version')!r}: this grader reads version {VERSION}; "
                             "update helpers")
        record = Fields(data)
        record.only(("format", "version", "created", "lessons", "released", "per_learner", "secret_check",
                     "learners"))
        learners = [_learner_entry(entry) for entry in record.objects("learners")]
        ids = [entry.id for entry in learners]
        twice = sorted({learner for learner in ids if ids.count(learner) > 1})
        if twice:
            raise ValueError(f"learner ids listed twice: {', '.join(twice)}")
        return cls(tuple(record.texts("lessons")), tuple(learners), record.text_map("released", {}),
                   record.flag("per_learner", False), record.text("secret_check", ""), record.text("created", ""))

    @classmethod
    def read(cls, path: Path) -> Manifest:
        """Read a manifest; ValueError naming the file and what is wrong."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return cls.from_json(data)
        except OSError as error:
            raise ValueError(f"{path}: {error.strerror or error}") from None
        except (ValueError, KeyError, TypeError) as error:
            raise ValueError(f"{path}: {error}") from None


def _learner_entry(entry: Fields) -> LearnerEntry:
    """One learner of a manifest read back, each field checked (ValueError naming it)."""
    entry.only(("id", "lessons", "exercises", "copies", "own_cells"))
    exercises = []
    for exercise in entry.objects("exercises"):
        exercise.only(("id", "lesson", "points", "seed", "variant"))
        exercises.append(Assigned(exercise.text("id"), exercise.text("lesson"), float(exercise.number("points")),
                                  exercise.optional_whole("seed"), exercise.optional_text("variant")))
    return LearnerEntry(nfc(entry.text("id")), tuple(entry.texts("lessons")), tuple(exercises),
                        entry.text_map("copies", {}), tuple(entry.texts("own_cells", [])))


# --- written by the release ------------------------------------------------------------------------------


def build(
    roster: Sequence[str], lessons: dict[str, list], points: dict[str, float], copies: dict[str, Any],
    secret: bytes | None,
) -> Manifest:
    """The manifest of a release: ``lessons`` maps each lesson to its exercises, ``copies`` each notebook name
    to its released (base) notebook; with ``secret`` each learner gets their own variants."""
    from helpers.exercises.fresh import VARIANTS
    from helpers.teacher.per_learner import learner_seed, personalised, question_cell, variant_digest

    learners = []
    for learner in roster:
        exercises, own_cells = [], []
        for lesson, found in lessons.items():
            for exercise in found:
                seed = variant = None
                if secret is not None and exercise.id in VARIANTS:
                    seed = learner_seed(secret, learner, exercise.id)
                    variant = variant_digest(exercise.id, seed)
                    own_cells.append(text_digest(question_cell(exercise.id, seed=seed).source))
                exercises.append(Assigned(exercise.id, lesson, float(points.get(exercise.id, exercise.points)), seed,
                                          variant))
        own = {name: notebook_digest(personalised(notebook, secret, learner) if secret else notebook)
               for name, notebook in copies.items()}
        learners.append(LearnerEntry(learner, tuple(lessons), tuple(exercises), own, tuple(own_cells)))
    released = {name: notebook_digest(notebook) for name, notebook in copies.items()}
    return Manifest(tuple(lessons), tuple(learners), released, secret is not None,
                    secret_check(secret) if secret else "", datetime.now(UTC).isoformat(timespec="seconds"))


def manifest_in(path: Path) -> Path:
    """``--assignment``: a manifest file, or a folder holding one (a Kubernetes Secret mounted with the teacher's
    own file name, ``week3.json``): that folder's one ``.json`` file; ValueError when it holds none or several."""
    if not path.is_dir():
        return path
    found = sorted(entry for entry in path.glob("*.json") if not entry.name.startswith("."))
    if len(found) != 1:
        named = ", ".join(entry.name for entry in found) or "none"
        raise ValueError(f"--assignment {path} is a folder: it must hold exactly one manifest (.json), not {named}")
    return found[0]


def check_place(path: Path, target: Path) -> Path:
    """The manifest's path, refused inside the learners' copy (it would hand out every learner's seeds)."""
    path, target = path.expanduser().resolve(), target.expanduser().resolve()
    if path.is_relative_to(target):
        raise ValueError(f"--manifest {path} would be inside the learners' copy {target}: keep it elsewhere "
                         "(it holds every learner's variant seeds)")
    if path.is_dir():
        raise ValueError(f"--manifest {path} is a folder: give a file name such as week3.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    return path
