"""A tally as rows for the state, and rows back as a tally (PURE).

Only what an exact answer reads is kept: the key x status counts, the
timeline (time bucket x key) and the line counters. Per-unit frames belong
to sampled reads, which an incremental run never does.
"""

from __future__ import annotations

from dataclasses import fields, replace

import polars as pl

from logagent.counters.tally import COUNTS_SCHEMA, TIMELINE_SCHEMA, Tally

CountRow = tuple[str, int | None, int]
TimelineRow = tuple[int, str, int]
#: counters that add up over runs (``units`` does too: units read, for the progress line)
SCALARS = tuple(f.name for f in fields(Tally) if f.type == "int")


def rows_of(tally: Tally) -> tuple[list[CountRow], list[TimelineRow], dict[str, int]]:
    """The rows ``State.commit_run`` stores for ``tally``."""
    counts = [(str(r), None if s is None else int(s), int(n)) for r, s, n in tally.counts.rows()]
    timeline = [(int(b), str(r), int(n)) for b, r, n in tally.timeline.rows()]
    return counts, timeline, tally.scalars()


def tally_of(counts: list[CountRow], timeline: list[TimelineRow], scalars: dict[str, int]) -> Tally:
    """The tally the rows describe (summed rows of many runs: their merged tally)."""
    counts_df = pl.DataFrame(counts, schema=COUNTS_SCHEMA, orient="row").sort(["route", "status"])
    timeline_df = pl.DataFrame(timeline, schema=TIMELINE_SCHEMA, orient="row").sort(
        ["bucket", "route"]
    )
    known: dict[str, int] = {k: v for k, v in scalars.items() if k in SCALARS}
    return replace(Tally(), counts=counts_df, timeline=timeline_df, **known)  # type: ignore[arg-type]  # the scalars are the int fields
