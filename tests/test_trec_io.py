"""helpers.batch.trec_io: one reader with trec_eval's rules, and refusals that name the file and line.

Every file variant is evaluated twice: as it is, and with the reader forced
through its canonical-form pass (the path a tab, CR or '#' takes), so both
paths are held to trec_eval's numbers.
"""

from __future__ import annotations

import gzip
import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import helpers.batch.trec_io as trec_io
from helpers.batch import TrecFormatWarning, evaluate, read_qrels, read_run
from tests.test_evaluate import PRINT_ROUNDING, TREC_EVAL, read_trec_eval_output

# trec_eval names -> our measures, compared per query against out.test.aq
COMPARED = {"map": "AP", "recip_rank": "RR", "P_10": "P@10", "ndcg": "nDCG", "ndcg_cut_10": "nDCG@10",
            "recall_100": "R@100", "success_5": "Hit@5", "map_cut_100": "AP@100"}


@pytest.fixture(params=["as it is", "canonical pass", "in blocks"])
def reader_path(request, monkeypatch):
    """Run a test once per reader path ("in blocks": a file over 512 bytes is parsed 256 bytes at a time)."""
    if request.param == "canonical pass":
        monkeypatch.setattr(trec_io, "_may_need_canonical", lambda data: True)
    if request.param == "in blocks":
        monkeypatch.setattr(trec_io, "_READ_BLOCK", 256)
    return request.param


def lines_of(name: str) -> list[str]:
    return (TREC_EVAL / name).read_text().splitlines()


def assert_trec_eval_numbers(qrels_path: Path, run_path: Path, expected_file: str = "out.test.aq",
                             lenient: bool = False) -> None:
    expected = read_trec_eval_output(expected_file)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TrecFormatWarning)  # lenient files: the warning is tested below
        result = evaluate(qrels_path, run_path, list(COMPARED.values()), missing="skip", lenient=lenient)
    for trec_name, ours in COMPARED.items():
        for qid, value in expected[trec_name].items():
            got = result.means[ours] if qid == "all" else result.per_query.loc[qid, ours]
            assert got == pytest.approx(value, abs=PRINT_ROUNDING), (trec_name, qid)


def write(path: Path, lines: list[str], end: str = "\n", prefix: bytes = b"", compress: bool = False) -> Path:
    data = prefix + end.join(lines).encode("utf-8") + end.encode()
    path.write_bytes(gzip.compress(data) if compress else data)
    return path


def ascii_fields(line: str) -> list[str]:
    """Fields split at ASCII whitespace only (str.split() would also split at a no-break space)."""
    return [field.decode() for field in line.encode().split()]


def docno_prefixed(lines: list[str], prefix: str, docno_field: int) -> list[str]:
    """Every docno with the same prefix: the descending tie order is unchanged, so are the numbers."""
    changed = []
    for line in lines:
        fields = ascii_fields(line)
        fields[docno_field] = prefix + fields[docno_field]
        changed.append(" ".join(fields))
    return changed


def with_scientific_scores(lines: list[str]) -> list[str]:
    """Scores written as 17-digit scientific notation: the same doubles."""
    changed = []
    for line in lines:
        fields = ascii_fields(line)
        fields[4] = f"{float(fields[4]):.16e}"
        changed.append(" ".join(fields))
    return changed


# --- 1. every file trec_eval reads gives trec_eval's numbers ----------------------

QRELS, RUN = lines_of("qrels.test"), lines_of("results.test")

