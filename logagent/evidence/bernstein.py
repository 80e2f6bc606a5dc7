"""Time-uniform intervals on population totals by a WoR empirical-Bernstein sequence (PURE, numpy).

The predictable plug-in empirical-Bernstein confidence sequence for sampling
without replacement (Waudby-Smith & Ramdas 2020, Theorem 3). Population
``x_1..x_N`` in ``[0, M]`` (rescaled to ``y = x / M`` in ``[0, 1]``), drawn in a
uniformly random order. Under the true mean ``mu`` the ``t``-th draw has
conditional mean ``(N mu - S_{t-1}) / (N - t + 1)``, and

    prod_t exp(lam_t (y_t - E[y_t | past]) - v_t psi(lam_t)),
    v_t = 4 (y_t - muhat_{t-1})^2,  psi(l) = (-log(1 - l) - l) / 4,

is a nonnegative supermartingale for any predictable ``lam_t`` in ``[0, 1)``
(Fan et al.'s inequality with a predictable centre; Howard et al. 2021), both
for ``y`` and for ``1 - y``. Ville's inequality on each side at ``alpha / 2``
gives, at every ``t`` at once,

    mu in [(num_t - margin_t) / den_t, (num_t + margin_t) / den_t]
    num_t = sum lam_i (y_i + S_{i-1} / (N - i + 1)),  den_t = sum lam_i N / (N - i + 1),
    margin_t = log(2 / alpha) + sum v_i psi(lam_i),

so the running intersection over ``t`` is valid at any stopping time; it is
met with the sure bounds ``[S_t, S_t + (N - t)]`` (in units of M), exact at
``t = N``. Unlike a normal approximation this holds however bursty the units
are. A closed form over cumulative sums: one pass per row, rows at once.
Used where the betting e-processes over a grid (``intervals``) would cost
hundreds of rows per interval: the timeline needs one interval per bucket.
"""

from __future__ import annotations

import numpy as np

from logagent.evidence.matrix import F64, I64

#: The largest bet, in [0, 1): WSR suggest 1/2 or 3/4; larger bets narrow sparse rows.
MAX_BET = 0.75
#: Rows x draws computed at once: each of the ~20 temporaries is then 512 KiB and stays in the
#: CPU cache (the 10 GB top-1 timeline, 96 buckets x 6,469 draws: 2**18 cells took 65-75 ms,
#: 2**16 27 ms, 2**14 31 ms, the same intervals).
CHUNK_CELLS = 1 << 16
#: Beyond this many draws the sequence runs over blocks of consecutive draws (``blocked``).
MAX_DRAWS = 8192


def total_intervals(draws: F64, *, population: int, bound: float, alpha: float) -> tuple[F64, F64]:
    """(low, high) of each row's population total, at level ``alpha`` per row, at any stop.

    ``draws`` is rows x t: each row's values of the ``t`` units read, in reading
    order, each in ``[0, bound]``; ``population`` is N, the units in all.
    """
    row, col = np.nonzero(draws)
    return sparse_total_intervals(
        (row, col, draws[row, col]),
        shape=draws.shape,
        population=population,
        bound=bound,
        alpha=alpha,
    )


