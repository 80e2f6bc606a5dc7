"""Cut a byte range of a log into newline-aligned pieces (PURE).

Everything here works on a ``read_at(offset, n) -> bytes`` callable, so the
same code frames a seekable file (``os.pread``), a decompressed stream read
forwards, or bytes in memory in tests.

The unit rule (stats note §2): unit ``b`` of size ``S`` holds the lines whose
first byte lies in ``[b*S, (b+1)*S)``. A line longer than ``cap`` bytes is cut
to its first ``cap`` bytes and counted as truncated; the rest of it is skipped
without ever being held in memory whole. A long line that starts with a run of
NUL bytes (the hole ``copytruncate`` leaves where the writer goes on at its old
offset: one of 1.4 MB held a request of a real uvicorn log, probe T) is cut
after that run: its bytes are none of the record's, and the line is truncated
only when the rest is longer than ``cap``. A last line without a newline gets
one. Every piece's data therefore ends in ``b"\\n"`` and holds no line longer
than ``cap``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TypeAlias

ReadAt = Callable[[int, int], bytes]

#: How far past a range's end a read looks for the newline of the crossing line.
TAIL_SLACK = 4096
NL = b"\n"


#: What a read hands on: bytes, or a reused buffer (``sources.buffers``) that may run past the data.
Buffer: TypeAlias = bytes | bytearray

#: A terminal's escape byte, and one colour or cursor code (an ANSI CSI sequence: ``ESC[31m``,
#: ``ESC[0m``, ``ESC[2K``). Consoles write them around stamps, levels and names (Airflow's,
#: Python's colorlog, docker compose); a line is read with them removed (``decoloured``), or
#: its stamp and level are not where its layout puts them.
ESC = b"\x1b"
NUL = b"\x00"
_NOT_NUL = re.compile(rb"[^\x00]")
ANSI_SEQUENCE = r"\x1b\[[0-9;?]*[A-Za-z]"
_ANSI = re.compile(ANSI_SEQUENCE)


_ANSI_BYTES = re.compile(ANSI_SEQUENCE.encode())


def decoloured(line: str) -> str:
    """``line`` without its ANSI colour codes (``ANSI_SEQUENCE``)."""
    return _ANSI.sub("", line) if "\x1b" in line else line


def escape_lines(data: Buffer, size: int, most: int) -> list[tuple[int, int]] | None:
    """(start, end) of each line of ``data[:size]`` that holds an escape byte (``end``: its
    newline, or ``size``), in order; None past ``most`` of them (colour is then the rule)."""
    spans: list[tuple[int, int]] = []
    at = data.find(ESC, 0, size)
    while at >= 0:
        start = data.rfind(NL, 0, at) + 1
        end = data.find(NL, at, size)
        end = size if end < 0 else end
        spans.append((start, end))
        if len(spans) > most:
            return None
        at = data.find(ESC, end, size)
    return spans


def matches_decoloured(line: Buffer, prefilter: re.Pattern[bytes]) -> bool:
    """Whether ``line`` (bytes) without its colour codes holds a match of ``prefilter``."""
    return prefilter.search(_ANSI_BYTES.sub(b"", line)) is not None


@dataclass(frozen=True, slots=True)
class Piece:
    """Complete lines starting at byte ``offset`` of the source: ``buf[:end]``.

    ``buf`` may run past ``end`` (the bytes of a read that belong to the next
    piece) so that a large read is never copied just to cut it. ``span`` is how
    many source bytes the lines cover (more than ``end`` when a long line was
    cut, one less when a final newline was added). ``skipped`` counts lines
    left out of ``buf`` on purpose (records mode: lines at the head of a source
    that continue no record).
    """

    offset: int
    buf: Buffer
    span: int
    truncated: int = 0
    end: int = -1
    skipped: int = 0

    @property
    def size(self) -> int:
        """Bytes of lines in ``buf``."""
        return len(self.buf) if self.end < 0 else self.end

    @property
    def data(self) -> bytes:
        """The lines as their own bytes (copies when ``buf`` runs past ``end``)."""
        return bytes(self.buf) if self.size == len(self.buf) else bytes(self.buf[: self.size])


def iter_pieces(
    read_at: ReadAt,
    start: int,
    stop: int,
    *,
    cap: int,
    chunk: int,
    read_into: Callable[[int, int], tuple[bytes | bytearray, int]] | None = None,
) -> Iterator[Piece]:
    """Yield pieces covering every line whose first byte is in ``[start, stop)``.

    ``start`` must be the first byte of a line. Reads ``chunk`` bytes at a time,
    into a reused buffer when ``read_into(offset, n) -> (buffer, bytes read)``
    is given (the buffer may be longer than what was read: pieces say where
    their lines end).
    """
    pos = start
    while pos < stop:
        limit = min(stop, pos + chunk) - pos
        want = limit + TAIL_SLACK
        if read_into is not None:
            data, got = read_into(pos, want)
        else:
            data = read_at(pos, want)
            got = len(data)
        if not got:
            return
        end = data.find(NL, limit - 1, got)
        if end >= 0:
            yield from split_long_lines(data, pos, cap, end=end + 1)
            pos += end + 1
        elif got < want:  # end of input before the crossing line's newline
            if data[got - 1] == NL[0]:
                yield from split_long_lines(data, pos, cap, end=got)
            else:
                yield from split_long_lines(bytes(data[:got]) + NL, pos, cap, span=got)
            return
        else:
            head_end = data.rfind(NL, 0, limit) + 1
            if head_end:
                yield from split_long_lines(data, pos, cap, end=head_end)
            piece, pos = read_capped_line(read_at, pos + head_end, cap=cap, chunk=chunk)
            if piece is None:
                return
            yield piece


def read_capped_line(
    read_at: ReadAt, line_start: int, *, cap: int, chunk: int
) -> tuple[Piece | None, int]:
    """Read the line at ``line_start`` cut to ``cap`` bytes; return it and the next start."""
    head = read_at(line_start, cap + 1)
    if not head:
        return None, line_start
    body = line_start
    if head[:1] == NUL:  # copytruncate's hole: the line is what follows it (module doc)
        body = _past_nuls(read_at, line_start, head, chunk)
        head = read_at(body, cap + 1)
    nl = head.find(NL)
    if nl >= 0:
        return Piece(line_start, head[: nl + 1], body - line_start + nl + 1), body + nl + 1
    if len(head) <= cap:  # end of input, no newline
        end = body + len(head)
        return Piece(line_start, head + NL, end - line_start), end
    pos = body + len(head)
    while True:
        more = read_at(pos, chunk)
        if not more:
            end = pos
            break
        k = more.find(NL)
        if k >= 0:
            end = pos + k + 1
            break
        pos += len(more)
    return Piece(line_start, head[:cap] + NL, end - line_start, truncated=1), end


def _past_nuls(read_at: ReadAt, pos: int, head: bytes, chunk: int) -> int:
    """Where the run of NULs that ``head`` (read at ``pos``) starts with ends: its first other
    byte, a newline perhaps, or the end of the input."""
    while head:
        found = _NOT_NUL.search(head)
        if found is not None:
            return pos + found.start()
        pos += len(head)
        head = read_at(pos, chunk)
    return pos


def split_long_lines(
    data: Buffer,
    offset: int,
    cap: int,
    *,
    span: int | None = None,
    end: int | None = None,
) -> list[Piece]:
    """Split newline-terminated ``data[:end]`` so that lines longer than ``cap`` become cut pieces.

    Cost is O(end / cap) calls of ``bytes.rfind``: a window of ``cap + 1``
    bytes with no newline is exactly a line longer than ``cap``.
    """
    n = len(data) if end is None else end
    full_span = n if span is None else span
    if no_long_line(data, n, cap):
        return [Piece(offset, data, full_span, end=n)]
    out: list[Piece] = []
    seg = i = 0
    data = bytes(data[:n])
    while i < n:
        j = data.rfind(NL, i, i + cap + 1)
        if j >= 0:
            i = j + 1
            continue
        if i > seg:
            out.append(Piece(offset + seg, data[seg:i], i - seg))
        k = data.find(NL, i + cap)
        body = i
        if data[i] == 0:  # copytruncate's hole: the line is what follows it (module doc)
            found = _NOT_NUL.search(data, i, k)
            body = k if found is None else found.start()
        cut = int(k - body > cap)
        line = data[body : min(body + cap, k)] + NL
        out.append(Piece(offset + i, line, k + 1 - i, truncated=cut))
        seg = i = k + 1
    if seg < n:
        out.append(Piece(offset + seg, data[seg:], n - seg))
    if span is not None and out:  # the added final newline is not a source byte
        last = out[-1]
        out[-1] = Piece(last.offset, last.data, last.span - (n - span), last.truncated)
    return out


def no_long_line(data: Buffer, n: int, cap: int, start: int = 0) -> bool:
    """Whether every line of ``data[start:n]`` fits in ``cap`` bytes (the common case, checked
    first)."""
    i = start
    while i < n:
        j = data.rfind(NL, i, min(i + cap + 1, n))
        if j < 0:
            return False
        i = j + 1
    return True


def first_line_start(read_at: ReadAt, unit_start: int, unit_stop: int) -> int | None:
    """First line start in ``[unit_start, unit_stop)``, or None when no line starts there."""
    if unit_start == 0:
        return 0
    pos, step = unit_start - 1, TAIL_SLACK
    while pos < unit_stop:  # small reads: the newline is usually near, the range may be large
        head = read_at(pos, min(step, unit_stop - pos))
        if not head:
            return None
        i = head.find(NL)
        if i >= 0:
            start = pos + i + 1
            return start if start < unit_stop else None
        pos, step = pos + len(head), min(step * 4, 1 << 20)
    return None


def iter_unit_pieces(
    read_at: ReadAt, unit: int, unit_size: int, size: int, *, cap: int
) -> Iterator[Piece]:
    """Pieces of unit ``unit``: the lines whose first byte lies in ``[unit*S, (unit+1)*S)``."""
    lo = unit * unit_size
    hi = min(lo + unit_size, size)
    fast = _unit_in_one_read(read_at, lo, hi, cap)
    if fast is not None:
        return iter(fast)
    start = first_line_start(read_at, lo, hi)
    if start is None:
        return iter(())
    return iter_pieces(read_at, start, hi, cap=cap, chunk=max(hi - start, 1))


def _unit_in_one_read(read_at: ReadAt, lo: int, hi: int, cap: int) -> list[Piece] | None:
    """The common case in one positional read: short lines, the crossing line ends in the slack.

    Returns None when the general path is needed (a long line, or no newline in reach).
    """
    back = 1 if lo else 0
    data = read_at(lo - back, hi - lo + back + TAIL_SLACK)
    first = data.find(NL) + 1 if back else 0  # data[0] is the byte before the unit
    if back and (first == 0 or lo - back + first >= hi):
        return []  # no newline in [lo-1, hi-1]: no line starts in this unit
    end = data.find(NL, hi - lo + back - 1)
    if end < 0:
        return None
    if end + 1 - first > cap + 1 and not no_long_line(data[first : end + 1], end + 1 - first, cap):
        return None
    return [Piece(lo - back + first, data[first : end + 1], end + 1 - first)]
