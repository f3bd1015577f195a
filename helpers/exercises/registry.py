"""The register of exercises: one entry per exercise, read by check, hint, solution, the release and the grader.

An answer exercise states its question, how to compute its answer from the
data (a function returning a :class:`~helpers.exercises.worked.Worked` or a
plain number), the precision, its hints and the few lines of code a worked
solution shows. A function exercise states the name of the function the
learner writes and its hidden cases. The lessons' exercises live one module per
lesson in :mod:`helpers.exercises.lessons`.

A teacher adds an exercise with one entry (see docs/teachers.md, "Adding an
exercise")::

    from helpers.exercises import Exercise, register
    register(Exercise(
        id="my-mrr", lesson="01", question="MRR of first ranks 2, 0 and 1, to 3 decimals.",
        answer=lambda: metrics.mean_reciprocal_rank([2, 0, 1]),
        hints=("A miss scores 0 and stays in the mean.", "1/2, 0 and 1/1, then the mean of the three."),
        points=2,
    ))

The teacher's exercise files are run when :mod:`helpers.exercises` is
imported: every ``*.py`` in the folder ``exercises/`` next to ``notebooks/``
and ``data/`` (where ``python -m helpers.release`` puts them in the learners'
copy), and the files named in the environment variable ``HELPERS_EXERCISES``
(separated by ``os.pathsep``); so they reach every kernel and the grader alike.

These modules are the answer key. They exist in the repository and in practice
copies only: an assignment copy, and the kernel in which the grader runs a
learner's notebook, hold the questions alone (:mod:`helpers.exercises.questions`).
"""

from __future__ import annotations

import math
import os
import re
import runpy
import traceback
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from helpers._checks import check_number, check_whole, did_you_mean
from helpers.exercises.answers import short_text
from helpers.exercises.questions import find
from helpers.exercises.runner import Case
from helpers.exercises.worked import Slip, Worked, with_slips

EXTRA_EXERCISES_ENV = "HELPERS_EXERCISES"
EXTRA_EXERCISES_FOLDER = Path(__file__).resolve().parents[2] / "exercises"  # next to notebooks/ and data/
ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{1,48}$")


@dataclass(frozen=True)
class Exercise:
    """One answer exercise: a question whose answer is a number (or 'undefined')."""

    id: str
    lesson: str
    question: str
    answer: Callable[[], Worked | float]
    hints: tuple[str, ...]
    code: str = ""
    decimals: int = 3
    min_decimals: int | None = None
    points: float = 1.0
    slips: Callable[[], Sequence[Slip]] | None = None
    kind: str = field(default="answer", init=False)

    def __post_init__(self) -> None:
        # the precision is stated once, in decimals / min_decimals; the question's words are made from it
        said = isinstance(self.question, str) and self.question.strip()  # an empty question stays empty: refused
        if said and isinstance(self.decimals, int) and not isinstance(self.decimals, bool):
            object.__setattr__(self, "question", with_precision(self.question, self.decimals, self.min_decimals))

    def worked(self) -> Worked:
        """The answer with its steps and slip values, computed now from the data."""
        result = self.answer()
        if not isinstance(result, Worked):
            result = Worked(float(result), ())
        extra = tuple(self.slips()) if self.slips else ()
        return with_slips(result, *extra)

    @property
    def precision(self) -> str:
        """The precision asked, in words."""
        return precision_words(self.decimals, self.min_decimals)


def _decimals(count: int) -> str:
    return f"{count} decimal{'s' * (count != 1)}"


def precision_words(decimals: int, min_decimals: int | None = None) -> str:
    """The precision asked, short: '3 decimals', '4 decimals, 3 accepted', 'a whole number'."""
    if decimals == 0:
        return "a whole number"
    if min_decimals is None or min_decimals == decimals:
        return _decimals(decimals)
    return f"{_decimals(decimals)}, {min_decimals} accepted"


def precision_sentence(decimals: int, min_decimals: int | None = None) -> str:
    """The sentence a question ends with, made from the precision the checker judges at.

    >>> precision_sentence(3), precision_sentence(4, 3), precision_sentence(0)
    ('Give 3 decimals.', 'Give 4 decimals (3 are accepted).', 'Give a whole number.')
    """
    if decimals == 0:
        return "Give a whole number."
    if min_decimals is None or min_decimals == decimals:
        return f"Give {_decimals(decimals)}."
    verb = "is" if min_decimals == 1 else "are"
    return f"Give {_decimals(decimals)} ({min_decimals} {verb} accepted)."


