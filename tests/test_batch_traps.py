"""Issue 38's traps: files that used to give a number without a word now give an error or a warning.

Each test writes the file that used to pass silently and asserts what happens now: a ``ValueError``
naming the file and line, or a warning (``DocnoMatchWarning``, an error with ``strict=True``;
``RunOrderWarning``; ``TrecFormatWarning`` when ``lenient=True`` cuts lines as trec_eval does).
"""

from __future__ import annotations

import warnings

import pytest

from helpers.batch import (
    DocnoMatchWarning,
    RunOrderWarning,
    TrecFormatWarning,
    evaluate,
    rank_run,
    read_qrels,
    read_run,
    write_run,
)
from tests.test_evaluate import TREC_EVAL, qrels_of, run_of


def write(path, text: str):
    path.write_bytes(text.encode())
    return path


def quiet(*args, **options):
    """evaluate, with every warning of helpers.batch turned into an error."""
    with warnings.catch_warnings():
        for category in (DocnoMatchWarning, RunOrderWarning, TrecFormatWarning):
            warnings.simplefilter("error", category)
        return evaluate(*args, **options)


def test_trec_eval_s_own_files_raise_no_warning():
    assert quiet(TREC_EVAL / "qrels.test", TREC_EVAL / "results.test", ["AP", "Rprec"]).means["AP"] > 0.17
    assert quiet(TREC_EVAL / "qrels.rel_level", TREC_EVAL / "results.test", "bpref").means["bpref"] > 0


# --- two results on one line: a lost line break, CR-only line ends --------------------------


def test_two_run_lines_joined_by_a_lost_line_break_are_refused_naming_the_line(tmp_path):
    qrels = write(tmp_path / "qrels", "q1 0 a 1\nq1 0 c 1\n")
    run = write(tmp_path / "run", "q1 Q0 b 1 3.0 sys\nq1 Q0 a 2 2.0 sys q1 Q0 c 3 1.0 sys\n")
    message = rf"{run}, line 2: a run line has 6 fields .* found 12: .*2 lines' worth \(lines joined by a lost"
    with pytest.raises(ValueError, match=message):
        read_run(run)
    with pytest.raises(ValueError, match=message):
        evaluate(qrels, run, "AP")
    with pytest.warns(TrecFormatWarning, match=r"1 line\(s\) had fields after the run tag, first on line 2"):
        lenient = evaluate(qrels, run, "AP", lenient=True)
    assert lenient.means["AP"] == pytest.approx(0.5 / 2)  # trec_eval's number: c was dropped


def test_a_run_file_with_cr_only_line_ends_is_refused(tmp_path):
    qrels = write(tmp_path / "qrels", "q1 0 a 1\nq1 0 c 1\n")
    run = write(tmp_path / "run", "q1 Q0 a 1 3.0 sys\rq1 Q0 b 2 2.0 sys\rq1 Q0 c 3 1.0 sys\r")
    with pytest.raises(ValueError, match=rf"{run}, line 1: a run line has 6 fields .* found 18.*CR-only line ends"):
        evaluate(qrels, run, "AP")
    with pytest.warns(TrecFormatWarning, match="carriage returns"):
        lenient = read_run(run, lenient=True)
    assert lenient["docno"].tolist() == ["a"]  # what trec_eval reads: one line, its first result


def test_a_qrels_file_with_cr_only_line_ends_is_refused(tmp_path):
    qrels = write(tmp_path / "qrels", "q1 0 a 1\rq1 0 c 1\r")
    with pytest.raises(ValueError, match=rf"{qrels}, line 1: a qrels line has 4 fields .* found 8.*CR-only"):
        read_qrels(qrels)


def test_crlf_line_ends_are_still_fine(tmp_path):
    qrels = write(tmp_path / "qrels", "q1 0 a 1\r\nq1 0 c 1\r\n")
    run = write(tmp_path / "run", "q1 Q0 a 1 3.0 sys\r\nq1 Q0 c 2 2.0 sys\r\n")
    assert quiet(qrels, run, "AP").means["AP"] == 1.0


# --- ids written differently -------------------------------------------------------------------


