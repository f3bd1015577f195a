"""The tables of measures made from helpers.batch.registry: lesson 09's list, and the learner's guide's copy of
it, which fails here, row by row, when it and the registry disagree."""

from __future__ import annotations

import re
from pathlib import Path

from helpers.batch import parse_measure
from helpers.batch.registry import DECLARATIONS, PARAMETERS, measure_table

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "learners.md"
HEADER = "| write it | parameters | trec_eval | also | what it is |"
COLUMNS = ("write it", "parameters", "trec_eval", "also", "what it is")
NAME = re.compile(r"^[\w@.=]+$")  # a name or a parameter, written as code in the guide


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
    assert table.loc["RBP", "trec_eval"] == "not rbp: trec_eval's differs"
    assert (table.loc["Rprec", "write it"], table.loc["Hit", "write it"]) == ("Rprec", "Hit@k")


def test_every_way_the_table_writes_a_measure_is_read_as_that_measure():
    for name, row in measure_table().iterrows():
        for written in row["write it"].replace("@k", "@5").split(", "):
            assert parse_measure(written).name == name, written
        cutoff = "@5" if DECLARATIONS[name].cutoff == "required" else ""
        for alias in [] if row["also"] == "—" else row["also"].split(", "):
            assert parse_measure(alias + cutoff).name == name, alias
        for trec_name in [] if not NAME.match(row["trec_eval"].split(", ")[0]) else row["trec_eval"].split(", "):
            assert parse_measure(trec_name.replace("_k", "_5")).name == name, trec_name


def test_the_guide_s_table_of_measures_is_the_registry_s():
    expected, written = expected_rows(), guide_rows()
    missing = {name: row for name, row in expected.items() if row not in written}
    extra = [row for row in written if row not in expected.values()]
    assert not missing and not extra, (
        "docs/learners.md's table of measures disagrees with helpers/batch/registry.py:"
        + "".join(f"\n  missing or different, {name}: {row}" for name, row in missing.items())
        + "".join(f"\n  not in the registry (or out of date): {row}" for row in extra)
    )
    assert written == list(expected.values()), "the guide's rows are in another order than the registry's"
