"""Plan units over the inputs and read them in batches (EDGE: reads sources).

Seekable inputs are planned up front as units of ``unit_size`` bytes with one
global numbering (source after source). They are read either in file order or
in a seeded uniformly random permutation of all units; a batch is the next
``batch_units`` units of that order, read with positional reads and joined into
one buffer so extraction runs once per batch. Streams follow, read forwards in
batches of the same byte size; their units are numbered as they are met.

With ``record_start`` (application formats with multi-line records) a unit
holds whole records instead of lines: see ``sources.records``.
"""

from __future__ import annotations

import functools
import math
import re
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from logagent.sources.buffers import POOL
from logagent.sources.files import ReadStopped, Source
from logagent.sources.framing import TAIL_SLACK, Buffer, Piece, first_line_start, iter_pieces
from logagent.sources.gather import UnitSource, gather_units
from logagent.sources.locate import count_newlines, is_utf8
from logagent.sources.permute import Ordering
from logagent.sources.prescan import Found, Prescan, scan_range
from logagent.sources.records import as_records, iter_record_unit_pieces

if TYPE_CHECKING:
    from logagent.sources.scanworkers import ScanWorkers

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


def iter_seekable_batches(
    sources: Sequence[Source],
    plan: UnitPlan,
    order: Ordering,
    *,
    batch_units: int,
    cap: int,
    first: int | None = None,
    growth: float = 1.0,
    max_units: int | None = None,
    start: int = 0,
    scale: Callable[[], float] | None = None,
    record_start: re.Pattern[bytes] | None = None,
    prescan: Prescan | None = None,
    prescan_units: int | None = None,
    workers: ScanWorkers | None = None,
) -> Iterator[Batch]:
    """Read the planned units in ``order``: ``first`` units, then batches (see ``batch_bounds``).

    ``record_start`` (``records.compile_start``): units hold whole records.
    ``prescan``: runs of neighbouring units keep only their candidate lines (``Batch.found``),
    in batches of ``prescan_units`` (they hold no lines but those, so they may be larger); a
    run whose candidates are not rare is read as usual, in batches of ``batch_units``. With
    ``workers`` the runs are prescanned in child processes, a few batches ahead.
    """
    read = functools.partial(_read_batch, sources, plan, cap=cap, record_start=record_start)
    if record_start is not None:  # records mode reads whole records: no prescan
        prescan = None
    step = max(batch_units, prescan_units or 0) if prescan is not None else batch_units
    bounds = batch_bounds(
        len(order), step, first, growth=growth, max_units=max_units, start=start, scale=scale
    )
    if prescan is None:
        for i, (lo, hi) in enumerate(bounds):
            if i == 1 and growth > 1 and (scale is None or scale() >= 1):
                _reserve_growing(min(len(order) - lo, max(max_units or 0, batch_units)), plan)
            yield read(order[lo:hi])
        return
    run = functools.partial(
        _prescanned, sources, plan, prescan=prescan, workers=workers, read=read, cap=cap
    )
    pending: deque[Callable[[], list[Batch]]] = deque()
    for lo, hi in bounds:
        pending.append(run(order[lo:hi], batch_units=batch_units))
        while len(pending) > (AHEAD if workers is not None else 0):
            yield from pending.popleft()()
    while pending:
        yield from pending.popleft()()


def _reserve_growing(largest: int, plan: UnitPlan) -> None:
    """The batches of a sampled read grow from here (a pilot, then up to ``largest`` units):
    one buffer as large as the largest, made now, serves them all when each batch is let go
    before the next is read (``buffers.POOL``; a read ahead holds two). A buffer per new size
    touched 58 MB of fresh pages in a 10 GB top-1 run (~1 ms a MB here). Made after the
    pilot, so a run that stops or degrades there makes none; not when Router-Mem made the
    batches smaller (they will not grow to it)."""
    POOL.reserve(largest * plan.unit_size + TAIL_SLACK)


#: Batches prescanned ahead by the workers (two per worker keeps both busy).
AHEAD = 4
#: Seconds between two looks at the stop check while a worker's batch is awaited.
STOP_POLL = 0.05


