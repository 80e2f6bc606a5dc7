"""The WoR betting e-process: validity under the null, exactness at the end, pinned values."""

from __future__ import annotations

import numpy as np
import pytest

from logagent.evidence.eprocess import rejected, start, update


def run_order(pop: np.ndarray, order: np.ndarray, *, bound: float, pilot: int, batch: int):  # type: ignore[no-untyped-def]
    draws = pop[order][None, :].astype(float)
    state = start(draws[:, :pilot])
    for i in range(pilot, len(order), batch):
        state = update(state, draws[:, i : i + batch], population=len(pop), bound=bound)
    return state


def test_mean_wealth_stays_near_one_under_the_boundary_null() -> None:
    """Under sum(d) = 0 the wealth is a (super)martingale: its mean over random orders is <= ~1."""
    rng = np.random.default_rng(0)
    pop = rng.integers(-3, 4, size=400).astype(float)
    pop -= pop.mean()  # boundary null: total exactly 0
    finals, crossings = [], 0
    for seed in range(400):
        order = np.random.default_rng(seed).permutation(len(pop))
        state = run_order(pop, order[:200], bound=4, pilot=20, batch=15)
        finals.append(np.exp(state.log_e[0]))
        crossings += int(rejected(state, 1 / 0.05)[0])
    assert np.mean(finals) < 1.25  # E[E_t] <= 1; sampling noise over 400 runs
    assert crossings <= 40  # P(ever >= 20) <= 0.05: 20 expected at most, 40 is far out


def test_exact_at_the_end_of_the_population() -> None:
    """Reading every draw rejects any false null with certainty."""
    pop = np.array([1.0, 0, 0, 2, 0, 1, 0, 0, 3, 0])  # total 7 > 0: H0 false
    order = np.random.default_rng(1).permutation(len(pop))
    state = run_order(pop, order, bound=3, pilot=2, batch=3)
    assert np.isinf(state.max_log_e[0])


def test_impossible_null_rejects_at_once() -> None:
    """When the draws so far exceed what the rest could cancel, wealth is infinite."""
    pop = np.array([5.0] * 6 + [0.0] * 4)  # after 6 draws of 5, the rest (4 x >= -5) cannot cancel
    state = run_order(pop, np.arange(10), bound=5, pilot=2, batch=5)
    assert np.isinf(state.max_log_e[0])


def test_true_null_is_not_rejected_at_the_end() -> None:
    """A true null (total < 0) is never rejected, even reading everything."""
    pop = np.array([-1.0, 0, 1, -2, 0, 0, 1, -1, 0, 0])
    for seed in range(50):
        order = np.random.default_rng(seed).permutation(len(pop))
        state = run_order(pop, order, bound=2, pilot=2, batch=2)
        assert not rejected(state, 100)[0]


def test_batched_equals_one_by_one_except_for_the_bets_refresh() -> None:
    """Batch size changes only how often the bet's moments refresh; totals and t agree."""
    pop = np.arange(-10, 10, dtype=float)
    order = np.random.default_rng(2).permutation(len(pop))
    a = run_order(pop, order, bound=10, pilot=4, batch=1)
    b = run_order(pop, order, bound=10, pilot=4, batch=7)
    assert a.t == b.t == len(pop) and a.total[0] == b.total[0]
    assert a.mean[0] == pytest.approx(b.mean[0]) and a.m2[0] == pytest.approx(b.m2[0])


def reference_log_wealth(draws: list[float], *, population: int, bound: float, pilot: int) -> float:
    """Independent scalar transcription of stats note §3 (one draw at a time, no numpy)."""
    total = sum(draws[:pilot])
    mean = total / pilot
    m2 = sum((d - mean) ** 2 for d in draws[:pilot])
    log_e, t = 0.0, pilot
    import math

    for d in draws[pilot:]:
        t += 1
        mu = -total / (population - t + 1)
        if mu < -bound:
            return math.inf
        var = m2 / (t - 1)
        g = mean - mu
        lam = (
            0.0
            if mu > bound
            else min(max(0.0, g / (var + g * g)) if g > 0 else 0.0, 0.9 / (bound + mu))
        )
        log_e += math.log1p(lam * (d - mu))
        total += d
        new_mean = mean + (d - mean) / t
        m2 += (d - mean) * (d - new_mean)
        mean = new_mean
    return log_e


