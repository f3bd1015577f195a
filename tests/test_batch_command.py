"""``python -m helpers.batch``: trec_eval's options and output, byte for byte, on trec_eval's own test files."""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from helpers.batch import evaluate
from helpers.batch.cli import EXIT_STATUSES, main
from helpers.batch.registry import ALL_TREC
from tests.test_evaluate import TREC_EVAL

TREC_EVAL_10 = TREC_EVAL / "10.0"
SUITE = TREC_EVAL  # qrels and runs of trec_eval's test suite

# trec_eval's measure names this command prints, by family: what every comparison must cover
SHARED = {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
          "iprec_at_recall", "P", "recall", "ndcg", "ndcg_cut", "map_cut", "success", "gm_bpref", "Rprec_mult",
          "utility", "relative_P", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
          "num_nonrel_judged_ret", "11pt_avg", "unj", "binG", "infAP", "rbp", "rbp_resid", "ndcg_rel", "Rndcg", "G",
          "relstring"}
# trec_eval 10.0 rounds a recall level's share of R (lround) where 9.0.8 added 0.9 and truncated, and its all_trec
# adds unj, rbp and rbp_resid: these are compared with 10.0's files only
CHANGED_IN_10 = {"iprec_at_recall", "11pt_avg", "unj", "rbp", "rbp_resid"}

# trec_eval's test suite: its expected output, and the arguments that made it (trec_eval's Makefile)
CASES = {
    "out.test": ["qrels.test", "results.test"],
    "out.test.a": ["-m", "all_trec", "qrels.test", "results.test"],
    "out.test.aq": ["-m", "all_trec", "-q", "qrels.test", "results.test"],
    "10.0/out.test.aq": ["-m", "all_trec", "-q", "qrels.test", "results.test"],
    # 10.0 prints a line of zeros for query 302, missing from results.trunc (9.0.8 printed none)
    "10.0/out.test.aqc": ["-m", "all_trec", "-q", "-c", "--lenient", "qrels.test", "results.trunc"],
    "10.0/out.test.aqcM": ["-m", "all_trec", "-q", "-c", "-M100", "--lenient", "qrels.test", "results.trunc"],
    "out.test.aql": ["-m", "all_trec", "-mrelstring.20", "-q", "-l2", "qrels.rel_level", "results.test"],
    "out.test.meas_params": [
        "-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
        "-m", "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75",
        "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20", "qrels.test", "results.test",
    ],
    "out.comment.test": ["qrels.comment.test.gz", "results.comment.test.gz"],
    "out.test#with-comments": ["qrels.test.with-comments", "results.test"],
}


COMMAND = [sys.executable, "-m", "helpers.batch"]
GUIDE = Path(__file__).resolve().parents[1] / "docs" / "learners.md"


def run_command(args: list[str], capsys) -> tuple[int, str, str]:
    try:
        status = main(args)
    except SystemExit as stop:  # argparse's usage errors and --help
        status = stop.code
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def suite_args(args: list[str]) -> list[str]:
    return [str(SUITE / arg) if (SUITE / arg).is_file() else arg for arg in args]


def family(name: str) -> str:
    """The trec_eval measure a printed name belongs to: P_5 -> P, ndcg_cut_10 -> ndcg_cut, ndcg_1=3 -> ndcg,
    utility_2,-1,0,0 -> utility, 11pt_avg_.25,.5 -> 11pt_avg."""
    if name.startswith("ndcg_") and not name.startswith(("ndcg_cut", "ndcg_rel")):
        return "ndcg"
    parameters = re.match(r"^(.*?)_[-+.\d]", name)
    return parameters[1] if parameters else name


@pytest.mark.parametrize("expected_file", CASES)
def test_the_output_is_trec_eval_s_byte_for_byte_on_every_shared_measure(expected_file, capsys):
    status, out, err = run_command(suite_args(CASES[expected_file]), capsys)
    assert status == 0, err
    expected = (TREC_EVAL / expected_file.partition("#")[0]).read_text().splitlines(keepends=True)
    if not expected_file.startswith("10.0/"):
        expected = [line for line in expected if family(line.split("\t")[0].rstrip()) not in CHANGED_IN_10]
        out = "".join(line for line in out.splitlines(keepends=True)
                      if family(line.split("\t")[0].rstrip()) not in CHANGED_IN_10)
    printed = {line.split("\t")[0].rstrip() for line in out.splitlines()}
    shared = [line for line in expected if line.split("\t")[0].rstrip() in printed]
    assert out == "".join(shared)
    # nothing trec_eval printed for a measure this command computes was left out
    left_out = {line.split("\t")[0].rstrip() for line in expected} - printed
    assert not {name for name in left_out if family(name) in SHARED}
    assert len(out.splitlines()) >= 18


