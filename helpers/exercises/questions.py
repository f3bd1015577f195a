"""The questions of an assignment copy: what a learner is asked, never what the answer is (release, grader).

An assignment copy of the collection holds ``helpers/exercises/questions.json``
in place of the answer key (the modules of :mod:`helpers.exercises.lessons` and
the teacher's exercise files). Each entry says what is asked, at which
precision, for how many points, and for a function exercise the name and the
parameters of the function to write; the teacher may add the hints. There is no
expected value, no hidden case and no solution in it: the grader, in its own
process, judges the answers that ``check`` recorded. The release writes the file
(:func:`helpers.teacher.keyless.write_questions`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from helpers._checks import did_you_mean
from helpers.exercises.answers import short_text

QUESTIONS_FILE = Path(__file__).resolve().parent / "questions.json"
KEY_FOLDER = Path(__file__).resolve().parent / "lessons"


Entry = TypeVar("Entry")


def find(exercise_id: object, known: Mapping[str, Entry]) -> Entry:
    """The entry of an exercise id, or a clear error naming the nearest known ids (every ``get`` of a copy).

    >>> find("old-mr", {"old-mrr": 1, "new-mrr": 2})
    Traceback (most recent call last):
    ValueError: unknown exercise id 'old-mr'; did you mean 'old-mrr'? (list_exercises() shows all 2)
    """
    if not isinstance(exercise_id, str):
        raise TypeError(f"an exercise id is a string such as 'old-mrr', got {short_text(exercise_id)}")
    if exercise_id not in known:
        raise ValueError(unknown_id(exercise_id, known))
    return known[exercise_id]


def unknown_id(exercise_id: str, known: Iterable[str]) -> str:
    """The message for an id nobody registered: the nearest known ids, and where to see them all."""
    ids = sorted(known)
    nearest = did_you_mean(exercise_id, ids)
    return f"unknown exercise id {exercise_id!r}{nearest} (list_exercises() shows all {len(ids)})"


@dataclass(frozen=True)
class Question:
    """One exercise as an assignment copy knows it: the question, how it is answered, and its points."""

    id: str
    lesson: str
    kind: str
    question: str
    precision: str
    points: float
    decimals: int | None = None
    min_decimals: int | None = None
    name: str = ""
    parameters: str = ""
    hints: tuple[str, ...] = ()
    variants: bool = False  # a roster's learners may each have their own numbers (the cell above says them)


def is_assignment_copy() -> bool:
    """True in a copy that holds the questions and no answer key (an assignment, or the grader's kernel)."""
    return QUESTIONS_FILE.is_file() and not KEY_FOLDER.is_dir()


def read_questions(path: Path = QUESTIONS_FILE) -> dict[str, Question]:
    """id -> Question, from a questions file; ValueError naming the file when it cannot be read."""
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))["questions"]
        found = [Question(**{**entry, "hints": tuple(entry.get("hints", ()))}) for entry in entries]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{path}: not a questions file of this collection ({error})") from None
    return {question.id: question for question in found}
