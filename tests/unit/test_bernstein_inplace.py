"""``bernstein._mean_bounds`` computes in reused buffers: the same values, bit for bit, as its
formulas written out (the reference below, as the module doc states them)."""

from __future__ import annotations

import numpy as np
import pytest

from logagent.evidence import bernstein


def _reference(y: np.ndarray, population: int, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    t = np.arange(1, y.shape[1] + 1, dtype=np.float64)
    log_term = np.log(2 / alpha)
    cum = np.cumsum(y, axis=1)
    before = cum - y
    mean_before = (0.5 + before) / t
    mean_after = (0.5 + cum) / (t + 1)
    squares = np.cumsum((y - mean_after) ** 2, axis=1)
    var_before = (0.25 + squares - (y - mean_after) ** 2) / t
    lam = np.minimum(np.sqrt(2 * log_term / (var_before * t * np.log1p(t))), bernstein.MAX_BET)
    left = population - t + 1
    num = np.cumsum(lam * (y + before / left), axis=1)
    den = np.cumsum(lam * (population / left), axis=1)
    psi = (-np.log1p(-lam) - lam) / 4
    margin = log_term + np.cumsum(4 * (y - mean_before) ** 2 * psi, axis=1)
    low = np.max((num - margin) / den, axis=1)
    high = np.min((num + margin) / den, axis=1)
    return np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)


@pytest.mark.parametrize("seed", range(8))
def test_in_place_bounds_equal_the_formulas(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(12):
        rows, t = int(rng.integers(1, 12)), int(rng.integers(1, 3000))
        y = np.zeros((rows, t))
        k = int(rng.integers(0, rows * t // 4 + 2))
        y[rng.integers(0, rows, k), rng.integers(0, t, k)] = rng.random(k)
        if rng.random() < 0.2:  # some rows dense, some values at the bounds
            y[0] = rng.choice([0.0, 1.0, 0.5], size=t)
        population = t + int(rng.integers(0, 10**8))
        alpha = float(rng.choice([0.001, 0.01, 0.05, 0.2]))
        got = bernstein._mean_bounds(y, population, alpha)
        want = _reference(y, population, alpha)
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
        assert (got[0] <= got[1]).all()