VARIANTS = {
    "plain": (QRELS, RUN, {}),
    "BOM in both files (the numbers of the files without it)": (QRELS, RUN, {"prefix": b"\xef\xbb\xbf"}),
    "CRLF line ends": (QRELS, RUN, {"end": "\r\n"}),
    "tabs": ([line.replace(" ", "\t") for line in QRELS], [line.replace(" ", " \t ") for line in RUN], {}),
    "runs of spaces, spaces at both ends": (
        ["  " + line.replace(" ", "   ") + "  " for line in QRELS], [" " + line + " " for line in RUN], {}
    ),
    "comment lines and blank lines": (
        ["# judged by NIST", *QRELS[:10], "", "   # indented comment", *QRELS[10:], "#"],
        ["#run: STANDARD", "", *RUN[:7], "\t# a comment after a tab", *RUN[7:]], {},
    ),
    "fields after the tag, read with lenient=True": (QRELS, [line + " extra 1.5 #" for line in RUN],
                                                     {"lenient": True}),
    "quotes inside docnos": (docno_prefixed(QRELS, '"', 2), docno_prefixed(RUN, '"', 2), {}),
    "a lone quote in one docno": (docno_prefixed(QRELS, '"d', 2), docno_prefixed(RUN, '"d', 2), {}),
    "no-break spaces inside docnos": (
        docno_prefixed(QRELS, "\u00a0", 2), docno_prefixed(RUN, "\u00a0", 2), {}
    ),
    "scientific notation": (QRELS, with_scientific_scores(RUN), {}),
    "gzip": (QRELS, RUN, {"compress": True}),
}


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_file_trec_eval_reads_gives_its_numbers(tmp_path, reader_path, variant):
    qrels_lines, run_lines, options = VARIANTS[variant]
    options = dict(options)
    lenient = options.pop("lenient", False)
    suffix = ".gz" if options.get("compress") else ""
    qrels = write(tmp_path / f"qrels{suffix}", qrels_lines, **options)
    run = write(tmp_path / f"run{suffix}", run_lines, **options)
    assert_trec_eval_numbers(qrels, run, lenient=lenient)


def test_all_variants_at_once(tmp_path, reader_path):
    qrels_lines = ["# comment", *docno_prefixed(QRELS, '"\u00a0', 2)]
    run_lines = [line.replace(" ", "\t", 2) + " extra" for line in with_scientific_scores(
        docno_prefixed(RUN, '"\u00a0', 2))]
    options = {"prefix": b"\xef\xbb\xbf", "end": "\r\n", "compress": True}
    assert_trec_eval_numbers(write(tmp_path / "q.gz", qrels_lines, **options),
                             write(tmp_path / "r.gz", run_lines, **options), lenient=True)


def test_trec_eval_10_comment_tests(reader_path):
    # trec_eval 10.0's own comment tests: '#' lines in a qrels, and '#' inside msmarco docnos
    with_comments = evaluate(TREC_EVAL / "qrels.test.with-comments", TREC_EVAL / "results.test",
                             ["AP", "RR", "P@10"], missing="skip").means
    expected = read_trec_eval_output("out.test")
    assert with_comments["AP"] == pytest.approx(expected["map"]["all"], abs=PRINT_ROUNDING)
    assert with_comments["P@10"] == pytest.approx(expected["P_10"]["all"], abs=PRINT_ROUNDING)
    means = evaluate(TREC_EVAL / "qrels.comment.test.gz", TREC_EVAL / "results.comment.test.gz",
                     ["AP", "RR", "P@5", "P@10", "P@100", "P@1000"], missing="skip").means
    expected = read_trec_eval_output("out.comment.test")
    for trec_name, ours in {"map": "AP", "recip_rank": "RR", "P_5": "P@5", "P_10": "P@10",
                            "P_100": "P@100", "P_1000": "P@1000"}.items():
        assert means[ours] == pytest.approx(expected[trec_name]["all"], abs=PRINT_ROUNDING), trec_name


def test_a_small_run_keeps_its_numbers_with_a_bom_quotes_and_no_break_spaces(tmp_path, reader_path):
    # AP 0.5833 and RR 1 on the plain files; each variant must give the same
    qrels = ["q1 0 dA 1", "q1 0 dC 1", "q1 0 dE 1"]
    run = [f"q1 Q0 d{letter} {rank} {6 - rank} sys" for rank, letter in enumerate("ABCDE", start=1)]
    plain = evaluate(write(tmp_path / "q", qrels), write(tmp_path / "r", run), ["AP", "RR"]).means
    assert plain.round(4).tolist() == [pytest.approx(0.7556), 1.0]
    bom = evaluate(write(tmp_path / "qb", qrels, prefix=b"\xef\xbb\xbf"),
                   write(tmp_path / "rb", run, prefix=b"\xef\xbb\xbf"), ["AP", "RR"]).means
    pd.testing.assert_series_equal(bom, plain)
    quoted = evaluate(write(tmp_path / "qq", docno_prefixed(qrels, '"', 2)),
                      write(tmp_path / "rq", docno_prefixed(run, '"', 2)), ["AP", "RR"])
    pd.testing.assert_series_equal(quoted.means, plain)
    assert read_run(tmp_path / "rq")["docno"].tolist()[0] == '"dA'  # a quote is part of the id
    spaced = [line.replace("dB", "d\u00a0B") for line in run]
    assert read_run(write(tmp_path / "rn", spaced))["docno"].tolist()[1] == "d\u00a0B"


