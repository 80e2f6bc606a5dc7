"""A read of everything scans batches ahead in the reader thread, except batches of short
lines whose scans keep about every line (~40 bytes a line): they would outweigh the batches
themselves (``engine.fullread.scanned_ahead``)."""

from __future__ import annotations

import tracemalloc
from types import SimpleNamespace

import numpy as np

from logagent.engine.fullread import AHEAD_BYTES_PER_LINE, scanned_ahead
from logagent.formats.batchlines import line_ends, line_ends_at_most


class _Pool:
    def __init__(self, kept: dict[int, int] | None = None) -> None:
        self.scanned: list[object] = []
        self.ends: list[object] = []  # the newline positions each scan was handed
        self.kept = kept  # selective: lines a scan keeps, by batch size

    @property
    def selective(self) -> bool:
        return self.kept is not None

    def scan(self, batch: object, ends: object = None) -> object:
        self.scanned.append(batch)
        self.ends.append(ends)
        if self.kept is None:
            return f"lines of {batch.size}"  # type: ignore[attr-defined]
        kept = [""] * self.kept[batch.size]  # type: ignore[attr-defined]
        return SimpleNamespace(text=kept, lines=batch.lines)  # type: ignore[attr-defined]


def _batch(lines: list[bytes], *, counted: bool = False) -> SimpleNamespace:
    """A batch of these lines, its line count known only if ``counted`` (no ``lines``
    attribute otherwise: a test fails if the code counts them apart from its scan)."""
    data = b"".join(lines)
    batch = SimpleNamespace(data=data, size=len(data), newlines=len(lines) if counted else None)
    if counted:
        batch.lines = len(lines)
    return batch


def test_only_batches_of_long_enough_lines_are_scanned_ahead() -> None:
    per_line = AHEAD_BYTES_PER_LINE
    line = b"x" * (per_line - 1) + b"\n"  # exactly AHEAD_BYTES_PER_LINE bytes
    typical = _batch([b"x" * 199 + b"\n"] * 1000)  # access log lines: ~200 B
    blank = _batch([b"x\n"] * 1000)  # blank or tiny lines
    edge = _batch([line] * 10)
    below = _batch([line] * 9 + [line[1:]])  # one byte short of AHEAD_BYTES_PER_LINE a line
    empty = _batch([])
    counted_typical = _batch([b"x" * 199 + b"\n"] * 1000, counted=True)
    counted_blank = _batch([b"x\n"] * 1000, counted=True)
    batches = [typical, blank, edge, below, empty, counted_typical, counted_blank]
    pool = _Pool()
    out = list(scanned_ahead(iter(batches), pool))  # type: ignore[arg-type]
    assert [b for b, _ in out] == batches  # every batch, in order
    assert [s for _, s in out] == [
        f"lines of {typical.size}",
        None,  # scanned by the pool when added, in the main thread
        f"lines of {edge.size}",
        None,
        "lines of 0",
        f"lines of {counted_typical.size}",
        None,
    ]
    assert pool.scanned == [typical, edge, empty, counted_typical]
    # each scan is handed the newline search that decided, counted batch or not (not
    # searched again)
    for batch, ends in zip(pool.scanned, pool.ends, strict=True):
        assert isinstance(ends, np.ndarray)
        want = np.flatnonzero(np.frombuffer(batch.data, dtype=np.uint8) == 10)
        assert np.array_equal(ends, want)


def test_a_newline_search_stops_past_the_most_asked() -> None:
    data = b"ab\n" * 5 + b"c" * (3 << 20) + b"\n" * 3  # over one search step, newlines at both ends
    every = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
    assert np.array_equal(line_ends_at_most(data, len(data), len(every)), every)
    assert line_ends_at_most(data, len(data), len(every) - 1) is None
    assert line_ends_at_most(data, 10, 5) is not None and line_ends_at_most(data, 10, 2) is None
    assert np.array_equal(line_ends(data, len(data)), every)


def test_a_stopped_newline_search_held_no_position() -> None:
    """The read ahead's test must not hold what it guards against: the positions of a
    batch of blank lines (8 bytes each, 8 times the batch) are counted, never placed."""
    blank = b"\n" * (16 << 20)
    tracemalloc.start()
    try:
        assert line_ends_at_most(blank, len(blank), len(blank) // AHEAD_BYTES_PER_LINE) is None
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20  # the 1 MiB scratch; placing one step's positions took 8 MiB more


def test_a_prefiltered_pool_scans_short_lines_ahead_until_a_scan_keeps_many() -> None:
    """Candidates of a prefilter (ERROR lines of a log4j log) are few: short lines are scanned
    ahead, until one scan keeps a line in fewer than AHEAD_BYTES_PER_LINE bytes of its batch."""
    per_line = AHEAD_BYTES_PER_LINE
    short = [SimpleNamespace(size=per_line * (800 + i), lines=1000) for i in range(4)]
    kept = {
        short[0].size: 10,  # 1 % of the lines: scanned ahead
        short[1].size: short[1].size // per_line,  # just few enough: still ahead
        short[2].size: short[2].size // per_line + 1,  # too many: this one is held ...
        short[3].size: 0,  # ... and the pool scans the rest itself
    }
    pool = _Pool(kept)
    out = list(scanned_ahead(iter(short), pool))  # type: ignore[arg-type]
    assert [b for b, _ in out] == short
    assert [s is not None for _, s in out] == [True, True, True, False]
    assert pool.scanned == short[:3]
    assert pool.ends == [None] * 3  # a prefilter's scan finds its own lines
