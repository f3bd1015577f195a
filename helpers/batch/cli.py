"""``python -m helpers.batch QRELS RUN [RUN ...]``: trec_eval's command and output, for pipelines (lesson 09).

The options are trec_eval's main ones, with its meaning:

- ``-q``: one line per query and measure, before the ``all`` lines;
- ``-m MEASURE`` (repeatable): trec_eval names (``map``, ``P.5,10``,
  ``ndcg_cut.10``, ``ndcg.1=3,2=9``, ``Rprec``, ``bpref``, ``num_ret``,
  nicknames ``official`` and ``all_trec``) or ``evaluate``'s names (``nDCG@10``,
  ``RR@10``, ``Judged@10``, ``nDCG(gain=exp)@10``); without ``-m``,
  trec_eval's ``official`` set;
- ``-c``: queries of the qrels missing from a run score 0 and count in the means;
- ``-l N``: a document is relevant from grade N on; ``-M N``: only the first N
  documents of each query; ``-J``: only judged documents; ``-n``: no ``all`` lines.

The output (``--format trec``, the default) is trec_eval's, byte for byte,
for every measure both compute: ``name<TAB>qid<TAB>value``, the name padded
to 22 characters, values with 4 decimals and counts as whole numbers,
queries in trec_eval's order, measures in trec_eval's order (measures
trec_eval lacks come last). Several runs print one block after the other,
exactly as trec_eval run once per run would. ``--format csv`` and
``--format json`` give every value in full precision with the run's file name,
for pipelines.

Where this command and trec_eval 10.0 part, it says so on stderr and never
in the numbers: a trec_eval measure it does not compute (yaap, the -R
preference measures) is left out with a note; without ``-c``, a query of the
qrels missing from a run is left out of that run's means with a warning
(trec_eval 9 does the same silently, trec_eval 10.0 stops with an error);
``-m P.5 -m P.10`` computes both (trec_eval keeps the first); a run line with
more than 6 fields is refused unless ``--lenient``. Like trec_eval, the
``all`` line of num_rel with ``-c`` counts every judgment with a grade of 1 or
more, whatever ``-l`` says.

``-`` reads the qrels or one run from standard input (``zcat run.gz |
python -m helpers.batch qrels.txt -``), and a pipe works as a file name
(``<(zcat run.gz)``, a named pipe): the command copies such an input once, as
it streams, to a temporary file, since it reads a file more than once (each
run reads the qrels again, and an error is traced back to its line).

``--strict`` refuses what would otherwise be a warning: ids that match only
once case, spaces or leading zeros are ignored, and, without ``-c``, a judged
query (one with a relevant document at ``-l``) missing from a run, as
trec_eval 10.0 refuses it (exit status 4).

Exit statuses (``EXIT_STATUSES``; trec_eval's numbers for the same failures):
0 done; 1 a bad option or measure name; 2 a file missing, unreadable or
malformed (the error names its line), or qrels and run that share no query
(with ``--strict``, ids that match only loosely); 4 with ``--strict``, a
judged query missing from a run; 141 the reader of the output left early
(``| head``), as a program ended by SIGPIPE. Every error is one line on
stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import os
import shutil
import stat
import sys
import tempfile
import warnings
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from helpers.batch.diagnosis import DocnoMatchWarning, RunOrderWarning
from helpers.batch.evaluation import Evaluation, evaluate
from helpers.batch.measures import (
    COUNTS,
    DEFAULT_CUTOFFS,
    MEASURES,
    TREC_NAMES,
    Measure,
    expand_measure,
)
from helpers.batch.registry import GEOMETRIC_FLOOR, NICKNAMES, TREC_ORDER, declaration_of
from helpers.batch.trec_io import TrecFormatWarning, read_with_source, run_tag

PROG = "python -m helpers.batch"
PER_RUN = ("runid", "num_q")  # printed in the all lines only

# Exit statuses: trec_eval's numbers (trec_eval.c) where it fails the same way
EXIT_OK = 0
EXIT_USAGE = 1  # trec_eval: 1 for an illegal measure or option
EXIT_FILE = 2  # trec_eval: 2, "Quit in file"
EXIT_UNSCORED = 4  # trec_eval 10.0: 4, "result qid not found" (a judged query missing from the run, no -c)
# The reader of the output left (| head -1): 128 + SIGPIPE, the status a shell reports for trec_eval, cat or
# any C program that SIGPIPE ends. Not Python's documented 1, which means a bad option here, and not 0: the
# output was cut, and a pipeline under `set -o pipefail` should see it as it does for those programs.
EXIT_PIPE_CLOSED = 141
EXIT_STATUSES = {
    EXIT_OK: "done",
    EXIT_USAGE: "a bad option or measure name",
    EXIT_FILE: "a file missing, unreadable or malformed (the error names its line), or qrels and run "
               "that share no query (with --strict, ids that match only loosely)",
    EXIT_UNSCORED: "with --strict, a judged query missing from a run (no -c)",
    EXIT_PIPE_CLOSED: "the reader of the output left early (| head), as for a program ended by SIGPIPE",
}
STDIN = "-"  # the file name that means standard input
SHOWN_QUERIES = 5  # the query ids an error names before "and N more"


@dataclass(frozen=True)
class Column:
    """One measure to print: what to compute, the name to print, and where trec_eval prints it."""

    measure: Measure | None  # None for runid and num_q
    name: str
    order: tuple


# trec_eval's options this command leaves out, and what they are (docs/learners.md says why)
NOT_SUPPORTED = {
    "-R": "judgments as preferences or judgment groups (prefs, qrels_prefs, qrels_jg)",
    "-Z": "z-scores (each value standardised by a file of each query's mean and deviation over other runs)",
}


def main(argv: list[str] | None = None) -> int:
    """Run the command; returns the exit status (EXIT_STATUSES), each error said in one line on stderr."""
    try:
        return _run(argv)
    except BrokenPipeError:  # the reader of stdout, or of stderr with 2>&1, left (| head -1)
        # Python flushes both once more at exit: pointed at devnull, that flush cannot fail again
        devnull = os.open(os.devnull, os.O_WRONLY)
        for stream in (sys.stdout, sys.stderr):
            os.dup2(devnull, stream.fileno())
        return EXIT_PIPE_CLOSED


def _run(argv: list[str] | None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)  # a usage error exits with EXIT_USAGE
    for option, meaning in NOT_SUPPORTED.items():
        if getattr(args, option.lstrip("-")) is not None:
            parser.error(f"{option} is not supported here: trec_eval's {meaning}; use trec_eval for it")
    if [args.qrels, *args.runs].count(STDIN) > 1:
        parser.error(f"standard input ('{STDIN}') can be only one of QRELS and the RUNs")
    with warnings.catch_warnings(), contextlib.ExitStack() as cleanup:
        inputs = _Inputs(cleanup)
        warnings.showwarning = inputs.show_warning
        for category in (DocnoMatchWarning, RunOrderWarning, TrecFormatWarning):
            warnings.simplefilter("always", category)
        try:
            columns = _columns(args.m or ["official"], args.l)
        except ValueError as error:
            return _fail(str(error), EXIT_USAGE)
        try:
            qrels, runs = inputs.readable_again(args.qrels), [inputs.readable_again(run) for run in args.runs]
            results = [_evaluate_run(args, inputs, columns, qrels, run) for run in runs]
        except BrokenPipeError:
            raise  # a warning met a closed stderr: not a file error
        except (ValueError, TypeError, OSError) as error:
            return _fail(inputs.named(str(error)), EXIT_FILE)
        if any(result.unscored for result in results):
            errors = [_unscored_error(result, args.l) for result in results if result.unscored]
            return _fail("\n".join(errors), EXIT_UNSCORED)
    return _write(args, columns, results)


def _fail(message: str, status: int) -> int:
    for line in message.splitlines():
        print(f"{PROG}: error: {line}", file=sys.stderr)
    return status


def _write(args, columns: list[Column], results: list[RunResult]) -> int:
    writer = {"trec": _write_trec, "csv": _write_csv, "json": _write_json}[args.format]
    writer(sys.stdout, args, columns, results)
    sys.stdout.flush()  # here, not at exit: a pipe found closed then would print "Exception ignored ..."
    return EXIT_OK


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error exits 1 as trec_eval's does (argparse's 2 is this command's file error)."""

    def error(self, message: str):
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _parser() -> argparse.ArgumentParser:
    statuses = "; ".join(f"{status} {meaning}" for status, meaning in EXIT_STATUSES.items())
    parser = _Parser(
        prog=PROG, description="Evaluate TREC runs against qrels with trec_eval's options and output.",
        epilog=f"'-' as QRELS or as one RUN reads standard input; a pipe works as a file name. "
               f"Exit status: {statuses}. The measures: trec_eval's names or evaluate's "
               "(see helpers.batch.measures).",
    )
    parser.add_argument("qrels", metavar="QRELS", help="the judgments: qid 0 docno grade ('-': standard input)")
    parser.add_argument("runs", metavar="RUN", nargs="+",
                        help="one or more runs: qid Q0 docno rank score tag ('-': standard input)")
    parser.add_argument("-q", action="store_true", help="a line per query, then the 'all' lines")
    parser.add_argument("-m", action="append", metavar="MEASURE", help="a measure (repeatable); default official")
    parser.add_argument("-c", action="store_true", help="queries missing from a run score 0 and count")
    parser.add_argument("-l", type=int, default=1, metavar="N", help="relevant from grade N on (default 1)")
    parser.add_argument("-M", type=_at_least_one, metavar="N", help="only the first N documents of each query")
    parser.add_argument("-J", action="store_true", help="only judged documents (trec_eval -J)")
    parser.add_argument("-n", action="store_true", help="no 'all' lines")
    parser.add_argument("--format", choices=("trec", "csv", "json"), default="trec",
                        help="trec_eval's lines (default), or csv / json in full precision")
    parser.add_argument("--lenient", action="store_true",
                        help="ignore run fields after the tag, as trec_eval does (default: refuse the line)")
    parser.add_argument("--strict", action="store_true",
                        help="ids that do not match are an error, not a warning; so is, without -c, "
                             "a judged query missing from a run (exit status 4)")
    for option, meaning in NOT_SUPPORTED.items():
        parser.add_argument(option, metavar="X", help=f"trec_eval's {meaning}: not supported (exit status 1)")
    return parser


