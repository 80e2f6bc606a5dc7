"""Read units as whole multi-line records (PURE over a ``read_at`` callable).

The unit rule extended to records: unit ``b`` holds the *records* whose first
line starts in ``[b*S, (b+1)*S)``. Its reader therefore (i) skips the lines
at the head of the unit that continue a record begun in an earlier unit, and
(ii) reads on past the unit's end, through the continuation lines of its last
record, up to the next record start. Every line then belongs to exactly one
unit's reader, whatever order units are read in, so record counts stay exact
and order-free. Lines at the very head of a source that continue nothing are
skipped too and counted (``Piece.skipped``: malformed lines).

A record's tail is read for at most ``max_tail_bytes``; the rest of a longer
record (a runaway dump, a file that is not the format) is skipped by every
unit and counted as one truncated line, so no reader holds it in memory.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from logagent.sources.framing import (
    NL,
    Piece,
    ReadAt,
    iter_unit_pieces,
    read_capped_line,
    split_long_lines,
)

TAIL_CHUNK = 4096
MAX_TAIL_BYTES = 1 << 20


def compile_start(record_start: str) -> re.Pattern[bytes]:
    """The bytes regex that finds record-start lines (a byte-order mark may open a line)."""
    return re.compile(b"(?m)^(?:\xef\xbb\xbf)?(?:" + record_start.encode() + b")")


def iter_record_unit_pieces(
    read_at: ReadAt,
    unit: int,
    unit_size: int,
    size: int,
    *,
    cap: int,
    start: re.Pattern[bytes],
    max_tail_bytes: int = MAX_TAIL_BYTES,
) -> Iterator[Piece]:
    """Pieces of unit ``unit`` as records: the lines of the records starting in it."""
    pieces = iter_unit_pieces(read_at, unit, unit_size, size, cap=cap)
    return as_records(
        pieces, read_at, size, head=unit == 0, cap=cap, start=start, max_tail_bytes=max_tail_bytes
    )


def as_records(
    pieces: Iterable[Piece],
    read_at: ReadAt,
    size: int | None,
    *,
    head: bool,
    cap: int,
    start: re.Pattern[bytes],
    max_tail_bytes: int = MAX_TAIL_BYTES,
) -> Iterator[Piece]:
    """Turn the pieces of a line range into the pieces of the records starting in it.

    ``head``: the range opens its source, so skipped leading lines are counted.
    ``size``: source size (None for a stream: read until no more bytes come).
    """
    end = -1
    started = False
    for piece in pieces:
        end = piece.offset + piece.span
        if not started:
            piece, started = _drop_head(piece, start, count=head)
            if not started and not piece.skipped:
                continue
        yield piece
    if not (started or head):
        return
    # The head of a source reads on like a record so that all its orphan lines are counted once.
    for piece in iter_tail(read_at, end, size, cap=cap, start=start, max_bytes=max_tail_bytes):
        if not started:
            piece = Piece(
                piece.offset,
                b"",
                piece.span,
                piece.truncated,
                skipped=piece.data.count(NL),
            )
        yield piece


def _drop_head(piece: Piece, start: re.Pattern[bytes], *, count: bool) -> tuple[Piece, bool]:
    """The piece from its first record start on (or an empty piece counting skipped lines)."""
    data = piece.data
    m = start.search(data)
    k = len(data) if m is None else m.start()
    skipped = data.count(NL, 0, k) if count else 0
    if m is None:
        return Piece(piece.offset, b"", piece.span, skipped=skipped), False
    if k == 0:
        return piece, True
    return Piece(piece.offset + k, data[k:], piece.span - k, piece.truncated, skipped=skipped), True


def iter_tail(
    read_at: ReadAt,
    pos: int,
    size: int | None,
    *,
    cap: int,
    start: re.Pattern[bytes],
    max_bytes: int,
) -> Iterator[Piece]:
    """Continuation lines from ``pos`` (a line start) up to the next record start.

    The start test sees each line cut to ``cap``, as the parser does.
    """
    stop = pos + max_bytes
    while (size is None or pos < size) and pos < stop:
        data = read_at(pos, TAIL_CHUNK)
        last = data.rfind(NL) + 1
        if last == 0:  # a line longer than the chunk, or a last line without a newline
            piece, pos = read_capped_line(read_at, pos, cap=cap, chunk=TAIL_CHUNK)
            if piece is None or _first_start(piece, start) is not None:
                return
            yield piece
            continue
        for piece in split_long_lines(data, pos, cap, end=last):
            k = _first_start(piece, start)
            if k is not None:
                if k:
                    yield Piece(piece.offset, piece.data[:k], k)
                return
            yield piece
        pos += last
    rest = read_at(pos, TAIL_CHUNK) if size is None or pos < size else b""
    if rest and not start.match(rest):
        yield Piece(pos, b"", 0, truncated=1)  # the rest of a runaway record is skipped


def _first_start(piece: Piece, start: re.Pattern[bytes]) -> int | None:
    """Position of the first record-start line in the piece, or None."""
    if piece.truncated:  # one cut line: test it as cut
        return 0 if start.match(piece.data) else None
    m = start.search(piece.data)
    return None if m is None else m.start()
