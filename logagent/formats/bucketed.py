"""A format whose records carry their time bucket, for the timeline (PURE).

``Bucketed`` wraps any access ``Format`` (or a ``Windowed`` one) and adds the
optional ``bucket`` column that ``extract`` groups records by: the start of
the record's time bucket in epoch seconds (UTC), null for a record without a
time. Only the lines the question parses pay for it (for top-errors, the 5xx
candidates), in the same vectorized query. With ``events_only`` (the runs of
a question that parses every line, ``-q status``, ``-q error-rate``) the
stamp is parsed for the events alone: the timeline counts 5xx records
(``counters.tally``), and parsing every line's stamp too cost 200 MB
``-q status`` 0.98 s of parse where 0.50 s is the parse without a timeline.
Cron keeps every record by its bucket (request counts per bucket), so it
asks for all.

``choose_bucket_s`` picks the width of ``--bucket auto``: the smallest of a
ladder of round widths that cuts the time range into at most ``MAX_BUCKETS``; past
the ladder (a range of years), whole weeks.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import polars as pl

from logagent.formats.base import BUCKET, STATUS, Stages, staged_fields
from logagent.formats.stagedtime import Timed, staged_time

#: Helper columns of the staged parse: the status, and the line where it is an event.
_STATUS_HELD, _EVENT_LINE = "_bucket_status", "_bucket_event_line"
#: Helper column of the staged parse: the stamp as written where the line is an event.
_EVENT_STAMP = "_bucket_event_stamp"

MAX_BUCKETS = 100
#: Round bucket widths in seconds, smallest first: 1m 5m 10m 15m 30m 1h 3h 6h 12h 1d 7d.
LADDER_S = (60, 300, 600, 900, 1800, 3600, 10800, 21600, 43200, 86400, 604800)


@dataclass(frozen=True)
class Bucketed(Timed):
    """``inner`` with each record's time bucket (see module doc)."""

    bucket_s: int
    events_only: bool = False  # the staged parse: a bucket for 5xx records only (module doc)

    @property
    def quick_status(self) -> str | None:
        """The inner format's (``formats.quick``) when only 5xx records get a bucket: a
        line it counts is no 5xx record, so its bucket is null anyway."""
        inner = getattr(self.inner, "quick_status", None)
        return inner if self.events_only and isinstance(inner, str) else None

    def columns(self, time: pl.Expr) -> dict[str, pl.Expr]:
        """``bucket``."""
        epoch = time.dt.epoch("s")
        return {BUCKET: (epoch // self.bucket_s) * self.bucket_s}

    def staged_fields(self, line: pl.Expr) -> tuple[Stages, dict[str, pl.Expr]]:
        """The inner stages and fields plus ``bucket``; with ``events_only``, the status is
        a helper column and the stamp is parsed on the lines whose status is 5xx only (the
        tally's events: ``counters.tally``), the others' bucket is null."""
        stages, fields = staged_fields(self.inner, line)
        if not self.events_only:
            return stages, {**fields, **self.staged_added(line, stages)}
        held = pl.col(_STATUS_HELD)
        is_event = held.is_between(500, 599)
        time = staged_time(self.time, line, stages)
        stamp = getattr(self.time, "stamp", None)
        if time is not None and stamp is not None and stamp.column in _helpers(stages):
            # an app layout's parse holds each line's stamp as written: the events' alone
            # are parsed (every line's time had been, then masked: 200 MB of a JSON log's
            # -q status, 925 -> 555 ns a line without the bucket; log4j's 606 -> 491)
            stamped: dict[str, pl.Expr] = {
                _EVENT_STAMP: pl.when(is_event).then(pl.col(stamp.column))
            }
            times, time = stamp.parse(pl.col(_EVENT_STAMP), "_bucket")
            stages = [*stages, {_STATUS_HELD: fields[STATUS]}, stamped, *times]
            return stages, {**fields, STATUS: held, **self.columns(time)}
        if time is not None:  # the parse holds every line's time already: masked
            # (over the line again, its patterns ran unstaged on each event line: log4j's
            # -q status spent more on the bucket than on the parse, and each new pattern more)
            stages = [*stages, {_STATUS_HELD: fields[STATUS]}]
            return stages, {**fields, STATUS: held, **self.columns(pl.when(is_event).then(time))}
        event = pl.when(is_event).then(line)  # null elsewhere: no stamp parsed
        stages = [*stages, {_STATUS_HELD: fields[STATUS]}, {_EVENT_LINE: event}]
        return stages, {**fields, STATUS: held, **self.added(pl.col(_EVENT_LINE))}


def _helpers(stages: Stages) -> set[str]:
    """The names of the helper columns ``stages`` compute."""
    return {name for stage in stages for name in stage}


def choose_bucket_s(span_s: float) -> int:
    """The smallest ladder width giving at most ``MAX_BUCKETS`` buckets over ``span_s``;
    past the ladder, the fewest whole weeks that do (years in weeks had drawn 119 buckets)."""
    week = LADDER_S[-1]
    return next((w for w in LADDER_S if span_s / w <= MAX_BUCKETS), 0) or week * math.ceil(
        span_s / (week * MAX_BUCKETS)
    )


def parse_bucket(text: str) -> int | None:
    """``5m``, ``1h``, ``1d``, ``90s`` as seconds; ``auto`` as None; ValueError otherwise."""
    if text == "auto":
        return None
    m = re.fullmatch(r"\s*(\d+)\s*([smhd])\s*", text)
    if not m or int(m.group(1)) == 0:
        raise ValueError(f"--bucket {text!r}: use auto or a width such as 5m, 1h, 1d")
    return int(m.group(1)) * {"s": 1, "m": 60, "h": 3600, "d": 86400}[m.group(2)]
