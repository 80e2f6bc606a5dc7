"""Reported intervals over blocks of consecutive units (``race.pooled``): still valid, shown by
simulation, and the same as over single units when few units were read."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from logagent.evidence import race
from logagent.evidence.matrix import UnitCounts

KEYS = ("/a", "/b", "/c")


def _population(seed: int, units: int) -> np.ndarray:
    """Per-unit 5xx of three routes (units x 3), with a burst of one route's errors."""
    rng = np.random.default_rng(seed)
    counts = rng.poisson([0.3, 0.1, 0.05], size=(units, 3))
    counts[rng.choice(units, 40, replace=False), 1] += rng.integers(1, 6, size=40)
    return counts


def _estimates(counts: np.ndarray, read: int, seed: int, delta: float) -> list[race.Estimate]:
    units = len(counts)
    order = np.random.default_rng(seed).permutation(units)[:read]
    seen = counts[order].astype(np.float64)

    def history(cands: tuple[str, ...]) -> UnitCounts:
        cols = [KEYS.index(c) for c in cands]
        return UnitCounts(seen[:, cols], np.zeros(read), seen.sum(axis=1))

    plan = race.RacePlan(k=1, delta=delta, population=units, bound=float(counts.sum(1).max()))
    pilot = read // 10
    totals = {k: int(seen[:pilot, i].sum()) for i, k in enumerate(KEYS)}
    state = race.begin(plan, totals, pilot, lambda c: _prefix(history(c), pilot))
    state = race.advance(
        plan,
        state,
        lambda c: _rows(history(c), pilot, read),
        {k: int(seen[:, i].sum()) for i, k in enumerate(KEYS)},
        history,
    )
    return race.estimates(plan, state, list(KEYS), history)


def _prefix(c: UnitCounts, n: int) -> UnitCounts:
    return UnitCounts(c.x[:n], c.rest[:n], c.all_errors[:n])


def _rows(c: UnitCounts, lo: int, hi: int) -> UnitCounts:
    return UnitCounts(c.x[lo:hi], c.rest[lo:hi], c.all_errors[lo:hi])


def test_pooled_intervals_cover_every_route_together(monkeypatch: Any) -> None:
    """Blocks of 17 units (N = 20,000 is no multiple of 17: a tail of 8 units), 25 % read:
    every route's total lies in its interval, all at once, in >= 1 - delta of 200 orders."""
    monkeypatch.setattr(race, "MAX_DRAWS", 300)
    counts = _population(1, 20_000)
    truth = counts.sum(axis=0)
    covered = 0
    for seed in range(200):
        est = _estimates(counts, 5000, seed, delta=0.1)
        covered += all(e.low <= truth[KEYS.index(e.key)] <= e.high for e in est)
    assert covered >= 0.9 * 200


@pytest.mark.parametrize("seed", [0, 1])
def test_few_units_read_are_not_pooled(monkeypatch: Any, seed: int) -> None:
    """Under MAX_DRAWS the intervals are those of single units; blocks give other, valid ones."""
    counts = _population(2, 4000)
    single = _estimates(counts, 1000, seed, delta=0.05)
    monkeypatch.setattr(race, "MAX_DRAWS", 5000)
    assert _estimates(counts, 1000, seed, delta=0.05) == single
    monkeypatch.setattr(race, "MAX_DRAWS", 100)
    blocked = _estimates(counts, 1000, seed, delta=0.05)
    assert blocked != single
    assert all(b.count == s.count for b, s in zip(blocked, single, strict=True))


def test_no_blocks_when_the_last_units_may_have_been_read(monkeypatch: Any) -> None:
    """Reading up to within a block of the end: the tail is not known unread, so no pooling."""
    monkeypatch.setattr(race, "MAX_DRAWS", 100)
    plan = race.RacePlan(k=1, delta=0.1, population=1010, bound=3.0)
    counts = UnitCounts(np.ones((1005, 1)), np.zeros(1005), np.ones(1005))
    state = race.RaceState(units=1005, totals={"/a": 1005}, errors=1005)
    assert race.pooled(plan, state, counts).plan == plan