def test_the_comparisons_cover_every_shared_measure(capsys):
    covered = set()
    for args in CASES.values():
        _, out, _ = run_command(suite_args(args), capsys)
        covered |= {family(line.split("\t")[0].rstrip()) for line in out.splitlines()}
    assert covered == SHARED


def test_several_runs_print_one_block_after_the_other(capsys):
    qrels, runs = str(SUITE / "qrels.test"), [str(SUITE / "results.test"), str(SUITE / "results.trunc")]
    options = ["-q", "-c", "--lenient", "-m", "official", "-m", "ndcg_cut.10"]
    status, together, _ = run_command([*options, qrels, *runs], capsys)
    assert status == 0
    one_by_one = "".join(run_command([*options, qrels, run], capsys)[1] for run in runs)
    assert together == one_by_one and together.count("runid") == 2


def test_csv_and_json_give_evaluate_s_values_in_full_precision(capsys):
    qrels, run = SUITE / "qrels.rel_level", SUITE / "results.test"
    args = ["-q", "-l2", "-m", "map", "-m", "ndcg_cut.10", "-m", "num_rel", "-m", "Judged@10"]
    expected = evaluate(qrels, run, ["AP(rel=2)", "nDCG@10", "num_rel(rel=2)", "Judged@10"], missing="skip")
    _, out, _ = run_command([*args, "--format", "json", str(qrels), str(run)], capsys)
    result = json.loads(out)["runs"][0]
    assert result["run"] == str(run)
    assert result["per_query"]["301"]["map"] == expected.per_query.loc["301", "AP(rel=2)"]
    assert result["all"]["ndcg_cut_10"] == pytest.approx(expected.means["nDCG@10"], abs=1e-15)
    assert result["all"]["num_rel"] == expected.per_query["num_rel(rel=2)"].sum()
    assert result["all"]["Judged@10"] == pytest.approx(expected.means["Judged@10"], abs=1e-15)
    _, out, _ = run_command([*args, "--format", "csv", str(qrels), str(run)], capsys)
    rows = list(csv.DictReader(io.StringIO(out)))
    assert set(rows[0]) == {"run", "measure", "qid", "value"}
    ap_301 = next(row for row in rows if row["measure"] == "map" and row["qid"] == "301")
    assert float(ap_301["value"]) == expected.per_query.loc["301", "AP(rel=2)"]


def test_without_c_a_missing_query_is_left_out_with_a_warning(capsys):
    status, out, err = run_command(["--lenient", "-m", "map", str(SUITE / "qrels.test"),
                                    str(SUITE / "results.trunc")], capsys)
    assert status == 0
    assert "1 query of the qrels has no line in the run (e.g. '302')" in err and "-c counts them as 0" in err
    assert "5 line(s) had fields after the run tag" in err  # --lenient says what it cut
    with_c = run_command(["-c", "--lenient", "-m", "map", str(SUITE / "qrels.test"),
                          str(SUITE / "results.trunc")], capsys)[1]
    assert float(out.split()[-1]) > float(with_c.split()[-1])


def test_c_with_l2_counts_num_rel_as_trec_eval_does(capsys, tmp_path):
    # trec_eval 10.0 prints, for -c, the all line of num_rel as every judgment with grade >= 1, whatever -l says
    # (measured with the binary: per query 1, 1, 1; all 5)
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 a 1\nq1 0 b 2\nq1 0 c 0\nq2 0 x 3\nq2 0 y 1\nq3 0 z -1\nq3 0 w 2\n")
    run = tmp_path / "run"
    run.write_text("q1 Q0 a 1 3 s\nq1 Q0 b 2 2 s\nq1 Q0 d 3 1 s\nq3 Q0 z 1 1 s\n")
    _, out, _ = run_command(["-c", "-l2", "-q", "-m", "num_rel", "-m", "num_rel_ret", "-m", "num_q",
                             str(qrels), str(run)], capsys)
    assert out == ("num_rel               \tq1\t1\nnum_rel_ret           \tq1\t1\n"
                   "num_rel               \tq2\t1\nnum_rel_ret           \tq2\t0\n"
                   "num_rel               \tq3\t1\nnum_rel_ret           \tq3\t0\n"
                   "num_q                 \tall\t3\nnum_rel               \tall\t5\n"
                   "num_rel_ret           \tall\t1\n")


