"""Grid confidence sequences for shares: time-uniform coverage and exactness at the end."""

from __future__ import annotations

import numpy as np
import pytest

from logagent.evidence import intervals

GRID = intervals.SHARE_GRID


def share_path(x: np.ndarray, a: np.ndarray, order: np.ndarray, *, pilot: int, batch: int):  # type: ignore[no-untyped-def]
    """Yield the share CS after each batch of the random order."""
    bound = float(a.max())
    cs = intervals.begin(GRID, x[order[:pilot]], a[order[:pilot]], scale=1.0)
    for lo in range(pilot, len(order), batch):
        idx = order[lo : lo + batch]
        cs = intervals.observe(
            cs, x[idx], a[idx], scale=1.0, population=len(x), bound=bound, weight_max=bound
        )
        yield lo + len(idx), cs


def population(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Units with 0-3 errors, about 40 % of them from the route of interest, bursty."""
    rng = np.random.default_rng(seed)
    a = rng.choice([0, 0, 0, 1, 1, 2, 3], size=600).astype(float)
    x = rng.binomial(a.astype(int), 0.4).astype(float)
    x[:30] = a[:30]  # a burst: a few units hold only this route's errors
    return x, a


def test_share_cs_covers_the_truth_at_all_times() -> None:
    """Over seeded orders the truth leaves the interval at some time in at most ~delta of runs."""
    delta, misses = 0.1, 0
    x, a = population(0)
    truth = x.sum() / a.sum()
    for seed in range(100):
        order = np.random.default_rng(seed).permutation(len(x))
        for t, cs in share_path(x, a, order, pilot=30, batch=40):
            if t == len(x):
                break  # at t = B the engine reports the exact value instead (see next test)
            iv = intervals.interval(cs, 2 / delta)
            if iv is None or not iv[0] <= truth <= iv[1]:
                misses += 1
                break
    assert misses <= 20  # P(miss) <= 0.1: 10 expected at most; 20 is far in the tail


def test_interval_shrinks_to_the_true_share_when_everything_is_read() -> None:
    """At t = B every grid value but the truth's neighbours is rejected."""
    x, a = population(1)
    truth = x.sum() / a.sum()
    order = np.random.default_rng(3).permutation(len(x))
    *_, (_, cs) = share_path(x, a, order, pilot=30, batch=100)
    iv = intervals.interval(cs, 2 / 0.05)
    step = GRID[1] - GRID[0]
    assert iv is None or (iv[0] <= truth <= iv[1] and iv[1] - iv[0] <= 3 * step)


def test_intervals_narrow_as_more_is_read() -> None:
    """The interval after half the units is narrower than after the pilot."""
    x, a = population(2)
    order = np.random.default_rng(4).permutation(len(x))
    widths = []
    for t, cs in share_path(x, a, order, pilot=30, batch=30):
        iv = intervals.interval(cs, 2 / 0.05)
        if iv is not None and t in (60, 300):
            widths.append(iv[1] - iv[0])
    assert widths[1] < widths[0]


@pytest.mark.parametrize("seed", range(40))
def test_betting_only_on_values_not_yet_rejected_gives_the_same_interval(seed: int) -> None:
    """observe(threshold=...) skips values already rejected (a crossing is forever): the
    interval equals the one from betting on every value, read at once or in batches."""
    rng = np.random.default_rng(seed)
    pop, bound = int(rng.integers(300, 6000)), float(rng.integers(1, 30))
    n = int(rng.integers(2, pop))
    a = np.minimum(rng.poisson(rng.uniform(0, bound / 2), n), bound).astype(float)
    thr = 2 / 10 ** -rng.uniform(1, 4)
    share = seed % 2 == 0
    grid = intervals.SHARE_GRID if share else intervals.total_grid(pop, bound)
    target = rng.binomial(a.astype(int), rng.uniform(0, 1)).astype(float) if share else a
    weight, scale, wmax = (a, 1.0, bound) if share else (np.ones(n), float(pop), 1.0)
    s0, step = min(n, 50), int(rng.integers(100, 3000))
    every = lazy = intervals.begin(grid, target[:s0], weight[:s0], scale=scale)
    for lo in range(s0, n, step):
        part = slice(lo, lo + step)
        kw = {"scale": scale, "population": pop, "bound": bound, "weight_max": wmax}
        every = intervals.observe(every, target[part], weight[part], **kw)
        lazy = intervals.observe(lazy, target[part], weight[part], threshold=thr, **kw)
    assert intervals.interval(lazy, thr) == intervals.interval(every, thr)
