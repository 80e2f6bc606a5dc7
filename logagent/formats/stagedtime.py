"""A record's time that a staged parse already computes over its helper columns (PURE).

The timeline's bucket and the time window's filter take each record's time
from a ``TimeOf``: an expression over the line. For an application format
the time is one of the format's own fields, so over the raw line it parses
the line again (a JSON log: the stamp, the level and the message, three more
JSON reads a line). ``StagedTime`` also says how a staged parse
(``base.staged_fields``) gives that same time over its helper columns;
``time_over`` takes that one when the stages in use hold those helpers (the
same names with the same expressions), and the time over the line otherwise;
``Timed`` is the wrapper (time bucket, time window) built on it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime

import polars as pl

from logagent.formats.base import Format, Stages, Wrapped, fast_variant

TimeOf = Callable[[pl.Expr], pl.Expr]


@dataclass(frozen=True)
class StampTimes:
    """How a layout's time comes from its stamp as written: the helper column of its staged
    parse holding that stamp (``column``), and the staged parse of a column of such stamps
    into UTC times, its helpers named after a prefix (``parse(stamps, prefix)``)."""

    column: str
    parse: Callable[[pl.Expr, str], tuple[Stages, pl.Expr]]


@dataclass(frozen=True)
class StagedTime:
    """A ``TimeOf`` (``plain``) whose staged form is ``staged(line)``: (its stages, the time);
    ``stamp``: how that time comes from the stamp as written, where the layout says."""

    plain: TimeOf
    staged: Callable[[pl.Expr], tuple[Stages, pl.Expr]]
    stamp: StampTimes | None = None

    def __call__(self, line: pl.Expr) -> pl.Expr:
        """The time over the line itself."""
        return self.plain(line)


def time_over(time: TimeOf, line: pl.Expr, stages: Stages) -> pl.Expr:
    """``time(line)``, over the helper columns of ``stages`` when they hold what it needs:
    each helper the staged time reads, directly or through other helpers, made by the same
    expression, and no input it reads (the line) overwritten. Only those: a view that
    parses the same stamps but keeps other columns otherwise (an error-types view keeps
    the message text, the time window's view built before it does not) shares the time."""
    staged = staged_time(time, line, stages)
    return time(line) if staged is None else staged


def staged_time(time: TimeOf, line: pl.Expr, stages: Stages) -> pl.Expr | None:
    """``time_over``'s time over the helper columns, or None where the stages lack them."""
    if isinstance(time, StagedTime):
        need, expr = time.staged(line)
        want = {name: e for stage in need for name, e in stage.items()}
        have = {name: e for stage in stages for name, e in stage.items()}
        read, todo = set(), set(expr.meta.root_names())
        while todo:  # the helpers the time reads, through the helpers they read
            name = todo.pop()
            if name in want and name not in read:
                read.add(name)
                todo.update(want[name].meta.root_names())
            elif name not in want and name in have:  # an input a stage overwrites
                return None
        if all(n in have and have[n].meta.eq(want[n]) for n in read):
            return expr
    return None


@dataclass(frozen=True)
class Timed(Wrapped):
    """A wrapper whose added columns come from each record's time (``columns``): over the
    line, or over the staged time where the inner parse holds it (``time_over``)."""

    time: TimeOf

    def columns(self, time: pl.Expr) -> dict[str, pl.Expr]:
        """The added columns, given each record's time."""
        raise NotImplementedError

    def added(self, line: pl.Expr) -> dict[str, pl.Expr]:
        """The added columns over the line's own time."""
        return self.columns(self.time(line))

    def fast_variant(self) -> tuple[Format, pl.Expr] | None:
        """The inner format's ``fast_variant``, wrapped alike with that variant's own time:
        the whole layout's staged time reads helpers the variant computes otherwise, and over
        the line its time parsed each line again (log4j's ERROR lines: 12 ms -> 0.35 s)."""
        found = fast_variant(self.inner)
        if found is None or not isinstance(self.time, StagedTime):
            return None
        from logagent.formats.windowed import time_of  # windowed builds on this module

        inner, read = found
        time = time_of(inner)
        if not isinstance(time, StagedTime):
            return None
        return replace(self, inner=inner, time=time), read

    def staged_added(self, line: pl.Expr, stages: Stages) -> dict[str, pl.Expr]:
        """The added columns over the staged time where the stages hold it."""
        return self.columns(time_over(self.time, line, stages))


#: The times a report can write (Python's datetime holds the years 1-9999), a day inside.
EARLIEST = datetime(1, 1, 2, tzinfo=UTC)
LATEST = datetime(9999, 12, 30, tzinfo=UTC)


def representable(time: pl.Expr) -> pl.Expr:
    """``time`` where it lies in the years 1-9999, null (no time) elsewhere: a stamp of year
    0000 or a garbled epoch parses in Polars, and then broke the report's bucket times.
    ``time`` is used twice: give it a column, not a parse (Polars would parse twice)."""
    return pl.when(time.is_between(pl.lit(EARLIEST), pl.lit(LATEST))).then(time)


def representable_epoch(seconds: pl.Expr) -> pl.Expr:
    """``representable`` for epoch seconds (a time bucket's start)."""
    lo, hi = int(EARLIEST.timestamp()), int(LATEST.timestamp())
    return pl.when(seconds.is_between(lo, hi)).then(seconds)
