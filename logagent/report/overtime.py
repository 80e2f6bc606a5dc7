"""The report's "over time" view: sparklines and where each top key's events rise (PURE)."""

from __future__ import annotations

from logagent.questions import LEVEL_METRIC
from logagent.report.document import Section
from logagent.result import QuestionKind, Result, Timeline

BLOCKS = "▁▂▃▄▅▆▇█"
RISE_SHARE = 0.9  # "from HH:MM on, N % of its events": the latest start holding this share
RISE_SPAN = 0.5  # ... said only if that start leaves at most this part of the range
HELD_SPAN = 0.2  # "N % of them in K of M buckets": the fewest holding half are this few


def sparkline(values: list[int]) -> str:
    """One character per bucket, the height of its count (the key's own maximum is █)."""
    peak = max(values, default=0)
    if peak <= 0:
        return BLOCKS[0] * len(values)
    return "".join(" " if v == 0 else BLOCKS[min(7, (v * 8 - 1) // peak)] for v in values)


def rise(timeline: Timeline, key: str | None) -> tuple[str, float] | None:
    """The latest bucket start from which ``key`` (None: all events) has ``RISE_SHARE`` of its
    events (and that share), if that leaves at most ``RISE_SPAN`` of the range: else the events
    are spread."""
    counts = [b.total if key is None else b.counts.get(key, 0) for b in timeline.buckets]
    total = sum(counts)
    if total == 0:
        return None
    tail = 0
    for i in range(len(counts) - 1, -1, -1):
        tail += counts[i]
        if tail >= RISE_SHARE * total:
            late = (len(counts) - i) / len(counts) <= RISE_SPAN
            return (timeline.buckets[i].start, tail / total) if late else None
    return None


def events_label(result: Result) -> str:
    """What the timeline's total counts: the question's events ("all"), or for a status or
    level distribution, which counts every record, the errors the timeline follows."""
    if result.question.kind is not QuestionKind.STATUS:
        return "all"
    return "WARN+ records" if result.answer.metric == LEVEL_METRIC else "5xx"


def over_time(result: Result) -> Section | None:
    """A sparkline per top key over the timeline, and where its events start rising."""
    timeline = result.answer.timeline
    if timeline is None or not timeline.buckets:
        return None
    first, last = timeline.buckets[0].start, timeline.buckets[-1].start
    width = _width(timeline.bucket_s)
    seen = "" if timeline.basis == "exact" else " (counts in the units read, not estimates)"
    lines = [f"Buckets of {width} from {_stamp(first)} to {_stamp(last)} UTC{seen}."]
    if timeline.interval:
        lines.append(f"Each bucket's full-input total has an interval: {timeline.interval}.")
    totals = [b.total for b in timeline.buckets]
    label = events_label(result)
    peak = f"(peak {max(totals):,} in one bucket)"
    bullets = [f"{label}: `{sparkline(totals)}` {peak}{_where(timeline)}"]
    for key in timeline.buckets[0].counts:
        values = [b.counts.get(key, 0) for b in timeline.buckets]
        bullets.append(f"`{key}`: `{sparkline(values)}`{_where(timeline, key)}")
    return Section("Over time", lines, bullets)


def _where(timeline: Timeline, key: str | None = None) -> str:
    return shape(timeline, key, "its events" if key else "the events")


def shape(timeline: Timeline, key: str | None, whose: str) -> str:
    """Where ``key``'s events (None: all) lie: rising from a bucket on (``rise``), held in a
    few buckets (``busiest``), or spread. A probe found "spread over the whole range" said of
    68 of 98 5xx in 3 of 68 buckets, and of all of them in one bucket of 77."""
    found = rise(timeline, key)
    if found:
        return f"; from {_stamp(found[0])} on, {found[1]:.0%} of {whose}"
    held = busiest(timeline, key)
    if held is None and len(timeline.buckets) == 1:
        return "; in one bucket"
    if held is None:
        return "; spread over the whole range"
    n, share, start = held
    where = "in one bucket" if n == 1 else f"in {n} of {len(timeline.buckets)} buckets"
    return f"; {share:.0%} of {whose} {where} (the busiest from {_stamp(start)})"


def busiest(timeline: Timeline, key: str | None) -> tuple[int, float, str] | None:
    """The fewest buckets holding half of ``key``'s events, their share and the busiest's
    start, when they are at most ``HELD_SPAN`` of the range (of 3 buckets or more); else None."""
    counts = [b.total if key is None else b.counts.get(key, 0) for b in timeline.buckets]
    total = sum(counts)
    if total == 0 or len(counts) < 3:
        return None
    order = sorted(range(len(counts)), key=lambda i: (-counts[i], i))
    held = n = 0
    while held * 2 < total:
        held += counts[order[n]]
        n += 1
    if n > HELD_SPAN * len(counts):
        return None
    return n, held / total, timeline.buckets[order[0]].start


def timeline_claim(result: Result, events: str) -> str:
    """The headline of ``-q timeline``: the events, over how many buckets, where they rise."""
    timeline = result.answer.timeline
    total = result.answer.total
    seen = "" if result.status.value == "exact" else " seen"
    if timeline is None or not timeline.buckets:
        return f"{total:,} {events}{seen}, with no time stamps to put them in buckets"
    peak = max(timeline.buckets, key=lambda b: b.total)
    when = shape(timeline, None, "them")
    return (
        f"{total:,} {events}{seen} in {len(timeline.buckets)} buckets of "
        f"{_width(timeline.bucket_s)}, at most {peak.total:,} (from {_stamp(peak.start)}){when}"
    )


def _stamp(iso: str) -> str:
    return iso.replace("T", " ").removesuffix(":00Z").removesuffix("Z")


def _width(seconds: int) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds % size == 0:
            return f"{seconds // size} {unit}"
    return f"{seconds} s"
