"""Every rejected input gets a ValueError or TypeError whose message names the problem."""

import math

import pytest

from helpers import metrics
from helpers.metrics import UndefinedMetricError

RANKED = ["D1", "D2", "D3"]

CASES = [
    # (call, error type, phrase of the message)
    (lambda: metrics.first_relevant_rank(RANKED, {"D1"}, k=0), ValueError, "k must be at least 1"),
    (lambda: metrics.first_relevant_rank(RANKED, {"D1"}, k=-3), ValueError, "k must be at least 1"),
    (lambda: metrics.first_relevant_rank(RANKED, {"D1"}, k=2.0), TypeError, "whole number"),
    (lambda: metrics.first_relevant_rank(RANKED, {"D1"}, k="5"), TypeError, "whole number"),
    (lambda: metrics.first_relevant_rank(RANKED, {"D1"}, k=True), TypeError, "whole number"),
    (lambda: metrics.first_relevant_rank(["D1", "D2", "D1"], {"D1"}), ValueError, "duplicate id 'D1'"),
    (lambda: metrics.first_relevant_rank("D1 D2", {"D1"}), TypeError, "not a single string"),
    (lambda: metrics.first_relevant_rank({"D1", "D2"}, {"D1"}), TypeError, "ordered sequence"),
    (lambda: metrics.first_relevant_rank(RANKED, "D1"), TypeError, "not a string"),
    (lambda: metrics.first_relevant_rank(RANKED, {"D1": 1}), TypeError, "relevant_ids(judgments"),
    (lambda: metrics.first_relevant_rank(RANKED, 5), TypeError, "set of document ids"),
    (lambda: metrics.reciprocal_rank(RANKED, "D2"), TypeError, "not a string"),
    (lambda: metrics.hit_at_k(RANKED, {"D1"}, None), TypeError, "k is required"),
    (lambda: metrics.precision_at_k(RANKED, {"D1"}, 0), ValueError, "k must be at least 1"),
    (lambda: metrics.recall_at_k(RANKED, {"D1"}, 2, denominator="k"), ValueError, "unknown denominator 'k'"),
    (lambda: metrics.recall_at_k(RANKED, set(), 2), UndefinedMetricError, "no relevant document"),
    (lambda: metrics.average_precision(RANKED, set()), UndefinedMetricError, "no relevant document"),
    (lambda: metrics.average_precision(RANKED, {"D1"}, denominator="min"), ValueError, "unknown denominator"),
    (lambda: metrics.mean_reciprocal_rank([1, -1]), ValueError, "cannot be negative"),
    (lambda: metrics.mean_reciprocal_rank([1, 2.5]), TypeError, "whole number"),
    (lambda: metrics.mean_reciprocal_rank([]), ValueError, "is empty"),
    (lambda: metrics.mean_reciprocal_rank("120"), TypeError, "list of whole numbers"),
    (lambda: metrics.mean_reciprocal_rank([1, 2], k=0), ValueError, "k must be at least 1"),
    (lambda: metrics.mean_hit_rate([1, 2], k=None), TypeError, "k is required"),
    (lambda: metrics.reciprocal_rank_of(-2), ValueError, "cannot be negative"),
    (lambda: metrics.dcg([2, -1, 3]), ValueError, "rank 2 is -1; grades cannot be negative"),
    (lambda: metrics.dcg([2, math.nan]), ValueError, "must be finite"),
    (lambda: metrics.dcg([2, math.inf]), ValueError, "must be finite"),
    (lambda: metrics.dcg([2, "3"]), TypeError, "must be a number"),
    (lambda: metrics.dcg([2, None]), TypeError, "must be a number"),
    (lambda: metrics.dcg("203"), TypeError, "list of numbers"),
    (lambda: metrics.dcg([1, 2], gain="exp"), ValueError, "unknown gain 'exp'"),
    (lambda: metrics.dcg([1, 2], k=0), ValueError, "k must be at least 1"),
    (lambda: metrics.cumulative_gain([1, -2]), ValueError, "cannot be negative"),
    (lambda: metrics.ndcg([1, 2], ideal=[]), ValueError, "ideal is empty"),
    (lambda: metrics.ndcg([1, 2], ideal=[3, -1]), ValueError, "ideal: the value at rank 2"),
    (lambda: metrics.ndcg([0, 0, 0]), UndefinedMetricError, "undefined: no relevant document"),
    (lambda: metrics.ndcg([1, 2], gain="Linear"), ValueError, "choose one of 'linear', 'exponential'"),
    (lambda: metrics.query_ndcg(RANKED, {"D1": 1}, ideal="all"), ValueError, "unknown ideal 'all'"),
    (lambda: metrics.query_ndcg(RANKED, [("D1", 1)]), TypeError, "mapping of id -> grade"),
    (lambda: metrics.query_ndcg(RANKED, {"D1": -1}), ValueError, "cannot be negative"),
    (lambda: metrics.query_ndcg(RANKED, {"D9": 0}), UndefinedMetricError, "no relevant document"),
    (lambda: metrics.relevant_ids({"D1": 1}, threshold=0), ValueError, "threshold must be above 0"),
    (lambda: metrics.grades_in_rank_order(["D1", "D1"], {}), ValueError, "duplicate id"),
    (lambda: metrics.arithmetic_table([1, 2], ids=["D1"]), ValueError, "same length: 1 ids, 2 grades"),
    (lambda: metrics.arithmetic_table([1, 2], ids=["D1", "D1"]), ValueError, "duplicate id"),
    (lambda: metrics.discount(0), ValueError, "rank must be at least 1"),
    (lambda: metrics.gain_of(-1), ValueError, "cannot be negative"),
]