def _at_least_one(text: str) -> int:
    """-M's value: a whole number, 1 or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {value}")
    return value


# --- the inputs: standard input and pipes are copied once ------------------------------


class _Inputs:
    """Paths that can be read more than once, and the names given for them on the command line."""

    def __init__(self, cleanup: contextlib.ExitStack):
        self._cleanup = cleanup
        self._folder: Path | None = None
        self._names: dict[str, str] = {}  # a copy's path -> the name given ('<stdin>' for '-')

    def name(self, path: str) -> str:
        """The name given for a path that readable_again returned."""
        return self._names.get(path, path)

    def named(self, text: str) -> str:
        """A message with each copy's path replaced by the name given for it."""
        for path, name in self._names.items():
            text = text.replace(path, name)
        return text

    def show_warning(self, message, category, filename, lineno, file=None, line=None) -> None:
        print(f"{PROG}: warning: {self.named(str(message))}", file=sys.stderr)

    def readable_again(self, given: str) -> str:
        """The file itself, or a copy of standard input, a pipe or a device (read once, as it streams)."""
        if given != STDIN:
            try:
                mode = os.stat(given).st_mode
            except OSError:
                return given  # missing or unreadable: the reader says so, naming it
            if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
                return given
        if self._folder is None:
            self._folder = Path(self._cleanup.enter_context(tempfile.TemporaryDirectory(prefix="helpers-batch-")))
        copy = self._folder / f"input-{len(self._names) + 1}.txt"  # .txt: no copy's path is a prefix of another's
        with open(copy, "wb") as out:
            if given == STDIN:
                shutil.copyfileobj(sys.stdin.buffer, out)
            else:
                with open(given, "rb") as source:
                    shutil.copyfileobj(source, out)
        self._names[str(copy)] = _shown(given)
        return str(copy)


