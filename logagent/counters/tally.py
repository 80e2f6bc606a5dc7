"""Tallies: the counts of one batch, and how tallies merge (PURE).

A tally holds per-(route, status) counts, the per-unit 5xx counts per route
(the units x routes matrix the statistics need, kept sparse), and scalar
line counters. ``merge`` is associative and commutative — the property that
makes random order, checkpoints and parallel reading safe — and its output is
canonical (sorted), so equal counts compare equal however they were merged.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields, replace

import polars as pl

from logagent.formats.base import BUCKET, STATUS
from logagent.formats.extract import BLANK, CONTINUATION, OUTSIDE, UNLIKE, Extracted
from logagent.formats.routes import INVALID_REQUEST

ROUTE, UNIT, N = "route", "unit", "n"
COUNTS_SCHEMA: dict[str, pl.DataType] = {ROUTE: pl.String(), STATUS: pl.Int32(), N: pl.Int64()}
UNITS_SCHEMA: dict[str, pl.DataType] = {UNIT: pl.Int64(), ROUTE: pl.String(), N: pl.Int64()}
#: The timeline: matching events per (time bucket start in epoch s, route).
TIMELINE_SCHEMA: dict[str, pl.DataType] = {BUCKET: pl.Int64(), ROUTE: pl.String(), N: pl.Int64()}
#: Matching events per (unit, time bucket) of the units a sampled run read (bucket intervals).
UNIT_BUCKETS_SCHEMA: dict[str, pl.DataType] = {UNIT: pl.Int64(), BUCKET: pl.Int64(), N: pl.Int64()}


def _empty(schema: dict[str, pl.DataType]) -> pl.DataFrame:
    return pl.DataFrame(schema=schema)


@dataclass(frozen=True)
class Tally:
    """Counts of some units; frames are aggregated by key (sorted by key once merged)."""

    counts: pl.DataFrame = field(default_factory=lambda: _empty(COUNTS_SCHEMA))
    unit_errors: pl.DataFrame = field(default_factory=lambda: _empty(UNITS_SCHEMA))
    unit_requests: pl.DataFrame = field(default_factory=lambda: _empty(UNITS_SCHEMA))
    timeline: pl.DataFrame = field(default_factory=lambda: _empty(TIMELINE_SCHEMA))
    unit_buckets: pl.DataFrame = field(default_factory=lambda: _empty(UNIT_BUCKETS_SCHEMA))
    units: int = 0
    bytes_read: int = 0
    lines: int = 0
    parsed: int = 0
    malformed: int = 0
    invalid_utf8: int = 0
    truncated: int = 0
    count_error: int = 0  # E: a kept count may be below the truth by this much (sketch.py)
    dropped_errors: int = 0  # 5xx lines of routes the bounded summary dropped (exact)
    continuation: int = 0  # lines continuing a multi-line record (neither records nor malformed)
    unlike_continuation: int = 0  # of those, lines that look like no part of a record
    outside_window: int = 0  # valid records outside the time window (not counted)

    def scalars(self) -> dict[str, int]:
        """The scalar counters by name."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.type == "int"}


