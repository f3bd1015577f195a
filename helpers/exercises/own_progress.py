"""A learner's own progress, lesson by lesson, read from their record: ``progress()`` (every lesson; lesson 00).

>>> from helpers.exercises import progress
>>> progress(lesson="03").table.columns.tolist()
['lesson', 'exercise', 'status', 'tries', 'slips', 'hints', 'solutions', 'practice']

Each row is one exercise: its status (the verdict of the latest answer, on the lesson's numbers or a practice
variant's: "right", "not right yet", or "not tried"), the answers given, the slips made (by name), the hints and
the solutions (``solution`` or ``reveal``) seen, and the practice variants solved. The record itself is
:mod:`helpers.exercises.record`; ``practice()`` without an id reads the same summary (:func:`most_needed`).
"""

from __future__ import annotations

import html
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import pandas as pd

from helpers._checks import did_you_mean
from helpers.exercises import record
from helpers.exercises._display import GREY
from helpers.exercises.registry import REGISTRY, Exercise

STATUSES = ("right", "not right yet", "not tried")
COLUMNS = ["lesson", "exercise", "status", "tries", "slips", "hints", "solutions", "practice"]
ANSWERS = {"check", "practice-check"}
HELP = {"hint": "hints", "practice-hint": "hints", "solution": "solutions", "reveal": "solutions",
        "practice-solution": "solutions", "practice-reveal": "solutions"}


@dataclass
class Summary:
    """What the record says of one exercise (the events in the record's order, numbered from 0)."""

    tries: int = 0
    slips: list[str] = field(default_factory=list)  # codes, in the order first made
    hints: int = 0
    solutions: int = 0
    solved_seeds: set = field(default_factory=set)
    last_verdict: str = ""  # of the latest answer ('' never answered)
    last_slip: tuple[int, tuple[tuple[str, ...], ...]] | None = None  # (event number, its slips)
    last_right: tuple[int, float] | None = None  # (event number, time)
    last_answer: int = -1

    @property
    def status(self) -> str:
        if not self.last_verdict:
            return "not tried"
        return "right" if self.last_verdict == "right" else "not right yet"

    @property
    def slip_to_put_right(self) -> bool:
        """A slip made, and no right answer since."""
        return self.last_slip is not None and (self.last_right is None or self.last_right[0] < self.last_slip[0])


def summarise(events: list[dict]) -> dict[str, Summary]:
    """Exercise id -> :class:`Summary`, for every registered exercise (events of unknown ids are left out)."""
    found = {exercise_id: Summary() for exercise_id in REGISTRY}
    for number, event in enumerate(events):
        summary = found.get(event["exercise"])
        if summary is None:
            continue
        kind = event["event"]
        if kind in ANSWERS:
            _add_answer(summary, number, event)
        elif kind in HELP:
            setattr(summary, HELP[kind], getattr(summary, HELP[kind]) + 1)
    return found


def _add_answer(summary: Summary, number: int, event: dict) -> None:
    verdict = event.get("verdict")
    if not isinstance(verdict, str) or verdict == "not_answered":
        return
    summary.tries += 1
    summary.last_verdict, summary.last_answer = verdict, number
    if verdict == "right":
        summary.last_right = (number, float(event.get("time", 0)))
        if event["event"] == "practice-check":
            summary.solved_seeds.add(event.get("seed"))
    groups = tuple(tuple(str(code) for code in group) for group in event.get("slips") or () if group)
    if groups:
        summary.last_slip = (number, groups)
        for code in (code for group in groups for code in group):
            if code not in summary.slips:
                summary.slips.append(code)


@dataclass(frozen=True)
class Need:
    """The exercise a learner most needs next, and why, in one line (``practice()`` and the next step)."""

    exercise: str
    why: str
    slips: tuple[tuple[str, ...], ...] = ()  # the learner's slip(s) to aim the variant at (reason 1)


