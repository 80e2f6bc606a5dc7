"""Read the planned units in batches (EDGE: reads sources).

:func:`iter_seekable_batches` reads the units of the seekable inputs (planned
by ``batches.plan_units``) in a given order: a batch is the next slice of that
order (``batches.batch_bounds``), read with positional reads and joined into
one buffer (``batches.make_batch``) so extraction runs once per batch; a run
of neighbouring units is framed in one pass, units from anywhere are gathered
in file order (``sources.gather``), and with a prescan (``sources.prescan``)
a run keeps only its candidate lines. :func:`iter_stream_batches` reads a
stream forwards in batches of whole units, numbered as they are met.
"""

from __future__ import annotations

import functools
import re
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np

from logagent.sources.batches import I64, Batch, UnitPlan, batch_bounds, make_batch
from logagent.sources.buffers import POOL
from logagent.sources.files import ReadStopped, Source
from logagent.sources.framing import TAIL_SLACK, Piece, first_line_start, iter_pieces
from logagent.sources.gather import UnitSource, gather_units
from logagent.sources.locate import is_utf8
from logagent.sources.permute import Ordering
from logagent.sources.prescan import Found, Prescan, scan_range
from logagent.sources.records import as_records, iter_record_unit_pieces

if TYPE_CHECKING:
    from logagent.sources.scanworkers import ScanWorkers


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
