"""Batch buffers are reused while a sampled read's batches grow (``buffers.POOL``): a buffer
per new size first-touched 58 MB of fresh pages in a 10 GB top-1 run."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from logagent.engine import tallied
from logagent.sources import buffers
from logagent.sources.batches import Batch, plan_units
from logagent.sources.files import open_source
from logagent.sources.readers import iter_seekable_batches


def _counting_pool(monkeypatch: Any) -> list[int]:
    """A fresh pool for the batches, and the sizes of the buffers it makes."""
    made: list[int] = []
    real = bytearray

    def counted(n: int) -> bytearray:
        made.append(n)
        return real(n)

    pool = buffers.BufferPool()
    monkeypatch.setattr(buffers, "bytearray", counted, raising=False)
    # both modules take their buffers from the pool: make_batch joins, the readers read
    monkeypatch.setattr("logagent.sources.batches.POOL", pool)
    monkeypatch.setattr("logagent.sources.readers.POOL", pool)
    return made


def test_reserve_makes_one_buffer_the_smaller_requests_reuse(monkeypatch: Any) -> None:
    made = _counting_pool(monkeypatch)
    pool = buffers.BufferPool()
    pool.reserve(3 << 20)
    assert made == [3 << 20]
    pool.reserve(2 << 20)  # one as large is there: nothing made
    first = pool.acquire(1 << 20)
    del first
    second = pool.acquire(3 << 20)  # the reserved buffer, free again
    assert made == [3 << 20] and len(second) == 3 << 20


def _batches(tmp_path: Path, seed: int, **schedule: Any) -> Iterator[Batch]:
    """The batches of a 12 MB log read in 4 KiB units in a random order, by ``schedule``."""
    path = tmp_path / "a.log"
    path.write_bytes(b"".join(b"line %06d %s\n" % (i, b"x" * (i % 50)) for i in range(320_000)))
    src = open_source(str(path))
    assert src.size is not None
    plan = plan_units([src.size], 4096)
    order = np.random.default_rng(seed).permutation(plan.total_units).astype(np.int64)
    return iter_seekable_batches([src], plan, order, cap=1 << 20, **schedule)


def test_growing_batches_of_random_units_share_one_buffer(tmp_path: Path, monkeypatch: Any) -> None:
    """A pilot, then batches growing to ``max_units``: the pilot's buffer and one as large as
    the largest batch, however many sizes the batches take, each released before the next."""
    made = _counting_pool(monkeypatch)
    sizes = []
    batches = _batches(tmp_path, 1, batch_units=40, first=30, growth=1.5, max_units=1000)
    for batch in batches:
        sizes.append(len(batch.units))
        del batch
    assert len(set(sizes)) >= 5  # the schedule grew through several sizes
    assert len(made) == 2, made  # the pilot's buffer, then one for the largest batch
    assert max(made) >= 1000 * 4096


def test_the_local_feed_lets_go_of_a_batch_before_reading_the_next(monkeypatch: Any) -> None:
    """``iter_tallied`` holds no batch while the next one is read (its buffer is then free)."""
    held: list[int] = []

    class Batch:
        pass

    def batches() -> Any:
        previous = None
        for _ in range(3):
            if previous is not None:  # 2: this name and getrefcount's argument
                held.append(sys.getrefcount(previous) - 2)
            previous = Batch()
            yield previous

    monkeypatch.setattr(tallied, "tally_one", lambda batch, *a: object())
    list(tallied.iter_tallied(batches(), None, None, lambda: (False, False)))  # type: ignore[arg-type]
    assert held == [0, 0]


@pytest.mark.parametrize("growth, scale", [(1.0, 1.0), (1.5, 0.25)])
def test_no_buffer_reserved_for_batches_that_will_not_grow_to_it(
    tmp_path: Path, monkeypatch: Any, growth: float, scale: float
) -> None:
    """Batches of one size (a read of everything), or made smaller by Router-Mem's "smaller
    batches" step: nothing is reserved, no buffer is larger than a batch needs."""
    made = _counting_pool(monkeypatch)
    needed = []
    batches = _batches(
        tmp_path,
        2,
        batch_units=200,
        first=30,
        growth=growth,
        max_units=1000,
        scale=lambda: scale,
    )
    for batch in batches:
        needed.append(len(batch.units) * 4096)
        del batch
    rounded = -(-max(needed) // buffers.ROUND) * buffers.ROUND
    assert max(made) <= rounded + buffers.ROUND, (made, max(needed))
