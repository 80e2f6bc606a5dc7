"""Time-uniform confidence sequences by inverting WoR e-processes over a fixed grid (PURE).

For a share ``r_e = T_e / T_all`` (stats note §5 Q2) each grid value r is the
null ``sum_b (X_{b,e} - r A_b) = 0``, tested both ways (bets up and down).
A value is rejected once either side's wealth crosses ``2 * family / delta``;
the interval is the hull of the values never rejected, widened by one grid
step. The same construction on ``A_b - kappa / B`` over a geometric grid of
``kappa`` bounds the total of all 5xx lines. Grids are fixed before any data
(a grid chosen from the data would break validity). When every unit has been
read the caller reports exact values instead.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from logagent.evidence.eprocess import WorState, rejected, start_chunked, update
from logagent.evidence.matrix import F64

SHARE_GRID = np.linspace(0.005, 0.995, 100)
CHUNK_UNITS = 1024


def total_grid(population: int, bound: float, points: int = 160) -> F64:
    """Geometric grid of totals from 1 to B*M (about 12 % steps for 10 GB inputs)."""
    return np.geomspace(1.0, max(population * bound, 2.0), points)


@dataclass(frozen=True)
class GridCS:
    """Both-sided e-processes for every grid value, in one state of 2 x len(values) rows:
    the first half bets the draws go up, the second half that they go down."""

    values: F64
    both: WorState


def begin(values: F64, pilot_target: F64, pilot_weight: F64, *, scale: float) -> GridCS:
    """Start after a pilot; draws are ``target - value * weight / scale`` per grid value."""

    def chunks() -> Iterator[F64]:  # never one grid x pilot matrix (eprocess.start_chunked)
        for lo in range(0, len(pilot_target), CHUNK_UNITS):
            d = _draws(
                values,
                pilot_target[lo : lo + CHUNK_UNITS],
                pilot_weight[lo : lo + CHUNK_UNITS],
                scale,
            )
            yield np.concatenate([d, -d])

    return GridCS(values, start_chunked(chunks(), 2 * len(values)))


def observe(
    cs: GridCS,
    target: F64,
    weight: F64,
    *,
    scale: float,
    population: int,
    bound: float,
    weight_max: float,
    threshold: float | None = None,
) -> GridCS:
    """Bet on new units (reading order).

    With ``threshold`` (the one ``interval`` will be asked with), values already
    rejected at it are not bet on any further: a crossing counts forever, so the
    interval is the same, and the work shrinks with the sequence.

    ``target`` lies in ``[0, bound]`` and ``weight`` in ``[0, weight_max]``
    (a share: X <= A <= M; a total: weight 1, scale B), so with ``reach = v
    weight_max / scale``, ``W = target - v weight / scale`` lies in ``[-reach,
    bound - reach]`` and ``-W`` in ``[-(bound - reach), reach]``. These ranges
    (§5: caps ``c/(mu + rM)`` and ``c/((1-r)M - mu)``) allow far larger bets
    than the symmetric ``[-M, M]``.
    """
    reach = cs.values * weight_max / scale  # the most W can fall below 0
    lower = np.concatenate([reach, bound - reach])  # W >= -reach; -W >= -(bound - reach)
    upper = np.concatenate([bound - reach, reach])
    both = cs.both
    n = len(cs.values)
    for lo in range(0, len(target), CHUNK_UNITS):
        live = np.arange(n) if threshold is None else _alive(both, n, threshold)
        if len(live) == 0:  # every value is rejected for good: nothing left to bet on
            break
        rows = np.concatenate([live, live + n])
        tgt, wgt = target[lo : lo + CHUNK_UNITS], weight[lo : lo + CHUNK_UNITS]
        d = _draws(cs.values[live], tgt, wgt, scale)
        sub = update(
            _rows(both, rows),
            np.concatenate([d, -d]),
            population=population,
            bound=upper[rows],
            lower=lower[rows],
        )
        both = _put(both, rows, sub) if len(rows) < 2 * n else sub
    return GridCS(cs.values, both)


def _alive(both: WorState, n: int, threshold: float) -> npt.NDArray[np.intp]:
    """Grid values neither of whose sides has crossed ``threshold`` (a crossing is forever)."""
    hit = rejected(both, threshold)
    return np.flatnonzero(~(hit[:n] | hit[n:]))


def _rows(state: WorState, rows: npt.NDArray[np.intp]) -> WorState:
    """The e-processes of ``rows`` alone."""
    return WorState(
        state.t,
        state.total[rows],
        state.mean[rows],
        state.m2[rows],
        state.log_e[rows],
        state.max_log_e[rows],
    )


def _put(state: WorState, rows: npt.NDArray[np.intp], sub: WorState) -> WorState:
    """``state`` with ``rows`` replaced by ``sub`` (the other rows keep their last values:
    they were rejected, and only that is read of them)."""
    out = WorState(
        sub.t,
        state.total.copy(),
        state.mean.copy(),
        state.m2.copy(),
        state.log_e.copy(),
        state.max_log_e.copy(),
    )
    for name in ("total", "mean", "m2", "log_e", "max_log_e"):
        getattr(out, name)[rows] = getattr(sub, name)
    return out


def interval(cs: GridCS, threshold: float) -> tuple[float, float] | None:
    """Hull of the grid values not rejected, widened by one grid step; None if all are rejected."""
    hit = rejected(cs.both, threshold)
    alive = ~(hit[: len(cs.values)] | hit[len(cs.values) :])
    idx = np.flatnonzero(alive)
    if len(idx) == 0:
        return None
    lo, hi = int(idx[0]), int(idx[-1])
    low = cs.values[lo - 1] if lo > 0 else 0.0
    high = cs.values[hi + 1] if hi + 1 < len(cs.values) else float("inf")
    return float(low), float(high)


def _draws(values: F64, target: F64, weight: F64, scale: float) -> F64:
    return np.ascontiguousarray(target[None, :] - values[:, None] * weight[None, :] / scale)
