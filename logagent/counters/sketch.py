"""Bounded per-key counts for Router-Mem's memory ladder (PURE).

Step "sketch": when distinct keys would break the memory budget, the counts
keep only the ``capacity`` routes of largest weight (5xx lines, or records for
questions that count all of them) plus protected routes (the evidence's
candidates). Every other route is dropped when its weight is at or below the
(capacity+1)-th largest weight ``t``, and ``t`` is added to the run's count
error ``E``. A route loses at most its own weight (<= t) at each pruning, so
for every route, kept count <= true count <= kept count + E, and a route no
longer kept has a true count <= E. This is lossy counting (Manku & Motwani,
2002) with exact bookkeeping: ``E`` is a proven bound, not an estimate, and the
dropped mass is counted exactly, so totals stay exact.

Step "drop_detail": per-status rows of unprotected routes collapse into one 5xx
row (status 500) and one other row (status 200), and their per-unit rows into
one REST row per unit. The sum of non-candidates in a unit is at least their
maximum, so the REST statistic the evidence uses stays a valid upper bound
(stats note §4): a settled answer stays correct at delta, only less sharp.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

import polars as pl

from logagent.counters.tally import ROUTE, UNIT, N
from logagent.formats.base import STATUS

#: The route that stands for every unprotected route of a unit once detail is dropped.
REST_KEY = "\x00rest"
IS_5XX = pl.col(STATUS).is_between(500, 599)


def prune_counts(
    counts: pl.DataFrame, capacity: int, *, errors_only: bool, protect: Collection[str] = ()
) -> tuple[pl.DataFrame, int, int]:
    """Keep the heaviest ``capacity`` routes (and ``protect``): (rows, threshold t, 5xx dropped)."""
    weights = counts.filter(IS_5XX) if errors_only else counts
    per_route = weights.group_by(ROUTE).agg(pl.col(N).sum())
    if per_route.height <= capacity:
        return counts, 0, 0
    t = int(per_route[N].sort(descending=True)[capacity])
    keep = per_route.filter((pl.col(N) > t) | pl.col(ROUTE).is_in(list(protect)))[ROUTE]
    inside = pl.col(ROUTE).is_in(keep.implode())
    dropped = int(counts.filter(~inside & IS_5XX)[N].sum())
    return counts.filter(inside), t, dropped


def prune_totals(
    totals: Mapping[str, int], capacity: int, protect: Collection[str] = ()
) -> tuple[dict[str, int], int]:
    """The same rule for a dict of per-route totals: (kept totals, threshold t)."""
    if len(totals) <= capacity:
        return dict(totals), 0
    t = sorted(totals.values(), reverse=True)[capacity]
    kept = {r: n for r, n in totals.items() if n > t or r in protect}
    return kept, t


def merge_routes(counts: pl.DataFrame) -> pl.DataFrame:
    """Per-status totals only (the status question's answer needs no route): routes become '*'."""
    return (
        counts.group_by(STATUS)
        .agg(pl.col(N).sum())
        .select(pl.lit("*").alias(ROUTE), STATUS, N)
        .sort(STATUS)
    )


def collapse_detail(counts: pl.DataFrame, protect: Collection[str]) -> pl.DataFrame:
    """Per-status rows of unprotected routes become one 5xx row (500) and one other row (200)."""
    inside = pl.col(ROUTE).is_in(list(protect))
    kept = counts.filter(inside)
    other = (
        counts.filter(~inside)
        .with_columns(pl.when(IS_5XX).then(500).otherwise(200).cast(pl.Int32).alias(STATUS))
        .group_by(ROUTE, STATUS)
        .agg(pl.col(N).sum())
    )
    return pl.concat([kept, other.select(kept.columns)]).sort(ROUTE, STATUS)


def collapse_units(rows: pl.DataFrame, protect: Collection[str], by: str = UNIT) -> pl.DataFrame:
    """Rows of unprotected routes become one REST row per ``by`` (unit, or the timeline's time
    bucket): their sum, so per-unit and per-bucket totals stay exact."""
    inside = pl.col(ROUTE).is_in(list(protect))
    rest = (
        rows.filter(~inside)
        .group_by(by)
        .agg(pl.col(N).sum())
        .select(by, pl.lit(REST_KEY).alias(ROUTE), N)
    )
    return pl.concat([rows.filter(inside), rest.select(rows.columns)]).sort(by, ROUTE)
