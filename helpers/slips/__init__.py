"""The checker's catalogue of slips: every classic mistake once, with its wrong computation and its fix.

``CATALOGUE`` maps a code ("log2-rank") to its :class:`Mistake` (title, fix, the functions computing
it). The wrong computations live beside their entries, by topic: :mod:`~helpers.slips.ranks`
(MRR, hit rate), :mod:`~helpers.slips.graded` (DCG, nDCG), :mod:`~helpers.slips.counting`
(precision, recall, AP) and :mod:`~helpers.slips.named` (slips of writing or reading an answer).
Lesson 07 shows them through :mod:`helpers.mistakes`; ``check`` names them by code.
"""

from helpers.slips import counting, graded, named, ranks
from helpers.slips._catalogue import CATALOGUE, Mistake, check_complete, declare, describe, slip, slips_table

check_complete()

__all__ = ["CATALOGUE", "Mistake", "counting", "declare", "describe", "graded", "named", "ranks", "slip", "slips_table"]
