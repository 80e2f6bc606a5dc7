"""Read many small units at once: sorted, coalesced positional reads, lines placed by numpy (EDGE).

With units of tens or hundreds of bytes a batch holds 10^5 units, and a
Python call per unit (framing each one on its own) would cost more than the
bytes. Here a batch's units are sorted by offset; units closer than
``MERGE_GAP`` are read through as one range (so a dense sample becomes long
sequential reads that keep only the sampled units' lines: the same sample at
disk speed), and each range is one positional read into a reused buffer,
running ``LINE_SLACK`` bytes past its end for the crossing line's newline.
The lines are then found and attributed to units vectorized over the whole
buffer: a line belongs to unit ``offset // S`` of its first byte (stats note
§2), and only lines of sampled units are kept. A range whose crossing line
does not end within the slack, or that holds a line longer than the cap, is
framed by the general per-unit code instead (``framing.iter_unit_pieces``),
so the result is always the same lines as unit-by-unit framing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from logagent.sources.batches import Batch, UnitPlan, batch_bounds
from logagent.sources.files import Source
from logagent.sources.framing import Piece, iter_unit_pieces
from logagent.sources.locate import count_newlines, is_utf8

I64 = npt.NDArray[np.int64]
#: Unread bytes between two sampled units below which one read covers both.
MERGE_GAP = 4 << 10
#: Read this far past a range for the newline of the line crossing its end.
LINE_SLACK = 512
#: Bytes read into one buffer before its lines are placed (bounds the transient memory).
CHUNK_BYTES = 16 << 20
_LOCAL = threading.local()


@dataclass(frozen=True)
class Gathered:
    """Lines of some units, one after the other, and where each line came from."""

    data: bytes
    starts: I64  # position of each line in ``data``
    offsets: I64  # its first byte in its source
    bases: I64  # global unit number of its source's first unit
    truncated: int = 0


@dataclass(frozen=True)
class _Ranges:
    """Coalesced read ranges of one source: unit bytes [lo, hi), read from ``read_lo``."""

    lo: I64
    hi: I64
    read_lo: I64
    read_n: I64


def _ranges(local: I64, unit_size: int, size: int) -> _Ranges:
    """Sorted local units -> ranges of neighbouring units, each read with its slack."""
    lo = local * unit_size
    hi = np.minimum(lo + unit_size, size)
    cut = np.flatnonzero(lo[1:] - hi[:-1] > MERGE_GAP) + 1
    first, last = np.concatenate([[0], cut]), np.concatenate([cut - 1, [len(lo) - 1]])
    r_lo, r_hi = lo[first], hi[last]
    read_lo = np.maximum(r_lo - 1, 0)  # the byte before: is a line starting at lo?
    read_n = np.minimum(r_hi + LINE_SLACK, size) - read_lo
    return _Ranges(r_lo, r_hi, read_lo, read_n)


def _buffer(n: int) -> bytearray:
    """This thread's reused read buffer, at least ``n`` bytes."""
    buf: bytearray | None = getattr(_LOCAL, "buf", None)
    if buf is None or len(buf) < n:
        buf = bytearray(max(n, 1 << 20))
        _LOCAL.buf = buf
    return buf


def gather_source(
    src: Source, local: I64, *, unit_size: int, base: int, cap: int
) -> list[Gathered]:
    """The lines of the sorted local units ``local`` of one seekable source."""
    assert src.size is not None
    if len(local) == 0:
        return []
    r = _ranges(local, unit_size, src.size)
    out: list[Gathered] = []
    i = 0
    while i < len(r.lo):
        j = i + max(1, int(np.searchsorted(np.cumsum(r.read_n[i:]), CHUNK_BYTES, side="right")))
        out.extend(_gather_chunk(src, r, i, j, local, unit_size=unit_size, base=base, cap=cap))
        i = j
    return out


