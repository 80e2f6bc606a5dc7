"""Is a finite-population share below (or above) a rate? One-sided WoR tests (PURE, numpy).

Two questions of a run have the same shape: are the matching events under
``rate`` of the lines (``--negligible``: "nothing worth reporting"), and are
the records of the format under ``rate`` of the lines (the UNRECOGNIZED_FORMAT
abort). Per unit b, X_b (events, or records) lies in ``[0, M]`` and A_b
(lines) in ``[0, A_max]``. The null ``sum X >= rate * sum A`` is the
one-sided WoR e-process of stats note §3 on ``D = rate * A - X`` (bounded
below by ``-M``, above by ``rate * A_max``), with ``lower = M`` so each
factor stays above ``1 - c``: the cap binds on the most a unit could hide,
which is what makes the bound valid under M. Its rejection at ``1/alpha``
proves the share is under ``rate``, with error at most ``alpha`` however often
it is looked at (Ville). The mirror test on ``-D`` proves the share is above
``rate`` (used to stop checking once a format clearly parses).

The tests start at wealth 1 before the first unit (not after a pilot): the
aGRAPA bet of a batch uses only earlier draws, so the first batch bets at the
cap, which is still predictable. The e-process code is ``eprocess.update``; no
second copy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from logagent.evidence.eprocess import TRUNCATION, WorState, rejected, start, update
from logagent.evidence.matrix import F64

CHUNK_UNITS = 4096  # bounds the (2 x units) temporaries of one update


@dataclass(frozen=True)
class SharePlan:
    """Fixed parameters of one share test."""

    rate: float  # the threshold share of the lines
    alpha: float  # error level of a "below" (and of an "above") claim
    population: int  # B, units in the input
    bound: float  # M: most events (records) one unit can hold
    lines_bound: float  # most lines one unit can hold (a line is at least one byte)


@dataclass(frozen=True)
class ShareState:
    """Both tests after ``units`` units: row 0 tests "below", row 1 "above"."""

    wor: WorState
    events: float  # sum of X over the units read
    lines: float  # sum of A over the units read

    @property
    def units(self) -> int:
        """Units read."""
        return self.wor.t


def begin(plan: SharePlan) -> ShareState:
    """Both tests at wealth 1 before any unit is read."""
    return ShareState(start(np.zeros((2, 0))), 0.0, 0.0)


def observe(plan: SharePlan, state: ShareState, events: F64, lines: F64) -> ShareState:
    """Bet on the units just read (``events``, ``lines``: one value per unit, reading order)."""
    wor = state.wor
    r = plan.rate
    lower = np.array([plan.bound, r * plan.lines_bound])  # D >= -M ; -D >= -rate * A_max
    upper = np.array([r * plan.lines_bound, plan.bound])
    for lo in range(0, len(events), CHUNK_UNITS):
        x, a = events[lo : lo + CHUNK_UNITS], lines[lo : lo + CHUNK_UNITS]
        d = r * a - x
        wor = update(wor, np.vstack([d, -d]), population=plan.population, bound=upper, lower=lower)
    return ShareState(wor, state.events + float(events.sum()), state.lines + float(lines.sum()))


def below(plan: SharePlan, state: ShareState) -> bool:
    """Proved at ``alpha``: the events are under ``rate`` of the lines of the whole input."""
    return bool(rejected(state.wor, 1 / plan.alpha)[0])


def above(plan: SharePlan, state: ShareState) -> bool:
    """Proved at ``alpha``: the events are over ``rate`` of the lines of the whole input."""
    return bool(rejected(state.wor, 1 / plan.alpha)[1])


def log_wealth(state: ShareState) -> float:
    """The largest log-wealth the "below" test has reached (it proves at ``ln(1/alpha)``)."""
    return float(state.wor.max_log_e[0])


def forecast_fraction(plan: SharePlan, state: ShareState) -> float:
    """Stats note §6 for the "below" test: the fraction read when it will prove, if ever.

    ``1 - (1 - f0) exp(-M ln(1/alpha) / (c G))`` with G the full-input margin
    ``rate * lines - events`` extrapolated from the units read. A forecast,
    used only to choose the cheaper method, never to decide; 1 when hopeless.
    """
    t = state.units
    if t == 0:
        return 1.0
    gap = (plan.rate * state.lines - state.events) * plan.population / t
    if gap <= 0:
        return 1.0
    f0 = t / plan.population
    grow = plan.bound * np.log(1 / plan.alpha) / (TRUNCATION * gap)
    return float(min(1.0, 1 - (1 - f0) * np.exp(-grow)))