def _prescanned(
    sources: Sequence[Source],
    plan: UnitPlan,
    units: I64,
    *,
    batch_units: int,
    prescan: Prescan,
    workers: ScanWorkers | None,
    read: Callable[[I64], Batch],
    cap: int,
) -> Callable[[], list[Batch]]:
    """Prescan a run of neighbouring units (in a worker when there are workers); the batches
    when asked: the prescanned one, or the usual ones of ``batch_units`` when it cannot be."""

    def usual() -> list[Batch]:
        return [read(units[i : i + batch_units]) for i in range(0, len(units), batch_units)]

    bases = np.asarray(plan.bases, dtype=np.int64)
    if not (len(units) and np.all(np.diff(units) == 1) and _one_source(bases, units)):
        return usual
    s = int(np.searchsorted(bases, units[0], side="right") - 1)
    src, base = sources[s], plan.bases[s]
    assert src.size is not None
    lo = (int(units[0]) - base) * plan.unit_size
    hi = min((int(units[-1]) - base + 1) * plan.unit_size, src.size)
    first = first_line_start(src.read_at, lo, hi)
    if first is None:
        return usual
    if workers is None:
        found = scan_range(src.read_at, src.read_into, first, hi, cap=cap, prescan=prescan)
        if found is None:
            return usual
        batch = _found_batch(found, units, base, plan.unit_size, hi - lo)
        return lambda: [batch]
    job = workers.submit(s, first, hi)

    def done() -> list[Batch]:
        while not job.ready():  # a signal or a budget must not wait for a child's long line
            job.wait(STOP_POLL)
            if src.stop_check is not None and (stop := src.stop_check()) is not None:
                raise ReadStopped(stop[1], stop[0])
        found = job.get()
        if found is None:  # dense candidates or a read error: read here, the usual way
            return usual()
        return [_found_batch(found, units, base, plan.unit_size, hi - lo)]

    return done


def _read_batch(
    sources: Sequence[Source],
    plan: UnitPlan,
    units: I64,
    *,
    cap: int,
    record_start: re.Pattern[bytes] | None,
) -> Batch:
    """The batch of ``units`` (a run of neighbours is framed in one pass)."""
    bases = np.asarray(plan.bases, dtype=np.int64)
    size = plan.unit_size
    if len(units) > 1 and np.all(np.diff(units) == 1) and _one_source(bases, units):
        return _contiguous_batch(sources, plan, units, cap=cap, record_start=record_start)
    if record_start is None:
        return _gathered_batch(sources, plan, units, cap=cap)
    pieces: list[tuple[Piece, int]] = []
    nbytes = 0
    which = np.searchsorted(bases, units, side="right") - 1
    for u, s in zip(units.tolist(), which.tolist(), strict=True):
        src, base, local = sources[s], plan.bases[s], u - plan.bases[s]
        assert src.size is not None
        nbytes += min(size, src.size - local * size)
        unit_pieces = iter_record_unit_pieces(
            src.read_at, local, size, src.size, cap=cap, start=record_start
        )
        pieces.extend((p, base) for p in unit_pieces)
    return make_batch(pieces, units, unit_size=size, bytes_read=nbytes)


def _gathered_batch(sources: Sequence[Source], plan: UnitPlan, units: I64, *, cap: int) -> Batch:
    """Units from anywhere, gathered in file order into one buffer (``sources.gather``)."""
    bases = np.asarray(plan.bases, dtype=np.int64)
    size = plan.unit_size
    ordered = np.sort(units)
    which = np.searchsorted(bases, ordered, side="right") - 1
    local = ordered - bases[which]
    ends = np.minimum((local + 1) * size, np.asarray([s.size or 0 for s in sources])[which])
    nbytes = int((ends - local * size).sum())
    views = [
        UnitSource(s.read_at, s.read_into, s.size or 0, b)
        for s, b in zip(sources, plan.bases, strict=True)
    ]
    pairs = list(zip(which.tolist(), local.tolist(), strict=True))
    got = gather_units(views, pairs, size, cap=cap, acquire=POOL.acquire)
    utf8 = is_utf8(got.data, got.size)
    return Batch(
        data=got.data,
        size=got.size,
        newlines=None,  # counted when asked, as ``make_batch``'s
        utf8=utf8,
        piece_pos=np.asarray(got.piece_pos, dtype=np.int64),
        piece_offset=np.asarray(got.piece_offset, dtype=np.int64),
        piece_base=np.asarray(got.piece_base, dtype=np.int64),
        unit_size=size,
        units=units,
        bytes_read=nbytes,
        lines_truncated=got.truncated,
    )