def _shown(given: str) -> str:
    """The name to show for an input: as given, '<stdin>' for '-'."""
    return "<stdin>" if given == STDIN else given


# --- the measures --------------------------------------------------------------


def _columns(texts: list[str], level: int) -> list[Column]:
    """The measures named by -m, each once, in trec_eval's order (measures it lacks last, as given)."""
    if level < 1:
        raise ValueError(f"-l must be 1 or more (grade 0 means not relevant), got {level}")
    columns: dict[str, Column] = {}
    skipped: list[str] = []
    for position, text in enumerate(_unfold_nicknames(texts)):
        for column in _columns_of(text, level, position, skipped):
            columns.setdefault(column.name, column)
    if skipped:
        print(f"{PROG}: note: trec_eval measures not computed here, left out: {', '.join(dict.fromkeys(skipped))}",
              file=sys.stderr)
    if not columns:
        raise ValueError("none of the measures asked for is computed here")
    return sorted(columns.values(), key=lambda column: column.order)


def _unfold_nicknames(texts: list[str]) -> list[str]:
    """The names of -m with official and all_trec unfolded; as in trec_eval, a measure also given with its own
    parameters (-m all_trec -m relstring.20) takes those instead of the nickname's defaults."""
    with_parameters = {text.partition(".")[0] for text in texts if "." in text}
    unfolded = []
    for text in texts:
        members = NICKNAMES.get(text)
        unfolded += [text] if members is None else [name for name in members if name not in with_parameters]
    return unfolded