def _read_chunk(src: Source, r: _Ranges, i: int, j: int) -> tuple[npt.NDArray[np.uint8], I64]:
    """Read ranges i..j-1 one after the other; returns the bytes and each range's position."""
    pos = np.concatenate([[0], np.cumsum(r.read_n[i:j])]).astype(np.int64)
    buf = _buffer(int(pos[-1]))
    view = memoryview(buf)
    for k, (off, n) in enumerate(zip(r.read_lo[i:j].tolist(), r.read_n[i:j].tolist(), strict=True)):
        got = src.read_into(off, view[int(pos[k]) : int(pos[k]) + n])
        if got < n:  # past the planned size only if the file grew: read_into checks shrinking
            view[int(pos[k]) + got : int(pos[k]) + n] = b"\0" * (n - got)
    return np.frombuffer(buf, dtype=np.uint8, count=int(pos[-1])), pos


def _gather_chunk(
    src: Source, r: _Ranges, i: int, j: int, local: I64, *, unit_size: int, base: int, cap: int
) -> list[Gathered]:
    arr, pos = _read_chunk(src, r, i, j)

    def range_of(p: I64) -> I64:
        found: I64 = np.searchsorted(pos, p, side="right") - 1
        return found

    nl = np.flatnonzero(arr == 10)
    after = nl + 1
    within = after < len(arr)
    after, nl_range = after[within], range_of(nl[within])
    starts = after[range_of(after) == nl_range]  # a newline starts a line of its own range
    heads = pos[:-1][r.lo[i:j] == 0]  # a range at the very start of its source
    if len(heads):
        starts = np.union1d(starts, heads)
    rng = range_of(starts)
    offsets = r.read_lo[i:j][rng] + starts - pos[rng]
    unit = offsets // unit_size
    k = np.minimum(np.searchsorted(local, unit), len(local) - 1)
    keep = (offsets >= r.lo[i:j][rng]) & (offsets < r.hi[i:j][rng]) & (local[k] == unit)
    starts, rng, offsets = starts[keep], rng[keep], offsets[keep]
    e = np.searchsorted(nl, starts)
    has = e < len(nl)
    ends = np.full(len(starts), -1, dtype=np.int64)
    ends[has] = nl[e[has]]
    ok = has & (range_of(ends) == rng) & (ends - starts <= cap)
    bad = np.unique(rng[~ok])
    good = ~np.isin(rng, bad)
    out = [_pack(arr, starts[good], ends[good], offsets[good], base)]
    for b in bad.tolist():  # the general framing: a long line, or no newline within the slack
        out.append(_framed(src, r, i + b, local, unit_size=unit_size, base=base, cap=cap))
    return out


def _pack(arr: npt.NDArray[np.uint8], starts: I64, ends: I64, offsets: I64, base: int) -> Gathered:
    """The lines ``arr[start:end+1]`` one after the other: one slice per run of adjacent lines."""
    lengths = ends - starts + 1
    cut = np.flatnonzero(starts[1:] != ends[:-1] + 1) + 1
    first = np.concatenate([[0], cut]).astype(np.int64)
    last = np.concatenate([cut - 1, [len(starts) - 1]]).astype(np.int64)
    view = arr.data
    data = b"".join(
        [view[a : b + 1] for a, b in zip(starts[first].tolist(), ends[last].tolist(), strict=True)]
        if len(starts)
        else []
    )
    return Gathered(data, _starts_of(lengths), offsets.astype(np.int64), np.full(len(starts), base))


def _starts_of(lengths: I64) -> I64:
    """Where each of consecutive pieces of these lengths starts."""
    out: I64 = (np.cumsum(lengths) - lengths).astype(np.int64)
    return out