def _one_source(bases: I64, units: I64) -> bool:
    first, last = np.searchsorted(bases, units[[0, -1]], side="right")
    return bool(first == last)


def _contiguous_batch(
    sources: Sequence[Source],
    plan: UnitPlan,
    units: I64,
    *,
    cap: int,
    record_start: re.Pattern[bytes] | None = None,
) -> Batch:
    """A run of neighbouring units of one source, framed in one pass."""
    s = int(np.searchsorted(np.asarray(plan.bases), units[0], side="right") - 1)
    src, base = sources[s], plan.bases[s]
    assert src.size is not None
    lo = (int(units[0]) - base) * plan.unit_size
    hi = min((int(units[-1]) - base + 1) * plan.unit_size, src.size)
    pieces: list[tuple[Piece, int]] = []
    start = first_line_start(src.read_at, lo, hi)
    if start is not None:
        chunk = max(hi - start, 1)
        lines = iter_pieces(src.read_at, start, hi, cap=cap, chunk=chunk, read_into=_pooled(src))
        if record_start is not None:
            lines = as_records(
                lines, src.read_at, src.size, head=lo == 0, cap=cap, start=record_start
            )
        pieces = [(p, base) for p in lines]
    return make_batch(pieces, units, unit_size=plan.unit_size, bytes_read=hi - lo)


def _found_batch(found: Found, units: I64, base: int, unit_size: int, nbytes: int) -> Batch:
    """A batch of a prescan's candidate lines (``data`` empty: the lines were not kept)."""
    n = len(found.piece_pos)
    return Batch(
        data=b"",
        size=0,
        newlines=found.lines,
        piece_pos=np.asarray(found.piece_pos, dtype=np.int64),
        piece_offset=np.asarray(found.piece_offset, dtype=np.int64),
        piece_base=np.full(n, base, dtype=np.int64),
        unit_size=unit_size,
        units=units,
        bytes_read=nbytes,
        lines_truncated=found.truncated,
        found=(found.raw, np.asarray(found.starts, dtype=np.int64)),
    )


def _pooled(src: Source) -> Callable[[int, int], tuple[bytearray, int]]:
    """Positional reads of ``src`` into the process's reused buffers."""
    return lambda offset, n: POOL.read(src.read_into, offset, n)


def iter_stream_batches(
    source: Source,
    *,
    unit_size: int,
    first_unit: int,
    batch_bytes: int,
    cap: int,
    record_start: re.Pattern[bytes] | None = None,
) -> Iterator[Batch]:
    """Read a stream forwards in batches of whole units; units numbered from ``first_unit``.

    A batch holds the lines whose first byte lies in ``[lo, hi)``, both multiples
    of ``unit_size``, so no unit is split across batches (with ``record_start``:
    the records starting there, so a batch may end past ``hi``).
    """
    step = max(1, batch_bytes // unit_size) * unit_size
    lo, pos = 0, 0
    while True:
        lo = max(lo, pos - pos % unit_size)  # a very long line may have jumped whole units
        hi = lo + step
        raw = list(iter_pieces(source.read_at, pos, hi, cap=cap, chunk=step))
        if not raw:
            return
        end = raw[-1].offset + raw[-1].span
        if record_start is not None:
            read = source.read_at
            raw = list(as_records(raw, read, None, head=pos == 0, cap=cap, start=record_start))
            end = max([end, *(p.offset + p.span for p in raw)])
        pieces = [(p, first_unit) for p in raw]
        last_unit = (min(end, hi) - 1) // unit_size
        units = np.arange(first_unit + lo // unit_size, first_unit + last_unit + 1, dtype=np.int64)
        yield make_batch(pieces, units, unit_size=unit_size, bytes_read=end - pos)
        lo, pos = hi, end
