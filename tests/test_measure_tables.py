"""The tables of measures made from helpers.batch.registry: lesson 09's list, and the learner's guide's copy of
it, which fails here, row by row, when it and the registry disagree."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from helpers.batch import evaluate, parse_measure
from helpers.batch.registry import DECLARATIONS, PARAMETERS, measure_table

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "learners.md"
HEADER = "| write it | parameters | trec_eval | also | what it is |"
COLUMNS = ("write it", "parameters", "trec_eval", "also", "what it is")
NAME = re.compile(r"^[\w@.=(),-]+$")  # a name or a parameter, written as code in the guide


def as_markdown(text: str) -> str:
    """A cell of the table as the guide writes it: each name between backticks, other text as it is."""
    return ", ".join(f"`{item}`" if NAME.match(item) else item for item in text.split(", "))


def expected_rows() -> dict[str, str]:
    """The guide's row of each declared measure, made from measure_table()."""
    rows = measure_table()
    return {name: "| " + " | ".join(as_markdown(row[c]) if c != "what it is" else row[c] for c in COLUMNS) + " |"
            for name, row in rows.iterrows()}


def guide_rows() -> list[str]:
    """The rows of the guide's table of measures, under its header and separator."""
    lines = GUIDE.read_text(encoding="utf-8").splitlines()
    assert HEADER in lines, f"docs/learners.md has no table of measures headed {HEADER!r}"
    rows = []
    for line in lines[lines.index(HEADER) + 2:]:
        if not line.startswith("|"):
            break
        rows.append(line)
    return rows


def test_every_declared_measure_has_one_row_of_its_own():
    table = measure_table()
    assert list(table.index) == list(DECLARATIONS)
    assert list(table.columns) == list(COLUMNS)
    assert table.loc["nDCG", "parameters"] == f"gain={PARAMETERS['gain'].default}, gains"
    assert table.loc["RBP", "parameters"] == "p=0.8, rel=1" and table.loc["AP", "trec_eval"] == "map, map_cut_k"
    assert (table.loc["Rprec", "write it"], table.loc["Hit", "write it"]) == ("Rprec", "Hit@k")


def test_every_way_the_table_writes_a_measure_is_read_as_that_measure():
    for name, row in measure_table().iterrows():
        for written in row["write it"].replace("@k", "@5").split(", "):
            example = re.sub(r"(\w+)=\.\.\.", lambda m: f"{m[1]}={PARAMETERS[m[1]].examples[-1]}", written)
            assert parse_measure(example).name == name, written
        cutoff = "@5" if DECLARATIONS[name].cutoff == "required" else ""
        for alias in [] if row["also"] == "—" else row["also"].split(", "):
            assert parse_measure(alias + cutoff).name == name, alias
        if "=..." in row["write it"]:
            continue  # trec_eval's name of a measure with a needed parameter takes it after a dot
        for trec_name in [] if row["trec_eval"] == "—" else row["trec_eval"].split(", "):
            assert parse_measure(trec_name.replace("_k", "_5")).name == name, trec_name


def test_the_guide_s_table_of_measures_is_the_registry_s():
    expected, written = expected_rows(), guide_rows()
    missing = {name: row for name, row in expected.items() if row not in written}
    extra = [row for row in written if row not in expected.values()]
    whole = "\n".join([HEADER, "|---|---|---|---|---|", *expected.values()])
    assert not missing and not extra, (
        "docs/learners.md's table of measures disagrees with helpers/batch/registry.py:"
        + "".join(f"\n  missing or different, {name}: {row}" for name, row in missing.items())
        + "".join(f"\n  not in the registry (or out of date): {row}" for row in extra)
        + f"\nThe registry's table, to paste into the guide:\n{whole}"
    )
    assert written == list(expected.values()), f"the guide's rows are in another order than the registry's:\n{whole}"


# --- lesson 06's family, made from the registry where its members are measures of evaluate ----------------


def test_the_family_takes_its_measures_and_their_kinds_from_the_registry():
    from helpers.batch.family import FAMILY, family_table

    ranked, judgments = ["a", "b", "c"], {"a": 2, "c": 1, "z": 3}
    table = family_table(ranked, judgments, k=2, query="q")
    assert list(table.index) == [member.label.format(k=2) for member in FAMILY]
    for member in FAMILY:
        label = member.label.format(k=2)
        if member.measure is None:
            assert table.loc[label, "in evaluate"] == "—" and member.value is not None
            continue
        declaration = DECLARATIONS[parse_measure(member.measure.format(k=2)).name]
        assert table.loc[label, "uses grades"] == ("yes" if declaration.kind == "graded" else "no"), label
    assert table.loc["nDCG@2 (exponential)", "in evaluate"] == "nDCG(gain=exp)@2"
    assert table.loc["DCG@2 (exponential)", "q"] == "3.000"  # (2^2 - 1) / log2(2) + 0 / log2(3)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_readers_gains_add_up_to_evaluate_s_rr_rbp_and_err(seed):
    from helpers.batch.family import user_models

    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(12)]
    judgments = {doc: int(rng.integers(-1, 5)) for doc in rng.choice(docs, size=8, replace=False)}
    if not any(grade >= 1 for grade in judgments.values()):
        judgments[docs[0]] = 1
    ranked = list(rng.permutation(docs)[:10])
    qrels = pd.DataFrame([("q", d, g) for d, g in judgments.items()], columns=["qid", "docno", "grade"])
    scores = [("q", doc, float(len(ranked) - rank)) for rank, doc in enumerate(ranked)]  # no ties
    run = pd.DataFrame(scores, columns=["qid", "docno", "score"])
    p = 0.7
    means = evaluate(qrels, run, ["RR", f"RBP(p={p})", "ERR"]).means
    readers = user_models(ranked, judgments, p=p)
    assert readers["RR gain"].sum() == pytest.approx(means["RR"], abs=1e-12)
    assert readers["RBP gain"].sum() == pytest.approx(means[f"RBP(p={p})"], abs=1e-12)
    assert readers["ERR gain"].sum() == pytest.approx(means["ERR"], abs=1e-12)
    assert readers["RBP weight"].sum() + p ** len(ranked) == pytest.approx(1.0, abs=1e-12)


def test_the_family_module_s_examples_hold():
    import doctest

    from helpers.batch import family

    result = doctest.testmod(family)
    assert result.failed == 0 and result.attempted > 0