def most_needed(summaries: dict[str, Summary], candidates: list[str]) -> Need | None:
    """1) the latest slip not yet put right; 2) one not right yet; 3) one not tried; 4) the right seen longest ago."""
    chosen = [summaries[exercise_id] for exercise_id in candidates]
    pairs = list(zip(candidates, chosen, strict=True))
    slipped = [(s.last_slip[0], i, s) for i, s in pairs if s.slip_to_put_right and s.last_slip is not None]
    if slipped:
        _, exercise_id, summary = max(slipped, key=lambda item: item[0])
        assert summary.last_slip is not None
        return Need(exercise_id, f"last time, on {exercise_id}, {slip_words(summary.last_slip[1])}",
                    summary.last_slip[1])
    wrong = [(s.last_answer, i) for i, s in pairs if s.status == "not right yet"]
    if wrong:
        exercise_id = max(wrong)[1]
        return Need(exercise_id, f"your last answer to {exercise_id} was not right yet")
    untried = [i for i, s in pairs if s.status == "not tried"]
    if untried:
        return Need(untried[0], f"{untried[0]} (lesson {REGISTRY[untried[0]].lesson}) is not tried yet")
    right = [(s.last_right, i) for i, s in pairs if s.last_right is not None]
    if right:
        (_, when), exercise_id = min(right)
        day = datetime.fromtimestamp(when).strftime("%Y-%m-%d") if when else "long ago"
        return Need(exercise_id, f"your right answer to {exercise_id} is the oldest ({day}): see that you still can")
    return None


def slip_words(groups: tuple[tuple[str, ...], ...]) -> str:
    """'your answer was what this slip gives: "<its title>"' (or several slips', for one number)."""
    from helpers.slips import describe

    def title(codes: tuple[str, ...]) -> str:
        try:
            return " together with ".join(describe(code).title for code in codes)
        except ValueError:
            return "+".join(codes)

    if len(groups) == 1:
        return f'your answer was what this slip gives: "{title(groups[0])}"'
    return f"your answer was what {len(groups)} slips give: " + " or ".join(f'"{title(c)}"' for c in groups)


def in_order() -> list[str]:
    """Every registered exercise id, lesson by lesson, each lesson's in the register's order."""
    return sorted(REGISTRY, key=lambda exercise_id: REGISTRY[exercise_id].lesson)


def lessons() -> list[str]:
    """The lessons that have exercises, in order."""
    return sorted({found.lesson for found in REGISTRY.values()})


def check_lesson(lesson: object) -> str | None:
    """The lesson asked for, or a clear error naming it and the lessons that have exercises."""
    if lesson is None:
        return None
    if not isinstance(lesson, str):
        raise TypeError(f"lesson is a text such as '03', got {type(lesson).__name__} {lesson!r}")
    known = lessons()
    if lesson not in known:
        raise ValueError(f"unknown lesson {lesson!r}: the lessons with exercises are {', '.join(known)}"
                         f"{did_you_mean(lesson, known)}")
    return lesson


@dataclass(frozen=True, eq=False)
class Progress:
    """A learner's progress: ``.table`` (a row per exercise), ``.slips`` (slips by kind), ``.next_step``,
    ``.chart()`` and ``.reset()``; shown as a table in a notebook."""

    table: pd.DataFrame
    slips: pd.DataFrame
    next_step: str
    lesson: str | None = None
    note: str = ""  # why nothing is recorded here, when it is not
    path: Path | None = None
    events: int = 0

    def counts(self) -> dict[str, int]:
        """How many exercises have each status."""
        return {status: int((self.table["status"] == status).sum()) for status in STATUSES}

    def headline(self) -> str:
        counts = self.counts()
        where = f"lesson {self.lesson}" if self.lesson else "all lessons"
        if self.table.empty:
            return f"Your progress ({where}): nothing recorded here."
        if counts["not tried"] == len(self.table):
            anywhere = where if self.lesson else "any lesson"
            return f"Your progress: nothing tried yet in {anywhere} ({len(self.table)} exercises)."
        return (f"Your progress ({where}): {counts['right']} of {len(self.table)} exercises right, "
                f"{counts['not right yet']} not right yet, {counts['not tried']} not tried.")

    def shown(self) -> pd.DataFrame:
        """The rows as shown: one lesson's without its lesson column (compact, at the end of a lesson)."""
        return self.table.drop(columns="lesson") if self.lesson else self.table

    def reset(self) -> None:
        """Empty the record: every exercise is 'not tried' again (every kernel's record, not just this one's)."""
        if self.path is not None:  # an assignment copy's progress has no record to empty
            record.reset(self.path)

    def chart(self):
        """A matplotlib figure: per lesson, right / not right yet / not tried; and the slips made, by kind."""
        from helpers.plots import plot_progress

        return plot_progress(self.table, self.slips)

    def __repr__(self) -> str:
        note = f"\n({self.note})" if self.note else ""
        rows = "" if self.table.empty else f"\n{self.shown().to_string(index=False)}"
        return f"{self.headline()}{note}{rows}\n{self.next_step}"

    def _repr_html_(self) -> str:
        from helpers.tables import table

        note = f"<div><i>{html.escape(self.note)}</i></div>" if self.note else ""
        shown = "" if self.table.empty else table(self.shown(), index=False).to_html()
        return (f'<div class="helpers-progress tex2jax_ignore mathjax_ignore" style="border-left:4px solid {GREY};'
                f'padding-left:8px"><b>{html.escape(self.headline())}</b>{note}{shown}'
                f"<div>{html.escape(self.next_step)}</div></div>")


