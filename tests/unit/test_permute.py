"""The keyed permutation of the reading order: a bijection, uniform over seeds."""

from __future__ import annotations

import numpy as np
import pytest

from logagent.sources.permute import KeyedPermutation

SIZES = [1, 2, 3, 5, 7, 31, 32, 33, 63, 64, 65, 97, 127, 128, 129, 1009, 4095, 4096, 4097, 65537]


@pytest.mark.parametrize("n", SIZES)
def test_is_a_bijection(n: int) -> None:
    """Every unit appears exactly once among the ranks 0..n-1, for many n and seeds."""
    for seed in (0, 1, 2**63 - 1):
        units = KeyedPermutation(n, seed)[0:n]
        assert np.array_equal(np.sort(units), np.arange(n))


def test_slices_agree_with_the_whole() -> None:
    """A slice of ranks gives the same units as the same ranks of the whole order."""
    perm = KeyedPermutation(10_007, 42)
    whole = perm[0 : len(perm)]
    assert np.array_equal(perm[123:4567], whole[123:4567])
    assert np.array_equal(perm.at(np.array([5, 0, 9999])), whole[[5, 0, 9999]])


def test_seeds_give_different_orders() -> None:
    """Different seeds give different orders; the same seed the same one."""
    a, b = KeyedPermutation(1000, 1)[0:1000], KeyedPermutation(1000, 2)[0:1000]
    assert not np.array_equal(a, b)
    assert np.array_equal(a, KeyedPermutation(1000, 1)[0:1000])


def test_rank_of_each_unit_is_uniform() -> None:
    """Over 4,000 seeds the rank of each of 10 units is uniform (chi-square, p > 1e-4)."""
    n, seeds = 10, 4000
    counts = np.zeros((n, n))
    for seed in range(seeds):
        counts[np.arange(n), KeyedPermutation(n, seed)[0:n]] += 1
    expected = seeds / n
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < 160  # 81 degrees of freedom: P(chi2 > 160) ~ 1e-6


def test_order_of_pairs_is_fair() -> None:
    """Over 4,000 seeds each pair of 12 units comes in either order about half the time."""
    n, seeds = 12, 4000
    before = np.zeros((n, n))
    for seed in range(seeds):
        rank = np.empty(n, dtype=np.int64)
        rank[KeyedPermutation(n, seed)[0:n]] = np.arange(n)
        before += rank[:, None] < rank[None, :]
    share = before[np.triu_indices(n, 1)] / seeds
    assert np.abs(share - 0.5).max() < 5 * 0.5 / np.sqrt(seeds)  # 5 sigma over 66 pairs


def test_no_memory_proportional_to_n() -> None:
    """A slice of a 10^12-unit order is computed without touching the rest of it."""
    units = KeyedPermutation(10**12, 7)[10**11 : 10**11 + 1000]
    assert len(np.unique(units)) == 1000 and units.max() < 10**12
