"""Lazy plans over slices of a column of lines, run on Polars' threads (PURE).

One regex call runs on one thread: a batch's lines are cut into one slice per
Polars thread, each slice gets the same plan, and ``collect`` runs them
together.
"""

from __future__ import annotations

import itertools

import polars as pl

#: Lines per parallel slice of a parse: fewer lines are parsed in one call.
PARSE_SLICE_LINES = 4096


def slices(n: int) -> list[tuple[int, int]]:
    """``[lo, hi)`` slices of n lines, one per Polars thread, none under ``PARSE_SLICE_LINES``."""
    parts = max(1, min(pl.thread_pool_size(), n // PARSE_SLICE_LINES))
    return list(itertools.pairwise(i * n // parts for i in range(parts + 1)))


def collect(plans: list[pl.LazyFrame]) -> list[pl.DataFrame]:
    """The plans' frames, computed on Polars' threads when there are several."""
    return pl.collect_all(plans) if len(plans) > 1 else [plans[0].collect()]
