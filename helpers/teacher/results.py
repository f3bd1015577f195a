"""What grading one notebook gives: the judged answers, the problems found, and the points (the grader's records).

A :class:`NotebookResult` is saved as JSON the moment its notebook is graded
(``results/`` in the output folder, one file per hand-in: :func:`result_file`),
and the gradebook, the answers table, the feedback pages and the class report
are all built from these records. Each record carries the fingerprint of what
its verdict depends on (:mod:`helpers.teacher.fingerprint`), so a rerun takes
it as it is when nothing changed.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from helpers.teacher.files import write_text_atomic
from helpers.teacher.records import Fields

# problem code -> what it means, in words a learner can read in the feedback
PROBLEMS = {
    "not-a-file": "the hand-in is a link, a device or a pipe, not a notebook file: it was not read",
    "invalid-notebook": "the file is not a notebook the grader can read",
    "too-large": "the file is over the grader's cap on size or on cells: it was not run",
    "nbformat-warning": "nbformat warned about the file (a repaired duplicate cell id, ...): graded all the same",
    "raised": "a cell stopped with an error (the cells after it still ran)",
    "cpu-time": "the notebook's processes used more CPU time than the limit (an endless loop?) and it was stopped",
    "load-timeout": "the grader stopped the notebook at its wall-clock safety net before it had used its CPU time "
                    "(a busy machine, or a notebook that waits): the grader's side; the next run grades it again",
    "timeout": "the notebook ran past the time limit and was stopped (an earlier grader's wall-clock limit)",
    "memory-limit": "the notebook asked for more memory than the limit (a cell, or its processes and /tmp together)",
    "disk-limit": "the notebook wrote more into its folder and /tmp than the limit, and was stopped",
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
    "hand-in-gone": "the hand-in graded before is no longer among the hand-ins: its earlier grade is kept",
    "submission-changed": "this submission was changed or deleted while the class was graded (graded as read first)",
    "duplicate": "several hand-ins of this learner answer the same exercises: each was graded, none counts "
                 "until one is chosen",
    "grader-error": "the grader itself failed on this notebook",
}
# Problems that are the grader's or the machine's, not the notebook's: a plain rerun grades these records again
GRADER_SIDE = ("grader-error", "load-timeout")
# Also graded again with --regrade-grader-side: the wall-clock timeouts of graders before the CPU budget
MAYBE_GRADER_SIDE = (*GRADER_SIDE, "timeout")


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
    fingerprint: str = ""  # of the hand-in, the learner's entry, the key version and the settings
    key_version: str = ""
    graded_at: str = ""  # when it was graded (UTC, ISO 8601 to the second)

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
        """A record read back, each field checked for its type (ValueError naming the field)."""
        record = Fields(json.loads(text))
        record.only(field.name for field in fields(cls))
        problems = []
        for problem in record.objects("problems"):
            problem.only(("code", "message"))
            problems.append(Problem(problem.text("code"), problem.text("message")))
        return cls(record.text("learner"), record.text("notebook"), record.text("lesson", ""),
                   record.text("sha256", ""), record.text("sandbox", ""), record.number("seconds", 0.0),
                   [_judged(answer) for answer in record.objects("answers")], problems,
                   record.text("fingerprint", ""), record.text("key_version", ""), record.text("graded_at", ""))


def _judged(answer: Fields) -> Judged:
    """One judged exercise of a record read back, each field checked."""
    answer.only(field.name for field in fields(Judged))
    return Judged(answer.text("exercise"), answer.text("lesson"), answer.text("kind"), answer.text("answer"),
                  answer.text("verdict"), answer.flag("correct"), answer.number("points"),
                  answer.number("max_points"), answer.text("mistake", ""), answer.text("mistake_title", ""),
                  answer.text("message", ""), answer.text("hint", ""), tuple(answer.texts("help_used", [])),
                  answer.text("question", ""))


def result_file(notebook: str) -> str:
    """The file name of a hand-in's record: its path made a file name, and a short hash of the path.

    >>> result_file("ann/03_the_ndcg_spreadsheet.ipynb")[:34]
    'ann__03_the_ndcg_spreadsheet.ipynb'
    """
    plain = re.sub(r"[^A-Za-z0-9._-]+", "_", notebook.replace("/", "__")).strip("._")[:80] or "notebook"
    return f"{plain}-{hashlib.sha256(notebook.encode('utf-8')).hexdigest()[:10]}.json"


def write_result(folder: Path, result: NotebookResult) -> Path:
    """Save a record atomically (a temporary file, then renamed): a crash leaves the old one or the new one."""
    path = folder / result_file(result.notebook)
    return write_text_atomic(path, result.to_json())


def read_result(path: Path) -> NotebookResult | None:
    """A saved record, or None when the file is missing or not one (it is then graded again)."""
    try:
        return NotebookResult.from_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None


def load_results(folder: Path) -> list[NotebookResult]:
    """The results saved in a folder (``results/`` of the grader's output), sorted by learner and notebook."""
    found = [NotebookResult.from_json(path.read_text(encoding="utf-8")) for path in folder.glob("*.json")]
    return sorted(found, key=lambda result: (result.learner, result.notebook))


# --- the gradebook: one model, every format an exporter of it (helpers.teacher.reports, helpers.teacher.lms) ---


@dataclass(frozen=True)
class Row:
    """A learner's line of the gradebook: points per exercise (None: not graded on it), and the problems.

    ``expected``: the exercises this learner is graded on whether answered or not, with their points.
    """

    learner: str
    points: dict[str, float | None]
    out_of: float
    problems: list[str]
    expected: dict[str, float] = field(default_factory=dict)

    @property
    def total(self) -> float:
        return sum(value for value in self.points.values() if value is not None)


@dataclass(frozen=True)
class Column:
    """One column of the gradebook: its title, and whether it holds points (a number) or text."""

    title: str
    is_points: bool
    exercise: str = ""  # the exercise whose points it holds; '' for learner, total, out_of, problems

    def value(self, row: Row) -> str | float | None:
        """This column's cell of a row: a number (None: no points) for points, else text."""
        if self.exercise:
            return row.points[self.exercise]
        if self.title in ("total", "out_of"):
            return row.total if self.title == "total" else row.out_of
        return row.learner if self.title == "learner" else "; ".join(row.problems)


@dataclass(frozen=True)
class Gradebook:
    """The gradebook every file is written from: the exercises graded (in order) and one :class:`Row` per learner.

    Its columns are declared here once (:attr:`columns`); each format is an exporter that writes them.
    """

    exercises: list[str]
    rows: list[Row]

    @property
    def columns(self) -> list[Column]:
        """learner, one column of points per exercise, total, out_of, problems."""
        return [Column("learner", False), *(Column(exercise, True, exercise) for exercise in self.exercises),
                Column("total", True), Column("out_of", True), Column("problems", False)]

    def cells(self, row: Row) -> list[str | float | None]:
        """A row's cells, one per column."""
        return [column.value(row) for column in self.columns]

