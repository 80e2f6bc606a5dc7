"""Gather many small units of one batch into one buffer, in file order (PURE over reads).

A sampled read takes thousands of units of a few KiB each per batch. Framing
each one on its own (``framing.iter_unit_pieces``: a read, a copy of its lines,
a ``Piece``) and then joining the pieces costs ~40 µs a unit, which made a
sampled read crawl at ~60 MB/s. Here each unit is read into one reused scratch
buffer and its lines are copied once, straight into the batch buffer; the unit
rule and every edge case are those of ``framing``: a unit holds the lines whose
first byte lies in it, the line crossing its end is read to its newline. A
unit whose lines are not short and whole in one read (a line longer than
``cap``, a crossing line past the slack, a last line without a newline) is
framed by ``framing.iter_unit_pieces`` itself, so the result is the same.

A unit is read with ``FIRST_SLACK`` bytes past its end, not ``TAIL_SLACK``:
the crossing line of an access log is a few hundred bytes, and the smaller
read costs 3.0 instead of 5.2 us a unit of 1 KiB here. A crossing line longer
than that takes the general path, which reads as far as it must; when more
than one unit in ``SLACK_WIDEN_AT`` does (long lines), the rest of the batch
is read with the full slack.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from logagent.sources.framing import TAIL_SLACK, ReadAt, iter_unit_pieces, no_long_line

NL = b"\n"
#: Bytes read past a unit's end at first (see module doc), and the share of units taking
#: the general path above which a batch reads the full ``TAIL_SLACK`` instead.
FIRST_SLACK = 1024
SLACK_WIDEN_AT = 16
ReadInto = Callable[[int, memoryview], int]


@dataclass(frozen=True, slots=True)
class Gathered:
    """The lines of the units, one after the other in ``data[:size]``, and where each came from."""

    data: bytearray
    size: int
    piece_pos: list[int]
    piece_offset: list[int]
    piece_base: list[int]
    truncated: int


@dataclass(frozen=True, slots=True)
class UnitSource:
    """What gathering needs of one seekable source."""

    read_at: ReadAt
    read_into: ReadInto
    size: int
    base: int  # the global number of its first unit


def gather_units(
    sources: Sequence[UnitSource],
    units: Sequence[tuple[int, int]],
    unit_size: int,
    *,
    cap: int,
    acquire: Callable[[int], bytearray],
) -> Gathered:
    """The lines of ``units`` — (source index, local unit) pairs, best in file order.

    ``acquire(n)``: a buffer of at least n bytes (the process's reused buffers).
    """
    scratch = bytearray(unit_size + TAIL_SLACK + 1)
    view = memoryview(scratch)
    slack, general = min(FIRST_SLACK, TAIL_SLACK), 0
    out = acquire(max(1, len(units) * unit_size + TAIL_SLACK))
    w = truncated = 0
    pos: list[int] = []
    offsets: list[int] = []
    bases: list[int] = []
    reads, sizes = [src.read_into for src in sources], [src.size for src in sources]
    for done, (s, local) in enumerate(units):
        if slack < TAIL_SLACK and general * SLACK_WIDEN_AT > done >= SLACK_WIDEN_AT:
            slack = TAIL_SLACK  # long crossing lines: read them whole the first time
        lo = local * unit_size
        hi = min(lo + unit_size, sizes[s])
        back = 1 if lo else 0
        got = reads[s](lo - back, view[: hi - lo + back + slack])
        first = scratch.find(NL, 0, got) + 1 if back else 0  # scratch[0]: the byte before
        if back and (first == 0 or lo - back + first >= hi):
            continue  # no newline in [lo-1, hi-1]: no line starts in this unit
        end = scratch.find(NL, hi - lo + back - 1, got)
        if end >= 0 and (end + 1 - first <= cap or no_long_line(scratch, end + 1, cap, first)):
            n = end + 1 - first  # the common case: the unit's lines, whole, in this one read
            if w + n > len(out):
                out = _grown(out, w, n)
            out[w : w + n] = view[first : end + 1]
            pos.append(w)
            offsets.append(lo - back + first)
            bases.append(sources[s].base)
            w += n
            continue
        # the general path: framing's own
        src = sources[s]
        general += end < 0 and got == hi - lo + back + slack  # the slack was too short
        for piece in iter_unit_pieces(src.read_at, local, unit_size, src.size, cap=cap):
            truncated += piece.truncated
            data = piece.data  # its ``size`` bytes
            if w + len(data) > len(out):
                out = _grown(out, w, len(data))
            out[w : w + len(data)] = data
            pos.append(w)
            offsets.append(piece.offset)
            bases.append(src.base)
            w += len(data)
    view.release()
    return Gathered(out, w, pos, offsets, bases, truncated)


def _grown(out: bytearray, w: int, n: int) -> bytearray:
    """A larger buffer holding ``out[:w]``, with room for ``n`` more bytes (more than a
    unit's size of lines each: rare)."""
    bigger = bytearray(max(2 * len(out), w + n))
    bigger[:w] = out[:w]
    return bigger