@pytest.mark.parametrize("call, error, phrase", CASES, ids=[case[2] for case in CASES])
def test_bad_input_is_rejected_with_a_clear_message(call, error, phrase):
    with pytest.raises(error) as raised:
        call()
    assert phrase in str(raised.value)


def test_undefined_metric_is_a_value_error():
    assert issubclass(UndefinedMetricError, ValueError)


def test_numpy_integers_are_accepted_as_whole_numbers():
    import numpy as np

    assert metrics.ndcg([1, 0, 2], k=np.int64(3)) == metrics.ndcg([1, 0, 2], k=3)
    assert metrics.mean_reciprocal_rank(np.array([1, 3, 0, 2])) == metrics.mean_reciprocal_rank([1, 3, 0, 2])
    assert metrics.discount(np.int32(1)) == 1.0


# --- helpers.batch.evaluate: every bad id names its frame, column and row (the index label) ---------

def _evaluate_with(frame_name: str, column: str, values) -> None:
    import pandas as pd

    from helpers.batch import evaluate

    index = [100 + i for i in range(len(values))]
    frames = {
        "qrels": pd.DataFrame({"qid": ["q"] * len(values), "docno": [f"d{i}" for i in range(len(values))],
                               "grade": [1] * len(values)}, index=index),
        "run": pd.DataFrame({"qid": ["q"] * len(values), "docno": [f"d{i}" for i in range(len(values))],
                             "score": [1.0] * len(values)}, index=index),
    }
    frames[frame_name][column] = pd.Series(values, index=index)
    evaluate(frames["qrels"], frames["run"], "RR")


BAD_IDS = [
    # (frame, column, values, error type, phrase of the message)
    ("run", "docno", [1, None], "Int64", ValueError, "run: docno, row 101: an id is missing"),
    ("qrels", "qid", [1, None], "UInt64", ValueError, "qrels: qid, row 101: an id is missing"),
    ("run", "qid", [1.0, None], "Float64", ValueError, "run: qid, row 101: an id is missing"),
    ("run", "docno", ["a", None], "str", ValueError, "run: docno, row 101: an id is missing"),
    ("qrels", "docno", ["a", None], "string", ValueError, "qrels: docno, row 101: an id is missing"),
    ("qrels", "docno", [1.0, 7.5], "float64", ValueError, "qrels: docno, row 101: 7.5 is not an id"),
    ("run", "docno", [1.0, 2.0**60], "float64", ValueError, "run: docno, row 101: .* too large"),
    ("run", "qid", [True, False], "bool", TypeError, "run: qid, row 100: True is not an id"),
    ("qrels", "docno", ["a", ("q", 1)], "object", TypeError, r"qrels: docno, row 101: \('q', 1\)"),
    ("run", "docno", ["a", 2.5], "object", TypeError, "run: docno, row 101: 2.5"),
]


@pytest.mark.parametrize(("frame", "column", "values", "dtype", "error", "phrase"), BAD_IDS,
                         ids=[f"{case[0]}-{case[3]}" for case in BAD_IDS])
def test_bad_ids_name_the_frame_column_and_row(frame, column, values, dtype, error, phrase):
    import pandas as pd

    if dtype == "str" and not pd.isna(pd.array(values, dtype=dtype)).any():
        pytest.skip("pandas < 3 has no str dtype of its own: dtype='str' writes None as the text 'None' (a real id)")
    with pytest.raises(error, match=phrase):
        _evaluate_with(frame, column, pd.array(values, dtype=dtype) if dtype != "bool" else values)