PRECISION_SENTENCE = re.compile(r"\s*Give (a whole number|\d+ decimals?( \(\d+ (is|are) accepted\))?)\.\s*$")


def with_precision(question: str, decimals: int, min_decimals: int | None = None) -> str:
    """A question ending with the sentence :func:`precision_sentence` makes (one it already ends with replaced).

    >>> with_precision("MRR of ranks 1 and 3? Give 2 decimals.", 3)
    'MRR of ranks 1 and 3? Give 3 decimals.'
    """
    return f"{PRECISION_SENTENCE.sub('', question).rstrip()} {precision_sentence(decimals, min_decimals)}"


@dataclass(frozen=True)
class FunctionExercise:
    """One function exercise: the learner writes ``name(...)``; hidden cases check it."""

    id: str
    lesson: str
    question: str
    name: str
    cases: Callable[[], list[Case]]
    hints: tuple[str, ...]
    code: str = ""
    points: float = 1.0
    kind: str = field(default="function", init=False)

    @property
    def precision(self) -> str:
        """The tolerance of the cases, in words."""
        return "1e-6 (a value rounded to 2-4 decimals passes with a note)"


AnyExercise = Exercise | FunctionExercise
REGISTRY: dict[str, AnyExercise] = {}
# the ids whose answer and slips are not yet checked (the built-in lessons', until each is first looked up)
UNCHECKED: set[str] = set()
# the ids the built-in lessons registered (and nothing replaced since): their answers come from helpers' own source
BUILT_IN: set[str] = set()
_checking_on_first_use = False


def register(exercise: AnyExercise, *, replace: bool = False) -> AnyExercise:
    """Add an exercise to the register after checking its entry; return it.

    ``replace=True`` changes an exercise already registered under the same id
    (e.g. a teacher's notebook cell run twice).
    """
    if not isinstance(exercise, Exercise | FunctionExercise):
        raise TypeError(f"register takes an Exercise or a FunctionExercise, got {type(exercise).__name__}")
    if not isinstance(exercise.id, str) or not ID_PATTERN.match(exercise.id):
        raise ValueError(f"exercise id {exercise.id!r}: use 2-49 lower-case letters, digits and dashes, e.g. 'my-mrr'")
    if exercise.id in REGISTRY and not replace:
        raise ValueError(
            f"an exercise {exercise.id!r} is already registered (lesson {REGISTRY[exercise.id].lesson}); "
            "choose another id, or pass replace=True to change it"
        )
    for name in ("lesson", "question"):
        if not isinstance(getattr(exercise, name), str) or not getattr(exercise, name).strip():
            raise ValueError(f"exercise {exercise.id!r}: {name} must be a non-empty text")
    if isinstance(exercise.hints, str) or not exercise.hints or not all(isinstance(h, str) for h in exercise.hints):
        raise ValueError(f"exercise {exercise.id!r}: hints must be a tuple of at least one text (nudge first)")
    check_number(exercise.points, "points", at_least=0)
    if isinstance(exercise, Exercise):
        check_whole(exercise.decimals, "decimals", minimum=0)
        if exercise.min_decimals is not None:
            check_whole(exercise.min_decimals, "min_decimals", minimum=0)
        if not callable(exercise.answer):
            raise TypeError(f"exercise {exercise.id!r}: answer must be a function that computes the answer")
        if not _checking_on_first_use:
            check_slips(exercise)
    elif not callable(exercise.cases):
        raise TypeError(f"exercise {exercise.id!r}: cases must be a function returning the hidden cases")
    REGISTRY[exercise.id] = exercise
    if _checking_on_first_use and isinstance(exercise, Exercise):
        UNCHECKED.add(exercise.id)
    else:
        UNCHECKED.discard(exercise.id)
    if _checking_on_first_use:
        BUILT_IN.add(exercise.id)
    else:
        BUILT_IN.discard(exercise.id)
    return exercise


