"""What grading one notebook gives: the judged answers, the problems found, and the points (the grader's records).

A :class:`NotebookResult` is saved as JSON the moment its notebook is graded
(``results/`` in the output folder), and the gradebook, the answers table, the
feedback pages and the class report are all built from these records.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

# problem code -> what it means, in words a learner can read in the feedback
PROBLEMS = {
    "not-a-file": "the hand-in is a link, a device or a pipe, not a notebook file: it was not read",
    "invalid-notebook": "the file is not a notebook the grader can read",
    "raised": "a cell stopped with an error (the cells after it still ran)",
    "timeout": "the notebook ran past the time limit and was stopped",
    "memory-limit": "the notebook asked for more memory than the limit (a cell, or its processes and /tmp together)",
    "too-much-output": "the notebook printed or showed more than the grader takes in, and was stopped",
    "kernel-died": "the Python kernel running the notebook died",
    "no-checks": "no exercise cell recorded an answer",
    "unknown-exercise": "check() was called with an exercise id the grader does not know",
    "not-in-assignment": "answers for exercises that are not part of this assignment were ignored",
    "released-copy": "the hand-in is the notebook as it was released, with nothing changed",
    "other-learners-copy": "the hand-in is another learner's own copy (their numbers), not this learner's",
    "no-hand-in": "no notebook was handed in",
    "log-too-long": "the notebook wrote more to the check log than the grader reads",
    "hidden-cases-failed": "the grader's last cell, which runs your functions on the hidden cases, failed",
    "wrote-outside": "files outside the notebook's own folder were created, changed or deleted while it ran",
    "wrote-tmp": "files appeared in /tmp while the notebook ran (other programs may have made them)",
    "background-process": "the notebook left processes running; they were stopped",
    "submission-changed": "this submission was changed or deleted while the class was graded (graded as read first)",
    "duplicate": "several hand-ins of this learner answer the same exercises: each was graded, none counts "
                 "until one is chosen",
    "grader-error": "the grader itself failed on this notebook",
}


@dataclass(frozen=True)
class Problem:
    """A problem with a notebook: one of :data:`PROBLEMS` and the details."""

    code: str
    message: str


@dataclass(frozen=True)
class Judged:
    """One exercise of one notebook, judged by the grader in its own process."""

    exercise: str
    lesson: str
    kind: str
    answer: str
    verdict: str
    correct: bool
    points: float
    max_points: float
    mistake: str = ""
    mistake_title: str = ""
    message: str = ""
    hint: str = ""
    help_used: tuple[str, ...] = ()
    question: str = ""  # what this learner was asked (their own variant's words); '' in results graded before


@dataclass
class NotebookResult:
    """Everything the grader found in one notebook."""

    learner: str
    notebook: str
    lesson: str = ""
    sha256: str = ""
    sandbox: str = ""
    seconds: float = 0.0
    answers: list[Judged] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def total(self) -> float:
        return sum(answer.points for answer in self.answers)

    @property
    def codes(self) -> list[str]:
        """The problem codes, each once, in the order found."""
        return list(dict.fromkeys(problem.code for problem in self.problems))

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1)

    @classmethod
    def from_json(cls, text: str) -> NotebookResult:
        data = json.loads(text)
        answers = [Judged(**{**answer, "help_used": tuple(answer["help_used"])}) for answer in data.pop("answers")]
        problems = [Problem(**problem) for problem in data.pop("problems")]
        return cls(**data, answers=answers, problems=problems)


def load_results(folder: Path) -> list[NotebookResult]:
    """The results saved in a folder (``results/`` of the grader's output), sorted by learner and notebook."""
    found = [NotebookResult.from_json(path.read_text(encoding="utf-8")) for path in folder.glob("*.json")]
    return sorted(found, key=lambda result: (result.learner, result.notebook))