def test_measures_trec_eval_lacks_are_printed_after_its_own_with_their_names(capsys):
    _, out, err = run_command(["-m", "RR@10", "-m", "map", "-m", "nDCG(gain=exp)@5", "-m", "yaap",
                               str(SUITE / "qrels.test"), str(SUITE / "results.test")], capsys)
    assert [line.split("\t")[0].rstrip() for line in out.splitlines()] == ["map", "RR@10", "nDCG(gain=exp)@5"]
    assert "left out: yaap" in err


@pytest.mark.parametrize(("args", "message"), [
    (["-m", "nope"], "unknown measure 'nope'"),
    (["-m", "P.5,5"], "a cutoff is listed twice"),
    (["-l", "0"], "-l must be 1 or more"),
    (["-M", "0"], "argument -M: must be 1 or more, got 0"),
    (["-M", "ten"], "argument -M: must be a whole number, got 'ten'"),
])
def test_bad_options_are_one_line_errors_with_status_1(args, message, capsys):
    status, out, err = run_command([*args, str(SUITE / "qrels.test"), str(SUITE / "results.test")], capsys)
    assert status == 1 and out == ""
    errors = [line for line in err.splitlines() if ": error: " in line]
    assert len(errors) == 1 and message in errors[0]


def test_bad_files_are_one_line_errors_naming_them(capsys, tmp_path):
    status, _, err = run_command([str(tmp_path), str(SUITE / "results.test")], capsys)
    assert status == 2 and f"{tmp_path} is a directory, not a qrels file" in err
    status, _, err = run_command([str(SUITE / "qrels.test"), str(SUITE / "results.trunc")], capsys)
    assert status == 2 and "results.trunc, line 1: a run line has 6 fields" in err and "--lenient" in err
    status, _, err = run_command([str(SUITE / "qrels.test"), str(tmp_path / "absent.run")], capsys)
    assert status == 2 and "no such file" in err


def test_strict_turns_id_warnings_into_errors(capsys, tmp_path):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 a 1\n2 0 b 1\n")
    run.write_text("01 Q0 a 1 1.0 s\n2 Q0 b 1 1.0 s\n")
    status, out, err = run_command(["-c", "-m", "map", str(qrels), str(run)], capsys)
    assert status == 0 and "run '01' and qrels '1'" in err and out.endswith("map                   \tall\t0.5000\n")
    status, _, err = run_command(["-c", "--strict", "-m", "map", str(qrels), str(run)], capsys)
    assert status == 2 and "run '01' and qrels '1'" in err


@pytest.mark.slow  # a fresh Python: python -m helpers.batch
def test_the_module_runs_as_a_command():
    done = subprocess.run([sys.executable, "-m", "helpers.batch", "-m", "P.5,10", str(SUITE / "qrels.test"),
                           str(SUITE / "results.test")], capture_output=True, text=True, check=True)
    assert done.stdout == "P_5                   \tall\t0.2667\nP_10                  \tall\t0.3000\n"


def test_a_parameter_trec_eval_ignores_prints_trec_eval_s_line_and_a_warning(capsys):
    files = [str(SUITE / "qrels.test"), str(SUITE / "results.test")]
    status, out, err = run_command(["-m", "recip_rank.2", "-m", "map.5", *files], capsys)
    plain = run_command(["-m", "recip_rank", "-m", "map", *files], capsys)[1]
    assert status == 0 and out == plain  # trec_eval prints recip_rank and map for these names
    expected = (SUITE / "out.test").read_text().splitlines()
    assert [line for line in expected if line.split()[:2] in (["map", "all"], ["recip_rank", "all"])] == \
        out.splitlines()
    assert "Did you mean RR@2?" in err and "Did you mean AP@5?" in err


