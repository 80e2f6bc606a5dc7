"""Reading orders of the planned units, evaluated for a range of ranks (PURE).

A random-order read takes its units as ``order[lo:hi]`` for growing ranks; it
never needs the whole order at once. Up to ``MATERIALIZE_UNITS`` units the
order is an array (numpy's seeded ``permutation``: exactly uniform, 32 MiB at
most). Beyond that — 10 GB in 64 B units is 1.7·10^8 units, 1.3 GB as int64 —
it is a **keyed pseudorandom permutation** computed on demand:

* a balanced Feistel network over ``2h`` bits (``2^(2h) >= n``, so the domain
  is under ``4n``) is a bijection of ``[0, 2^(2h))`` whatever its round
  function; the round function is splitmix64's finalizer of the right half
  plus a round key drawn from the seed (``SeedSequence``), ``ROUNDS`` rounds;
* cycle-walking (apply it again while the value is ``>= n``) restricts it to
  a bijection of ``[0, n)``: the cycle through a rank ``< n`` comes back under
  ``n``, after fewer than 4 steps on average.

The e-processes assume units in a uniformly random order without replacement
(stats note §2). A keyed Feistel network with this many rounds is a
pseudorandom permutation: no test short of breaking it tells its orders from
uniform ones; ``tests/unit/test_permute.py`` checks that it is a bijection for
many ``n`` and, by simulation over seeds, that each unit's rank and the order
of pairs are uniform. File order beyond ``MATERIALIZE_UNITS`` is an ``arange``
of the asked ranks, for the same reason (no O(units) array on a full read).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

import numpy as np
import numpy.typing as npt

I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]

#: At most this many units are kept as an array (int64: 32 MiB).
MATERIALIZE_UNITS = 1 << 22
ROUNDS = 8
_MIX1, _MIX2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)


class Order(StrEnum):
    """In which order units are read."""

    SEQUENTIAL = "sequential"
    RANDOM = "random"


class Ordering(Protocol):
    """What a reader needs of an order: its length and any range of it (``order[lo:hi]``)."""

    def __len__(self) -> int: ...

    def __getitem__(self, index: slice, /) -> I64: ...


#: A checkpoint's order name for a keyed permutation however many units (a main phase).
KEYED = "keyed"


def unit_order(total_units: int, order: Order, seed: int) -> Ordering:
    """The reading order of all planned units: file order or a seeded permutation."""
    if order is Order.SEQUENTIAL:
        if total_units <= MATERIALIZE_UNITS:
            return np.arange(total_units, dtype=np.int64)
        return FileOrder(total_units)
    if total_units <= MATERIALIZE_UNITS:
        return np.random.default_rng(seed).permutation(total_units).astype(np.int64)
    return KeyedPermutation(total_units, seed)


def _bounds(index: slice, n: int) -> tuple[int, int]:
    lo, hi, step = index.indices(n)
    if step != 1:
        raise ValueError("a reading order is sliced in steps of 1")
    return lo, max(lo, hi)


@dataclass(frozen=True)
class FileOrder:
    """Units ``0 .. n-1`` in file order, made for the asked ranks only."""

    n: int

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, index: slice, /) -> I64:
        lo, hi = _bounds(index, self.n)
        return np.arange(lo, hi, dtype=np.int64)


@dataclass(frozen=True)
class KeyedPermutation:
    """A seeded bijection of ``[0, n)``: Feistel network plus cycle-walking (module doc)."""

    n: int
    seed: int
    rounds: int = ROUNDS
    half_bits: int = field(init=False)
    keys: tuple[int, ...] = field(init=False)

    def __post_init__(self) -> None:
        if self.n < 1:
            raise ValueError("a permutation of no units")
        bits = max(2, (self.n - 1).bit_length())
        object.__setattr__(self, "half_bits", (bits + 1) // 2)
        state = np.random.SeedSequence(self.seed).generate_state(self.rounds, dtype=np.uint64)
        object.__setattr__(self, "keys", tuple(int(k) for k in state))

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, index: slice, /) -> I64:
        lo, hi = _bounds(index, self.n)
        return self.at(np.arange(lo, hi, dtype=np.int64))

    def at(self, ranks: I64) -> I64:
        """The units at these ranks (each in ``[0, n)``)."""
        out = self._encrypt(ranks.astype(np.uint64))
        outside = np.flatnonzero(out >= self.n)
        while len(outside):  # cycle-walking: each walk ends under n (module doc)
            out[outside] = self._encrypt(out[outside])
            outside = outside[out[outside] >= self.n]
        return out.astype(np.int64)

    def _encrypt(self, x: U64) -> U64:
        h = np.uint64(self.half_bits)
        mask = np.uint64((1 << self.half_bits) - 1)
        left, right = x >> h, x & mask
        z = np.empty_like(right)
        for key in self.keys:  # in place: a few passes over the ranks per round
            np.add(right, np.uint64(key), out=z)
            _mix(z)
            z &= mask
            z ^= left
            left, right, z = right, z, left
        left <<= h
        left |= right
        return left


def _mix(z: U64) -> None:
    """splitmix64's finalizer of ``z``, in place (wrapping uint64 arithmetic)."""
    z ^= z >> np.uint64(30)
    z *= _MIX1
    z ^= z >> np.uint64(27)
    z *= _MIX2
    z ^= z >> np.uint64(31)