def test_read_frames_keep_text_ids_and_numbers(tmp_path, reader_path):
    path = write(tmp_path / "r", ["\ufeff301 Q0 007 1 1e-3 a b c", "301\tQ0\t7\t2\t-2.5E+2\tsys"])
    with pytest.warns(TrecFormatWarning, match="1 line"):
        run = read_run(path, lenient=True)
    assert run["qid"].tolist() == ["\ufeff301", "301"] or run["qid"].tolist() == ["301", "301"]
    assert run["docno"].tolist() == ["007", "7"]
    assert run["score"].tolist() == [0.001, -250.0]
    assert run["rank"].tolist() == [1, 2] and run["tag"].tolist() == ["a", "sys"]
    qrels = read_qrels(write(tmp_path / "q", ["1 0 a 1.5", "1 0 b -1", "1 0 c +2"]))
    assert qrels["grade"].tolist() == [1.5, -1.0, 2.0]


def test_a_bom_is_dropped_not_kept_in_the_first_qid(tmp_path, reader_path):
    run = read_run(write(tmp_path / "r", ["q1 Q0 d 1 1 s"], prefix=b"\xef\xbb\xbf"))
    assert run["qid"].tolist() == ["q1"]


def test_fractional_grades_are_truncated_like_trec_eval_by_default(tmp_path):
    qrels = write(tmp_path / "q", ["q 0 a 1.5", "q 0 b 0.9", "q 0 c 2.7"])
    run = write(tmp_path / "r", ["q Q0 b 1 3 s", "q Q0 a 2 2 s", "q Q0 c 3 1 s"])
    truncated = evaluate(qrels, run, ["RR", "nDCG"]).means  # grades 1, 0, 2 as trec_eval reads them
    assert truncated["RR"] == 0.5
    assert truncated["nDCG"] == pytest.approx((1 / np.log2(3) + 2 / 2) / (2 + 1 / np.log2(3)))
    kept = evaluate(qrels, run, ["RR", "nDCG"], fractional_grades="keep").means
    assert kept["RR"] == 0.5  # 0.9 is still below rel=1
    expected = (0.9 + 1.5 / np.log2(3) + 2.7 / 2) / (2.7 + 1.5 / np.log2(3) + 0.9 / 2)
    assert kept["nDCG"] == pytest.approx(expected)


# --- 2. refusals name the file and the line ----------------------------------------

BAD_FILES = [
    ("run", ["q1 Q0 a 1 9_0 s"], 1, r"the score '9_0' is not a number"),
    ("run", ["q1 Q0 a 1 1 s", "q1 Q0 b 2 \uff13 s"], 2, r"the score '\uff13' is not a number"),
    ("run", ["q1 Q0 a 1 0x1A s"], 1, "is not a number"),
    ("run", ["q1 Q0 a 1 1,5 s"], 1, "is not a number"),
    ("run", ["q1 Q0 a 1 inf s"], 1, "'inf' is not a finite number"),
    ("run", ["q1 Q0 a 1 NaN s"], 1, "'NaN' is not a finite number"),
    ("run", ["q1 Q0 a 1 1e999 s"], 1, "is not a finite number"),
    ("run", ["q1 Q0 a 1 2 s", "q1 Q0 b 2 1"], 2, "a run line has 6 fields .* found 5"),
    ("run", ["q1 Q0 a 1 2 s", "q1 Q0 b 2 1 s", "q1 Q0 a 3 0 s"], 3,
     r"document 'a' appears twice .*line {first}\)"),
    ("qrels", ["q1 0 a 1", "q1 0 b"], 2, "a qrels line has 4 fields .* found 3"),
    ("qrels", ["q1 0 a 1 extra"], 1, "a qrels line has 4 fields .* found 5"),
    ("qrels", ["q1 0 a 1e3"], 1, "the grade '1e3' has an exponent"),
    ("qrels", ["q1 0 a high"], 1, "the grade 'high' is not a number"),
    ("qrels", ["q1 0 a 1", "q1 0 b 0x1A"], 2, "the grade '0x1A' is not a number"),  # Arrow's cast reads hex
    ("qrels", ["q1 0 a 1", "q2 0 a 0", "q1 0 a 2"], 3,
     r"document 'a' appears twice for query 'q1' \(first on line {first}\)"),
]


