"""The one reader of check("id", ...) calls (helpers.exercises.calls): code only, as Python parses it."""

from __future__ import annotations

import pytest

from helpers.exercises.calls import CheckCall, check_calls, ids_checked


def test_the_template_call_passes_the_answer():
    (call,) = check_calls('answer = None  # your answer\ncheck("ap-1", answer)')
    assert call == CheckCall("check", "ap-1", "answer", 2)
    assert call.passes_answer


def test_a_call_around_the_answer_is_read_whole():
    (call,) = check_calls('check("x-1", f(answer))')
    assert call.argument == "f(answer)"
    assert not call.passes_answer


def test_a_number_in_place_of_the_answer_is_kept_as_written():
    (call,) = check_calls("check('ndcg-3', 0.1250)")
    assert (call.exercise_id, call.argument) == ("ndcg-3", "0.1250")


def test_keyword_arguments_count():
    calls = check_calls('check(exercise_id="mrr-2", answer=answer)\ncheck_function(fn=my_dcg, exercise_id="dcg-fn")')
    assert [(c.function, c.exercise_id, c.argument) for c in calls] == [
        ("check", "mrr-2", "answer"), ("check_function", "dcg-fn", "my_dcg")]
    assert calls[0].passes_answer


def test_strings_with_quotes_and_parentheses_do_not_confuse_it():
    (call,) = check_calls('''check("hr-1", answer_of("it's (not) here", ')'))''')
    assert call.argument == '''answer_of("it's (not) here", ')')'''


@pytest.mark.parametrize("source", [
    '# check("ap-1", answer)',
    'print("check(\'ap-1\', answer)")',
    '"""\ncheck("ap-1", answer)\n"""',
    'text = f"check(\\"ap-1\\", {answer})"',
    "check(exercise, answer)",  # no literal id: nothing to look up
    "recheck('ap-1', answer)",
])
def test_calls_in_comments_strings_or_without_a_literal_id_do_not_count(source):
    assert check_calls(source) == []


def test_every_call_in_reading_order_even_inside_others():
    source = 'print(check("b-1", answer)); check("c-1", answer)\nexercises.check("a-1", x)\ncheck_function("d-1", f)'
    assert ids_checked(source) == ["b-1", "c-1", "a-1", "d-1"]


def test_a_magic_line_does_not_hide_the_checks():
    source = '%matplotlib inline\n!pip list\nanswer = 3 / 8\ncheck("ap-1", answer)'
    assert [(c.exercise_id, c.line) for c in check_calls(source)] == [("ap-1", 4)]


def test_a_line_python_cannot_parse_does_not_hide_the_others():
    source = 'answer = (1 +\ncheck("ap-1", answer)\ncheck("ap-2", 0.5)'
    assert [(c.exercise_id, c.argument, c.line) for c in check_calls(source)] == [
        ("ap-1", "answer", 2), ("ap-2", "0.5", 3)]


def test_an_empty_cell_checks_nothing():
    assert check_calls("") == []
    assert ids_checked("\n\n") == []
