"""The report's over-time view: sparklines, where a key's events rise, the SVG line chart."""

from __future__ import annotations

from logagent.report.charts import errors_over_time
from logagent.report.overtime import over_time, rise, sparkline
from logagent.result import Timeline, TimelineBucket
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
