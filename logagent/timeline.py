"""Errors over time: the bucket width, the bucketed format, and the timeline answer (PURE).

The engine wraps the run's format in ``formats.bucketed.Bucketed`` when the
format has timestamps, so each counted event carries its time bucket; the
tally keeps matching events per (bucket, key) (``Tally.timeline``, bounded
like the counts by the memory ladder: pruned keys fold into one REST row per
bucket, so every bucket's total stays exact). ``timeline_answer`` turns that
into ``answer.timeline``: every bucket from the first to the last, its total
and each top key's count.

``--bucket auto`` takes the width from the time range of the format-detection
sample (it spans each seekable file from its start to its end) or of the time
window: the smallest round width giving at most 100 buckets.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import polars as pl

from logagent.counters.tally import ROUTE, N, Tally
from logagent.formats.base import BUCKET, Format
from logagent.formats.bucketed import Bucketed, TimeOf, choose_bucket_s, parse_bucket
from logagent.result import Timeline, TimelineBucket


def bucket_width(
    setting: str, time: TimeOf, sample: Sequence[str], window: tuple[datetime | None, ...]
) -> int | None:
    """Seconds per bucket: the setting's, or (auto) one fitted to the window or the sample."""
    if setting == "off":
        return None
    fixed = parse_bucket(setting)
    if fixed is not None:
        return fixed
    since, until = window
    if since is not None and until is not None:
        return choose_bucket_s((until - since).total_seconds())
    stamps = pl.DataFrame({"line": list(sample)}, schema={"line": pl.String}).select(
        time(pl.col("line")).alias("t")
    )["t"]
    first, last = stamps.min(), stamps.max()
    if not isinstance(first, datetime) or not isinstance(last, datetime):
        return None  # no line of the sample has a time: no timeline
    lo = since or first
    return choose_bucket_s(max((last - lo).total_seconds(), 1.0))


def bucketed(fmt: Format, time: TimeOf, bucket_s: int) -> Format:
    """``fmt`` whose records carry their bucket."""
    return Bucketed(fmt, time, bucket_s)


def timeline_answer(
    tally: Tally, keys: Sequence[str], bucket_s: int, *, exact: bool
) -> Timeline | None:
    """Every bucket from the first to the last event, its total and each of ``keys``' counts."""
    rows = tally.timeline
    if rows.is_empty():
        return None
    totals = dict(rows.group_by(BUCKET).agg(pl.col(N).sum()).iter_rows())
    wanted = rows.filter(pl.col(ROUTE).is_in(list(keys)))
    per: dict[int, dict[str, int]] = {}
    for bucket, route, n in wanted.iter_rows():
        per.setdefault(bucket, {})[route] = int(n)
    first, last = min(totals), max(totals)
    buckets = [
        TimelineBucket(
            start=_iso(b),
            total=int(totals.get(b, 0)),
            counts={k: per.get(b, {}).get(k, 0) for k in keys},
        )
        for b in range(first, last + bucket_s, bucket_s)
    ]
    return Timeline(bucket_s=bucket_s, basis="exact" if exact else "seen", buckets=buckets)


def _iso(epoch_s: int) -> str:
    return datetime.fromtimestamp(epoch_s, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
