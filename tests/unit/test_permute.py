"""The keyed reading order: a bijection for every n, uniform by simulation, never O(n)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from logagent.sources import permute
from logagent.sources.permute import FileOrder, KeyedPermutation, Order, unit_order

PRIMES = [3, 5, 7, 11, 13, 97, 251, 4099, 65_537, 1_000_003]
POWERS = sorted({(1 << k) + d for k in range(1, 21) for d in (-1, 0, 1)})


@pytest.mark.parametrize("n", [1, 2, *PRIMES, *POWERS])
def test_every_rank_maps_to_a_distinct_unit(n: int) -> None:
    for seed in (0, 1, 2**63 - 1):
        units = KeyedPermutation(n, seed)[0:n]
        assert units.dtype == np.int64
        assert np.array_equal(np.sort(units), np.arange(n)), (n, seed)


def test_ranges_agree_with_the_whole_order_and_with_single_ranks() -> None:
    perm = KeyedPermutation(10_007, 5)
    whole = perm[0:10_007]
    rng = np.random.default_rng(0)
    for _ in range(50):
        lo, hi = sorted(rng.integers(0, 10_008, 2).tolist())
        assert np.array_equal(perm[lo:hi], whole[lo:hi])
    ranks = rng.integers(0, 10_007, 500)
    assert np.array_equal(perm.at(ranks), whole[ranks])
    assert len(perm[9_000:20_000]) == 1_007  # a range past the end stops at n, as for arrays
    assert len(perm[5:3]) == 0
    assert np.array_equal(KeyedPermutation(10_007, 5)[0:10_007], whole)  # the seed is the key
    assert not np.array_equal(KeyedPermutation(10_007, 6)[0:10_007], whole)


def test_a_huge_order_costs_only_the_asked_ranks() -> None:
    """10^12 units (64 B units of 64 TB): built and sliced without an O(n) array."""
    n = 10**12
    perm = KeyedPermutation(n, 11)
    units = perm[n - 1000 : n]
    assert len(units) == 1000 and len(set(units.tolist())) == 1000
    assert units.min() >= 0 and units.max() < n
    assert np.array_equal(FileOrder(n)[n - 3 : n], np.arange(n - 3, n))
    with pytest.raises(ValueError):
        perm[0:10:2]
    with pytest.raises(ValueError):
        KeyedPermutation(0, 1)


@pytest.mark.parametrize("n", [8, 13, 97])
def test_each_unit_takes_each_rank_equally_often(n: int) -> None:
    """Over 4,000 keys the rank of every unit is uniform (chi-square per unit, Bonferroni)."""
    seeds = 4000
    counts = np.zeros((n, n))
    for seed in range(seeds):
        counts[np.arange(n), KeyedPermutation(n, seed)[0:n]] += 1  # counts[rank, unit]
    p_values = [stats.chisquare(counts[:, u]).pvalue for u in range(n)]
    assert min(p_values) > 1e-3 / n, min(p_values)


def test_pairs_come_in_either_order_equally_often() -> None:
    """For pairs of units (neighbours, far apart) P(a read before b) = 1/2."""
    n, seeds = 1000, 4000
    pairs = [(0, 1), (1, 2), (0, 999), (499, 500), (10, 900), (998, 999)]
    before = np.zeros(len(pairs))
    for seed in range(seeds):
        rank = np.empty(n, dtype=np.int64)
        rank[KeyedPermutation(n, seed)[0:n]] = np.arange(n)
        before += [rank[a] < rank[b] for a, b in pairs]
    p_values = [stats.binomtest(int(k), seeds, 0.5).pvalue for k in before]
    assert min(p_values) > 1e-3 / len(pairs), (before, p_values)


def test_a_prefix_is_a_sample_without_replacement() -> None:
    """What the e-processes use: the first m units read hold a hypergeometric number of a set."""
    n, m, seeds = 5000, 250, 3000
    marked = np.zeros(n, dtype=bool)
    marked[:100] = True  # a cluster at the start of the file, as an incident would be
    marked[4950:] = True
    hits = np.array([marked[KeyedPermutation(n, s)[0:m]].sum() for s in range(seeds)])
    dist = stats.hypergeom(n, int(marked.sum()), m)
    edges = np.array([0, 3, 4, 5, 6, 7, 8, 9, 11, m + 1])  # bins of expected count >= 5
    observed = np.histogram(hits, bins=edges)[0]
    expected = seeds * np.diff(dist.cdf(edges - 1))
    assert stats.chisquare(observed, expected * observed.sum() / expected.sum()).pvalue > 1e-3


def test_unit_order_keeps_arrays_up_to_the_limit_and_goes_keyed_beyond(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    small = unit_order(1000, Order.RANDOM, 3)
    assert isinstance(small, np.ndarray)
    assert np.array_equal(small, np.random.default_rng(3).permutation(1000))  # as before
    monkeypatch.setattr(permute, "MATERIALIZE_UNITS", 100)
    big = unit_order(1000, Order.RANDOM, 3)
    assert isinstance(big, KeyedPermutation)
    assert np.array_equal(np.sort(big[0:1000]), np.arange(1000))
    seq = unit_order(1000, Order.SEQUENTIAL, 3)
    assert isinstance(seq, FileOrder) and np.array_equal(seq[10:20], np.arange(10, 20))