def test_pinned_against_an_independent_scalar_computation() -> None:
    """With batch size 1 the vectorized code equals a scalar transcription of §3 (and a pin)."""
    rng = np.random.default_rng(3)
    pop = rng.integers(-2, 4, size=60).astype(float)  # total 17 > 0: H0 false
    order = rng.permutation(len(pop))[:30]  # half the population: wealth still finite
    state = run_order(pop, order, bound=5, pilot=5, batch=1)
    ref = reference_log_wealth(list(pop[order]), population=len(pop), bound=5, pilot=5)
    assert state.log_e[0] == pytest.approx(ref, rel=1e-12)
    assert ref == pytest.approx(PINNED_LOG_WEALTH, rel=1e-9)


PINNED_LOG_WEALTH = -0.5376755954039636  # scalar reference output, frozen (regression pin)


def test_a_lead_smaller_than_m_is_decided_after_the_last_draw() -> None:
    """S_B > 0 rejects H0 at t = B even when S_{B-1} <= M (the check after each draw)."""
    pop = np.array([1.0] + [0.0] * 9)
    for seed in range(5):
        order = np.random.default_rng(seed).permutation(len(pop))
        state = run_order(pop, order, bound=5, pilot=2, batch=8)
        assert np.isinf(state.max_log_e[0])


def test_one_sided_range_keeps_the_null_mean_and_bets_more() -> None:
    """Draws in [-L, M] with L << M: a supermartingale under the null, and larger bets otherwise."""
    rng = np.random.default_rng(5)
    base = np.where(rng.random(300) < 0.1, 2.0, -0.1)  # like X - rA: rarely up, a little down
    null = base - base.mean()  # boundary null: total 0, in [-0.21, 1.9]
    finals = []
    for seed in range(300):
        draws = null[np.random.default_rng(seed).permutation(len(null))][None, :]
        state = start(draws[:, :20])
        for i in range(20, 150, 13):
            state = update(state, draws[:, i : i + 13], population=300, bound=30.0, lower=0.25)
        finals.append(np.exp(state.log_e[0]))
    assert np.mean(finals) < 1.25
    draws = base[np.random.default_rng(0).permutation(len(base))][None, :]  # total > 0: H0 false
    tight, loose = start(draws[:, :20]), start(draws[:, :20])
    for i in range(20, 250, 10):
        chunk = draws[:, i : i + 10]
        tight = update(tight, chunk, population=300, bound=30.0, lower=0.25)
        loose = update(loose, chunk, population=300, bound=30.0)
    assert tight.log_e[0] > loose.log_e[0] > 0


def test_a_pilot_in_chunks_starts_as_the_whole_pilot() -> None:
    """``start_chunked`` merges the chunks' moments: the state of ``start`` on the whole."""
    from logagent.evidence.eprocess import start_chunked

    rng = np.random.default_rng(8)
    for rows, t in [(3, 0), (1, 1), (5, 7), (40, 5000)]:
        pilot = rng.poisson(2.0, size=(rows, t)) - rng.poisson(2.0, size=(rows, t)) * 0.7
        whole = start(pilot)
        for size in (1, 3, 1024):
            chunks = (pilot[:, lo : lo + size] for lo in range(0, t, size))
            parts = start_chunked(chunks, rows)
            assert parts.t == whole.t == t
            for name in ("total", "mean", "m2", "log_e", "max_log_e"):
                got, want = getattr(parts, name), getattr(whole, name)
                assert np.allclose(got, want, rtol=1e-9, atol=1e-9), (rows, t, size, name)
