"""The number and name check of LLM prose against the result."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from logagent import analyze, load_settings
from logagent.report.check import allowed_numbers, matches, problems
from logagent.report.markdown import render
from logagent.report.prompt import facts
from logagent.result import Question, QuestionKind, Result, Status
from logagent.testing import fake_env, settled_result
from tests.conftest import random_log_lines

RESULT = settled_result()


@pytest.mark.parametrize(
    "prose",
    [
        "61 % of all 5xx",  # share 0.61 as a percent
        "between 58 and 64 %",  # the share interval
        "about 87,000 errors",  # 87,210 rounded to the digits shown
        "87,210 (85,100-89,400)",  # the estimate and its interval
        "10.4 GB",  # bytes_total in decimal units
        "218.4 MB",  # bytes_read
        "in 0.8 s",  # elapsed 0.84 rounded
        "with 99 % confidence",  # 1 - delta
        "mostly 503 and 504",  # statuses, keys of the breakdown
        "5xx errors",  # a status class, not a number
        "`/api/v1/pay/{id}` leads",  # a route of the result
    ],
)
def test_grounded_prose_passes(prose: str) -> None:
    """Numbers of the result, rounded or as percentages, and its routes pass."""
    assert problems(prose, RESULT) == []


@pytest.mark.parametrize(
    ("prose", "bad"),
    [
        ("71.5 % of all 5xx", "71.5"),
        ("about 90,000 errors", "90,000"),
        ("read 3 GB", "3"),
        ("in 1.5 s", "1.5"),
        ("with 95 % confidence", "95"),
    ],
)
def test_wrong_numbers_are_named(prose: str, bad: str) -> None:
    """A number that is no value of the result is reported by its text."""
    assert problems(prose, RESULT) == [f"the number {bad} is not in the result"]


@pytest.mark.parametrize("prose", ["`/api/v9/admin` fails", "then /login fails", "`/api/{x}`"])
def test_unknown_routes_are_named(prose: str) -> None:
    """A route that is not a key of the result is a problem, in backticks or bare."""
    found = problems(prose, RESULT)
    assert len(found) == 1 and found[0].startswith("route ")


def test_numbers_inside_code_spans_are_names_not_numbers() -> None:
    """Digits in a backticked route (v1) are not checked as numbers."""
    assert problems("`/api/v1/users/{id}` is second", RESULT) == []


@pytest.mark.parametrize(
    ("text", "value", "ok"),
    [
        ("100", 104.9, True),
        ("100", 106, False),  # two significant digits at least: not "anything from 50 to 150"
        ("87,000", 87_499, True),
        ("87,000", 87_501, False),
        ("2.10", 2.104, True),
        ("2.10", 2.106, False),
    ],
)
def test_rounding_tolerance(text: str, value: float, ok: bool) -> None:
    """A number matches a value rounded to the digits it shows, no looser."""
    assert matches(text, [value]) is ok


def test_every_number_of_the_prompt_is_accepted() -> None:
    """Whatever number the prompt gives the model passes the check when copied."""
    sent = json.dumps(facts(settled_result(warnings=["12 lines cut at 65536 bytes"])))
    allowed = allowed_numbers(settled_result(warnings=["12 lines cut at 65536 bytes"]))
    numbers = re.findall(r"(?<![\w.])\d+(?:\.\d+)?", sent)
    assert numbers and [n for n in numbers if not matches(n, allowed)] == []


@pytest.mark.parametrize(
    "result",
    [
        settled_result(),
        settled_result(status=Status.EXACT),
        settled_result(question=Question(kind=QuestionKind.STATUS, top=2)),
    ],
)
def test_the_template_report_passes_its_own_check(result: Result) -> None:
    """Every number and route the template writes is one the checker accepts."""
    assert problems(render(result), result) == []


def test_a_real_run_passes_its_own_check(write_log: Callable[..., Path]) -> None:
    """The template report of a real run over a small log passes the check."""
    path = write_log(random_log_lines(5, 3000))
    result = analyze([str(path)], Question(top=3), load_settings(), fake_env())
    assert result.answer.top and problems(render(result), result) == []


def test_numbers_in_backticks_are_still_numbers() -> None:
    """A number hidden in a code span is checked like any other."""
    assert problems("the share is `97 %`", RESULT) == ["the number 97 is not in the result"]


def test_digits_of_a_key_are_part_of_its_name() -> None:
    """A key with digits after a slash (/auth/3fa) is a name, its digits are not numbers."""
    entry = RESULT.answer.top[0].model_copy(update={"key": "/auth/3fa/{id}"})
    result = RESULT.model_copy(update={"answer": RESULT.answer.model_copy(update={"top": [entry]})})
    assert problems("`/auth/3fa/{id}` and /auth/3fa/{id} lead", result) == []


@pytest.mark.parametrize(
    ("prose", "bad"),
    [
        ("status 500 dominates: 95003 lines had it", "the number 95003 is not in the result"),
        ("3M requests failed", "the number 3M is not checkable"),
        ("about 1e6 errors", "the number 1e6 is not checkable"),
        ("some 40k errors", "the number 40k is not checkable"),
        ("forty thousand errors", "the number word 'forty' is not checkable"),
    ],
)
def test_numbers_and_routes_in_other_forms_are_checked(prose: str, bad: str) -> None:
    """Forms the check had let through while saying every number was checked: a key blanked
    inside a larger number (500 in 95003 left "9 3"), a scale glued to a number (only its
    leading digits were checked), numbers in words."""
    assert bad in problems(prose, RESULT)


@pytest.mark.parametrize(
    "prose",
    [
        "run `logagent detect FILE`, then name it with `--format common`",  # a recusal's advice
        "GET/POST/PUT requests, DEBUG/INFO/WARN/ERROR/FATAL levels",
        "buckets of 10m",
        "see configs/formats/.",
    ],
)
def test_advice_and_words_are_not_taken_for_names_or_scales(prose: str) -> None:
    """What the prompt's own facts hold (a recusal's suggestion), lists of words with slashes
    and minutes: a review of a stricter check found them refused (68 of 378 recusals' own
    prose), so code spans of non-route keys and routes without a slash are not checked."""
    assert problems(prose, RESULT) == []


PAY, USERS = "`/api/v1/pay/{id}`", "`/api/v1/users/{id}`"


@pytest.mark.parametrize(
    "prose",
    [
        f"{PAY} has 1,834 errors and {USERS} has 402.",
        f"Of the 5xx, 61 % are on {PAY} and 13.4 % on {USERS}.",
        f"{PAY} leads with 1,834 errors, mostly 503 (71 %) and 504 (27 %).",
        f"{PAY} is mostly 503; {USERS} mostly 502.",
        f"The top route {PAY} (1,834) is ahead of {USERS} (402).",  # one clause, both keys
        f"{USERS} trails with 402 of the 2 routes, at 99 % confidence.",  # whole-result numbers
        f"| 1 | {PAY} | 1,834 | 61 % |\n| 2 | {USERS} | 402 | 13.4 % |",
        # a clause that names no key binds nothing (a review found these refused)
        f"The two leading routes are {PAY} and {USERS}, with 1,834 and 402 errors.",
        f"{PAY} and {USERS} lead with 1,834 and 402 errors respectively.",
        f"{PAY} leads with 1,834 errors, ahead of the users route (402).",
    ],
)
def test_numbers_said_of_their_own_key_pass(prose: str) -> None:
    """A number beside the key it belongs to, or a number of the whole result, passes."""
    assert problems(prose, RESULT) == []


@pytest.mark.parametrize(
    ("prose", "bad", "said_of"),
    [
        (f"{PAY} has 402 errors.", "402", "/api/v1/pay/{id}"),
        (f"{PAY} has 1,834 errors and {USERS} has 1,834 too.", "1,834", "/api/v1/users/{id}"),
        (f"Of the 5xx, 13.4 % are on {PAY}.", "13.4", "/api/v1/pay/{id}"),
        (f"{PAY} is mostly 502.", "502", "/api/v1/pay/{id}"),
        (f"{PAY} is mostly 500 (90 %).", "90", "/api/v1/pay/{id}"),
        (f"| 1 | {PAY} | 402 | 61 % |", "402", "/api/v1/pay/{id}"),  # a table row: one clause
        (f"{USERS} holds 19,100 estimated (85,100-20,500).", "85,100", "/api/v1/users/{id}"),
    ],
)
def test_a_number_moved_to_another_key_is_named(prose: str, bad: str, said_of: str) -> None:
    """Each number of the result passed the check wherever it stood: a count, share, status
    or interval of one key said of another (a small model's swap) is now named."""
    owner = "/api/v1/users/{id}" if said_of == "/api/v1/pay/{id}" else "/api/v1/pay/{id}"
    assert problems(prose, RESULT) == [f"the number {bad} is said of {said_of} but is {owner}'s"]


def test_keys_behind_one_mask_and_keys_holding_clause_words() -> None:
    """The prompt masks client addresses (``<ip>``): each key it stands for may own the number,
    and a problem names keys masked (the retry quotes it to the model). A key holding a
    clause's word ("no live upstreams while") is not cut in two."""
    from logagent.testing import settled_result as made

    base = made()
    entry = base.answer.top[0]
    clients = [
        entry.model_copy(update={"key": "10.20.0.5", "count": 400}),
        entry.model_copy(update={"key": "185.165.248.20", "count": 120}),
    ]
    result = base.model_copy(update={"answer": base.answer.model_copy(update={"top": clients})})
    assert problems("The busiest client `<ip>` made 400 requests.", result) == []
    kinds = [
        entry.model_copy(update={"key": "no live upstreams while", "count": 4471}),
        entry.model_copy(update={"key": "upstream timed out", "count": 913}),
    ]
    result = base.model_copy(update={"answer": base.answer.model_copy(update={"top": kinds})})
    assert problems("`no live upstreams while` connecting holds 4,471 errors.", result) == []
    said = problems("`no live upstreams while` connecting holds 913 errors.", result)
    assert said == ["the number 913 is said of no live upstreams while but is upstream timed out's"]