def test_query_ids_that_match_only_without_leading_zeros_warn_and_strict_refuses(tmp_path):
    qrels = write(tmp_path / "qrels", "1 0 a 1\n2 0 b 1\n")
    run = write(tmp_path / "run", "01 Q0 a 1 1.0 s\n2 Q0 b 1 1.0 s\n")
    with pytest.warns(DocnoMatchWarning, match=r"1 run query matches a qrels query only when case, spaces and "
                                               r"leading zeros are ignored \(e.g. run '01' and qrels '1'\)"):
        result = evaluate(qrels, run, "AP")
    assert result.missing_queries == ("1",) and result.means["AP"] == 0.5
    with pytest.raises(ValueError, match="run '01' and qrels '1'"):
        evaluate(qrels, run, "AP", strict=True)


def test_a_run_whose_every_query_id_differs_in_case_says_so(tmp_path):
    qrels = write(tmp_path / "qrels", "Q1 0 a 1\nQ2 0 b 1\n")
    run = write(tmp_path / "run", "q1 Q0 a 1 1.0 s\nq2 Q0 b 1 1.0 s\n")
    with pytest.raises(ValueError, match=r"share no query.*2 of them match only when case.*run 'q1' and qrels 'Q1'"):
        evaluate(qrels, run, "AP")


@pytest.mark.parametrize("differing", [1, 5])
def test_docnos_that_match_only_in_another_case_warn_even_for_a_few_queries(tmp_path, differing):
    qrels = write(tmp_path / "qrels", "".join(f"q{i} 0 DOC{i} 1\n" for i in range(10)))
    run = write(tmp_path / "run", "".join(f"q{i} Q0 {'doc' if i < differing else 'DOC'}{i} 1 1.0 s\n"
                                          for i in range(10)))
    with pytest.warns(DocnoMatchWarning, match=rf"in {differing} of the queries that return no judged document, "
                                               rf"docnos match the qrels only when .*run docno 'doc0' and qrels "
                                               rf"docno 'DOC0'"):
        result = evaluate(qrels, run, "AP")
    assert result.means["AP"] == pytest.approx(1 - differing / 10)
    with pytest.raises(ValueError, match="docno 'doc0'"):
        evaluate(qrels, run, "AP", strict=True)


def test_docnos_with_leading_zeros_in_a_frame_warn_too():
    qrels = qrels_of([("q", "7", 1), ("q", "8", 0)])
    run = run_of([("q", "007", 1.0)])
    with pytest.warns(DocnoMatchWarning) as caught:
        evaluate(qrels, run, "AP")
    assert any("run docno '007' and qrels docno '7'" in str(warning.message) for warning in caught)


def test_under_half_of_the_queries_with_a_judgment_warns(tmp_path):
    # 1 query in 4 finds a judged document: the old threshold (10 %) let it pass without a word
    qrels = write(tmp_path / "qrels", "".join(f"q{i} 0 d{i} 1\n" for i in range(4)))
    run = write(tmp_path / "run", "q0 Q0 d0 1 1.0 s\n" + "".join(f"q{i} Q0 x{i} 1 1.0 s\n" for i in range(1, 4)))
    with pytest.warns(DocnoMatchWarning, match=r"only 1 of 4 queries return a judged document \(under 50%"):
        evaluate(qrels, run, "AP")
    with pytest.raises(ValueError, match="only 1 of 4 queries"):
        evaluate(qrels, run, "AP", strict=True)
    half = write(tmp_path / "half", "q0 Q0 d0 1 1.0 s\nq1 Q0 d1 1 1.0 s\nq2 Q0 x 1 1.0 s\nq3 Q0 x 1 1.0 s\n")
    assert quiet(qrels, half, "AP").means["AP"] == 0.5  # half is not under half


# --- a directory, write_run's ties ----------------------------------------------------------


def test_a_directory_is_refused_as_a_directory(tmp_path):
    for call in (lambda: read_run(tmp_path), lambda: read_qrels(tmp_path),
                 lambda: evaluate(tmp_path, TREC_EVAL / "results.test", "AP")):
        with pytest.raises(IsADirectoryError, match=f"{tmp_path} is a directory, not a (run|qrels) file"):
            call()


