"""Count the lines of a byte range and keep only its candidate lines, read in cache-sized pieces.

A read of everything that asks about rare lines (5xx requests) needs every
line counted but only the few lines holding the prefilter's anchor. Reading a
16 MiB batch into a buffer and scanning it afterwards moves every byte through
main memory three times (the kernel's copy out, its write back, the scan), at
about 1.3 GB/s on this machine. Here the range is read in pieces of
``CHUNK`` bytes into one small reused buffer that stays in the CPU cache, and
each piece is scanned at once with StringZilla's SIMD ``count``/``find``
(~6 GB/s), so the read costs about what the copy out of the page cache costs.

The lines are framed by ``framing.iter_pieces``, exactly as a batch is (long
lines cut to ``cap``, a final newline added), so the line count and the
candidate lines are the ones ``formats.batchlines.candidate_lines`` finds in the
same batch. Positions are those the batch's own buffer would have had.

Without StringZilla (a platform with no wheel) ``prescan_for`` says None and
batches are read as before.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from logagent.sources.framing import (
    ESC,
    TAIL_SLACK,
    escape_lines,
    iter_pieces,
    matches_decoloured,
)
from logagent.sources.locate import anchor_of

try:
    import stringzilla as _sz
except ImportError:  # pragma: no cover - every platform with a wheel has it
    _sz = None

#: Bytes per read: the buffer stays in the CPU cache between the copy and the scan.
CHUNK = 512 << 10
NL = b"\n"
#: A batch with more candidates than lines / DENSE (and at least MIN_DENSE) is read as before:
#: candidates are then not rare, and one Python step per candidate costs more than the batch path.
DENSE = 8
MIN_DENSE = 4096
#: Coloured lines a piece (``CHUNK``) may hold and still be prescanned, each one judged alone.
DENSE_COLOURED = 256


@dataclass(frozen=True, slots=True)
class Prescan:
    """What to look for: a literal every prefilter match starts with, and the prefilter."""

    anchor: bytes
    prefilter: re.Pattern[bytes]


def prescan_for(prefilter: re.Pattern[bytes] | None) -> Prescan | None:
    """The prescan of a prefilter with an anchor, or None (no prefilter, no anchor, no SIMD)."""
    if prefilter is None or _sz is None:
        return None
    anchor = anchor_of(prefilter)
    return None if anchor is None else Prescan(anchor, prefilter)


@dataclass(frozen=True, slots=True)
class Found:
    """The candidate lines of a range (newline and CR kept off as in a batch) and its counts.

    ``starts[i]`` is where line ``raw[i]`` would start in the batch buffer;
    ``piece_pos``/``piece_offset`` map such positions back to source offsets
    (``Batch.units_of``).
    """

    lines: int
    truncated: int
    raw: list[bytes]
    starts: list[int]
    piece_pos: list[int]
    piece_offset: list[int]


ReadInto = Callable[[int, memoryview], int]
ReadAt = Callable[[int, int], bytes]


def scan_range(
    read_at: ReadAt, read_into: ReadInto, start: int, stop: int, *, cap: int, prescan: Prescan
) -> Found | None:
    """The lines whose first byte is in ``[start, stop)`` (``start`` a line start), scanned.

    Returns None when candidates are not rare, or coloured lines are not (the caller reads
    the range as a batch).
    """
    assert _sz is not None
    buf = bytearray(CHUNK + TAIL_SLACK)
    view = memoryview(buf)

    def into(offset: int, n: int) -> tuple[bytearray, int]:
        return buf, read_into(offset, view[:n])

    anchor, match = prescan.anchor, prescan.prefilter.match
    lines = truncated = pos = 0
    raw: list[bytes] = []
    starts: list[int] = []
    piece_pos: list[int] = []
    piece_offset: list[int] = []
    for piece in iter_pieces(read_at, start, stop, cap=cap, chunk=CHUNK, read_into=into):
        size = piece.size
        data = piece.buf
        piece_pos.append(pos)
        piece_offset.append(piece.offset)
        lines += _sz.count(data, "\n", 0, size)
        truncated += piece.truncated
        before = len(raw)
        _candidates(data, size, pos, anchor, match, raw, starts)
        if _sz.find(data, ESC, 0, size) >= 0 and not _recoloured(
            data, size, pos, prescan.prefilter, raw, starts, before
        ):
            return None  # colour is the rule: its batch decodes every line
        pos += size
        if len(raw) > MIN_DENSE and len(raw) * DENSE > lines:
            return None
    return Found(lines, truncated, raw, starts, piece_pos, piece_offset)


def _recoloured(
    data: bytes | bytearray,
    size: int,
    pos: int,
    prefilter: re.Pattern[bytes],
    raw: list[bytes],
    starts: list[int],
    before: int,
) -> bool:
    """The piece's candidates (``raw[before:]``) with its coloured lines judged on their bytes
    without colour codes (a code inside what the prefilter looks for hid a candidate), as
    ``batchlines.coloured_candidates`` judges them; False when colour is the rule (more
    coloured lines than ``DENSE_COLOURED``): its batch then decodes every line."""
    spans = escape_lines(data, size, DENSE_COLOURED)
    if spans is None:
        return False
    coloured = {pos + s for s, _ in spans}
    kept = [
        (st, r) for st, r in zip(starts[before:], raw[before:], strict=True) if st not in coloured
    ]
    kept += [
        (pos + s, bytes(data[s:e])) for s, e in spans if matches_decoloured(data[s:e], prefilter)
    ]
    kept.sort(key=lambda pair: pair[0])
    del raw[before:], starts[before:]
    starts.extend(st for st, _ in kept)
    raw.extend(r for _, r in kept)
    return True


def _candidates(
    data: bytes | bytearray,
    size: int,
    pos: int,
    anchor: bytes,
    match: Callable[[bytes | bytearray, int, int], re.Match[bytes] | None],
    raw: list[bytes],
    starts: list[int],
) -> None:
    """Append each line of ``data[:size]`` holding a prefilter match once (lines end in NL)."""
    assert _sz is not None
    last = -1
    i = _sz.find(data, anchor, 0, size)
    while i >= 0:
        if match(data, i, size) is not None:
            line = data.rfind(NL, 0, i) + 1
            if line != last:
                end = data.find(NL, i, size)
                raw.append(bytes(data[line:end]))
                starts.append(pos + line)
                last = line
        i = _sz.find(data, anchor, i + 1, size)