def test_a_name_trec_eval_refuses_is_refused_with_a_one_line_error(capsys):
    status, out, err = run_command(["-m", "ndcg.5", str(SUITE / "qrels.test"), str(SUITE / "results.test")], capsys)
    assert status == 1 and out == "" and "trec_eval refuses this name" in err


# --- a command a pipeline can rely on: standard input, pipes, exit statuses, a closed pipe ----------------


def trec_eval_lines(names: set[str], expected_file: str = "out.test") -> str:
    """trec_eval's own output lines of these measures."""
    lines = (TREC_EVAL / expected_file).read_text().splitlines(keepends=True)
    return "".join(line for line in lines if line.split("\t")[0].rstrip() in names)


@pytest.mark.slow  # a fresh Python: python -m helpers.batch
def test_a_gzipped_run_unpacked_into_standard_input_gives_trec_eval_s_numbers(tmp_path):
    packed = tmp_path / "run.gz"
    packed.write_bytes(gzip.compress((SUITE / "results.test").read_bytes()))
    temporary = tmp_path / "tmp"  # where the command copies standard input
    temporary.mkdir()
    unpack = subprocess.Popen(["gzip", "-dc", str(packed)], stdout=subprocess.PIPE)  # zcat run.gz | ...
    done = subprocess.run([*COMMAND, "-m", "map", "-m", "P.5,10", str(SUITE / "qrels.test"), "-"],
                          stdin=unpack.stdout, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "TMPDIR": str(temporary)})
    unpack.stdout.close()
    assert unpack.wait(timeout=60) == 0
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout == trec_eval_lines({"map", "P_5", "P_10"})
    assert list(temporary.iterdir()) == []  # the copy is gone


def test_qrels_on_standard_input_are_named_stdin(monkeypatch, capsys):
    run = SUITE / "results.test"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((SUITE / "qrels.test").read_bytes())))
    status, out, err = run_command(["--format", "json", "-m", "map", "-", str(run)], capsys)
    assert status == 0 and err == ""
    result = json.loads(out)
    assert result["qrels"] == "<stdin>" and result["runs"][0]["run"] == str(run)
    expected = evaluate(SUITE / "qrels.test", run, "AP", missing="skip").means["AP"]
    assert result["runs"][0]["all"]["map"] == pytest.approx(expected, abs=1e-15)


def test_a_bad_line_on_standard_input_is_named_by_its_line(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"301 Q0 d1 1 2.0 x\n301 Q0 d2 2 oops x\n")))
    status, out, err = run_command(["-m", "map", "--format", "csv", str(SUITE / "qrels.test"), "-"], capsys)
    assert status == 2 and out == ""
    assert err.splitlines() == [
        "python -m helpers.batch: error: <stdin>, line 2: the score 'oops' is not a number"]


def feed(pipe_end: str | int, data: bytes) -> threading.Thread:
    """Write data to a pipe (a path or a file descriptor) in the background: a named pipe opens when read."""
    def write() -> None:
        with open(pipe_end, "wb") as pipe:
            pipe.write(data)
    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    return writer