def tally_batch(extracted: Extracted, *, units: int, bytes_read: int, truncated: int) -> Tally:
    """The tally of one extracted batch: its queries run together, in one Polars call."""
    records = extracted.records
    counts = records.group_by(ROUTE, STATUS).agg(pl.col(N).sum())
    # the evidence races keys: a record without a usable one (no path) is no rival of any
    errors = records.filter(
        pl.col(STATUS).is_between(500, 599) & (pl.col(ROUTE) != INVALID_REQUEST)
    )
    unit_errors = errors.group_by(UNIT, ROUTE).agg(pl.col(N).sum())
    requests = (
        records.filter(pl.lit(extracted.all_units)).group_by(UNIT, ROUTE).agg(pl.col(N).sum())
    )
    bucketed = BUCKET in records.collect_schema().names()
    timed = errors.filter(pl.col(BUCKET).is_not_null()) if bucketed else None
    timeline = (
        timed.group_by(BUCKET, ROUTE).agg(pl.col(N).sum())
        if timed is not None
        else pl.LazyFrame(schema=TIMELINE_SCHEMA)
    )
    unit_buckets = (  # only a sampled read tracks units (a full read's are all -1)
        timed.filter(pl.col(UNIT) >= 0).group_by(UNIT, BUCKET).agg(pl.col(N).sum())
        if timed is not None
        else pl.LazyFrame(schema=UNIT_BUCKETS_SCHEMA)
    )
    counts_df, units_df, requests_df, timeline_df, unit_buckets_df, valid = pl.collect_all(
        [counts, unit_errors, requests, timeline, unit_buckets, extracted.valid]
    )
    parsed = extracted.parsed - _count(valid, BLANK)  # a blank line is no line to parse
    return Tally(
        counts=counts_df.cast(COUNTS_SCHEMA),  # type: ignore[arg-type]  # a dict of dtypes is fine
        unit_errors=units_df.cast(UNITS_SCHEMA),  # type: ignore[arg-type]
        unit_requests=requests_df.cast(UNITS_SCHEMA),  # type: ignore[arg-type]
        timeline=timeline_df.cast(TIMELINE_SCHEMA),  # type: ignore[arg-type]
        unit_buckets=unit_buckets_df.cast(UNIT_BUCKETS_SCHEMA),  # type: ignore[arg-type]
        units=units,
        bytes_read=bytes_read,
        lines=extracted.lines,
        parsed=parsed,
        malformed=parsed - _count(valid, "valid") - _count(valid, CONTINUATION),
        continuation=_count(valid, CONTINUATION),
        unlike_continuation=_count(valid, UNLIKE),
        outside_window=_count(valid, OUTSIDE),
        invalid_utf8=extracted.invalid_utf8,
        truncated=truncated,
    )


def _count(valid: pl.DataFrame, column: str) -> int:
    """A counter of the one-row ``valid`` frame (0 when the extraction did not count it)."""
    return int(valid[column].item()) if column in valid.columns else 0


def merge(tallies: Iterable[Tally]) -> Tally:
    """Add tallies; associative, commutative, canonical output."""
    items = list(tallies)
    if not items:
        return Tally()
    counts = pl.concat([t.counts for t in items]).group_by(ROUTE, STATUS).agg(pl.col(N).sum())
    units = pl.concat([t.unit_errors for t in items]).group_by(UNIT, ROUTE).agg(pl.col(N).sum())
    requests = (
        pl.concat([t.unit_requests for t in items]).group_by(UNIT, ROUTE).agg(pl.col(N).sum())
    )
    timeline = pl.concat([t.timeline for t in items]).group_by(BUCKET, ROUTE).agg(pl.col(N).sum())
    unit_buckets = (
        pl.concat([t.unit_buckets for t in items]).group_by(UNIT, BUCKET).agg(pl.col(N).sum())
    )
    sums = {name: sum(t.scalars()[name] for t in items) for name in items[0].scalars()}
    return replace(
        Tally(),
        counts=_canonical(counts, [ROUTE, STATUS]),
        unit_errors=_canonical(units, [UNIT, ROUTE]),
        unit_requests=_canonical(requests, [UNIT, ROUTE]),
        timeline=_canonical(timeline, [BUCKET, ROUTE]),
        unit_buckets=_canonical(unit_buckets, [UNIT, BUCKET]),
        **sums,
    )


def _canonical(frame: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    return frame.sort(keys)


def same_counts(a: Tally, b: Tally) -> bool:
    """Whether two tallies hold identical counts (frames and scalars)."""
    return (
        _canonical(a.counts, [ROUTE, STATUS]).equals(_canonical(b.counts, [ROUTE, STATUS]))
        and _canonical(a.unit_errors, [UNIT, ROUTE]).equals(
            _canonical(b.unit_errors, [UNIT, ROUTE])
        )
        and _canonical(a.unit_requests, [UNIT, ROUTE]).equals(
            _canonical(b.unit_requests, [UNIT, ROUTE])
        )
        and _canonical(a.timeline, [BUCKET, ROUTE]).equals(_canonical(b.timeline, [BUCKET, ROUTE]))
        and _canonical(a.unit_buckets, [UNIT, BUCKET]).equals(
            _canonical(b.unit_buckets, [UNIT, BUCKET])
        )
        and a.scalars() == b.scalars()
    )
