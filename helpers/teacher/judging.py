"""Judge the answers a notebook recorded, in the grader's own process, with the answer key it computes.

The :class:`AnswerKey` lives in the grader's process; the kernels never hold it.
A teacher's exercise is computed before any notebook runs; a built-in lesson's
the first time a notebook needs it (a class of lesson 01 never works out lesson
09's p-value, nor loads scipy.stats for its slips). Each exercise of the
notebook's lesson (and any other exercise it checked) gets one
:class:`~helpers.teacher.results.Judged`: the last recorded answer counts (never
the best of several), judged by :func:`helpers.exercises.judge` or, for a
function exercise, by what the learner's last function returned on the hidden
inputs the grader sent.
"""

from __future__ import annotations

import csv
import math
import threading
from collections import ChainMap
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from helpers._checks import check_number
from helpers.exercises import REGISTRY, Exercise, FunctionExercise, Verdict, exercises_of, get, judge
from helpers.exercises.checking import mistake_code, read_mistake_code
from helpers.exercises.checklog import given_answer
from helpers.exercises.registry import BUILT_IN
from helpers.exercises.runner import Case, judge_outputs, outcome_from_record
from helpers.exercises.worked import Worked
from helpers.slips import describe as describe_slip
from helpers.teacher.results import Judged

NOT_CHECKED = "not checked"


class KeyFailed(RuntimeError):
    """An exercise's answer key that could not be computed (a grader-error for that exercise alone)."""

    def __init__(self, why: str) -> None:
        super().__init__(f"its answer key fails: {why}")
        self.why = why


class OnFirstUse(Mapping[str, Any]):
    """Exercise id -> its key (a worked answer, or hidden cases), computed the first time it is asked for.

    Once per exercise, under a lock (notebooks are judged in threads); one that fails raises
    :class:`KeyFailed` with the same words every time.
    """

    def __init__(self, ids: Iterable[str], compute: Callable[[str], Any], lock: threading.Lock) -> None:
        self._ids = dict.fromkeys(ids)
        self._compute = compute
        self._lock = lock
        self._found: dict[str, tuple[bool, Any]] = {}

    def __getitem__(self, exercise_id: str) -> Any:
        if exercise_id not in self._ids:
            raise KeyError(exercise_id)
        with self._lock:
            if exercise_id not in self._found:
                try:
                    self._found[exercise_id] = (True, self._compute(exercise_id))
                except Exception as error:  # an entry that fails: named, and only that exercise is lost
                    self._found[exercise_id] = (False, f"{type(error).__name__}: {error}"[:200])
            computed, value = self._found[exercise_id]
        if not computed:
            raise KeyFailed(value)
        return value

    def computed(self) -> list[str]:
        """The ids worked out so far, in the order they were asked for."""
        return list(self._found)

    def __contains__(self, exercise_id: object) -> bool:  # Mapping's own would compute the key to know
        return exercise_id in self._ids

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)


def compute_key(exercise_id: str) -> Worked | list[Case]:
    """One exercise's key as the register computes it: its worked answer (slips checked, the first time), or its
    hidden cases."""
    exercise = get(exercise_id)
    return exercise.worked() if isinstance(exercise, Exercise) else exercise.cases()


@dataclass(frozen=True)
class AnswerKey:
    """Every exercise's worked answer or hidden cases, and its points (the register's, or the teacher's file)."""

    worked: Mapping[str, Worked]
    cases: Mapping[str, list[Case]]
    points: dict[str, float]
    broken: dict[str, str] = field(default_factory=dict)  # exercise id -> why its key could not be computed
    texts: dict[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)  # id -> a learner's question, hints
    later: frozenset[str] = frozenset()  # the ids computed on first use, not by build (the built-in lessons')

    @classmethod
    def build(cls, points: dict[str, float] | None = None) -> AnswerKey:
        """The key of every registered exercise; ``points`` overrides the register's points.

        A teacher's exercise is computed now, a built-in lesson's when it is first judged (module docstring).
        An exercise whose key fails to compute costs that exercise alone: a grader-error. A teacher's is kept
        in ``broken``.
        """
        unknown = sorted(set(points or {}) - set(REGISTRY))
        if unknown:
            raise ValueError(f"points given for unknown exercise ids: {', '.join(unknown)}")
        answers = [i for i, exercise in REGISTRY.items() if isinstance(exercise, Exercise)]
        lock = threading.Lock()
        worked = OnFirstUse(answers, compute_key, lock)
        cases = OnFirstUse([i for i in REGISTRY if i not in worked], compute_key, lock)
        later = frozenset(BUILT_IN & set(REGISTRY))
        broken: dict[str, str] = {}
        for exercise_id in [i for i in REGISTRY if i not in later]:
            try:
                worked[exercise_id] if exercise_id in worked else cases[exercise_id]
            except KeyFailed as failure:
                broken[exercise_id] = failure.why
        return cls(worked, cases, {i: float((points or {}).get(i, e.points)) for i, e in REGISTRY.items()}, broken,
                   later=later)

    def for_learner(self, worked: dict[str, Worked], texts: dict | None = None) -> AnswerKey:
        """The same key with some exercises' answers replaced: one learner's own variants (and their words)."""
        # the others stay computed on first use: a ChainMap only reads its later maps (typeshed wants them mutable)
        own = ChainMap(dict(worked), self.worked)  # type: ignore[arg-type]
        return replace(self, worked=own, texts={**self.texts, **(texts or {})})

    def with_points(self, points: dict[str, float]) -> AnswerKey:
        """The same key with these exercises' points (a manifest's)."""
        return replace(self, points={**self.points, **points})

    def hidden_inputs(self, ids: Iterable[str] | None = None) -> dict[str, list[tuple]]:
        """exercise id -> the arguments of its hidden cases (sent into a kernel; no expected value).

        ``ids``: only these function exercises (the ones a notebook is graded on and gave a function for).
        """
        wanted = set(self.cases) if ids is None else set(ids)
        return {exercise_id: [case.args for case in cases] for exercise_id, cases in self.cases.items()
                if exercise_id in wanted}