def _columns_of(text: str, level: int, position: int, skipped: list[str]) -> list[Column]:
    family, _, params = text.partition(".")
    if family in PER_RUN:
        return [Column(None, family, (TREC_ORDER.index(family),))]
    if family in TREC_ORDER and family not in {*TREC_NAMES.values(), "ndcg"}:
        skipped.append(family)  # a trec_eval measure this command does not compute
        return []
    if family in DEFAULT_CUTOFFS and not params and "." not in text:
        text = f"{family}.{DEFAULT_CUTOFFS[family]}"  # trec_eval's default cutoffs
    columns = []
    for measure in expand_measure(text):
        if "rel" in MEASURES[measure.name][2] and measure.rel == 1:
            measure = replace(measure, rel=level)  # -l: trec_eval's relevance level
        columns.append(_column(measure, text, level, position))
    return columns


def _column(measure: Measure, text: str, level: int, position: int) -> Column:
    """The printed name: trec_eval's where it has the measure (P_5, ndcg_cut_10, ndcg_1=3), else evaluate's."""
    trec = TREC_NAMES.get((measure.name, measure.cutoff is not None))
    plain = measure.gain == "linear" and measure.rel == (level if "rel" in MEASURES[measure.name][2] else 1)
    if trec is not None and plain and declaration_of(measure.name).trec_whole and "." in text:
        return Column(measure, f"{trec}_{text.partition('.')[2]}", (TREC_ORDER.index(trec), 1))  # utility_2,-1,0,0
    if trec is not None and plain and measure.gains is None:
        listed = declaration_of(measure.name).trec_list  # iprec_at_recall_0.10, Rprec_mult_0.20
        value = measure.cutoff if listed is None else getattr(measure, listed)
        name = trec if value is None else f"{trec}_{value}" if listed is None else f"{trec}_{value:.2f}"
        return Column(measure, name, (TREC_ORDER.index(trec), value or 0))
    family = TREC_NAMES.get((measure.name, False))
    if measure.gains is not None and plain and measure.cutoff is None and family and "." in text:
        name = f"{family}_{text.partition('.')[2]}"  # trec_eval prints the gain map as it was given: ndcg_1=3
        return Column(measure, name, (TREC_ORDER.index(family), 0))
    return Column(measure, str(measure), (len(TREC_ORDER), position))


