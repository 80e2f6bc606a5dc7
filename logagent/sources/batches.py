"""Plan units over the inputs, and the batches they are read in (no I/O: see ``readers``).

Seekable inputs are planned up front as units of ``unit_size`` bytes with one
global numbering (source after source). They are read either in file order or
in a seeded uniformly random permutation of all units; a batch is the next
``batch_units`` units of that order (``batch_bounds``), whose lines are joined
into one buffer (``make_batch``) so extraction runs once per batch. Streams
follow in batches of the same byte size; their units are numbered as they are
met. The reads themselves (positional for units, forwards for streams) are
``sources.readers``; a batch's buffer comes from the process's pool
(``buffers.POOL``).

With ``record_start`` (application formats with multi-line records) a unit
holds whole records instead of lines: see ``sources.records``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from logagent.sources.buffers import POOL
from logagent.sources.framing import Buffer, Piece
from logagent.sources.locate import count_newlines, is_utf8

MIN_UNIT = 4 << 10
MAX_UNIT = 1 << 20
TARGET_UNITS = 1 << 20

I64 = npt.NDArray[np.int64]


def choose_unit_size(total_bytes: int) -> int:
    """Unit size (stats note §10): about 2^20 units, a power of two in [4 KiB, 1 MiB]."""
    want = max(total_bytes, 1) / TARGET_UNITS
    size = 1 << max(0, math.ceil(math.log2(want))) if want > 1 else 1
    return int(min(MAX_UNIT, max(MIN_UNIT, size)))


@dataclass(frozen=True, slots=True)
class UnitPlan:
    """Global unit numbering over the seekable sources."""

    unit_size: int
    bases: tuple[int, ...]
    counts: tuple[int, ...]

    @property
    def total_units(self) -> int:
        """Units over all seekable sources."""
        return sum(self.counts)


def plan_units(sizes: Sequence[int], unit_size: int) -> UnitPlan:
    """Number the units of each seekable source, source after source."""
    counts = tuple(math.ceil(s / unit_size) for s in sizes)
    bases = tuple(int(x) for x in np.concatenate([[0], np.cumsum(counts)[:-1]])) if counts else ()
    return UnitPlan(unit_size, bases, counts)


def unit_ranges(
    plan: UnitPlan, batch_units: int, most_units: int | None = None
) -> Iterator[tuple[int, int]]:
    """The ``[lo, hi)`` ranges of at most ``batch_units`` units that cover ``plan`` in order,
    none across two sources; ``most_units``: only the first that many units."""
    end = plan.total_units if most_units is None else min(most_units, plan.total_units)
    for base, count in zip(plan.bases, plan.counts, strict=True):
        for lo in range(base, min(base + count, end), batch_units):
            yield lo, min(lo + batch_units, base + count, end)


@dataclass(frozen=True, slots=True)
class Batch:
    """Lines of several units in one buffer, with what is needed to place each line in its unit.

    The lines are ``data[:size]`` (``data`` may run past ``size``: see
    ``Piece``). The line starting at buffer position ``p`` inside piece ``k``
    starts at source byte ``piece_offset[k] + p - piece_pos[k]`` and so lies in
    unit ``piece_base[k] + that // unit_size``.
    """

    data: Buffer
    size: int
    piece_pos: I64
    piece_offset: I64
    piece_base: I64
    unit_size: int
    units: I64
    bytes_read: int
    lines_truncated: int
    #: The line count (``lines``), None until it is counted: a scan that finds every newline
    #: anyway gives it (``know_lines``) instead of a second pass over the batch.
    newlines: int | None
    lines_skipped: int = 0
    utf8: bool | None = None  # whether data[:size] is valid UTF-8 (None: not checked)
    #: Read by a prescan (``sources.prescan``): only the candidate lines (raw bytes, each with
    #: its start position), and ``data`` is empty; ``lines`` still counts every line.
    found: tuple[list[bytes], I64] | None = None

    @property
    def lines(self) -> int:
        """The lines of ``data[:size]`` (its newlines), counted at the first asking."""
        if self.newlines is None:
            self.know_lines(count_newlines(self.data, self.size, utf8=self.utf8))
        assert self.newlines is not None
        return self.newlines

    def know_lines(self, count: int) -> None:
        """The line count, found by the caller (``len(line_ends(...))``): kept, not counted."""
        object.__setattr__(self, "newlines", count)  # a cache: the batch stays as it was read

    def units_of(self, positions: I64) -> I64:
        """Global unit index of the lines starting at these buffer positions."""
        k = np.searchsorted(self.piece_pos, positions, side="right") - 1
        offsets = self.piece_offset[k] + positions - self.piece_pos[k]
        out: I64 = self.piece_base[k] + offsets // self.unit_size
        return out


def make_batch(
    pieces: list[tuple[Piece, int]], units: I64, *, unit_size: int, bytes_read: int
) -> Batch:
    """Join pieces (each with its source's unit base) into one batch; one piece is not copied."""
    lengths = np.fromiter((p.size for p, _ in pieces), dtype=np.int64, count=len(pieces))
    pos = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    data: Buffer
    if len(pieces) == 1:
        data = pieces[0][0].buf
    else:  # into a reused buffer: a fresh one per batch costs page faults and RSS drift
        data, _ = POOL.join([memoryview(p.buf)[: p.size] for p, _ in pieces])
    size = int(lengths.sum())
    utf8 = is_utf8(data, size)  # once per batch: the scan needs it too
    return Batch(
        data=data,
        size=size,
        newlines=None,  # counted when asked: a scan of every line finds them anyway
        utf8=utf8,
        piece_pos=pos,
        piece_offset=np.fromiter((p.offset for p, _ in pieces), np.int64, len(pieces)),
        piece_base=np.fromiter((b for _, b in pieces), np.int64, len(pieces)),
        unit_size=unit_size,
        units=units,
        bytes_read=bytes_read,
        lines_truncated=sum(p.truncated for p, _ in pieces),
        lines_skipped=sum(p.skipped for p, _ in pieces),
    )


def batch_bounds(
    total: int,
    batch_units: int,
    first: int | None = None,
    *,
    growth: float = 1.0,
    max_units: int | None = None,
    start: int = 0,
    scale: Callable[[], float] | None = None,
) -> Iterator[tuple[int, int]]:
    """Slices of the reading order: an optional first batch (the pilot), then batches.

    With ``growth`` > 1 each batch is that much larger than the one before, up to
    ``max_units``: few decisions on a long run, fine steps at its start.
    ``start``: the first ``start`` positions were read before (a resumed run);
    the schedule goes on from there unchanged. ``scale`` (read before each
    batch) shrinks the batches from then on: Router-Mem's "smaller batches".
    """
    for lo, hi in _bounds(total, batch_units, first, growth, max_units, scale):
        if hi > start:
            yield max(lo, start), hi


def _bounds(
    total: int,
    batch_units: int,
    first: int | None,
    growth: float,
    max_units: int | None,
    scale: Callable[[], float] | None,
) -> Iterator[tuple[int, int]]:
    lo = 0
    if first:
        lo = min(first, total)
        yield 0, lo
    size = float(batch_units)
    cap = max_units or batch_units
    while lo < total:
        factor = scale() if scale is not None else 1.0
        hi = min(lo + max(1, int(size * factor)), total)
        yield lo, hi
        lo, size = hi, min(size * growth, cap)
