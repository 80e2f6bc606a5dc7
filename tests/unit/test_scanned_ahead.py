"""A read of everything scans batches ahead in the reader thread, except batches of short
lines whose scans keep about every line (~40 bytes a line): they would outweigh the batches
themselves (``engine.fullread.scanned_ahead``)."""

from __future__ import annotations

from types import SimpleNamespace

from logagent.engine.fullread import AHEAD_BYTES_PER_LINE, scanned_ahead


class _Pool:
    def __init__(self, kept: dict[int, int] | None = None) -> None:
        self.scanned: list[object] = []
        self.kept = kept  # selective: lines a scan keeps, by batch size

    @property
    def selective(self) -> bool:
        return self.kept is not None

    def scan(self, batch: object) -> object:
        self.scanned.append(batch)
        if self.kept is None:
            return f"lines of {batch.size}"  # type: ignore[attr-defined]
        kept = [""] * self.kept[batch.size]  # type: ignore[attr-defined]
        return SimpleNamespace(text=kept, lines=batch.lines)  # type: ignore[attr-defined]


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
