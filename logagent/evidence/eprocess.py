"""The one-sided without-replacement betting e-process (stats note §3) (PURE, numpy).

Population ``d_1..d_B`` in ``[-M, M]``, drawn in a uniformly random order
without replacement. ``H0: sum(d) <= 0``. Under the boundary null the next
draw has conditional mean ``mu_t = -S_{t-1} / (B - t + 1)``; the bet is
aGRAPA (from the running mean and variance of earlier draws) truncated at
``c / (M + mu_t)``. The wealth is a nonnegative supermartingale under H0, so
``P(exists t: E_t >= 1/alpha) <= alpha`` (Ville) however often it is looked at.

Many e-processes (rows) are updated at once over a batch of draws (columns).
Within a batch the aGRAPA part of the bet uses only the draws before the
batch (still predictable); ``mu_t`` and the cap vary per draw via cumsum.
Once ``S_{t-1} > (B-t+1) M`` the null is impossible and the wealth is infinite;
at ``t = B`` every false null has been rejected: the test is exact.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

F64 = npt.NDArray[np.float64]
TRUNCATION = 0.9


@dataclass(frozen=True)
class WorState:
    """State of ``rows`` e-processes after ``t`` draws (pilot included)."""

    t: int
    total: F64  # sum of draws so far, per row
    mean: F64  # running mean of draws (for the bet)
    m2: F64  # running sum of squared deviations (for the bet's variance)
    log_e: F64  # log wealth since the (re)start
    max_log_e: F64  # running maximum of log wealth: a crossing counts forever (Ville)

    @property
    def rows(self) -> int:
        """Number of e-processes."""
        return int(self.total.shape[0])


def start(pilot: F64) -> WorState:
    """E-processes at wealth 1 after a pilot (rows x draws); the pilot counts in the null."""
    t = int(pilot.shape[1])
    total = pilot.sum(axis=1)
    mean = total / t if t else np.zeros(pilot.shape[0])
    m2 = ((pilot - mean[:, None]) ** 2).sum(axis=1)
    zeros = np.zeros(pilot.shape[0])
    return WorState(t, total, mean, m2, zeros.copy(), zeros.copy())


def start_chunked(chunks: Iterable[F64], rows: int) -> WorState:
    """``start`` of a pilot given as column chunks (rows x n_i each, in reading order).

    The moments of the chunks are merged (Chan et al., as a batch is merged in
    ``update``), so a pilot of 10^5-10^6 units (small units) never becomes one
    rows x units matrix: a 100-value grid over 300k units was 480 MB at once.
    """
    state = start(np.zeros((rows, 0)))
    for chunk in chunks:
        part = start(chunk)
        t, mean, m2 = _merged(state, part.t, part.mean, part.m2)
        state = replace(state, t=t, total=state.total + part.total, mean=mean, m2=m2)
    return state


def _merged(state: WorState, n: int, b_mean: F64, b_m2: F64) -> tuple[int, F64, F64]:
    """Running (t, mean, m2) after ``n`` more draws of mean ``b_mean`` and ``m2`` ``b_m2``."""
    t = state.t + n
    if t == 0:
        return 0, state.mean, state.m2
    delta = b_mean - state.mean
    mean = state.mean + delta * n / t
    m2 = state.m2 + b_m2 + delta**2 * state.t * n / t
    return t, mean, m2


def update(
    state: WorState,
    draws: F64,
    *,
    population: int,
    bound: float | F64,
    lower: float | F64 | None = None,
) -> WorState:
    """Bet on each new draw (rows x n, in reading order); ``population`` is B.

    Draws lie in ``[-lower, bound]`` (``lower`` defaults to ``bound``: the
    symmetric ``[-M, M]`` of §3); either may be one value per row. The cap
    ``c / (lower + mu)`` keeps every factor above ``1 - c``; a tighter
    ``lower`` (a share's ``W = X - rA >= -rM``, §5) allows larger bets.
    """
    n = int(draws.shape[1])
    if n == 0:
        return state
    low = _column(bound if lower is None else lower)
    high = _column(bound)
    t = state.t + 1 + np.arange(n)
    # In place: these arrays are rows x n, and each pass over them (and each fresh
    # temporary) costs; the values are those of the formulas, bit for bit
    # (``tests/unit/test_eprocess_inplace.py``).
    seen = np.cumsum(draws, axis=1)  # S_t - S_0 (the draws up to and including t)
    seen += state.total[:, None]  # S_t
    mu = np.subtract(seen, draws)  # S_{t-1}
    mu /= -(population - t + 1)  # mu_t = -S_{t-1} / (B - t + 1)
    var = state.m2 / np.maximum(state.t, 1)
    lam = np.subtract(state.mean[:, None], mu)  # the gap, then the bet
    mask = lam > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        den = np.multiply(lam, lam)
        den += var[:, None]
        np.divide(lam, den, out=lam, where=mask)  # aGRAPA where the gap is > 0 ...
        np.copyto(lam, 0.0, where=~mask)  # ... else no bet
        cap = np.add(mu, low, out=den)  # ``den`` is not used again
        np.divide(TRUNCATION, cap, out=cap)
    np.maximum(cap, 0.0, out=cap)  # a cap <= 0 (mu below -low: see ``impossible``) bets nothing
    np.minimum(lam, cap, out=lam)
    np.copyto(lam, 0.0, where=np.greater(mu, high, out=mask))
    steps = np.subtract(draws, mu, out=cap)  # ``cap`` is not used again
    steps *= lam
    np.log1p(steps, out=steps)
    # S_t: the B - t draws left (each >= -lower) cannot cancel it
    impossible = np.less(mu, -low, out=mask).any(axis=1)
    most = np.multiply(population - t, low, out=mu)  # ``mu`` is not used again
    impossible |= np.greater(seen, most, out=mask).any(axis=1)
    running = np.cumsum(steps, axis=1, out=steps)
    running += state.log_e[:, None]
    log_e = np.where(impossible, np.inf, running[:, -1])
    peak = np.where(impossible, np.inf, np.maximum(state.max_log_e, running.max(axis=1)))
    return _with_moments(state, draws, log_e=log_e, max_log_e=peak, scratch=seen)


def _column(value: float | F64) -> F64 | float:
    """A per-row bound as a column, so it broadcasts over the draws of a batch."""
    if isinstance(value, np.ndarray):
        column: F64 = np.asarray(value, dtype=np.float64)[:, None]
        return column
    return float(value)


def _with_moments(
    state: WorState, draws: F64, *, log_e: F64, max_log_e: F64, scratch: F64 | None = None
) -> WorState:
    """Merge the batch into the running mean and variance (Chan et al.); ``scratch``: an
    array of the draws' shape that may be overwritten."""
    n = draws.shape[1]
    b_mean = draws.mean(axis=1)
    dev = np.subtract(draws, b_mean[:, None], out=scratch)
    dev **= 2
    b_m2 = dev.sum(axis=1)
    t, mean, m2 = _merged(state, n, b_mean, b_m2)
    return replace(
        state,
        t=t,
        total=state.total + draws.sum(axis=1),
        mean=mean,
        m2=m2,
        log_e=log_e,
        max_log_e=max_log_e,
    )


def rejected(state: WorState, threshold: float) -> npt.NDArray[np.bool_]:
    """Rows whose wealth has ever reached ``threshold`` (= 1/alpha)."""
    return np.asarray(state.max_log_e >= np.log(threshold))
