"""``eprocess.update`` computes in reused buffers: the same states as its formulas written out
(the reference below is the update before it did), on bets over shares and totals."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from logagent.evidence import eprocess
from logagent.evidence.eprocess import TRUNCATION, WorState, _column, _merged


def _reference(
    state: WorState,
    draws: np.ndarray,
    *,
    population: int,
    bound: float | np.ndarray,
    lower: float | np.ndarray,
) -> WorState:
    low = _column(bound if lower is None else lower)
    high = _column(bound)
    n = draws.shape[1]
    t = state.t + 1 + np.arange(n)
    seen = np.cumsum(draws, axis=1) + state.total[:, None]
    mu = (seen - draws) / -(population - t + 1)
    var = state.m2 / np.maximum(state.t, 1)
    gap = state.mean[:, None] - mu
    with np.errstate(divide="ignore", invalid="ignore"):
        den = gap * gap + var[:, None]
        lam = np.divide(gap, den, out=np.zeros_like(gap), where=gap > 0)
        cap = TRUNCATION / (mu + low)
    cap = np.maximum(cap, 0.0)
    lam = np.minimum(lam, cap)
    lam[mu > high] = 0.0
    running = np.cumsum(np.log1p((draws - mu) * lam), axis=1) + state.log_e[:, None]
    impossible = (mu < -low).any(axis=1) | (seen > (population - t) * low).any(axis=1)
    log_e = np.where(impossible, np.inf, running[:, -1])
    peak = np.where(impossible, np.inf, np.maximum(state.max_log_e, running.max(axis=1)))
    b_mean = draws.mean(axis=1)
    b_m2 = ((draws - b_mean[:, None]) ** 2).sum(axis=1)
    t2, mean, m2 = _merged(state, n, b_mean, b_m2)
    total = state.total + draws.sum(axis=1)
    return replace(state, t=t2, total=total, mean=mean, m2=m2, log_e=log_e, max_log_e=peak)


def _same(a: WorState, b: WorState) -> bool:
    fields = ("total", "mean", "m2", "log_e", "max_log_e")
    return a.t == b.t and all(np.array_equal(getattr(a, f), getattr(b, f)) for f in fields)


@pytest.mark.parametrize("seed", range(6))
def test_in_place_update_equals_the_formulas(seed: int) -> None:
    rng = np.random.default_rng(seed)
    impossible = 0
    for trial in range(60):
        rows, n = int(rng.integers(1, 40)), int(rng.integers(1, 300))
        bound_m = float(rng.choice([1.0, 5.0, 82.0]))
        population = n + 60 + int(rng.integers(0, 5000))
        kind = trial % 3
        if kind == 0:  # dense counts
            x = rng.integers(0, int(bound_m) + 1, (rows, n + 50)).astype(float)
        elif kind == 1:  # sparse counts
            x = rng.poisson(0.3, (rows, n + 50)).clip(0, bound_m).astype(float)
        else:  # rare bursts at the bound
            x = (rng.random((rows, n + 50)) < 0.02) * bound_m
        shift = rng.random((rows, 1)) * bound_m  # the grid values' nulls
        draws = x - shift
        per_row = trial % 2 == 0
        lower: float | np.ndarray = shift[:, 0] if per_row else bound_m
        bound: float | np.ndarray = bound_m - shift[:, 0] if per_row else bound_m
        state = eprocess.start(draws[:, :50])
        for lo, hi in ((50, 50 + n // 2), (50 + n // 2, n + 50)):
            got = eprocess.update(
                state, draws[:, lo:hi], population=population, bound=bound, lower=lower
            )
            if hi == lo:  # no draws: nothing changes
                assert got is state
                continue
            want = _reference(
                state, draws[:, lo:hi], population=population, bound=bound, lower=lower
            )
            assert _same(got, want)
            impossible += int(np.isinf(got.log_e).sum())
            state = got
    assert impossible > 0  # some nulls became impossible: that branch was compared too