@pytest.mark.parametrize(("kind", "lines", "line", "message"), BAD_FILES)
@pytest.mark.parametrize("extra", ["", "# a comment first", "\tq0 tab line"])
def test_bad_lines_are_refused_with_file_and_line(tmp_path, kind, lines, line, message, extra):
    if extra.startswith("\t"):  # a tab sends the file through the canonical pass
        extra = "q0\t0\tz\t1" if kind == "qrels" else "q0\tQ0\tz\t1\t1\ts"
    path = write(tmp_path / kind, [extra, *lines] if extra else lines)
    reader = read_qrels if kind == "qrels" else read_run
    shift = 1 if extra else 0
    with pytest.raises(ValueError, match=message.replace("{first}", str(1 + shift))) as error:
        reader(path)
    assert f"{path}, line {line + shift}:" in str(error.value)


@pytest.mark.parametrize(("kind", "lines", "line", "message"), BAD_FILES)
def test_bad_lines_in_a_later_block_name_their_line(tmp_path, monkeypatch, kind, lines, line, message):
    monkeypatch.setattr(trec_io, "_READ_BLOCK", 64)  # 40 good lines first: the bad one is blocks away
    good = [f"g{i} 0 d 1" if kind == "qrels" else f"g{i} Q0 d 1 1 s" for i in range(40)]
    path = write(tmp_path / kind, [*good, *lines])
    with pytest.raises(ValueError, match=message.replace("{first}", "41")) as error:
        (read_qrels if kind == "qrels" else read_run)(path)
    assert f"{path}, line {line + 40}:" in str(error.value)


def test_a_large_file_read_in_blocks_gives_the_frame_read_whole(tmp_path, monkeypatch):
    blocks = []
    block_table = trec_io._block_table
    monkeypatch.setattr(trec_io, "_block_table", lambda *args: blocks.append(1) or block_table(*args))
    path = tmp_path / "r"
    path.write_bytes(b"\xef\xbb\xbf" + "\n".join(RUN).encode())  # a BOM, no line break at the end
    whole = read_run(path)
    assert not blocks  # under 2 blocks of 64 MiB: read whole
    monkeypatch.setattr(trec_io, "_READ_BLOCK", 256)
    in_blocks = read_run(path)
    assert len(blocks) > 100
    pd.testing.assert_frame_equal(in_blocks, whole)
    assert whole["qid"].iloc[0] == ascii_fields(RUN[0])[0] and len(whole) == len(RUN)


@pytest.mark.parametrize("kind", ["qrels", "run"])
def test_empty_files_and_comment_only_files_are_refused(tmp_path, kind):
    reader = read_qrels if kind == "qrels" else read_run
    for text in ["", "\n\n", "# only a comment\n", "\ufeff"]:
        path = tmp_path / "f"
        path.write_text(text)
        with pytest.raises(ValueError, match=f"{path} is empty"):
            reader(path)


def test_encodings_and_binary_files_are_refused_with_file_and_line(tmp_path):
    cases = {
        "utf16.run": ("q1 Q0 a 1 1 s\n".encode("utf-16"), "line 1: the text is UTF-16"),
        "utf16le.run": ("q1 Q0 a 1 1 s\n".encode("utf-16-le"), "line 1: a NUL byte"),
        "latin1.run": ("q1 Q0 a 1 1 s\nq1 Q0 caf\u00e9 2 0 s\n".encode("latin-1"), "line 2: not UTF-8 text"),
        "binary.run": (bytes(range(256)), "line 1: a NUL byte"),
    }
    for name, (data, message) in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(ValueError, match=message) as error:
            read_run(path)
        assert str(path) in str(error.value)


