"""The report's over-time view: sparklines, where a key's events rise, the SVG line chart."""

from __future__ import annotations

from logagent.report.charts import errors_over_time
from logagent.report.markdown import render
from logagent.report.overtime import over_time, rise, sparkline, timeline_claim
from logagent.result import QuestionKind, Status, Timeline, TimelineBucket
from logagent.testing import settled_result


def _timeline(counts: list[int]) -> Timeline:
    buckets = [
        TimelineBucket(start=f"2026-11-28T{h:02d}:00:00Z", total=n + 1, counts={"/pay": n})
        for h, n in enumerate(counts)
    ]
    return Timeline(bucket_s=3600, basis="exact", buckets=buckets)


def test_sparkline_heights_follow_the_counts() -> None:
    """Zero is blank, the maximum is the full block, others in between."""
    assert sparkline([0, 1, 8]) == " ▁█"
    assert sparkline([0, 0]) == "▁▁"


def test_a_late_rise_is_named_and_a_steady_key_is_not() -> None:
    """Events in the last quarter: "from 18:00 on, 100 %"; events all day: spread."""
    late = _timeline([0] * 18 + [5, 9, 7, 3, 4, 6])
    assert rise(late, "/pay") == ("2026-11-28T18:00:00Z", 1.0)
    assert rise(_timeline([3] * 24), "/pay") is None


def test_the_section_and_the_chart_draw_the_timeline() -> None:
    """The Markdown section names the rise; the SVG has one line for all and one per key."""
    result = settled_result()
    late = _timeline([0] * 18 + [5, 9, 7, 3, 4, 6])
    result = result.model_copy(
        update={"answer": result.answer.model_copy(update={"timeline": late})}
    )
    section = over_time(result)
    assert section is not None and any(
        "from 2026-11-28 18:00 on, 100%" in b for b in section.bullets
    )
    svg = errors_over_time(result)
    assert svg is not None and svg.count("<polyline") == 2 and "/pay" in svg


def test_the_total_s_rise_is_named_too() -> None:
    """``rise(timeline, None)`` looks at every bucket's total: a late total is named."""
    late = _timeline([0] * 18 + [5, 9, 7, 3, 4, 6])
    assert rise(late, None) is None  # one event per bucket all day: the total is spread
    buckets = [b.model_copy(update={"total": b.counts["/pay"]}) for b in late.buckets]
    only_late = late.model_copy(update={"buckets": buckets})
    assert rise(only_late, None) == ("2026-11-28T18:00:00Z", 1.0)


def test_the_timeline_question_headline_counts_buckets_and_names_the_rise() -> None:
    """-q timeline's headline: events, bucket count and width, the peak, where they rise."""
    late = _timeline([0] * 18 + [5, 9, 7, 3, 4, 6])
    buckets = [b.model_copy(update={"total": b.counts["/pay"], "counts": {}}) for b in late.buckets]
    result = settled_result()
    answer = result.answer.model_copy(
        update={"timeline": late.model_copy(update={"buckets": buckets}), "total": 34, "top": []}
    )
    question = result.question.model_copy(update={"kind": QuestionKind.TIMELINE})
    result = result.model_copy(
        update={"answer": answer, "question": question, "status": Status.EXACT}
    )
    claim = timeline_claim(result, "5xx lines")
    assert claim == (
        "34 5xx lines in 24 buckets of 1 h, at most 9 (from 2026-11-28 19:00); "
        "from 2026-11-28 18:00 on, 100% of them"
    )
    markdown = render(result)
    assert "5xx errors over time" in markdown and claim in markdown
    assert "all: `" in markdown and "from 2026-11-28 18:00 on, 100% of the events" in markdown


def test_a_status_distribution_names_what_its_timeline_counts() -> None:
    """A status distribution counts every record, but its timeline follows the 5xx (on an
    application log, WARN and above): the line says so instead of "all" (issue 13's review)."""
    result = settled_result()
    late = _timeline([0] * 18 + [5, 9, 7, 3, 4, 6])
    answer = result.answer.model_copy(update={"timeline": late})
    status = result.model_copy(
        update={
            "answer": answer,
            "question": result.question.model_copy(update={"kind": QuestionKind.STATUS}),
        }
    )
    section = over_time(status)
    assert section is not None and section.bullets[0].startswith("5xx: `")
    svg = errors_over_time(status)
    assert svg is not None and ">5xx<" in svg
    top = over_time(result.model_copy(update={"answer": answer}))
    assert top is not None and top.bullets[0].startswith("all: `")


def test_events_held_in_a_few_buckets_are_no_spread() -> None:
    """A burst mid-range: half the events or more in few buckets (at most a fifth) is said,
    with the busiest bucket; a probe found "spread over the whole range" said of 68 of 98 5xx
    in 3 of 68 buckets, and of every 5xx in one bucket of 77. Steady events stay spread."""
    from logagent.report.overtime import busiest, shape

    burst = _timeline([1] * 10 + [40, 30] + [1] * 12)  # 70 of 92 in hours 10-11
    assert rise(burst, "/pay") is None
    assert busiest(burst, "/pay") == (2, 70 / 92, "2026-11-28T10:00:00Z")
    said = shape(burst, "/pay", "its events")
    assert said == "; 76% of its events in 2 of 24 buckets (the busiest from 2026-11-28 10:00)"
    one = _timeline([0] * 30 + [9] + [0] * 46)
    assert shape(one, "/pay", "them").startswith("; 100% of them in one bucket (the busiest")
    assert busiest(_timeline([3] * 24), "/pay") is None
    assert shape(_timeline([3] * 24), "/pay", "them") == "; spread over the whole range"
    assert busiest(_timeline([5, 0]), "/pay") is None  # two buckets: no shape to tell
