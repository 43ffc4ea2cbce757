"""Date questions with one method get the task's own question solved with other values."""

from __future__ import annotations

import datetime

import pytest

from agents.executors.local import LocalPythonExecutor
from agents.small_model.dates import date_examples, with_date_examples
from agents.small_model.examples import pick_examples


def solved(code: str):
    executor = LocalPythonExecutor()
    executor.send_tools({})
    result = executor(code)
    assert result.is_final_answer
    return result.output


def test_a_weekday_question_keeps_its_wording_and_date_style():
    first, second = date_examples("What day of the week was 14 July 1789?")
    assert first.task == "What day of the week was 9 July 2011?"
    assert second.task == "What day of the week was 3 March 1998?"
    assert solved(first.code) == datetime.date(2011, 7, 9).strftime("%A")
    iso, _ = date_examples("Which weekday is 2030-06-15?")
    assert iso.task == "Which weekday is 2011-07-09?"


def test_the_example_dates_are_never_the_tasks_own():
    examples = date_examples("What day of the week was 2011-07-09?")
    assert [example.task for example in examples] == [
        "What day of the week was 1998-03-03?",
        "What day of the week was 2005-11-21?",
    ]


def test_days_between_two_dates():
    first, _ = date_examples("How many days are between 2020-05-01 and 2020-06-15?")
    assert first.task == "How many days are between 2019-08-03 and 2019-11-21?"
    assert solved(first.code) == 110


def test_a_date_some_days_or_weeks_before_another():
    first, _ = date_examples("Which date was 3 weeks before 2024-03-10?")
    assert first.task == "Which date was 20 weeks before 2011-07-09?"
    assert solved(first.code) == str(datetime.date(2011, 7, 9) - datetime.timedelta(weeks=20))
    after, _ = date_examples("What is the date 20 days after 2024-02-25?")
    assert after.task == "What is the date 9 days after 2011-07-09?"


def test_leap_years():
    first, second = date_examples("Is 2023 a leap year? Answer yes or no.")
    assert first.task == "Is 1900 a leap year? Answer yes or no."
    assert (solved(first.code), solved(second.code)) == ("no", "yes")


@pytest.mark.parametrize(
    "task",
    [
        "How many days are in February 2023?",
        "What year is 25 years after 2003?",
        "What is 17 * 23?",
        "Which is later, 2020-01-01 or 2021-01-01? Answer with the date.",  # no method
    ],
)
def test_other_questions_get_no_date_example(task):
    assert date_examples(task) == []
    picked = pick_examples(task, 3)
    assert with_date_examples(task, picked) == picked


def test_only_the_question_line_of_a_message_counts():
    task = 'The user attached 1 file. - "log.txt": path: /tmp/u/log.txt.\nOn what weekday did 1 May 2020 fall?'
    first, _ = date_examples(task)
    assert first.task == "On what weekday did 9 July 2011 fall?"
