"""What the grader shows while it grades: a tqdm bar on a terminal (count, rate, time left), plain lines elsewhere.

No kernel runs here: the grading of each notebook is a stand-in that returns a
made-up result after a short pause, and ``grade.run_all`` (the grader's loop)
runs it in a child process whose standard output is a pseudo-terminal, then a
pipe.
"""

from __future__ import annotations

import fcntl
import io
import os
import pty
import re
import struct
import subprocess
import sys
import termios
import textwrap
import time
from pathlib import Path

import pytest

from helpers.teacher.progress import Progress, notebook_line
from helpers.teacher.results import Judged, NotebookResult, Problem

ROOT = Path(__file__).resolve().parent.parent
BAR = re.compile(
    r"grading +(?P<percent>\d+)%\|[^|]*\| (?P<n>\d+)/(?P<total>\d+) "
    r"\[(?P<elapsed>[\d:]+)<(?P<left>[\d:?]+), *(?P<rate>[\d.?]+)(?P<unit>s/notebook|notebook/s)\]"
)


def result(learner: str, right: int, of: int, problems: tuple[str, ...] = ()) -> NotebookResult:
    answers = [Judged(f"ex{i}", "03", "number", "0.5", "right" if i < right else "wrong", i < right,
                      1.0 if i < right else 0.0, 1.0) for i in range(of)]
    return NotebookResult(learner, f"{learner}/03_the_ndcg_spreadsheet.ipynb", "03", answers=answers,
                          problems=[Problem(code, "details") for code in problems])


class Terminal(io.StringIO):
    """What a terminal receives, for the bar: a text stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def seconds(clock: str) -> int:
    """'01:05' -> 65; '1:02:03' -> 3723."""
    total = 0
    for part in clock.split(":"):
        total = 60 * total + int(part)
    return total


def bars(text: str) -> list[re.Match]:
    return [match for match in BAR.finditer(text)]


def test_a_notebooks_line_gives_its_count_points_and_problems():
    assert notebook_line(3, 40, result("ann", 2, 3)) == "[3/40] ann/03_the_ndcg_spreadsheet.ipynb: 2 of 3 points"
    said = notebook_line(40, 40, result("bob", 0, 3, ("raised", "timeout")))
    assert said == "[40/40] bob/03_the_ndcg_spreadsheet.ipynb: 0 of 3 points (raised, timeout)"


def test_without_a_terminal_each_notebook_gets_its_plain_line():
    stream = io.StringIO()
    with Progress(2, stream) as progress:
        progress.show(2, result("bob", 3, 3))
        progress.show(1, result("ann", 1, 3, ("raised",)))
    assert stream.getvalue().splitlines() == [
        "[2/2] bob/03_the_ndcg_spreadsheet.ipynb: 3 of 3 points",
        "[1/2] ann/03_the_ndcg_spreadsheet.ipynb: 1 of 3 points (raised)",
    ]


def test_on_a_terminal_a_bar_counts_and_a_problem_gets_its_line_above_it():
    stream = Terminal()
    with Progress(4, stream) as progress:
        progress.show(1, result("ann", 3, 3))
        progress.show(2, result("bob", 0, 3, ("timeout",)))
    text = stream.getvalue()
    assert "[2/4] bob/03_the_ndcg_spreadsheet.ipynb: 0 of 3 points (timeout)\n" in text
    assert "ann/03_the_ndcg_spreadsheet.ipynb: 3 of 3 points" not in text.replace("\r", "\n").splitlines()
    last = bars(text)[-1]
    assert (int(last["n"]), int(last["total"]), int(last["percent"])) == (2, 4, 50)
    assert text.rstrip().endswith("], bob/03_the_ndcg_spreadsheet.ipynb: 0 of 3 points (timeout)"), "the last beside it"


# --- the grader's loop in a child process: a pseudo-terminal, then a pipe -------------------------

CHILD = textwrap.dedent("""
    import sys, threading, time
    from helpers.teacher import grade
    from helpers.teacher.results import Judged, NotebookResult

    PAUSE = float(sys.argv[1])

    def fake_grade(submission, settings, number):
        time.sleep(PAUSE)
        answers = [Judged("ex", "03", "number", "1", "right", True, float(number % 2), 1.0)]
        return NotebookResult(submission, f"{submission}/03.ipynb", "03", answers=answers)

    learners = [f"learner{n:02d}" for n in range(8)]
    grade.run_all(learners, None, int(sys.argv[2]), lambda number, result: None, fake_grade, threading.Event())
    print("summary: done")
""")


def run_child(stdout, pause: float, jobs: int) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "120"}
    return subprocess.Popen([sys.executable, "-c", CHILD, str(pause), str(jobs)], stdout=stdout,
                            stderr=subprocess.PIPE, env=env, cwd=ROOT)


def read_terminal(master: int, child: subprocess.Popen, timeout: float = 60) -> str:
    """Everything the child writes to its terminal until it exits."""
    chunks, deadline = [], time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the child closed its end
            break
        if not chunk:
            break
        chunks.append(chunk)
    child.wait(timeout=max(1.0, deadline - time.monotonic()))
    return b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.parametrize("jobs", [1, 2])
def test_on_a_pseudo_terminal_the_grader_shows_a_bar_with_count_rate_and_time_left(jobs):
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 120, 0, 0))
    child = run_child(slave, pause=0.25, jobs=jobs)
    os.close(slave)
    try:
        text = read_terminal(master, child)
    finally:
        os.close(master)
    assert child.returncode == 0, child.stderr.read().decode() if child.stderr else ""
    found = bars(text)
    counts = [int(match["n"]) for match in found]
    assert counts[0] == 0 and counts[-1] == 8 and counts == sorted(counts), counts
    assert {int(match["total"]) for match in found} == {8}
    assert "[1/8]" not in text, "no plain line on a terminal when nothing went wrong"
    middle = next(match for match in found if int(match["n"]) >= 4)  # drawn at most every 0.2 s
    # The bar's own figures agree with each other (how fast the machine went is not asserted: it is shared)
    rate = float(middle["rate"])
    assert rate > 0, middle.group(0)
    rate_seconds = rate if middle["unit"] == "s/notebook" else 1 / rate
    to_go = 8 - int(middle["n"])
    assert abs(seconds(middle["left"]) - to_go * rate_seconds) <= 1.5, middle.group(0)  # the rest at that rate
    assert text.rstrip().endswith("summary: done")


def test_through_a_pipe_the_grader_prints_a_line_per_notebook():
    child = run_child(subprocess.PIPE, pause=0.05, jobs=2)
    out, err = child.communicate(timeout=60)
    assert child.returncode == 0, err.decode()
    lines = out.decode().splitlines()
    assert lines[-1] == "summary: done"
    graded = lines[:-1]
    assert len(graded) == 8 and not any("%|" in line for line in graded), "no bar into a pipe"
    numbers = sorted(int(re.match(r"\[(\d+)/8\] ", line)[1]) for line in graded)
    assert numbers == list(range(1, 9))
    for line in graded:
        number = int(re.match(r"\[(\d+)/8\]", line)[1])
        assert line == f"[{number}/8] learner{number - 1:02d}/03.ipynb: {number % 2} of 1 points"