def _framed(
    src: Source, r: _Ranges, k: int, local: I64, *, unit_size: int, base: int, cap: int
) -> Gathered:
    """One range framed unit by unit by the general code."""
    assert src.size is not None
    lo_u, hi_u = int(r.lo[k]) // unit_size, (int(r.hi[k]) - 1) // unit_size
    units = local[(local >= lo_u) & (local <= hi_u)]
    pieces: list[Piece] = []
    for u in units.tolist():
        pieces.extend(iter_unit_pieces(src.read_at, u, unit_size, src.size, cap=cap))
    data = b"".join(p.buf[: p.size] for p in pieces)
    sizes = np.fromiter((p.size for p in pieces), np.int64, len(pieces))
    starts = _starts_of(sizes)
    offsets = np.fromiter((p.offset for p in pieces), np.int64, len(pieces))
    truncated = sum(p.truncated for p in pieces)
    return Gathered(data, starts, offsets, np.full(len(pieces), base), truncated)


def gather(
    sources: Sequence[Source], bases: Sequence[int], units: I64, *, unit_size: int, cap: int
) -> tuple[list[Gathered], int]:
    """Lines of ``units`` (global numbers, any order) over all sources; and their unit bytes."""
    srt = np.sort(units)
    which = np.searchsorted(np.asarray(bases, dtype=np.int64), srt, side="right") - 1
    out: list[Gathered] = []
    nbytes = 0
    for s in np.unique(which).tolist():
        src, base = sources[s], int(bases[s])
        assert src.size is not None
        local = srt[which == s] - base
        nbytes += int(np.minimum(unit_size, src.size - local * unit_size).sum())
        out.extend(gather_source(src, local, unit_size=unit_size, base=base, cap=cap))
    return out, nbytes


def joined(parts: list[Gathered]) -> tuple[bytes, I64, I64, I64, int]:
    """The parts as one buffer: data, line positions, source offsets, bases, truncated lines."""
    parts = [p for p in parts if len(p.starts)]
    if not parts:
        empty = np.zeros(0, np.int64)
        return b"", empty, empty, empty, 0
    shift = np.cumsum([0] + [len(p.data) for p in parts[:-1]])
    pos = np.concatenate([p.starts + d for p, d in zip(parts, shift.tolist(), strict=True)])
    offsets = np.concatenate([p.offsets for p in parts])
    bases = np.concatenate([p.bases for p in parts]).astype(np.int64)
    data = b"".join(p.data for p in parts)
    return data, pos.astype(np.int64), offsets, bases, sum(p.truncated for p in parts)


def lines_of(data: bytes) -> tuple[bool, int]:
    """Whether ``data`` is UTF-8, and its line count."""
    utf8 = is_utf8(data, len(data))
    return utf8, count_newlines(data, len(data), utf8=utf8)


class Order(Protocol):
    """A reading order: its length, and the units at a slice of ranks."""

    def __len__(self) -> int: ...

    def __getitem__(self, index: slice) -> I64: ...


def gathered_batch(sources: Sequence[Source], plan: UnitPlan, units: I64, *, cap: int) -> Batch:
    """One batch of ``units`` (reading order kept in ``Batch.units``) read by ``gather``."""
    parts, nbytes = gather(sources, plan.bases, units, unit_size=plan.unit_size, cap=cap)
    data, pos, offsets, bases, truncated = joined(parts)
    utf8, lines = lines_of(data)
    return Batch(
        data=data,
        size=len(data),
        piece_pos=pos,
        piece_offset=offsets,
        piece_base=bases,
        unit_size=plan.unit_size,
        units=np.asarray(units, dtype=np.int64),
        bytes_read=nbytes,
        lines_truncated=truncated,
        lines=lines,
        utf8=utf8,
    )


def iter_gathered_batches(
    sources: Sequence[Source],
    plan: UnitPlan,
    order: Order,
    *,
    batch_units: int,
    cap: int,
    first: int | None = None,
    growth: float = 1.0,
    max_units: int | None = None,
    start: int = 0,
    scale: Callable[[], float] | None = None,
) -> Iterator[Batch]:
    """Like ``batches.iter_seekable_batches`` (same schedule), each batch read by ``gather``."""
    bounds = batch_bounds(
        len(order), batch_units, first, growth=growth, max_units=max_units, start=start, scale=scale
    )
    for lo, hi in bounds:
        yield gathered_batch(sources, plan, order[lo:hi], cap=cap)
