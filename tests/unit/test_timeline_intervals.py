"""Sampled timelines: bucket intervals cover their true totals together, shown by simulation."""

from __future__ import annotations

import numpy as np

from logagent.timeline import bucket_intervals


def _population(rng: np.random.Generator, units: int, buckets: int, bursts: int) -> np.ndarray:
    """Per-unit events of a time-ordered log: unit b lies in bucket b*J/B; a steady low rate,
    a late incident (the last bucket holds 20x the rate), and ``bursts`` units of 1-11 more."""
    rate = np.full(units, 0.05)
    rate[-units // buckets :] *= 20
    counts = rng.poisson(rate)
    burst = rng.choice(units, size=bursts, replace=False)
    counts[burst] += rng.integers(1, 12, size=bursts)
    return counts


def _coverage(fraction: float, delta: float, runs: int, bursts: int = 0) -> float:
    rng = np.random.default_rng(7)
    units, buckets = 20_000, 24
    counts = _population(rng, units, buckets, bursts)
    bucket_of = np.arange(units) * buckets // units
    truth = np.bincount(bucket_of, weights=counts, minlength=buckets)
    read = int(units * fraction)
    covered = 0
    for seed in range(runs):
        order = np.random.default_rng(seed).permutation(units)[:read]
        per: dict[int, list[int]] = {b: [] for b in range(buckets)}
        for u in order[counts[order] > 0]:
            per[int(bucket_of[u])].append(int(counts[u]))
        bands = bucket_intervals(
            per, read=read, population=units, delta=delta, bound=float(counts.max())
        )
        covered += all(bands[b][1] <= truth[b] <= bands[b][2] for b in range(buckets))
    return covered / runs


def test_simultaneous_coverage_of_spread_events() -> None:
    """Events spread over units (as the generator's): 2-30 % read, all 24 buckets are covered
    together in >= 1 - delta of 300 orders, at delta = 0.1 and 0.01."""
    for fraction in (0.02, 0.10, 0.30):
        for delta in (0.1, 0.01):
            assert _coverage(fraction, delta=delta, runs=300) >= 1 - delta


def test_bursts_no_read_unit_caught_lower_the_coverage_it_is_an_approximation() -> None:
    """The known limit: with 1 unit in 200 holding a burst of up to 11 events, 10 % read covered
    all buckets in 86 % of orders at delta = 0.1 when measured (the result labels the method an
    approximation; an anytime-valid per-bucket sequence is the exact remedy). Not worse."""
    assert _coverage(0.10, delta=0.1, runs=300, bursts=100) >= 0.8


def test_a_full_read_is_exact_and_an_empty_bucket_is_not_claimed_empty() -> None:
    """Every unit read: the interval is the count itself; no event seen at 1 % read: the upper
    end still leaves room for events (the Poisson part)."""
    full = bucket_intervals({0: [3, 4]}, read=100, population=100, delta=0.01)
    assert full[0] == (7.0, 7.0, 7.0)
    sparse = bucket_intervals({0: []}, read=100, population=10_000, delta=0.01)
    assert sparse[0][1] == 0.0 and sparse[0][2] > 300
