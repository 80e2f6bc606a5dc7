"""A keyed pseudorandom permutation of [0, n), evaluated for a range of ranks (PURE, numpy).

The early-stop read needs a uniformly random reading order of B units (stats
note §2), and with units of tens of bytes B reaches 10^8: a materialized
permutation (8 bytes a unit) would cost more memory than the whole run may
use. Instead the unit at rank r is ``P(r)``, computed on demand: a balanced
Feistel network over ``2h >= ceil(log2 n)`` bits (8 rounds, round keys
derived from the seed by splitmix64) is a bijection of [0, 4^h); cycle-walking
(apply it again while the value is >= n) restricts it to a bijection of
[0, n). Evaluating a slice of ranks costs O(len) vectorized work and no
memory proportional to n.

The e-processes' validity rests on the order being uniform over
permutations; like any seeded generator this is pseudorandom, and the tests
check by simulation that the rank of each unit and the order of each pair are
uniform over seeds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]
ROUNDS = 8
_MASK64 = (1 << 64) - 1


def _splitmix(x: int) -> int:
    """One step of splitmix64 on a Python int (round keys)."""
    x = (x + 0x9E3779B97F4A7C15) & _MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x ^ (x >> 31)


def _mix(x: U64, key: np.uint64) -> U64:
    """A 64-bit mixing function of ``x`` under ``key`` (the Feistel round function)."""
    z = x ^ key
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    out: U64 = z ^ (z >> np.uint64(31))
    return out


@dataclass(frozen=True)
class KeyedPermutation:
    """A bijection of [0, n) chosen by ``seed``; ``perm[lo:hi]`` gives the units at those ranks."""

    n: int
    seed: int

    @property
    def half_bits(self) -> int:
        """h: the network permutes 2h-bit values, 4^h >= n."""
        bits = max(1, (self.n - 1).bit_length())
        return (bits + 1) // 2

    def _keys(self) -> list[np.uint64]:
        state = _splitmix(self.seed & _MASK64)
        keys = []
        for _ in range(ROUNDS):
            state = _splitmix(state)
            keys.append(np.uint64(state))
        return keys

    def _network(self, x: U64, keys: list[np.uint64]) -> U64:
        h = np.uint64(self.half_bits)
        mask = np.uint64((1 << self.half_bits) - 1)
        left, right = x >> h, x & mask
        for key in keys:
            left, right = right, left ^ (_mix(right, key) & mask)
        out: U64 = (left << h) | right
        return out

    def at(self, ranks: I64) -> I64:
        """The units at these ranks of the reading order."""
        if self.n <= 1:
            return np.zeros(len(ranks), dtype=np.int64)
        keys = self._keys()
        with np.errstate(over="ignore"):  # the mixer multiplies modulo 2^64 on purpose
            x = self._network(np.asarray(ranks, dtype=np.uint64), keys)
            out = x >= np.uint64(self.n)
            while out.any():  # cycle-walking: fewer than 4 steps on average (4^h < 4n)
                x[out] = self._network(x[out], keys)
                out[out] = x[out] >= np.uint64(self.n)
        return x.astype(np.int64)

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, index: slice) -> I64:
        lo, hi, step = index.indices(self.n)
        return self.at(np.arange(lo, hi, step, dtype=np.int64))
