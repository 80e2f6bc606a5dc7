"""Per-unit counts of the read units as dense arrays for the e-processes (PURE).

The accumulator keeps the 5xx counts per (unit, route) sparse. The evidence
needs, for the units just read and in reading order, the counts of each
candidate route (``X``, units x candidates), the most any other route holds in
the unit (``Y``: the REST statistic, which bounds every non-candidate,
including routes never seen), and all 5xx of the unit (``A``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import polars as pl

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]


@dataclass(frozen=True)
class UnitCounts:
    """Dense per-unit counts in reading order."""

    x: F64  # units x candidates
    rest: F64  # units: max over non-candidate routes
    all_errors: F64  # units: every 5xx line of the unit


def unit_counts(unit_errors: pl.DataFrame, order: I64, candidates: Sequence[str]) -> UnitCounts:
    """Dense counts of the units ``order`` (reading order, distinct) from sparse (unit, route, n)
    rows. Vectorized: a run in 64 B units reads 10^5-10^6 of them, and this is called per batch
    (a dict of positions and per-row Python lookups cost ~1 us each)."""
    order = np.asarray(order, dtype=np.int64)
    n = len(order)
    x = np.zeros((n, len(candidates)))
    rest = np.zeros(n)
    all_errors = np.zeros(n)
    if n == 0 or unit_errors.height == 0:
        return UnitCounts(x, rest, all_errors)
    sorter = np.argsort(order, kind="stable")
    ranked = order[sorter]
    unit = unit_errors["unit"].to_numpy()
    at = np.minimum(np.searchsorted(ranked, unit), n - 1)
    keep = ranked[at] == unit  # rows of the units asked
    units = sorter[at[keep]]
    cand = {c: j for j, c in enumerate(candidates)}
    # Every row's column, then the kept ones: filtering by a numpy mask would build a Series
    # from numpy, whose path imports numpy.ma (~10 ms of a run's start-up).
    cols = (
        unit_errors["route"]
        .replace_strict(cand, default=-1, return_dtype=pl.Int64)
        .to_numpy()[keep]
    )
    counts = unit_errors["n"].to_numpy()[keep].astype(np.float64)
    np.add.at(all_errors, units, counts)
    inside = cols >= 0
    np.add.at(x, (units[inside], cols[inside]), counts[inside])
    np.maximum.at(rest, units[~inside], counts[~inside])
    return UnitCounts(x, rest, all_errors)