def read_points(path: Path) -> dict[str, float]:
    """A teacher's points file: CSV with the header ``exercise,points``, one exercise a line."""
    with path.open(newline="", encoding="utf-8-sig") as handle:
        rows = list(csv.DictReader(handle))
    if rows and set(rows[0]) != {"exercise", "points"}:
        raise ValueError(f"{path}: the header must be exercise,points (got {','.join(rows[0])})")
    found: dict[str, float] = {}
    for line, row in enumerate(rows, start=2):
        try:
            value = float(row["points"])
        except (TypeError, ValueError):
            raise ValueError(f"{path}, line {line}: points must be a number, got {row['points']!r}") from None
        check_number(value, f"{path}, line {line}: points", at_least=0)
        found[row["exercise"].strip()] = value
    return found


def checked_ids(events: Iterable[dict]) -> set[str]:
    """The exercise ids a log's check and check_function lines name."""
    return {event["exercise"] for event in events if event.get("event") in ("check", "check_function")}


def graded_ids(lessons: Iterable[str], events: Iterable[dict], only: Iterable[str] | None = None) -> list[str]:
    """The exercises a notebook is graded on: its lessons', then any other it checked, in register order.

    ``only``: the exercises this learner is graded on at all (a manifest's, or ``--expect``); others are left out.
    """
    wanted = {exercise.id for lesson in lessons for exercise in exercises_of(lesson)} | checked_ids(events)
    if only is not None:
        wanted &= set(only)
    return [exercise_id for exercise_id in REGISTRY if exercise_id in wanted]


def unanswered(lessons: Iterable[str], key: AnswerKey, only: Iterable[str] | None = None) -> list[Judged]:
    """Every exercise of these lessons as not answered, 0 points (a hand-in that could not be run)."""
    return judge_notebook(lessons, [], key, only)


def judge_notebook(
    lessons: Iterable[str], events: list[dict], key: AnswerKey, only: Iterable[str] | None = None
) -> list[Judged]:
    """One judged answer per exercise of the notebook's lessons and of those it checked (module docstring)."""
    return [judge_safely(exercise_id, events, key) for exercise_id in graded_ids(lessons, events, only)]


GRADER_ERROR = "grader-error"


def judge_safely(exercise_id: str, events: list[dict], key: AnswerKey) -> Judged:
    """Judge one exercise; a failure of the grader there costs that exercise alone, never the notebook."""
    try:
        return judge_exercise(exercise_id, events, key)
    except Exception as error:  # an exercise's key or slips that fail: the teacher's to fix, named
        exercise = REGISTRY[exercise_id]
        said = f"The grader could not judge this exercise ({type(error).__name__}: {error})"[:300]
        return Judged(exercise=exercise_id, lesson=exercise.lesson, kind=exercise.kind, answer="",
                      verdict=GRADER_ERROR, correct=False, points=0.0, max_points=key.points[exercise_id],
                      message=said)


def judge_exercise(exercise_id: str, events: list[dict], key: AnswerKey) -> Judged:
    """The last recorded answer to one exercise, judged; the help used and the answer key called, noted."""
    exercise = REGISTRY[exercise_id]
    if exercise_id in key.broken:
        raise KeyFailed(key.broken[exercise_id])
    own = [event for event in events if event.get("exercise") == exercise_id]
    if isinstance(exercise, Exercise):
        checks = [event for event in own if event.get("event") == "check"]
        judged = _judge_answer(exercise, checks[-1] if checks else None, key.worked[exercise_id])
    else:
        judged = _judge_function(exercise, own, key.cases[exercise_id])
    verdict, correct, answer, message, slips = judged
    help_used = _help_used(own)
    points = key.points[exercise_id] if correct else 0.0
    question, hints = key.texts.get(exercise_id, (exercise.question, tuple(exercise.hints)))
    return Judged(
        exercise=exercise_id,
        lesson=exercise.lesson,
        kind=exercise.kind,
        answer=answer,
        verdict=verdict,
        correct=correct,
        points=points,
        max_points=key.points[exercise_id],
        mistake=mistake_code(slips),
        mistake_title=mistake_title(slips),
        message=message,
        hint="" if correct else next_hint(hints, own),
        help_used=help_used,
        question=question,
    )