def sparse_total_intervals(
    cells: tuple[I64, I64, F64],
    *,
    shape: tuple[int, int],
    population: int,
    bound: float,
    alpha: float,
) -> tuple[F64, F64]:
    """``total_intervals`` of the rows x t matrix whose nonzero cells are (row, column, value):
    each chunk of rows is made dense only while it is computed."""
    row, col, value = cells
    rows, t = shape
    seen = np.bincount(row, weights=value, minlength=rows).astype(np.float64)
    if t >= population:
        return seen.copy(), seen.copy()
    sure_high = seen + (population - t) * bound
    if t == 0:
        return np.zeros(rows), sure_high
    row, col, value, t, population, bound, tail = blocked(cells, t, population, bound)
    low, high = np.empty(rows), np.empty(rows)
    step = max(1, CHUNK_CELLS // t)
    by_row = np.argsort(row, kind="stable")  # each chunk's cells are one slice (not a scan)
    row, col, value = row[by_row], col[by_row], value[by_row]
    for lo in range(0, rows, step):
        hi = min(rows, lo + step)
        a, b = np.searchsorted(row, [lo, hi])
        dense = np.zeros((hi - lo, t))
        np.add.at(dense, (row[a:b] - lo, col[a:b]), value[a:b] / bound)
        m_low, m_high = _mean_bounds(dense, population, alpha)
        low[lo:hi] = m_low * population * bound
        high[lo:hi] = m_high * population * bound + tail
    return np.maximum(low, seen), np.minimum(np.maximum(high, seen), sure_high)


def blocked(
    cells: tuple[I64, I64, F64], t: int, population: int, bound: float, most: int | None = None
) -> tuple[I64, I64, F64, int, int, float, float]:
    """The draws pooled into blocks of g consecutive ones when there are more than ``most``.

    The cost of the sequence is rows x draws, so a read of 10^5-10^6 tiny units
    would pay seconds for intervals. In a uniformly random order, the blocks of g
    consecutive draws are, whatever their contents, drawn in a uniformly random
    order among the ceil(N / g) blocks of the permutation (all orders of the same
    blocks are equally likely), the blocks' totals sum to the population total,
    and each block holds at most g M. So the same sequence over the complete blocks
    read is valid, at every block count at once, hence at the stop. When g does not
    divide N the last N mod g units of the order form no block: they are never read
    before the end (``t < N``), the sequence is over the N // g complete blocks, and
    the caller adds their most, ``(N mod g) M``, to the upper end. The draws after the
    last complete block read are left to the sure bounds, which use every draw.
    Returns (row, col, value, t, population, bound, tail) of what the sequence runs on.
    """
    most = MAX_DRAWS if most is None else most
    row, col, value = cells
    if t <= most:
        return row, col, value, t, population, bound, 0.0
    g = -(-t // most)
    blocks = t // g
    keep = col < blocks * g
    tail = (population % g) * bound
    return row[keep], col[keep] // g, value[keep], blocks, population // g, bound * g, tail


def _mean_bounds(y: F64, population: int, alpha: float) -> tuple[F64, F64]:
    """Running-intersection bounds of each row's population mean (y in [0, 1]).

    The formulas of the module doc, computed in place in five rows x t buffers:
    a fresh temporary per operation (twenty of them) cost more in page faults
    than the arithmetic (96 buckets x 7,334 draws: 75 against 25 ms). Every value
    is the same, bit for bit, as the formulas written out
    (``tests/unit/test_bernstein_inplace.py``): each operation is the same, in the
    same order, only its output lands in a reused buffer.
    """
    t = np.arange(1, y.shape[1] + 1, dtype=np.float64)
    log_term = np.log(2 / alpha)
    left = population - t + 1  # units not yet read before draw t, itself included
    cum = np.cumsum(y, axis=1)  # S_t
    before = np.subtract(cum, y)  # S_{t-1}
    np.add(0.5, cum, out=cum)
    cum /= t + 1  # muhat_t
    sq = np.subtract(y, cum, out=cum)
    sq *= sq  # (y_t - muhat_t)^2
    lam = np.cumsum(sq, axis=1)
    np.add(0.25, lam, out=lam)
    lam -= sq
    lam /= t  # sigmahat^2_{t-1}, regularized
    lam *= t
    lam *= np.log1p(t)
    np.divide(2 * log_term, lam, out=lam)
    np.sqrt(lam, out=lam)
    np.minimum(lam, MAX_BET, out=lam)  # lam_t
    num = np.divide(before, left, out=sq)
    np.add(y, num, out=num)
    num *= lam
    np.cumsum(num, axis=1, out=num)  # sum lam_i (y_i + S_{i-1} / (N - i + 1))
    den = np.multiply(lam, population / left)
    np.cumsum(den, axis=1, out=den)  # sum lam_i N / (N - i + 1)
    psi = np.negative(lam)
    np.log1p(psi, out=psi)
    np.negative(psi, out=psi)
    psi -= lam
    psi /= 4  # psi(lam_t)
    margin = np.add(0.5, before, out=before)
    margin /= t  # muhat_{t-1}, regularized (muhat_0 = 1/2)
    np.subtract(y, margin, out=margin)
    margin *= margin
    np.multiply(4, margin, out=margin)  # v_t
    margin *= psi
    np.cumsum(margin, axis=1, out=margin)
    np.add(log_term, margin, out=margin)  # log(2 / alpha) + sum v_i psi(lam_i)
    low = np.subtract(num, margin, out=lam)
    low /= den
    high = np.add(num, margin, out=psi)
    high /= den
    return np.clip(np.max(low, axis=1), 0.0, 1.0), np.clip(np.min(high, axis=1), 0.0, 1.0)