@contextmanager
def checked_on_first_use() -> Iterator[None]:
    """Register the exercises inside without computing their answers yet: each one's slips are checked when it is
    first looked up (:func:`get`), and all of them by :func:`check_all` (the test run does, before any test).

    The built-in lessons register so: computing every answer would cost each kernel half a second (lesson 09's
    p-value slips load scipy.stats). A teacher's exercise is checked as it is written.
    """
    global _checking_on_first_use
    before, _checking_on_first_use = _checking_on_first_use, True
    try:
        yield
    finally:
        _checking_on_first_use = before


def check_all() -> None:
    """Check the slips of every exercise registered but not yet checked; the first refused one raises ``ValueError``."""
    for exercise_id in [i for i in REGISTRY if i in UNCHECKED]:  # in the order they were registered
        get(exercise_id)


def check_slips(exercise: Exercise) -> None:
    """Refuse an exercise one of whose slips is unknown or gives the right answer; warn when two give one number.

    Every slip the exercise can name is checked, those of ``slips=`` and those its answer adds
    (``with_slips(...)``), when the exercise is written (``register``): a typo in a slip's name never
    reaches a learner, and a slip meant to be named can be.
    """
    from helpers import slips

    if exercise.slips is not None and not callable(exercise.slips):
        raise TypeError(f"exercise {exercise.id!r}: slips must be a function returning (codes, value) pairs")
    own = list(exercise.slips()) if exercise.slips else []
    for entry in own:
        if not (isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[0], tuple)):
            raise ValueError(f"exercise {exercise.id!r}: each slip is ((code, ...), value), got {short_text(entry)}")
    try:
        worked = exercise.worked()
    except Exception as error:
        raise ValueError(f"exercise {exercise.id!r}: its answer could not be computed: "
                         f"{type(error).__name__}: {error}") from error
    for codes, _ in worked.slips:
        for code in codes:
            if code not in slips.CATALOGUE:
                raise ValueError(
                    f"exercise {exercise.id!r}: unknown slip {code!r}{did_you_mean(str(code), slips.CATALOGUE)} "
                    f"Declare a new one with declare_slip({code!r}, title, fix) before the exercise."
                )
    right = answer_text(worked.value, exercise.decimals)
    for codes, value in worked.own_slips:  # with_slips(...) and slips= alike
        if answer_text(value, exercise.decimals) == right:
            raise ValueError(
                f"exercise {exercise.id!r}: slip {'+'.join(codes)} gives the right answer {right} at the asked "
                f"{exercise.decimals} decimals, so check can never name it: change the exercise's numbers, or drop "
                "the slip"
            )
    for warning in collisions(exercise, worked):
        warnings.warn(f"exercise {exercise.id!r}: {warning}", ExerciseWarning, stacklevel=3)


class ExerciseWarning(UserWarning):
    """Something in an exercise's entry that may mislead learners (two slips that give one number, ...)."""


def collisions(exercise: Exercise, worked: Worked | None = None) -> list[str]:
    """The exercise's own slips whose value, at its precision, is another slip's value."""
    worked = exercise.worked() if worked is None else worked
    own = list(exercise.slips()) if exercise.slips else []

    def text(value: float) -> str:
        return answer_text(value, exercise.decimals)

    found = []
    for codes, value in own:
        written = text(value)
        others = [other for other, v in worked.slips if text(v) == written and set(other) != set(codes)]
        if others:
            found.append(f"slip {'+'.join(codes)} gives {written}, as {'+'.join(others[0])} does: the checker "
                         "names both, as possible")
    return found


def declare_slip(code: str, title: str, fix: str) -> None:
    """A teacher's own kind of mistake, named in check's messages like the built-in ones.

    In a teacher's exercise file, before the exercise that uses it::

        declare_slip("mean-of-grades", "averaged the grades", "Add the discounted gains instead.")
    """
    from helpers import slips

    slips.declare(code, title, fix)


def get(exercise_id: object) -> AnyExercise:
    """The exercise with this id (its slips checked, the first time), or a clear error naming the nearest known ids."""
    found = find(exercise_id, REGISTRY)
    if found.id in UNCHECKED and isinstance(found, Exercise):
        check_slips(found)  # refused: the same error at every look-up, as at every import of a teacher's file
        UNCHECKED.discard(found.id)
    return found


