"""Read-ahead thread: order, errors and early stop."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from logagent.sources.prefetch import iter_prefetched


def test_items_arrive_in_order() -> None:
    """Every item arrives once, in the producer's order."""
    assert list(iter_prefetched(iter(range(100)), depth=3)) == list(range(100))


def test_producer_error_reaches_the_consumer_after_earlier_items() -> None:
    """An exception in the producer is raised in the consumer, after the items before it."""

    def items() -> Iterator[int]:
        yield 1
        raise OSError("disk gone")

    got = []
    with pytest.raises(OSError, match="disk gone"):
        for x in iter_prefetched(items()):
            got.append(x)
    assert got == [1]


def test_stopping_early_ends_the_thread() -> None:
    """Breaking out of the loop stops the reader thread instead of leaving it blocked."""
    before = threading.active_count()
    for x in iter_prefetched(iter(range(10**6)), depth=1):
        if x == 3:
            break
    assert threading.active_count() == before