Slips = tuple[tuple[str, ...], ...]  # the slips an answer matched, each its codes (two or more: a combination)
Outcome = tuple[str, bool, str, str, Slips]  # verdict, correct, answer as text, message, the slips matched


def _judge_answer(exercise: Exercise, last: dict | None, worked: Worked) -> Outcome:
    if last is None:
        return NOT_CHECKED, False, "", "The exercise cell never recorded an answer.", ()
    given = last.get("given")
    if not isinstance(given, dict):
        return Verdict.UNREADABLE.value, False, "", "The recorded line holds no answer.", ()
    text, kind = given.get("text"), given.get("type")
    if text is None and kind != "None":
        message = f"Could not read your answer: a {kind} is not a number. Give one number such as 0.125."
        return Verdict.UNREADABLE.value, False, f"({kind})", message, ()
    result = judge(exercise, given_answer(given), worked)  # a float judged as a float
    return result.verdict.value, result.correct, result.answer, result.message, result.slip_groups


def _judge_function(exercise: FunctionExercise, own: list[dict], cases: list[Case]) -> Outcome:
    """The outputs of the last function given to check_function, on the hidden inputs the grader sent."""
    given = [event for event in own if event.get("event") == "check_function"]
    if not given:
        return NOT_CHECKED, False, "", "The exercise cell never recorded your function.", ()
    if given[-1].get("kept") is not True:
        return Verdict.NOT_ANSWERED.value, False, "", f"Not answered yet: {exercise.name} was not written.", ()
    runs = [event for event in own if event.get("event") == "outputs"]
    outputs = runs[-1].get("outputs") if runs else None
    if not isinstance(outputs, list):
        return NOT_CHECKED, False, "", f"Your {exercise.name} was not run on the hidden cases (see the problems).", ()
    try:
        outcomes = [outcome_from_record(record if isinstance(record, dict) else {}) for record in outputs]
        report = judge_outputs(exercise.id, exercise.name, cases, outcomes)
    except ValueError as error:
        return Verdict.UNREADABLE.value, False, "", f"The recorded outputs could not be judged: {error}", ()
    if not report.answered:
        return Verdict.NOT_ANSWERED.value, False, "", report.message, ()
    verdict = Verdict.RIGHT if report.correct else (Verdict.SLIP if report.slips else Verdict.WRONG)
    slips = (report.slips,) if report.slips else ()  # one slip explains every case, or none
    return verdict.value, report.correct, _outputs_text(outcomes), report.message, slips


def _outputs_text(outcomes: list) -> str:
    """What the function returned on each case, short: '0.75; 0.4667; ValueError'."""
    shown = []
    for outcome in outcomes:
        if outcome.kind != "value":
            shown.append(outcome.error.split(":")[0] if outcome.kind == "error" else outcome.kind)
        elif isinstance(outcome.value, float):
            shown.append("nan" if math.isnan(outcome.value) else f"{outcome.value:.4g}")
        else:
            shown.append(str(outcome.value)[:20])
    return "; ".join(shown)


def mistake_title(slips: str | Iterable[str] | Iterable[Sequence[str]]) -> str:
    """The titles of the slips an answer matched ('' for none; a code itself where the catalogue does not know it).

    The codes of one slip (a combination, both made at once) are joined with
    "together with"; different slips that give the same number are
    alternatives, numbered and joined with "or", as ``check`` lists them.
    ``slips``: the slips, each its codes; or a stored mistake (``'a+b|c'``);
    or plain codes, read as one combination (as before the slips were kept apart).
    """
    groups: tuple[tuple[str, ...], ...]
    if isinstance(slips, str):
        groups = read_mistake_code(slips)
    else:
        items = list(slips)
        codes = [item for item in items if isinstance(item, str)]
        if len(codes) == len(items):
            groups = (tuple(codes),) if codes else ()
        else:
            groups = tuple((item,) if isinstance(item, str) else tuple(item) for item in items)
    titles = [" together with ".join(_title(code) for code in codes) for codes in groups if codes]
    if len(titles) < 2:
        return "".join(titles)
    return "; or ".join(f"({number}) {title}" for number, title in enumerate(titles, start=1))


def _title(code: str) -> str:
    try:
        return describe_slip(code).title
    except (KeyError, ValueError):
        return code


def next_hint(hints: tuple[str, ...], events: list[dict]) -> str:
    """The first hint the learner has not seen yet (the last one when all were seen)."""
    seen = sum(event.get("event") == "hint" for event in events)
    return hints[min(seen, len(hints) - 1)]


def _help_used(events: list[dict]) -> tuple[str, ...]:
    names = [event.get("event") for event in events]
    used = [f"{name}()" for name in ("solution", "reveal") if name in names]
    hints = names.count("hint")
    return (*used, f"{hints} hint{'s' * (hints != 1)}") if hints else tuple(used)