def test_compression_problems_name_the_file_and_line(tmp_path):
    text = "".join(f"q1 Q0 d{i} {i} {1 / (i + 1)} s\n" for i in range(20_000)).encode()
    truncated = tmp_path / "truncated.run.gz"
    truncated.write_bytes(gzip.compress(text)[:30_000])
    with pytest.raises(ValueError, match=r"truncated\.run\.gz, line \d+: the gzip file is truncated"):
        read_run(truncated)
    not_gzip = tmp_path / "plain.run.gz"
    not_gzip.write_bytes(text[:100])
    with pytest.raises(ValueError, match=r"plain\.run\.gz, line 1: the name ends in \.gz but"):
        read_run(not_gzip)
    corrupt = tmp_path / "corrupt.run.gz"
    packed = bytearray(gzip.compress(text))
    packed[200:220] = b"\xff" * 20
    corrupt.write_bytes(bytes(packed))
    with pytest.raises(ValueError, match=r"corrupt\.run\.gz, line \d+: the gzip"):
        read_run(corrupt)
    gzip_named_plain = tmp_path / "packed.run"  # gzip content is unpacked whatever the name
    gzip_named_plain.write_bytes(gzip.compress(text))
    assert len(read_run(gzip_named_plain)) == 20_000


def test_a_huge_bad_line_gives_a_short_message(tmp_path):
    path = write(tmp_path / "r", ["q1 Q0 a 1 1 s", "q1 Q0 b 2 " + "9" * 10_000_000 + "x s"])
    with pytest.raises(ValueError, match="line 2: the score") as error:
        read_run(path)
    assert len(str(error.value)) < 500
    path = write(tmp_path / "q", ["q1 0 a 1", "x" * 10_000_000])
    with pytest.raises(ValueError, match="line 2: a qrels line has 4 fields") as error:
        read_qrels(path)
    assert len(str(error.value)) < 500


def test_a_missing_file_and_a_wrong_type_are_reported():
    with pytest.raises(FileNotFoundError, match="no such file"):
        read_run("does/not/exist.run")
    with pytest.raises(TypeError, match="file path"):
        read_qrels(42)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_pipe_is_refused_before_it_is_read_saying_what_to_do(tmp_path):
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)  # opening it would wait for a writer: the refusal must come first
    with pytest.raises(ValueError, match=r"run\.fifo is a pipe or a device, not a regular file.*save it to a file"):
        read_run(fifo)


def test_written_files_read_back_the_same(tmp_path):
    qrels, run = read_qrels(TREC_EVAL / "qrels.test"), read_run(TREC_EVAL / "results.test")
    again = read_qrels(trec_io.write_qrels(qrels, tmp_path / "q.gz"))
    pd.testing.assert_frame_equal(again, qrels)
    with pytest.raises(ValueError, match="cannot be written"):
        trec_io.write_run(run.assign(docno="two words"), tmp_path / "bad.run")


# --- 3. grades read as trec_eval reads them: atol, the integer part of the text ---------------

# (grade text, its integer part as trec_eval's atol reads it; checked against the trec_eval 10.0 binary)
GRADE_TEXTS = [
    ("0.99999999999999999999", 0), ("1.9999999999999999", 1), ("2.99999999999999999", 2),
    ("-0.99999999999999999999", 0), ("+2", 2), (".7", 0), ("2.", 2), ("2.5", 2), ("-1.5", -1), ("007", 7),
]


