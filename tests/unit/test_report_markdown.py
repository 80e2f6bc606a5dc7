"""The template report rendered from a result alone."""

from __future__ import annotations

import pytest

from logagent.report.markdown import render
from logagent.result import Question, RecuseCode, Report, Status
from logagent.testing import recused_result, settled_result


def test_headline_says_the_answer_in_plain_words() -> None:
    """Confidence, the top route, its share with interval, the main status and the reading."""
    first = render(settled_result()).splitlines()[2]
    assert first == (
        "With 99 % confidence: `/api/v1/pay/{id}` has the most 5xx: 61 % (58\u201364 %) of all "
        "5xx, mostly 503 (71 %); about 87,210 (85,100\u201389,400) in the whole input. "
        "Read 2.1 % of 10.4 GB in 0.84 s."
    )


def test_sections_of_a_settled_answer() -> None:
    """Top routes, error types, time window, decisions and saving all appear."""
    md = render(settled_result())
    for title in (
        "## Top routes",
        "## Error types",
        "## Time window",
        "## How it decided",
        "## Reading and saving",
    ):
        assert title in md
    assert "`/api/v1/users/{id}`: 500 90 %, 502 10 %" in md
    assert "2 checks (1x CONTINUE, 1x STOP_SETTLED)" in md
    assert "Not read: 10.2 GB" in md


def test_ties_warnings_and_time_window() -> None:
    """Ties, warnings and an asked time window are rendered when the result has them."""
    result = settled_result(
        question=Question(top=2, epsilon=0.05, since="2026-11-28T00:00", until=None),
        warnings=["3 lines were cut"],
    )
    answer = result.answer.model_copy(update={"ties": [["/api/v1/pay/{id}", "/api/v1/users/{id}"]]})
    md = render(result.model_copy(update={"answer": answer}))
    assert "## Ties (within \u03b5 = 0.05)" in md
    assert "`/api/v1/pay/{id}` = `/api/v1/users/{id}`" in md
    assert "- 3 lines were cut" in md
    assert "From 2026-11-28T00:00 until the end." in md


def test_partial_answer_is_labelled() -> None:
    """A partial result says so in its first sentence."""
    assert "Partial answer" in render(settled_result(status=Status.PARTIAL)).splitlines()[2]


@pytest.mark.parametrize("code", list(RecuseCode))
def test_recusal_is_a_short_helpful_message(code: RecuseCode) -> None:
    """Every recusal says why, what was tried and what to do, and shows no answer table."""
    md = render(recused_result(code, detail="the detail"))
    assert "**Cannot answer**" in md and code.value in md
    assert "- Why: the detail" in md
    assert "- What was tried: read 0.1% of the input" in md
    assert "- What to do: name the format" in md
    assert "## Top routes" not in md


@pytest.mark.parametrize(
    ("report", "says"),
    [
        (Report(), "no LLM was used"),
        (
            Report(fallback_reason="llm_unavailable", fallback_detail="no LLM server answered"),
            "template: no LLM server answered",
        ),
        (
            Report(fallback_reason="llm_rejected", fallback_detail="the number 7 is not in it"),
            "failed the check against the result twice (the number 7 is not in it)",
        ),
    ],
)
def test_footer_says_where_the_prose_came_from(report: Report, says: str) -> None:
    """The last line names the template and why no LLM prose was used."""
    md = render(settled_result(report=report))
    assert says in md.splitlines()[-1]


@pytest.mark.parametrize(("status", "part"), [(Status.PARTIAL, True), (Status.SETTLED, False)])
def test_counts_of_the_part_read_are_said_so_only_for_a_partial_answer(
    status: Status, part: bool
) -> None:
    """Counts that are no estimates (estimate = count = low): a partial read's are "in the
    part read"; a full read settled through the memory summary's bound (high = count + E)
    had been told "in the part read ... the rest was not read" too."""
    result = settled_result(status=status)
    top = result.answer.top[0]
    counted = top.model_copy(
        update={"estimate": float(top.count), "low": float(top.count), "high": top.count + 3.0}
    )
    answer = result.answer.model_copy(update={"top": [counted, *result.answer.top[1:]]})
    headline = render(result.model_copy(update={"answer": answer})).split("\n\n")[1]
    assert ("in the part read" in headline) is part