def progress(lesson: str | None = None) -> Progress:
    """Your progress, lesson by lesson (or one lesson's), from your own record (every lesson; lesson 00).

    ``.table`` has the columns lesson, exercise, status ("right", "not right yet", "not tried"), tries, slips
    (their names), hints, solutions and practice (variants solved); ``.next_step`` says what to do next.
    """
    from helpers.exercises.questions import is_assignment_copy

    if is_assignment_copy():  # no answer key, no record: an empty table that says so, never an error in a cell
        if lesson is not None and not isinstance(lesson, str):
            raise TypeError(f"lesson is a text such as '03', got {type(lesson).__name__} {lesson!r}")
        return Progress(pd.DataFrame(columns=COLUMNS), pd.DataFrame(columns=["slip", "title", "times"]),
                        "Next: answer the exercises; your teacher's grader judges them.", lesson,
                        "an assignment copy records nothing")
    lesson = check_lesson(lesson)
    path = record.progress_file()
    events = record.read_events(path)
    summaries = summarise(events)
    ids = [i for i in in_order() if lesson is None or REGISTRY[i].lesson == lesson]
    rows = [_row(exercise_id, summaries[exercise_id]) for exercise_id in ids]
    return Progress(pd.DataFrame(rows, columns=COLUMNS), slip_table(events, set(ids)),
                    next_step(summaries, ids, whole=lesson is None), lesson, record.why_not_recording(), path,
                    len(events))


def _row(exercise_id: str, summary: Summary) -> dict:
    return {"lesson": REGISTRY[exercise_id].lesson, "exercise": exercise_id, "status": summary.status,
            "tries": summary.tries, "slips": ", ".join(summary.slips), "hints": summary.hints,
            "solutions": summary.solutions, "practice": len(summary.solved_seeds)}


def slip_table(events: list[dict], ids: set[str]) -> pd.DataFrame:
    """The slips made on these exercises, by kind: slip (its name), title, times (answers that made it)."""
    from helpers.slips import describe

    times: Counter = Counter()
    for event in events:
        if event["event"] in ANSWERS and event["exercise"] in ids and event.get("verdict") != "right":
            times.update({code for group in event.get("slips") or () for code in group})
    rows = []
    for code, count in times.most_common():
        try:
            title = describe(code).title
        except ValueError:
            title = code
        rows.append({"slip": code, "title": title, "times": count})
    return pd.DataFrame(rows, columns=["slip", "title", "times"])


def next_step(summaries: dict[str, Summary], ids: list[str], whole: bool = True) -> str:
    """What to do next, in one sentence, from the same order ``practice()`` follows (``whole``: every lesson's
    exercises, so ``practice()`` without an id deals it; else one lesson's, named)."""
    from helpers.exercises.fresh import VARIANTS

    need = most_needed(summaries, ids)
    if need is None:
        return "Next: no exercise here yet."
    found = REGISTRY[need.exercise]
    if summaries[need.exercise].status == "not tried":
        return f"Next: answer {need.exercise} in lesson {found.lesson} (not tried yet)."
    if need.exercise in VARIANTS and isinstance(found, Exercise):
        call = "practice(): it deals" if whole else f"practice('{need.exercise}'):"
        return f"Next: run {call} {need.exercise} on new numbers ({need.why})."
    return (f"Next: open lesson {found.lesson} and answer {need.exercise} again ({need.why}); "
            f"hint('{need.exercise}') gives a nudge.")