@pytest.mark.slow  # a fresh Python: python -m helpers.batch
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="pipes named as files are POSIX")
@pytest.mark.parametrize("pipe", ["/dev/fd/N", "named pipe"])
def test_a_pipe_works_as_a_file_name(pipe, tmp_path):
    args = [*COMMAND, "-q", "-m", "map", "-m", "P.5,10", str(SUITE / "qrels.test")]
    data = (SUITE / "results.test").read_bytes()
    if pipe == "named pipe":
        fifo = tmp_path / "run.fifo"
        os.mkfifo(fifo)
        command = subprocess.Popen([*args, str(fifo)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        writer = feed(str(fifo), data)
    else:  # what bash's <(zcat run.gz) passes
        read_end, write_end = os.pipe()
        command = subprocess.Popen([*args, f"/dev/fd/{read_end}"], pass_fds=(read_end,),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        os.close(read_end)
        writer = feed(write_end, data)
    out, err = command.communicate(timeout=120)
    writer.join(timeout=60)
    assert command.returncode == 0 and err == ""
    assert out == trec_eval_lines({"map", "P_5", "P_10"}, "out.test.aq")


@pytest.mark.slow  # a fresh Python: python -m helpers.batch
@pytest.mark.parametrize(("args", "stdin", "status", "message"), [
    (["-m", "nope", "QRELS", "RUN"], b"", 1, "unknown measure 'nope'"),
    (["--bogus", "QRELS", "RUN"], b"", 1, "unrecognized arguments: --bogus"),
    (["-", "-"], b"", 1, "standard input ('-') can be only one of QRELS and the RUNs"),
    (["QRELS", "ABSENT"], b"", 2, "no such file: "),
    (["QRELS", "-"], b"301 Q0 d1 1 2.0 x\nbad line\n", 2,
     "<stdin>, line 2: a run line has 6 fields 'qid iter docno rank score tag', found 2: 'bad line'"),
    (["--strict", "--lenient", "QRELS", "TRUNC"], b"", 4,
     "results.trunc: 1 judged query (with a document graded 1 or more in the qrels) has no line in the run: "
     "'302'; --strict refuses an incomplete run (-c would score it 0)"),
], ids=["bad measure", "bad option", "two stdins", "missing file", "bad line", "strict missing query"])
def test_each_failure_exits_with_its_status_and_one_error_line(args, stdin, status, message, tmp_path):
    files = {"QRELS": SUITE / "qrels.test", "RUN": SUITE / "results.test", "TRUNC": SUITE / "results.trunc",
             "ABSENT": tmp_path / "absent.run"}
    done = subprocess.run([*COMMAND, *(str(files.get(arg, arg)) for arg in args)], input=stdin,
                          capture_output=True, timeout=120)
    err = done.stderr.decode()
    assert done.returncode == status and done.stdout == b""
    errors = [line for line in err.splitlines() if ": error: " in line]
    assert len(errors) == 1 and message in errors[0], err
    assert "Traceback" not in err


def judged_and_run(tmp_path, judged: int, returned: int) -> tuple[str, str]:
    """Qrels with `judged` queries (q1.. one relevant document each, q0 none), a run answering the first `returned`."""
    qrels = ["q0 0 x 0\n"] + [f"q{q} 0 d{q} {1 + q % 2}\n" for q in range(1, judged + 1)]
    (tmp_path / "qrels").write_text("".join(qrels))
    (tmp_path / "run").write_text("".join(f"q{q} Q0 d{q} 1 1.0 s\nq{q} Q0 e{q} 2 0.5 s\n"
                                          for q in range(1, returned + 1)))
    return str(tmp_path / "qrels"), str(tmp_path / "run")


def test_strict_names_the_first_missing_judged_queries_and_counts_the_rest(tmp_path, capsys):
    qrels, run = judged_and_run(tmp_path, judged=9, returned=1)
    status, out, err = run_command(["--strict", "-m", "map", qrels, run], capsys)
    assert status == 4 and out == ""
    assert err == (f"python -m helpers.batch: error: {run}: 8 judged queries (with a document graded 1 or more in "
                   "the qrels) have no line in the run: 'q2', 'q3', 'q4', 'q5', 'q6' and 3 more; --strict refuses "
                   "an incomplete run (-c would score them 0)\n")  # q0, without a relevant document, is not named
    status, out, err = run_command(["--strict", "-l", "2", "-m", "map", qrels, run], capsys)
    assert status == 4 and "4 judged queries (with a document graded 2 or more in the qrels)" in err
    assert "'q3', 'q5', 'q7', 'q9';" in err  # the odd queries have grade 2


def test_strict_lets_through_a_missing_query_without_a_relevant_document_and_c_scores_them_0(tmp_path, capsys):
    qrels, run = judged_and_run(tmp_path, judged=3, returned=3)  # only q0 is missing: nothing to find in it
    status, out, err = run_command(["--strict", "-m", "map", "-m", "num_q", qrels, run], capsys)
    assert status == 0 and "1 query of the qrels has no line in the run (e.g. 'q0')" in err
    assert out == "num_q                 \tall\t3\nmap                   \tall\t1.0000\n"
    qrels, run = judged_and_run(tmp_path, judged=4, returned=2)
    status, out, err = run_command(["--strict", "-c", "-m", "map", "-m", "num_q", qrels, run], capsys)
    assert status == 0 and err == ""  # -c: the missing queries q0, q3 and q4 score 0 and count
    assert out == run_command(["-c", "-m", "map", "-m", "num_q", qrels, run], capsys)[1]
    assert out == "num_q                 \tall\t5\nmap                   \tall\t0.4000\n"


def test_help_and_the_guide_list_every_exit_status(capsys):
    status, out, _ = run_command(["--help"], capsys)
    assert status == 0
    words = " ".join(out.split())
    assert all(f"{code} {meaning}" in words for code, meaning in EXIT_STATUSES.items())
    guide = " ".join(GUIDE.read_text().split())
    listed = re.search(r"Exit statuses.*?\.(?= [A-Z])", guide)
    assert listed and set(map(int, re.findall(r"`(\d+)`", listed.group()))) == set(EXIT_STATUSES)


@pytest.mark.slow  # a fresh Python: python -m helpers.batch
@pytest.mark.parametrize(("options", "merged", "first_line"), [
    (["-c", "--format", "trec"], False, b"P_5                   \tq0\t0.2000\n"),
    (["-c", "--format", "csv"], False, b"run,measure,qid,value\n"),
    (["-c", "--format", "json"], False, b"{\n"),
    # without -c, a warning about the missing query comes first, on the same pipe (2>&1 | head -1)
    (["--format", "trec"], True, b"python -m helpers.batch: warning: "),
], ids=["trec", "csv", "json", "2>&1"])
def test_a_closed_output_pipe_ends_quietly(options, merged, first_line, tmp_path):
    queries = range(2000)  # -q prints 18 lines a query, 600 kB or more: more than a pipe holds
    (tmp_path / "qrels").write_text("".join(f"q{q} 0 d{q} 1\n" for q in [*queries, "absent"]))
    (tmp_path / "run").write_text("".join(f"q{q} Q0 d{q} 1 2.0 s\nq{q} Q0 e{q} 2 1.0 s\n" for q in queries))
    command = subprocess.Popen([*COMMAND, "-q", "-m", "P", "-m", "recall", *options, str(tmp_path / "qrels"),
                                str(tmp_path / "run")],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT if merged else subprocess.PIPE)
    assert command.stdout.readline().startswith(first_line)  # | head -1
    command.stdout.close()
    assert command.wait(timeout=120) == 141  # 128 + SIGPIPE, as a shell reports trec_eval or cat
    if not merged:
        assert command.stderr.read() == b""  # no BrokenPipeError traceback, no "Exception ignored"
        command.stderr.close()


def test_all_trec_prints_every_measure_of_trec_eval_10_and_reads_its_parameters(capsys):
    _, out, err = run_command(["-m", "all_trec", str(SUITE / "qrels.test"), str(SUITE / "results.test")], capsys)
    assert "not computed here" not in err
    printed = {family(line.split("\t")[0].rstrip()) for line in out.splitlines()}
    assert printed | {"relstring"} == set(ALL_TREC)  # relstring: per query only (-q)
    guide = (Path(__file__).resolve().parents[1] / "docs" / "learners.md").read_text()
    assert "prints every measure of `-m all_trec`" in guide
    given = ["G.1=3,2=9", "ndcg_rel.1=3", "Rndcg.2=5", "rbp.p=0.5", "utility.2,-1,0,0", "set_F.0.5", "11pt_avg..25,.5"]
    status, out, err = run_command([*(arg for name in given for arg in ("-m", name)), str(SUITE / "qrels.test"),
                                    str(SUITE / "results.test")], capsys)
    assert status == 0 and err == ""
    assert [line.split("\t")[0].rstrip() for line in out.splitlines()] == [
        "utility_2,-1,0,0", "11pt_avg_.25,.5", "G_1=3,2=9", "ndcg_rel_1=3", "Rndcg_2=5", "set_F_0.5", "rbp_p=0.5"]


@pytest.mark.parametrize("expected_file", ["10.0/out.test.aq", "10.0/out.test.aqc", "10.0/out.test.aqcM"])
def test_all_trec_per_query_is_trec_eval_10_s_whole_output_byte_for_byte(expected_file, capsys):
    status, out, err = run_command(suite_args(CASES[expected_file]), capsys)
    assert status == 0, err
    assert out == (TREC_EVAL / expected_file).read_text()


@pytest.mark.parametrize("option", ["-R", "-Z"])
def test_trec_eval_s_options_left_out_are_refused_by_name(option, capsys):
    status, out, err = run_command([option, "prefs", str(SUITE / "qrels.test"), str(SUITE / "results.test")], capsys)
    assert status == 1, err
    assert out == "" and f"{option} is not supported here" in err and "use trec_eval" in err
