"""Sampled timelines: bucket intervals cover their true totals together, shown by simulation
(bursty units included: the intervals are an anytime-valid WoR empirical-Bernstein sequence)."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from logagent.counters.tally import (
    ROUTE,
    TIMELINE_SCHEMA,
    UNIT,
    UNIT_BUCKETS_SCHEMA,
    N,
    Tally,
)
from logagent.formats.base import BUCKET
from logagent.timeline import bucket_intervals, timeline_answer


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
        hit = np.flatnonzero(counts[order] > 0)
        cells = (bucket_of[order[hit]], hit, counts[order[hit]].astype(np.float64))
        bands = bucket_intervals(
            cells,
            shape=(buckets, read),
            population=units,
            delta=delta,
            bound=float(counts.max()),
        )
        covered += all(bands[b][1] <= truth[b] <= bands[b][2] for b in range(buckets))
    return covered / runs


def test_simultaneous_coverage_of_spread_events() -> None:
    """Events spread over units (as the generator's): 2-30 % read, all 24 buckets are covered
    together in >= 1 - delta of 300 orders, at delta = 0.1 and 0.01."""
    for fraction in (0.02, 0.10, 0.30):
        for delta in (0.1, 0.01):
            assert _coverage(fraction, delta=delta, runs=300) >= 1 - delta


def test_bursts_no_read_unit_caught_still_leave_every_bucket_covered() -> None:
    """1 unit in 200 holding a burst of up to 11 events (where the former normal approximation
    covered all buckets in only 86 % of orders at delta = 0.1): 2-30 % read, all 24 buckets
    are covered together in >= 1 - delta of 300 orders."""
    for fraction in (0.02, 0.10, 0.30):
        assert _coverage(fraction, delta=0.1, runs=300, bursts=100) >= 0.9


def test_one_unread_heavy_unit_is_within_the_upper_end() -> None:
    """A single unit holds all of a bucket's events (M of them) and is not read: the upper end
    still reaches M, so the truth is covered; a unit read leaves the lower end at its count."""
    draws = np.zeros((1, 500))
    ((_, low, high),) = bucket_intervals(
        (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)),
        shape=draws.shape,
        population=1000,
        delta=0.01,
        bound=50.0,
    )
    assert low == 0.0 and high >= 50.0
    ((_, low, high),) = bucket_intervals(
        (np.zeros(1, np.int64), np.zeros(1, np.int64), np.array([50.0])),
        shape=draws.shape,
        population=1000,
        delta=0.01,
        bound=50.0,
    )
    assert low >= 50.0 and high >= 50.0


def test_a_full_read_is_exact_and_an_empty_bucket_is_not_claimed_empty() -> None:
    """Every unit read: the interval is the count itself; no event seen at 1 % read: the upper
    end still leaves room for events."""
    two = (np.zeros(2, np.int64), np.array([0, 1]), np.array([3.0, 4.0]))
    full = bucket_intervals(two, shape=(1, 100), population=100, delta=0.01)
    assert full[0] == (7.0, 7.0, 7.0)
    none = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0))
    sparse = bucket_intervals(none, shape=(1, 100), population=10_000, delta=0.01)
    assert sparse[0][1] == 0.0 and sparse[0][2] > 300


def test_a_sampled_timeline_spans_the_input_s_range_not_only_the_buckets_seen() -> None:
    """Events seen only in hour 1 of an input spanning hours 0-2: a sampled timeline shows all
    three hours, the unseen ones with an interval from 0 that leaves room for events; an exact
    timeline shows the three hours too, the two without events at 0 (it had shown the hour of
    its events only: a log of May 17 to 20 drawn from May 18, "spread over the whole range")."""
    tally = Tally(
        timeline=pl.DataFrame({BUCKET: [3600], ROUTE: ["/a"], N: [2]}, schema=TIMELINE_SCHEMA),
        unit_buckets=pl.DataFrame({UNIT: [7], BUCKET: [3600], N: [2]}, schema=UNIT_BUCKETS_SCHEMA),
        units=10,
    )
    order = np.random.default_rng(0).permutation(100)
    order = np.concatenate([[7], order[order != 7]])  # unit 7 was read first
    line = timeline_answer(
        tally, ["/a"], 3600, exact=False, population=100, order=order, span=(0, 7200), bound=5
    )
    assert line is not None and [b.start[11:16] for b in line.buckets] == [
        "00:00",
        "01:00",
        "02:00",
    ]
    first, seen, last = line.buckets
    assert last.total == 0 and last.estimate == 0
    assert seen.total == 2 and seen.low is not None and seen.low >= 2
    assert first.total == 0 and first.low == 0 and first.high is not None and first.high > 5
    exact = timeline_answer(tally, ["/a"], 3600, exact=True, span=(0, 7200))
    assert exact is not None and [(b.start[11:16], b.total) for b in exact.buckets] == [
        ("00:00", 0),
        ("01:00", 2),
        ("02:00", 0),
    ]
    assert all(b.low is None for b in exact.buckets)  # exact: no interval
    alone = timeline_answer(tally, ["/a"], 3600, exact=True)  # no span known: its events'
    assert alone is not None and [b.start[11:16] for b in alone.buckets] == ["01:00"]


def test_chunked_sparse_intervals_equal_one_dense_pass(monkeypatch: Any) -> None:
    """Cells in any order, cut into chunks of rows: the same intervals as one dense pass."""
    from logagent.evidence import bernstein

    rng = np.random.default_rng(3)
    rows, t, population = 37, 400, 5000
    dense = rng.poisson(0.3, size=(rows, t)) * (rng.random((rows, t)) < 0.2)
    row, col = np.nonzero(dense)
    shuffle = rng.permutation(len(row))  # the timeline's cells come in no row order
    cells = (row[shuffle], col[shuffle], dense[row, col][shuffle].astype(np.float64))
    args = {"shape": (rows, t), "population": population, "bound": 8.0, "alpha": 0.01}
    whole = bernstein.sparse_total_intervals(cells, **args)
    monkeypatch.setattr(bernstein, "CHUNK_CELLS", 3 * t)  # 3 rows per chunk
    chunked = bernstein.sparse_total_intervals(cells, **args)
    assert np.array_equal(whole[0], chunked[0]) and np.array_equal(whole[1], chunked[1])
    assert (whole[0] < whole[1]).any()  # intervals, not points


def test_pooled_blocks_of_draws_still_cover_together(monkeypatch: Any) -> None:
    """Past MAX_DRAWS the sequence runs over blocks of consecutive draws (g of them, the
    population 20,000 not a multiple of g): every bucket is still covered together in
    >= 1 - delta of 300 orders, bursts included, from 2 % to 30 % read."""
    from logagent.evidence import bernstein

    monkeypatch.setattr(bernstein, "MAX_DRAWS", 37)  # 400-6,000 draws: blocks of 11-163
    for fraction in (0.02, 0.10, 0.30):
        assert _coverage(fraction, delta=0.1, runs=300) >= 0.9
        assert _coverage(fraction, delta=0.1, runs=300, bursts=100) >= 0.9


def test_pooled_blocks_cost_little_width(monkeypatch: Any) -> None:
    """Blocks of 5 draws (2,000 blocks): intervals at most 1.3x as wide as the sequence over
    single draws (what pooling buys: rows x blocks, not rows x draws). Fewer blocks widen
    faster (200 blocks: ~9x), hence MAX_DRAWS in the thousands."""
    from logagent.evidence import bernstein

    rng = np.random.default_rng(11)
    units, read = 50_000, 10_000
    counts = rng.poisson(0.2, size=units)
    order = rng.permutation(units)[:read]
    hit = np.flatnonzero(counts[order] > 0)
    cells = (np.zeros(len(hit), np.int64), hit, counts[order[hit]].astype(np.float64))
    args: dict[str, Any] = {"shape": (1, read), "population": units, "bound": 6.0, "alpha": 0.01}
    monkeypatch.setattr(bernstein, "MAX_DRAWS", 1 << 20)
    single = bernstein.sparse_total_intervals(cells, **args)
    monkeypatch.setattr(bernstein, "MAX_DRAWS", 2000)
    pooled = bernstein.sparse_total_intervals(cells, **args)
    truth = counts.sum()
    assert pooled[0][0] <= truth <= pooled[1][0]
    width_single, width_pooled = single[1][0] - single[0][0], pooled[1][0] - pooled[0][0]
    assert width_single < width_pooled <= 1.3 * width_single


def test_a_timeline_years_long_in_minute_buckets_is_drawn_in_wider_ones() -> None:
    """The width is chosen from the format sample's stamps; two records two years apart in a
    sample that spanned less had the timeline drawn in 1.2 M one-minute buckets (45 s for an
    82-byte log). Past ``MAX_DRAWN_BUCKETS`` they are merged into a wider width, a multiple of
    the one asked, with every count kept; a sampled run's intervals are made per wide bucket."""
    from logagent.timeline import MAX_DRAWN_BUCKETS

    two_years = 2 * 365 * 86400
    tally = Tally(
        timeline=pl.DataFrame(
            {BUCKET: [0, 60, two_years], ROUTE: ["/a", "/b", "/a"], N: [2, 1, 3]},
            schema=TIMELINE_SCHEMA,
        ),
        unit_buckets=pl.DataFrame(
            {UNIT: [0, 0, 1], BUCKET: [0, 60, two_years], N: [2, 1, 3]},
            schema=UNIT_BUCKETS_SCHEMA,
        ),
        units=2,
    )
    exact = timeline_answer(tally, ["/a", "/b"], 60, exact=True)
    assert exact is not None and len(exact.buckets) <= MAX_DRAWN_BUCKETS
    assert exact.bucket_s % 60 == 0 and exact.bucket_s >= two_years // 100
    assert sum(b.total for b in exact.buckets) == 6
    assert exact.buckets[0].counts == {"/a": 2, "/b": 1} and exact.buckets[-1].counts["/a"] == 3
    order = np.arange(10)
    sampled = timeline_answer(
        tally, ["/a"], 60, exact=False, population=10, order=order, span=(0, two_years), bound=5
    )
    assert sampled is not None and len(sampled.buckets) <= MAX_DRAWN_BUCKETS
    assert sampled.buckets[0].low is not None and sampled.buckets[0].low >= 3  # 2 + 1 merged
    short = timeline_answer(
        tally.__class__(timeline=tally.timeline.head(2)), ["/a"], 60, exact=True
    )
    assert short is not None and short.bucket_s == 60 and len(short.buckets) == 2  # as asked
