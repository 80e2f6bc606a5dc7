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
from dataclasses import replace
from datetime import UTC, datetime

import numpy as np
import polars as pl

from logagent.counters.tally import ROUTE, UNIT, N, Tally
from logagent.evidence import bernstein
from logagent.evidence.matrix import F64, I64
from logagent.formats.base import BUCKET, Format
from logagent.formats.bucketed import (
    LADDER_S,
    MAX_BUCKETS,
    Bucketed,
    choose_bucket_s,
    parse_bucket,
)
from logagent.formats.stagedtime import TimeOf, representable
from logagent.result import Timeline, TimelineBucket
from logagent.sources.permute import Ordering


def sample_times(time: TimeOf, sample: Sequence[str]) -> pl.Series:
    """The sample's times, one per line (null where a line has none): parsed once for both
    ``bucket_width`` and ``bucket_span`` (each parsed them itself: ~2 ms a run)."""
    lines = pl.DataFrame({"line": list(sample)}, schema={"line": pl.String})
    return lines.select(representable(time(pl.col("line"))).alias("t"))["t"]


def bucket_width(setting: str, times: pl.Series, window: tuple[datetime | None, ...]) -> int | None:
    """Seconds per bucket: the setting's, or (auto) one fitted to the window or to the sample's
    ``times`` (``sample_times``)."""
    if setting == "off":
        return None
    fixed = parse_bucket(setting)
    if fixed is not None:
        return fixed
    since, until = window
    if since is not None and until is not None:
        return choose_bucket_s((until - since).total_seconds())
    span = _span(times)
    if span is None:
        return None  # no line of the sample has a time: no timeline
    first, last = span
    lo = since or first
    return choose_bucket_s(max((last - lo).total_seconds(), 1.0))


def bucket_span(
    bucket_s: int, times: pl.Series, window: tuple[datetime | None, ...]
) -> tuple[int, int] | None:
    """The first and last bucket start of the input's time range (from the detection sample's
    ``times``: the sample spans each seekable file from start to end), within the window: a
    sampled run shows these buckets even if no unit it read holds an event there."""
    span = _span(times)
    if span is None:
        return None
    first, last = int(span[0].timestamp()), int(span[1].timestamp())
    since, until = window
    if since is not None:
        first = max(first, int(since.timestamp()))
    if until is not None:
        last = min(last, int(until.timestamp()) - 1)
    if last < first:
        return None
    return first // bucket_s * bucket_s, last // bucket_s * bucket_s


#: Sampled stamps at least this many: the span leaves out the earliest and latest
#: ``SPAN_TAIL`` of them (a ``01/Jan/1970`` line among 3,000 of Dec 1 drew 99 buckets of
#: 210 days). Fewer: the span is theirs, first to last.
SPAN_ROBUST_FROM = 200
SPAN_TAIL = 0.005


def _span(times: pl.Series) -> tuple[datetime, datetime] | None:
    """The sample's time range, without its outliers (``SPAN_ROBUST_FROM``)."""
    stamps = times.drop_nulls()
    first: object = stamps.min()
    last: object = stamps.max()
    if len(stamps) >= SPAN_ROBUST_FROM:
        first, last = stamps.quantile(SPAN_TAIL, "lower"), stamps.quantile(1 - SPAN_TAIL, "higher")
    if not isinstance(first, datetime) or not isinstance(last, datetime):
        return None
    return first, last


def bucketed(fmt: Format, time: TimeOf, bucket_s: int, *, events_only: bool = False) -> Format:
    """``fmt`` whose records carry their bucket (``events_only``: the 5xx records only)."""
    return Bucketed(fmt, time, bucket_s, events_only)


def timeline_answer(
    tally: Tally,
    keys: Sequence[str],
    bucket_s: int,
    *,
    exact: bool,
    population: int | None = None,
    order: Ordering | None = None,
    span: tuple[int, int] | None = None,
    delta: float = 0.01,
    bound: float = 1.0,
) -> Timeline | None:
    """Every bucket from the first to the last event, over ``span`` (the input's range of
    bucket starts) at least, its total and each of ``keys``' counts; for a sampled run
    (``population`` units, the first ``tally.units`` of ``order`` read) each bucket's
    interval."""
    if tally.timeline.is_empty():
        return None
    # the input's range, from its sample, for an exact read too: a log of May 17 to 20 whose
    # 5xx fell on May 18 and 20 was drawn from May 18, "spread over the whole range"
    bucket_s, tally, span = _drawable(tally, bucket_s, span)
    rows = tally.timeline
    totals = dict(rows.group_by(BUCKET).agg(pl.col(N).sum()).iter_rows())
    wanted = rows.filter(pl.col(ROUTE).is_in(list(keys)))
    per: dict[int, dict[str, int]] = {}
    for bucket, route, n in wanted.iter_rows():
        per.setdefault(bucket, {})[route] = int(n)
    first, last = min(totals), max(totals)
    if span is not None:  # buckets no line read holds an event in: shown too
        first, last = min(first, span[0]), max(last, span[1])
    starts = range(first, last + bucket_s, bucket_s)
    bands: dict[int, tuple[float, float, float]] = {}
    if not exact and population and order is not None and tally.units > 0:
        bands = _bands(tally, starts, order, population, delta, bound)
    sampled = bool(bands)
    buckets = [
        TimelineBucket(
            start=_iso(b),
            total=int(totals.get(b, 0)),
            counts={k: per.get(b, {}).get(k, 0) for k in keys},
            **dict(zip(("estimate", "low", "high"), bands.get(b, ()), strict=False)),
        )
        for b in starts
    ]
    return Timeline(
        bucket_s=bucket_s,
        basis="exact" if exact else "seen",
        buckets=buckets,
        interval=INTERVAL_METHOD if sampled else None,
    )