def test_write_run_ranks_ties_as_evaluate_does(tmp_path):
    # the old write_run numbered tied documents in the frame's order: a, b, c got ranks 1, 2, 3, while
    # evaluate ranks them c, b, a (docno descending, trec_eval's rule)
    run = run_of([("q", "a", 1.0), ("q", "b", 1.0), ("q", "c", 1.0), ("q", "z", 2.0), ("p", "x", 0.5)])
    written = read_run(write_run(run, tmp_path / "run.txt"))
    assert written[["qid", "docno", "rank"]].values.tolist() == rank_run(run)[["qid", "docno", "rank"]].values.tolist()
    assert written["docno"].tolist() == ["z", "c", "b", "a", "x"]
    assert written["rank"].tolist() == [1, 2, 3, 4, 1]


def test_write_run_refuses_scores_it_cannot_write(tmp_path):
    with pytest.raises(ValueError, match="score must be a finite number"):
        write_run(run_of([("q", "a", float("nan"))]), tmp_path / "run.txt")
    with pytest.raises(TypeError, match="'score' must hold numbers"):
        write_run(run_of([("q", "a", "high")]), tmp_path / "run.txt")


# --- scores that cannot rank ----------------------------------------------------------------


def test_rank_and_score_swapped_warns(tmp_path):
    qrels = write(tmp_path / "qrels", "q1 0 a 1\n")
    run = write(tmp_path / "run", "q1 Q0 a 9.5 1 s\nq1 Q0 b 8.2 2 s\nq1 Q0 c 7.1 3 s\n")
    with pytest.warns(RunOrderWarning, match=r"in 1 query the scores rise with the rank \(e.g. query 'q1': "
                                             r"rank 1 score 1, rank 2 score 2\).*rank and score swapped"):
        result = evaluate(qrels, run, "RR")
    assert result.means["RR"] == pytest.approx(1 / 3)  # trec_eval's number: ranked by score, a is last


def test_a_distance_as_score_warns_with_the_rank_column(tmp_path):
    qrels = write(tmp_path / "qrels", "q1 0 a 1\nq2 0 x 1\n")
    run = write(tmp_path / "run", "q1 Q0 a 1 0.1 s\nq1 Q0 b 2 0.4 s\nq2 Q0 x 1 0.9 s\nq2 Q0 y 2 0.2 s\n")
    with pytest.warns(RunOrderWarning, match=r"in 1 query the scores rise.*query 'q1': rank 1 score 0.1, "
                                             r"rank 2 score 0.4.*distance"):
        evaluate(qrels, run, "RR")
    shuffled = write(tmp_path / "shuffled", "q1 Q0 b 2 0.1 s\nq1 Q0 a 1 0.4 s\n")  # lines out of rank order
    assert quiet(qrels, shuffled, "RR").means["RR"] == 0.5  # the rank column agrees with the scores


def test_every_score_of_a_query_tied_warns(tmp_path):
    qrels = write(tmp_path / "qrels", "q1 0 a 1\nq2 0 x 1\n")
    run = write(tmp_path / "run", "q1 Q0 a 1 1.0 s\nq1 Q0 b 2 1.0 s\nq1 Q0 c 3 1.0 s\nq2 Q0 x 1 0.5 s\n")
    with pytest.warns(RunOrderWarning, match=r"1 query has one score for every returned document \(e.g. query "
                                             r"'q1': 3 documents, all 1\).*docno, descending"):
        result = evaluate(qrels, run, "RR")
    assert result.per_query.loc["q1", "RR"] == pytest.approx(1 / 3)  # c, b, a: trec_eval's tie rule
    assert quiet(qrels, write(tmp_path / "one", "q1 Q0 a 1 1.0 s\n"), "RR").means["RR"] == 0.5  # one document


def test_a_rank_column_that_says_nothing_leaves_the_lines_order(tmp_path):
    # some runs write the same rank on every line: the order of the lines is then the run's order
    qrels = write(tmp_path / "qrels", "q1 0 a 1\n")
    run = write(tmp_path / "run", "q1 Q0 a 0 0.1 s\nq1 Q0 b 0 0.4 s\nq1 Q0 c 0 0.7 s\n")
    with pytest.warns(RunOrderWarning, match="scores rise with the rank .*rank 1 score 0.1, rank 2 score 0.4"):
        evaluate(qrels, run, "RR")