# --- one run -------------------------------------------------------------------------


@dataclass(frozen=True)
class RunResult:
    path: str
    tag: str
    evaluation: Evaluation
    totals: dict  # the all line of each count, as trec_eval sums it
    unscored: tuple = ()  # with --strict (no -c): the judged queries missing from the run


def _evaluate_run(args, inputs: _Inputs, columns: list[Column], qrels: str, run: str) -> RunResult:
    measures = [column.measure for column in columns if column.measure is not None]
    evaluation = evaluate(
        qrels, run, measures, missing="zero" if args.c else "skip", depth=args.M, judged_only=args.J,
        strict=args.strict, lenient=args.lenient,
    )
    name, missing = inputs.name(run), evaluation.missing_queries
    unscored = _judged(qrels, missing, args.l) if missing and args.strict and not args.c else ()
    if missing and not args.c and not unscored:
        print(f"{PROG}: warning: {name}: {len(missing):,} quer{'y' if len(missing) == 1 else 'ies'} of the qrels "
              f"{'has' if len(missing) == 1 else 'have'} no line in the run (e.g. {missing[0]!r}): left out of "
              "the means, as trec_eval 9 does (trec_eval 10.0 stops); -c counts them as 0", file=sys.stderr)
    tag = run_tag(run) if any(column.name == "runid" for column in columns) else ""
    totals = {}
    for column in columns:
        if column.measure is not None and column.measure.name in COUNTS:
            totals[column.name] = int(round(evaluation.per_query[str(column.measure)].sum()))
    if args.c and "num_rel" in totals:
        totals["num_rel"] = _judgments_graded_one_or_more(qrels)
    return RunResult(name, tag, evaluation, totals, unscored)


def _judged(qrels: str, queries: tuple, level: int) -> tuple:
    """The queries, of those given, with a judgment graded ``level`` or more."""
    frame, _ = read_with_source(qrels, "qrels")
    judged = set(frame["qid"][np.trunc(frame["grade"].to_numpy(dtype="float64")) >= level])
    return tuple(qid for qid in queries if qid in judged)


def _unscored_error(result: RunResult, level: int) -> str:
    """--strict's error for the judged queries missing from a run."""
    absent = result.unscored
    shown = ", ".join(repr(qid) for qid in absent[:SHOWN_QUERIES])
    more = f" and {len(absent) - SHOWN_QUERIES:,} more" if len(absent) > SHOWN_QUERIES else ""
    one = len(absent) == 1
    return (f"{result.path}: {len(absent):,} judged quer{'y' if one else 'ies'} (with a document graded {level} "
            f"or more in the qrels) {'has' if one else 'have'} no line in the run: {shown}{more}; --strict "
            f"refuses an incomplete run (-c would score {'it' if one else 'them'} 0)")


def _judgments_graded_one_or_more(qrels: str) -> int:
    """trec_eval -c's all line of num_rel: the judgments with a grade of 1 or more, whatever -l says."""
    frame, _ = read_with_source(qrels, "qrels")
    grades = frame["grade"].to_numpy(dtype="float64")
    return int(np.count_nonzero(np.trunc(grades) >= 1))


