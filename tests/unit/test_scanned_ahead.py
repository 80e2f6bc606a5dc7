"""A read of everything scans batches ahead in the reader thread, except batches of short
lines, whose scans (~40 bytes a line) would outweigh the batches themselves
(``engine.fullread.scanned_ahead``)."""

from __future__ import annotations

from types import SimpleNamespace

from logagent.engine.fullread import AHEAD_BYTES_PER_LINE, scanned_ahead


class _Pool:
    def __init__(self) -> None:
        self.scanned: list[object] = []

    def scan(self, batch: object) -> str:
        self.scanned.append(batch)
        return f"lines of {batch.size}"  # type: ignore[attr-defined]


def test_only_batches_of_long_enough_lines_are_scanned_ahead() -> None:
    per_line = AHEAD_BYTES_PER_LINE
    typical = SimpleNamespace(size=200 * 1000, lines=1000)  # access log lines: ~200 B
    blank = SimpleNamespace(size=2 * 1000, lines=1000)  # blank or tiny lines
    edge = SimpleNamespace(size=per_line * 10, lines=10)
    below = SimpleNamespace(size=per_line * 10 - 1, lines=10)
    empty = SimpleNamespace(size=0, lines=0)
    pool = _Pool()
    out = list(scanned_ahead(iter([typical, blank, edge, below, empty]), pool))  # type: ignore[arg-type]
    assert [b for b, _ in out] == [typical, blank, edge, below, empty]  # every batch, in order
    assert [s for _, s in out] == [
        f"lines of {typical.size}",
        None,  # scanned by the pool when added, in the main thread
        f"lines of {edge.size}",
        None,
        "lines of 0",
    ]
    assert pool.scanned == [typical, edge, empty]
