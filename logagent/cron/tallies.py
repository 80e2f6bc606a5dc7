"""Time-bucketed tallies: records by their own time bucket, and a window's tally (PURE).

A run's records are kept as rows ``(bucket, key, status, n)``: the start of
the record's time bucket (epoch s, UTC, the job's ``--bucket`` width) x key
(route, component, ...) x status or level -> count. The engine hands each
parse's records to ``BucketTap`` (``RunEnv.on_records``), so a windowed
answer can later pick the buckets of the window and merge them, never
reading a log again. A record without a time (a format without timestamps,
or a stamp that did not parse) goes to the bucket of the run that read it.

``window_tally`` turns the window's rows back into a tally through the
engine's own ``tally_batch`` (its counts and its timeline rule), with the
line counters of the runs in the window.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

import polars as pl

from logagent.counters.tally import ROUTE, Tally, tally_batch
from logagent.formats.base import BUCKET, STATUS
from logagent.formats.extract import Extracted

BucketRow = tuple[int, str, int, int]  # bucket start (epoch s), key, status, n
N, UNIT = "n", "unit"
ROWS_SCHEMA: dict[str, pl.DataType] = {
    BUCKET: pl.Int64(),
    ROUTE: pl.String(),
    STATUS: pl.Int32(),
    N: pl.Int64(),
}
#: counters that add up over runs (``units`` does too: units read, for the progress line)
SCALARS = tuple(f.name for f in fields(Tally) if f.type == "int")
UNTIMED = "untimed"  # the per-run counter of records without a time (stored beside SCALARS)


@dataclass
class BucketTap:
    """Collects the records of a read by (bucket, key, status); a ``RunEnv.on_records``."""

    frames: list[pl.DataFrame] = field(default_factory=list)

    def __call__(self, records: pl.LazyFrame) -> None:
        """Keep one parse's records, summed by (bucket, key, status)."""
        names = records.collect_schema().names()
        bucket = pl.col(BUCKET) if BUCKET in names else pl.lit(None, dtype=pl.Int64)
        self.frames.append(
            records.filter(pl.col(STATUS).is_not_null())
            .group_by(bucket.cast(pl.Int64).alias(BUCKET), ROUTE, STATUS)
            .agg(pl.col(N).sum())
            .collect()
        )

    def rows(self, run_bucket: int) -> tuple[list[BucketRow], int]:
        """The rows kept, records without a time in ``run_bucket``; and how many those were."""
        if not self.frames:
            return [], 0
        frame = pl.concat(self.frames).cast(ROWS_SCHEMA)  # type: ignore[arg-type]  # dtypes dict
        untimed = int(frame.filter(pl.col(BUCKET).is_null())[N].sum())
        summed = (
            frame.with_columns(pl.col(BUCKET).fill_null(run_bucket))
            .group_by(BUCKET, ROUTE, STATUS)
            .agg(pl.col(N).sum())
            .sort(BUCKET, ROUTE, STATUS)
        )
        return [(int(b), str(r), int(s), int(n)) for b, r, s, n in summed.rows()], untimed


def bucket_of(time_s: float, bucket_s: int) -> int:
    """The start of the bucket holding ``time_s`` (as the formats cut record times)."""
    return int(time_s // bucket_s) * bucket_s


def window_bounds(now_s: float, window_s: int, bucket_s: int) -> tuple[int, int]:
    """The window's buckets ``[lo, hi)``: the whole buckets covering ``window_s``, ending
    with the one holding ``now_s`` (a window not a multiple of the bucket is rounded up)."""
    hi = bucket_of(now_s, bucket_s) + bucket_s
    return hi - -(-window_s // bucket_s) * bucket_s, hi


def window_tally(rows: list[BucketRow], scalars: dict[str, int]) -> Tally:
    """The tally of the window's rows (merged) with the line counters of its runs."""
    frame = pl.DataFrame(rows, schema=ROWS_SCHEMA, orient="row")
    records = frame.lazy().with_columns(pl.lit(-1, dtype=pl.Int64).alias(UNIT))
    valid = pl.LazyFrame({"valid": [0]})
    extracted = Extracted(records=records, valid=valid, lines=0, parsed=0, invalid_utf8=0)
    tally = tally_batch(extracted, units=0, bytes_read=0, truncated=0)
    known: dict[str, int] = {k: v for k, v in scalars.items() if k in SCALARS}
    return replace(
        tally,
        counts=tally.counts.sort(ROUTE, STATUS),
        timeline=tally.timeline.sort(BUCKET, ROUTE),
        **{**dict.fromkeys(SCALARS, 0), **known},  # type: ignore[arg-type]  # the int fields
    )
