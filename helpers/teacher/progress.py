"""What the grader shows while a class is graded: a progress bar on a terminal, one line per notebook elsewhere.

On a terminal (``python -m helpers.grade`` typed by the teacher) a tqdm bar
counts the notebooks graded, the rate and the time left, with the last
notebook's points beside it; a notebook with a problem also gets its line
above the bar, so nothing worth reading scrolls away. When the output is not
a terminal (a pipe, a log file, CI) each notebook gets one plain line as it
finishes::

    [12/100] ann/03_the_ndcg_spreadsheet.ipynb: 3 of 4 points (raised)

The summary after the last notebook is the grader's (:meth:`OutputFolder.summary`).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, TextIO

from helpers.teacher.names import shown

if TYPE_CHECKING:
    from helpers.teacher.results import NotebookResult

BAR_FORMAT = "{desc} {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_fmt}]{postfix}"


def notebook_line(number: int, total: int, result: NotebookResult) -> str:
    """One notebook's line: '[n/N] notebook: x of y points (problems)'."""
    problems = f" ({shown(', '.join(result.codes))})" if result.codes else ""
    points = sum(answer.max_points for answer in result.answers)
    return f"[{number}/{total}] {shown(result.notebook)}: {result.total:g} of {points:g} points{problems}"


def is_terminal(stream: TextIO) -> bool:
    """True when ``stream`` is a terminal a person watches (a closed or odd stream is not)."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class Progress:
    """Shows each graded notebook on ``stream`` (standard output): a bar on a terminal, plain lines otherwise.

    ``initial``: the notebooks already graded when the bar appears (a rerun's unchanged hand-ins): the bar
    starts there, and its rate and time left count only the notebooks graded now.

    Use it as a context manager, call :meth:`show` with each result as it comes; the bar is closed
    (left on screen at its last count) when the block ends, interrupted or not.
    """

    def __init__(self, total: int, stream: TextIO | None = None, initial: int = 0) -> None:
        self.total, self.stream = total, stream or sys.stdout
        self.bar = None
        if is_terminal(self.stream):
            from tqdm import tqdm

            self.bar = tqdm(
                total=total, initial=initial, file=self.stream, desc="grading", unit="notebook",
                bar_format=BAR_FORMAT, dynamic_ncols=True, mininterval=0.2, smoothing=0.1,
            )

    def show(self, number: int, result: NotebookResult) -> None:
        """A notebook is graded: move the bar (its line above it when it has a problem), or print its line."""
        line = notebook_line(number, self.total, result)
        if self.bar is None:
            print(line, file=self.stream, flush=True)
            return
        if result.codes:
            self.bar.write(line, file=self.stream)
        self.bar.set_postfix_str(line.split("] ", 1)[1], refresh=False)
        self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
