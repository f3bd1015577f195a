"""The loaders read every example and report malformed rows with their file and line number."""

import shutil

import pytest

from helpers.data import DATA_DIR, DataFileError, load_example, rank_by_score


@pytest.mark.parametrize("name", ["A", "B", "C", "D", "E"])
def test_every_example_loads_with_texts(name):
    example = load_example(name)
    assert example.query_ids and example.systems
    for query in example.query_ids:
        assert example.query_text(query)
        for system in example.systems:
            for doc in example.ranking(system, query):
                assert example.title(doc)


def test_names_are_forgiving_and_unknown_names_are_listed():
    assert load_example("example_c").query_ids == load_example("c").query_ids
    with pytest.raises(ValueError, match="unknown example 'Z': choose one of A, B, C, D, E"):
        load_example("Z")
    with pytest.raises(TypeError):
        load_example(3)


def test_unknown_query_and_system_are_named():
    example = load_example("A")
    with pytest.raises(KeyError, match="no query 'q9'"):
        example.judgments_for("q9")
    with pytest.raises(KeyError, match="no system 'MID'"):
        example.ranking("MID", "q1")


@pytest.fixture
def copy_of_c(tmp_path):
    folder = tmp_path / "example_c"
    shutil.copytree(DATA_DIR / "example_c", folder)
    return folder


def replace_line(path, number, text):
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[number - 1] = text
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize(
    "file, line, text, phrase",
    [
        ("judgments.csv", 3, "reset-password,kb02,-1", "judgments.csv, line 3: grade -1 is negative"),
        ("judgments.csv", 4, "reset-password,kb07,three", "judgments.csv, line 4: grade must be a number"),
        ("judgments.csv", 5, "reset-password,kb03,nan", "line 5: grade must be a finite number"),
        ("judgments.csv", 2, "reset-password,kb01", "judgments.csv, line 2: expected 3 fields"),
        (
            "judgments.csv",
            3,
            "reset-password,kb01,1",
            "judgments.csv, line 3: repeated query_id=reset-password",
        ),
        ("judgments.csv", 6, "reset-password,kb99,1", "judgments.csv, line 6: unknown document 'kb99'"),
        ("judgments.csv", 1, "query,doc,grade", "judgments.csv, line 1: the header must be"),
        ("runs.csv", 3, "search,reset-password,2,kb01,0.8", "runs.csv, line 3: repeated system=search"),
        ("runs.csv", 4, "search,reset-password,0,kb07,0.7", "runs.csv, line 4: rank must be a whole number"),
        ("runs.csv", 4, "search,reset-password,3,kb07,high", "runs.csv, line 4: score must be a number"),
        ("runs.csv", 4, "search,reset-passwd,3,kb07,0.7", "runs.csv, line 4: unknown query 'reset-passwd'"),
        ("runs.csv", 4, "search,reset-password,9,kb07,0.7", "must be 1..6 without gaps"),
        ("queries.csv", 3, "reset-password,Again?", "queries.csv, line 3: repeated query_id=reset-password"),
    ],
)
def test_malformed_rows_are_reported_with_file_and_line(copy_of_c, file, line, text, phrase):
    replace_line(copy_of_c / file, line, text)
    with pytest.raises(DataFileError) as raised:
        load_example("C", folder=copy_of_c)
    assert phrase in str(raised.value)
    assert str(copy_of_c / file) in str(raised.value) or file in str(raised.value)


def test_empty_and_missing_files_are_reported(copy_of_c):
    (copy_of_c / "runs.csv").write_text("", encoding="utf-8")
    with pytest.raises(DataFileError, match="runs.csv: the file is empty"):
        load_example("C", folder=copy_of_c)
    (copy_of_c / "runs.csv").unlink()
    with pytest.raises(DataFileError, match="runs.csv: file not found"):
        load_example("C", folder=copy_of_c)


def test_an_edited_golden_set_changes_the_numbers(copy_of_c):
    replace_line(copy_of_c / "judgments.csv", 3, "reset-password,kb02,3")
    example = load_example("C", folder=copy_of_c)
    assert example.judgments_for("reset-password")["kb02"] == 3.0


def test_rank_by_score_breaks_ties_both_ways():
    runs = load_example("D").runs
    ascending = rank_by_score(runs, "id_ascending")
    descending = rank_by_score(runs, "id_descending")
    pick = lambda table: table[table["query_id"] == "d2"].sort_values("rank")["doc_id"].tolist()[1:3]  # noqa: E731
    assert pick(ascending) == ["c-0212", "c-0215"]
    assert pick(descending) == ["c-0215", "c-0212"]
    with pytest.raises(ValueError, match="unknown tie_break"):
        rank_by_score(runs, "random")
