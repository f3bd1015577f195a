"""What a grading run grades, and for whom: a manifest's roster and exercises, ``--expect``, or the hand-ins.

Three ways, from the strictest:

- an assignment manifest (``grade --assignment FILE``): every roster id gets a
  row; each learner is graded on exactly their exercises, for the manifest's
  points, on their own variants; answers for any other id are ignored
  (``not-in-assignment``); hand-ins of ids not on the roster are not graded;
- ``--expect IDS_OR_LESSONS``: every learner who handed in is graded on exactly
  these exercises, handed in or not, the same way;
- neither: each notebook is graded on its lessons' exercises and any other it
  checked (and, when all hand-ins are of one lesson, that lesson is expected).

The gradebook, the feedback pages and the class report all count out of the
same exercises (:meth:`Plan.exercises`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Protocol

from helpers.exercises.fresh import VARIANTS
from helpers.teacher.judging import AnswerKey
from helpers.teacher.manifest import Manifest, canonical, nfc


class Rows(Protocol):
    """What the gradebook, the feedback and the class report ask of a plan (a :class:`Plan`, or a merge's record)."""

    @property
    def roster(self) -> list[str]: ...

    def exercises(self, learner: str) -> dict[str, float] | None: ...

    def questions(self, learner: str) -> dict[str, str]: ...


def shard_of(learner: str, count: int) -> int:
    """The shard (0 to count - 1) of a learner: the first 8 bytes of the SHA-256 of their NFC id, mod count.

    It depends on the id alone, so it stays put as late hand-ins and new learners arrive, and all of one
    learner's hand-ins fall in one shard.
    """
    return int.from_bytes(hashlib.sha256(nfc(learner).encode("utf-8")).digest()[:8], "big") % count


@dataclass(frozen=True)
class Plan:
    """What is graded (see the module docstring); ``secret``: per-learner numbers without a manifest.

    ``shard`` (K, N): only the learners of shard K of N (:func:`shard_of`) are graded and get rows.
    """

    manifest: Manifest | None = None
    expect: dict[str, float] | None = None
    secret: bytes | None = None
    shard: tuple[int, int] | None = None

    @property
    def roster(self) -> list[str]:
        """Every learner who gets a row whether they handed in or not (a manifest's roster), else []."""
        return [learner for learner in self.manifest.roster if self.in_shard(learner)] if self.manifest else []

    def in_shard(self, learner: str) -> bool:
        """True for a learner this run grades (every learner without --shard)."""
        return self.shard is None or shard_of(learner, self.shard[1]) == self.shard[0]

    def assignment_digest(self) -> str:
        """SHA-256 of what decides who and what is graded: the manifest, else --expect and the secret's check."""
        if self.manifest is not None:
            return hashlib.sha256(canonical(self.manifest.to_json())).hexdigest()
        from helpers.teacher.manifest import secret_check

        check = secret_check(self.secret) if self.secret is not None else ""
        return hashlib.sha256(canonical({"expect": self.expect, "secret_check": check})).hexdigest()

    def learner_digest(self, learner: str) -> str:
        """SHA-256 of what one learner is graded on: their manifest entry (:meth:`LearnerEntry.digest`), the
        released copies it is compared with; without a manifest, --expect and the learner's seeds."""
        if self.manifest is not None:
            entry = self.manifest.learner(learner)
            own = entry.digest() if entry else "not on the roster"
            return hashlib.sha256(canonical({"entry": own, "released": self.manifest.released})).hexdigest()
        return hashlib.sha256(canonical({"expect": self.expect, "seeds": self.seeds(learner)})).hexdigest()

    def on_roster(self, learner: str) -> bool:
        """False for a hand-in whose learner a manifest does not list (it is not graded)."""
        return self.manifest is None or self.manifest.learner(learner) is not None

    def exercises(self, learner: str) -> dict[str, float] | None:
        """exercise id -> points this learner is graded on, or None (the exercises their notebooks show)."""
        if self.manifest is not None:
            entry = self.manifest.learner(learner)
            return entry.points if entry else {}
        return dict(self.expect) if self.expect is not None else None

    def seeds(self, learner: str) -> dict[str, int]:
        """exercise id -> the seed of this learner's variant (empty: the lesson's own numbers)."""
        if self.manifest is not None:
            entry = self.manifest.learner(learner)
            return entry.seeds if entry else {}
        if self.secret is not None:
            from helpers.teacher.per_learner import learner_seed

            return {exercise_id: learner_seed(self.secret, nfc(learner), exercise_id) for exercise_id in VARIANTS}
        return {}

    def questions(self, learner: str) -> dict[str, str]:
        """exercise id -> the question this learner was asked, where it is their own (their variant's words)."""
        from helpers.teacher.per_learner import own_texts

        seeds = self.seeds(learner)
        ids = list(self.exercises(learner) or seeds)
        return {exercise_id: text for exercise_id, (text, _) in own_texts(ids, seeds).items()} if seeds else {}

    def key(self, base: AnswerKey, learner: str) -> AnswerKey:
        """The answer key for one learner: their variants' answers and words, their points."""
        from helpers.exercises.fresh import draw
        from helpers.teacher.per_learner import own_texts

        key = base
        seeds = self.seeds(learner)
        if seeds:
            worked = {exercise_id: draw(exercise_id, seed).worked for exercise_id, seed in seeds.items()}
            ids = list(self.exercises(learner) or base.points)
            key = key.for_learner(worked, own_texts(ids, seeds))
        points = self.exercises(learner)
        return key.with_points(points) if points else key
