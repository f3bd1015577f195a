"""The common mistakes, made on purpose: the wrong number beside the right one (lesson 07).

Each function here computes one slip of the checker's catalogue (:mod:`helpers.slips`), so
the number lesson 07 shows for a mistake is the number ``check`` recognises and names.
``explain(codes)`` lists their titles and fixes from that same catalogue.

>>> dcg_no_discount([2, 0, 3, 0, 0])
5.0
"""

from __future__ import annotations

import pandas as pd

from helpers.slips import slips_table
from helpers.slips.counting import average_precision_hits_denominator
from helpers.slips.graded import (
    dcg_log2_rank,
    dcg_log2_rank_first_undiscounted,
    dcg_no_discount,
    is_undefined,
    mean_dcg_instead_of_ndcg,
    ndcg_exponential_instead_of_linear,
    ndcg_retrieved_only_ideal,
    undefined_as_zero,
)
from helpers.slips.ranks import mrr_dropping_misses, mrr_keeping_unanswerable

__all__ = [
    "average_precision_hits_denominator",
    "dcg_log2_rank",
    "dcg_log2_rank_first_undiscounted",
    "dcg_no_discount",
    "explain",
    "is_undefined",
    "mean_dcg_instead_of_ndcg",
    "mrr_dropping_misses",
    "mrr_keeping_unanswerable",
    "ndcg_exponential_instead_of_linear",
    "ndcg_retrieved_only_ideal",
    "undefined_as_zero",
]


def explain(codes: list[str] | None = None) -> pd.DataFrame:
    """The title, fix and computing function of each slip named (all of lesson 07's by default) (lesson 07).

    >>> explain(["no-discount"]).loc[0, "fix"]
    'Divide each gain by log2(rank + 1) before adding.'
    """
    if codes is None:
        codes = [globals()[name].slip for name in __all__ if hasattr(globals()[name], "slip")]
    return slips_table(codes)
