"""The units a read of everything has counted (``fullread.Counted``): kept as ranges in file
order, so a read in tiny units holds no array of every unit; the same units either way."""

from __future__ import annotations

import numpy as np

from logagent.engine.fullread import Counted


def test_neighbouring_batches_are_one_range_and_the_same_units() -> None:
    c = Counted(None)
    batches = [np.arange(lo, lo + 1000, dtype=np.int64) for lo in range(0, 100_000, 1000)]
    for b in batches:
        c.add(b)
    c.flushed()
    assert c._groups == [(0, 100_000)]
    assert np.array_equal(c.units(), np.concatenate(batches))


def test_random_batches_pending_ones_and_a_resumed_skip_are_kept_as_given() -> None:
    done = np.array([7, 3, 9], dtype=np.int64)
    c = Counted(done)
    shuffled = np.array([42, 11, 12], dtype=np.int64)
    c.add(shuffled)  # not neighbours in file order: an array
    c.add(np.arange(20, 25, dtype=np.int64))
    assert c.units().tolist() == [7, 3, 9]  # pending ones are not counted yet
    c.flushed()
    assert c.units().tolist() == [7, 3, 9, 42, 11, 12, 20, 21, 22, 23, 24]
    c.add(np.array([30, 32, 31], dtype=np.int64))  # spans 3 but is not in order
    c.flushed()
    assert c.units().tolist()[-3:] == [30, 32, 31]
    assert c.skip is done