def graded_case(grade_text: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Document b at rank 2 carries the grade; c (grade 3) is never returned."""
    qrels = pd.DataFrame({"qid": ["q"] * 3, "docno": ["a", "b", "c"], "grade": ["0", grade_text, "3"]})
    run = pd.DataFrame({"qid": ["q", "q"], "docno": ["a", "b"], "score": [3.0, 2.0]})
    return qrels, run


def expected_rr(whole: int) -> list[float]:
    return [0.5 if whole >= rel else 0.0 for rel in (1, 2, 3)]


@pytest.mark.parametrize(("text", "whole"), GRADE_TEXTS)
def test_a_grade_is_its_integer_part_decided_on_the_text(tmp_path, reader_path, text, whole):
    qrels, run = graded_case(text)
    qrels_path = write(tmp_path / "q", ["q 0 a 0", f"q 0 b {text}", "q 0 c 3"])
    run_path = write(tmp_path / "r", ["q Q0 a 1 3 s", "q Q0 b 2 2 s"])
    measures = ["RR", "RR(rel=2)", "RR(rel=3)"]
    assert evaluate(qrels_path, run_path, measures).means.tolist() == pytest.approx(expected_rr(whole))
    assert evaluate(qrels, run, measures).means.tolist() == pytest.approx(expected_rr(whole))  # text grades
    grade = read_qrels(qrels_path)["grade"].to_numpy()[1]
    assert np.trunc(grade) == whole and grade == pytest.approx(float(text), abs=1e-15)


def test_whole_grades_stay_whole_numbers_and_kept_fractions_stay_below_the_next_one(tmp_path):
    assert read_qrels(write(tmp_path / "q", ["q 0 a 007", "q 0 b -0", "q 0 c +3"]))["grade"].tolist() == [7, 0, 3]
    qrels, run = graded_case("0.99999999999999999999")
    kept = evaluate(qrels, run, "RR", fractional_grades="keep").means["RR"]
    assert kept == 0.0  # the grade is just below 1, not rounded up to 1
    big = read_qrels(write(tmp_path / "big", ["q 0 a 12345678901234567"]))["grade"].tolist()
    assert big == [12345678901234567]  # exact, not the nearest float


@pytest.mark.parametrize(("grade", "message"), [
    ("1e3", "has an exponent"), ("0x1A", "is not a number"), ("high", "is not a number"),
    ("nan", "is not a finite number"), ("99999999999999999999", "too large"),
])
def test_bad_text_grades_name_the_frame_column_and_row(grade, message):
    qrels = pd.DataFrame({"qid": ["q", "q"], "docno": ["a", "b"], "grade": ["1", grade]}, index=[10, 11])
    run = pd.DataFrame({"qid": ["q"], "docno": ["a"], "score": [1.0]})
    with pytest.raises(ValueError, match=f"qrels: grade, row 11: .*{message}"):
        evaluate(qrels, run, "RR")


def test_a_grade_too_large_for_trec_eval_names_its_line(tmp_path):
    path = write(tmp_path / "q", ["q 0 a 1", "q 0 b 99999999999999999999"])
    with pytest.raises(ValueError, match=f"{path}, line 2: the grade '99999999999999999999' is too large"):
        read_qrels(path)


@pytest.mark.parametrize("line", ["q1  b 1 2.0 s", "q1 Q0 b  2.0 s", "q1 Q0 b 1 2.0 ", " q1 b 1 2.0 s"])
def test_an_empty_field_is_a_missing_field_also_when_evaluating(tmp_path, line):
    # evaluate reads the run's iter, rank and tag as dictionaries: an empty one must still be refused
    qrels, run = write(tmp_path / "q", ["q1 0 a 1"]), write(tmp_path / "r", ["q1 Q0 a 1 3 s", line])
    with pytest.raises(ValueError, match=f"{run}, line 2: a run line has 6 fields .* found 5"):
        evaluate(qrels, run, "RR")


def test_without_malloc_trim_the_reader_uses_an_arrow_pool_and_reads_the_same(tmp_path, monkeypatch):
    path = write(tmp_path / "r", [f"q{i // 10} Q0 d{i} {i % 10 + 1} {1 - i / 100} s" for i in range(100)])
    expected = read_run(path)
    monkeypatch.setattr(trec_io, "_MALLOC_TRIM", None)  # macOS, musl, Windows
    pool = trec_io._reader_pool().backend_name  # jemalloc where pyarrow has it, else Arrow's default
    assert pool != "system" or pa.default_memory_pool().backend_name == "system"
    monkeypatch.setattr(trec_io, "_READ_BLOCK", 256)
    pd.testing.assert_frame_equal(read_run(path), expected)