def exercises_of(lesson: str) -> list[AnyExercise]:
    """The exercises of one lesson, in the order they were registered."""
    return [exercise for exercise in REGISTRY.values() if exercise.lesson == lesson]


@contextmanager
def all_or_nothing() -> Iterator[None]:
    """Keep the exercises and slips registered inside only if everything inside succeeds (a module, a file).

    A lesson module or a teacher's file that fails halfway leaves nothing behind: importing it again
    raises its own error again, never "already registered" for the entries before the failure.
    """
    from helpers import slips

    exercises, codes, unchecked, built_in = dict(REGISTRY), set(slips.CATALOGUE), set(UNCHECKED), set(BUILT_IN)
    try:
        yield
    except BaseException:
        REGISTRY.clear()
        REGISTRY.update(exercises)
        for ids, kept in ((UNCHECKED, unchecked), (BUILT_IN, built_in)):
            ids.clear()
            ids.update(kept)
        for code in set(slips.CATALOGUE) - codes:
            del slips.CATALOGUE[code]
        raise


class ExerciseFileWarning(ExerciseWarning):
    """A teacher's exercise file that could not be loaded: none of its exercises is registered."""


_loaded_files: set[Path] = set()
BROKEN_FILES: dict[Path, str] = {}  # a teacher's file that failed to load -> why (loaded at import, reported)


def load_extra_exercises(paths: str | None = None) -> list[str]:
    """Run the teacher's exercise files, each all or nothing; return the ids they registered.

    ``paths`` names files separated by ``os.pathsep``: a file that is missing or fails raises
    ``ValueError`` naming it (``release`` and ``grade`` pass their ``--exercises`` so). By default
    (``import helpers.exercises``) every ``*.py`` in :data:`EXTRA_EXERCISES_FOLDER` and the files named
    in $HELPERS_EXERCISES are run, and one that fails is reported (:class:`ExerciseFileWarning`, and
    :data:`BROKEN_FILES`) and skipped: the lessons and the other files still load. A file already
    run is not run again.
    """
    if paths is None:
        folder = sorted(EXTRA_EXERCISES_FOLDER.glob("*.py")) if EXTRA_EXERCISES_FOLDER.is_dir() else []
        files = [*folder, *(Path(p) for p in os.environ.get(EXTRA_EXERCISES_ENV, "").split(os.pathsep) if p)]
    else:
        files = [Path(p) for p in paths.split(os.pathsep) if p]
    before = set(REGISTRY)
    for file in files:
        try:
            load_exercise_file(file)
        except Exception as error:
            why = f"{type(error).__name__}: {error}" if not isinstance(error, ValueError) else str(error)
            if paths is not None:
                raise ValueError(f"the exercise file {file} was not loaded: {why}") from error
            BROKEN_FILES[file] = why
            warnings.warn_explicit(  # shown at the file's own line that failed
                f"the teacher's exercise file {file} was not loaded, so none of its exercises is: {why}",
                ExerciseFileWarning, str(file), failing_line(error, file),
            )
    return sorted(set(REGISTRY) - before)


def failing_line(error: BaseException, file: Path) -> int:
    """The line of ``file`` where ``error`` was raised (its last frame there; 1 if none)."""
    if isinstance(error, SyntaxError):
        return error.lineno or 1
    lines = [frame.lineno for frame in traceback.extract_tb(error.__traceback__) if Path(frame.filename) == file]
    return (lines[-1] if lines else None) or 1


def load_exercise_file(file: Path) -> None:
    """Run one teacher's exercise file, all or nothing (once: a file already run is skipped)."""
    if not file.is_file():
        raise ValueError(f"no exercise file {file} (named in ${EXTRA_EXERCISES_ENV} or given)")
    if file.resolve() in _loaded_files:
        return
    with all_or_nothing():
        runpy.run_path(str(file))
    _loaded_files.add(file.resolve())
    BROKEN_FILES.pop(file, None)


def answer_text(value: float, decimals: int) -> str:
    """An expected value as the learner would write it: 'undefined', or the number at its precision."""
    return "undefined" if not math.isfinite(value) else f"{value:.{decimals}f}"