#: The most buckets a timeline is drawn in: past it (a sample whose stamps spanned minutes,
#: the input years apart), wider buckets (``_drawable``). A 2-line log two years apart was
#: drawn in 1.2 M one-minute buckets: 45 s, for a result of 100 MB.
MAX_DRAWN_BUCKETS = 10 * MAX_BUCKETS


def _drawable(
    tally: Tally, bucket_s: int, span: tuple[int, int] | None
) -> tuple[int, Tally, tuple[int, int] | None]:
    """``bucket_s``, ``tally`` and ``span`` as they are when the timeline's range holds at most
    ``MAX_DRAWN_BUCKETS``; else in the smallest ladder width that is a multiple of
    ``bucket_s`` and draws the range in ``MAX_BUCKETS`` (counts summed; a sampled run's
    intervals are made per wide bucket from the same per-unit counts)."""
    starts = tally.timeline[BUCKET]
    first, last = int(starts.min()), int(starts.max())  # type: ignore[arg-type]
    if span is not None:
        first, last = min(first, span[0]), max(last, span[1])
    if (last - first) // bucket_s < MAX_DRAWN_BUCKETS:
        return bucket_s, tally, span
    widths = [w for w in LADDER_S if w % bucket_s == 0] or [bucket_s]
    fits = [w for w in widths if (last - first) / w <= MAX_BUCKETS]
    # past the ladder (years): whole multiples of its widest width (weeks)
    width = fits[0] if fits else widths[-1] * -(-(last - first) // (widths[-1] * MAX_BUCKETS))

    def wider(frame: pl.DataFrame) -> pl.DataFrame:
        keys = [c for c in frame.columns if c != N]
        rows = frame.with_columns(pl.col(BUCKET) // width * width)
        return rows.group_by(keys).agg(pl.col(N).sum()).select(frame.columns)

    wide = replace(tally, timeline=wider(tally.timeline))  # per-unit rows: placed by division
    return (
        width,
        wide,
        None if span is None else (span[0] // width * width, span[1] // width * width),
    )


def _bands(
    tally: Tally, starts: range, order: Ordering, population: int, delta: float, bound: float
) -> dict[int, tuple[float, float, float]]:
    """Each bucket's interval from the per-unit counts of the units read, in reading order."""
    read = order[: tally.units]
    rank = np.argsort(read, kind="stable")
    ranked = read[rank]
    rows = tally.unit_buckets.filter(
        (pl.col(BUCKET) >= starts.start) & (pl.col(BUCKET) < starts.stop)
    )
    if int(rows[N].sum()) != int(tally.timeline[N].sum()):
        return {}  # units were not tracked (a full read stopped early): nothing to claim
    units = rows[UNIT].to_numpy()
    at = np.minimum(np.searchsorted(ranked, units), max(len(read) - 1, 0))
    if len(read) == 0 or not np.array_equal(ranked[at], units):
        return {}  # counts of units outside the reading order: no interval can be claimed
    which = (rows[BUCKET].to_numpy() - starts.start) // starts.step
    cells = (which, rank[at], rows[N].to_numpy().astype(np.float64))
    shape = (len(starts), len(read))
    bands = bucket_intervals(cells, shape=shape, population=population, delta=delta, bound=bound)
    return dict(zip(starts, bands, strict=True))


def _iso(epoch_s: int) -> str:
    return datetime.fromtimestamp(epoch_s, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


#: How a sampled run's per-bucket intervals are made, said in the result.
INTERVAL_METHOD = (
    "anytime-valid: a without-replacement empirical-Bernstein confidence sequence "
    "(Waudby-Smith & Ramdas 2020) on each bucket's events per unit read, each unit holding "
    "at most M, simultaneous over buckets by Bonferroni at delta"
)


def bucket_intervals(
    cells: tuple[I64, I64, F64],
    *,
    shape: tuple[int, int],
    population: int,
    delta: float,
    bound: float = 1,
) -> list[tuple[float, float, float]]:
    """(estimate, low, high) of each bucket's full-input total from the units read.

    ``cells`` are the nonzero (bucket, position in reading order, events) of the
    buckets x units-read matrix ``shape``: the events each read unit holds in
    each bucket, the units in a uniformly random order without replacement of
    ``population`` units, each holding at most ``bound`` (M). The intervals hold
    for every bucket at once with probability at least 1 - delta, at whatever
    point the run stopped, however bursty the units are (``evidence.bernstein``).
    """
    buckets, read = shape
    if buckets == 0:
        return []
    low, high = bernstein.sparse_total_intervals(
        cells, shape=shape, population=population, bound=bound, alpha=delta / buckets
    )
    seen = np.bincount(cells[0], weights=cells[2], minlength=buckets)
    scale = population / read if 0 < read < population else 1.0
    return [
        (float(s * scale), float(lo), float(hi)) for s, lo, hi in zip(seen, low, high, strict=True)
    ]
