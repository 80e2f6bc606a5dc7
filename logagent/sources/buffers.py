"""Reusable read buffers (EDGE: process memory).

A batch is read into a large buffer that lives only until the batch is
parsed. Allocating a fresh 8-16 MiB buffer per batch costs page faults on
every batch, and glibc keeps the freed pages in its arenas, so a long run's
RSS drifts up with no live data growing. Buffers are therefore reused: a
buffer is free again as soon as nothing refers to it any more (the batch,
its Arrow views, the parse pool let go of it), which CPython's reference
count tells exactly. A buffer still in use is never handed out; when none is
free and large enough, a new one is made and replaces a free smaller one (or
joins the pool, up to ``MAX_BUFFERS``), so the pool holds about as many
buffers as are ever in use at once, each as large as the largest batch.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable

#: Buffers kept for reuse; more in use at once are allocated and dropped as usual.
MAX_BUFFERS = 8
#: Capacities are rounded up to this, so batches of slightly different sizes share buffers.
ROUND = 1 << 20

ReadInto = Callable[[int, memoryview], int]


class BufferPool:
    """Large bytearrays handed out for reading and taken back when unreferenced."""

    def __init__(self, keep: int = MAX_BUFFERS) -> None:
        self._bufs: list[bytearray] = []
        self._keep = keep
        self._lock = threading.Lock()

    def acquire(self, n: int) -> bytearray:
        """A buffer of at least ``n`` bytes that nothing else refers to."""
        with self._lock:
            for i in range(len(self._bufs)):
                # 2 references: the list's and getrefcount's argument: nobody else holds it
                if len(self._bufs[i]) >= n and sys.getrefcount(self._bufs[i]) == 2:
                    return self._bufs[i]
            buf = bytearray(-(-n // ROUND) * ROUND)
            for i in range(len(self._bufs)):  # a free buffer too small: the new one replaces it
                if sys.getrefcount(self._bufs[i]) == 2:
                    self._bufs[i] = buf
                    return buf
            if len(self._bufs) < self._keep:  # all in use: one more
                self._bufs.append(buf)
            return buf

    def reserve(self, n: int) -> None:
        """Make sure a buffer of at least ``n`` bytes is in the pool (free, or in use now and
        free later): batches that will grow to ``n`` then reuse it instead of each new size
        making (and first touching) a buffer of its own."""
        with self._lock:
            if any(len(b) >= n for b in self._bufs):
                return
        self.acquire(n)

    def read(self, read_into: ReadInto, offset: int, n: int) -> tuple[bytearray, int]:
        """Read ``n`` bytes at ``offset`` into a free buffer: (buffer, bytes read)."""
        buf = self.acquire(n)
        return buf, read_into(offset, memoryview(buf)[:n])

    def join(self, parts: list[memoryview]) -> tuple[bytearray, int]:
        """The parts one after the other in a free buffer: (buffer, total length)."""
        total = sum(len(p) for p in parts)
        buf = self.acquire(max(total, 1))
        view, pos = memoryview(buf), 0
        for part in parts:
            view[pos : pos + len(part)] = part
            pos += len(part)
        return buf, total


#: The process's pool: batches of every run share it (a buffer in use is never shared).
POOL = BufferPool()
