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
    """Dense counts of the units ``order`` (reading order) from sparse (unit, route, n) rows."""
    n = len(order)
    pos = {int(u): i for i, u in enumerate(order.tolist())}
    cand = {c: j for j, c in enumerate(candidates)}
    x = np.zeros((n, len(candidates)))
    rest = np.zeros(n)
    all_errors = np.zeros(n)
    rows = unit_errors.filter(pl.col("unit").is_in(order.tolist()))
    units = np.fromiter((pos[u] for u in rows["unit"].to_list()), np.int64, rows.height)
    cols = np.fromiter((cand.get(r, -1) for r in rows["route"].to_list()), np.int64, rows.height)
    counts = rows["n"].to_numpy().astype(np.float64)
    np.add.at(all_errors, units, counts)
    inside = cols >= 0
    np.add.at(x, (units[inside], cols[inside]), counts[inside])
    np.maximum.at(rest, units[~inside], counts[~inside])
    return UnitCounts(x, rest, all_errors)