def _per_query_rows(result: RunResult, columns: list[Column]):
    """(measure, qid, value) of every query, query by query as trec_eval -q prints them."""
    per_query = result.evaluation.per_query
    # each column as a Python list once: a pandas lookup per value took 2.7 s for 10k queries x 5 measures
    shown = [
        (column.name, per_query[str(column.measure)].tolist(), column.measure.name in COUNTS)
        for column in columns
        if column.measure is not None and declaration_of(column.measure.name).trec_lines != "all"
    ]
    for row, qid in enumerate(per_query.index.tolist()):
        for name, values, is_count in shown:
            value = values[row]
            yield name, qid, value if isinstance(value, str) else int(round(value)) if is_count else float(value)


def _value(result: RunResult, column: Column):
    """The all line's value: runid, num_q, a count's sum or a mean."""
    per_query = result.evaluation.per_query
    if column.name == "runid":
        return result.tag
    if column.name == "num_q":
        return len(per_query)
    assert column.measure is not None
    values = per_query[str(column.measure)]
    if column.measure.name in COUNTS:
        return result.totals[column.name]
    if declaration_of(column.measure.name).aggregation == "geometric":  # gm_map: trec_eval's floor, then exp
        logs = np.log(np.maximum(values.to_numpy(dtype="float64"), GEOMETRIC_FLOOR))
        return float(np.exp(np.cumsum(logs)[-1] / len(logs))) if len(logs) else 0.0
    # trec_eval adds the queries' values one after the other, in its query order, then divides
    return float(np.cumsum(values.to_numpy(dtype="float64"))[-1] / len(values)) if len(values) else 0.0


def _summarised(columns: list[Column]) -> list[Column]:
    """The columns with an all line (not relstring, which trec_eval prints per query only)."""
    return [column for column in columns
            if column.measure is None or declaration_of(column.measure.name).trec_lines != "per query"]


# --- output ---------------------------------------------------------------------------


def _trec_line(name: str, qid, value) -> str:
    shown = value if isinstance(value, str | int) else f"{value:6.4f}"
    return f"{name:<22}\t{qid}\t{shown}\n"


def _write_trec(out, args, columns: list[Column], results: list[RunResult]) -> None:
    for result in results:
        if args.q:
            for name, qid, value in _per_query_rows(result, columns):
                out.write(_trec_line(name, qid, f"'{value}'" if isinstance(value, str) else value))  # relstring
        if not args.n:
            for column in _summarised(columns):
                out.write(_trec_line(column.name, "all", _value(result, column)))


def _rows(args, columns: list[Column], result: RunResult):
    """(measure, qid, value) of one run, per query (with -q) then all."""
    if args.q:
        yield from _per_query_rows(result, columns)
    if not args.n:
        for column in _summarised(columns):
            yield column.name, "all", _value(result, column)


def _write_csv(out, args, columns: list[Column], results: list[RunResult]) -> None:
    # row by row: after one large write that a closed pipe cut short, Python's buffered writer reports
    # part of it written, not BrokenPipeError, and the end of the output would be lost without a word
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["run", "measure", "qid", "value"])
    for result in results:
        for name, qid, value in _rows(args, columns, result):
            writer.writerow([result.path, name, qid, repr(value) if isinstance(value, float) else value])


def _write_json(out, args, columns: list[Column], results: list[RunResult]) -> None:
    runs = []
    for result in results:
        entry: dict = {"run": result.path, "all": {}, "per_query": {}}
        for name, qid, value in _rows(args, columns, result):
            if qid == "all":
                entry["all"][name] = value
            else:
                entry["per_query"].setdefault(str(qid), {})[name] = value
        if not args.q:
            del entry["per_query"]
        runs.append(entry)
    options = {"q": args.q, "c": args.c, "l": args.l, "M": args.M, "J": args.J, "lenient": args.lenient}
    json.dump({"qrels": _shown(args.qrels), "measures": [column.name for column in columns], "options": options,
               "runs": runs}, out, indent=1)
    out.write("\n")

