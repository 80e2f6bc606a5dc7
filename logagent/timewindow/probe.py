"""Probe a seekable log: the first timed line at or after an offset (PURE).

A probe aligns to the next line start, then reads forward (``chunk_bytes`` at
a time, at most ``lookahead_bytes``) to the first line whose time parses,
skipping continuation lines, junk and lines longer than a chunk. ``first_line``
scans a short stretch line by line to tighten a bisection's final gap.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from .lines import LineTime

ReadAt = Callable[[int, int], bytes]
NL = b"\n"


@dataclass(frozen=True, slots=True)
class WindowConfig:
    """Knobs of the search; defaults suit multi-GB logs."""

    tolerance_s: float = 300.0
    order_probes: int = 24
    gap_bytes: int = 4096
    lookahead_bytes: int = 256 * 1024
    chunk_bytes: int = 8192


@dataclass(frozen=True, slots=True)
class Probe:
    """First timed line at or after ``offset``: its start and time (None: not found)."""

    offset: int
    line_start: int
    time: datetime | None
    eof: bool  # no timed line between offset and the end of the input


def probe(read_at: ReadAt, size: int, offset: int, line_time: LineTime, cfg: WindowConfig) -> Probe:
    """First line starting at or after ``offset`` whose time parses, within the look-ahead."""
    start = 0 if offset <= 0 else _next_line_start(read_at, offset - 1, size, cfg)
    if start is None:  # inside one line longer than the look-ahead
        return Probe(offset, offset, None, False)
    pos, limit = start, min(size, start + cfg.lookahead_bytes)
    while pos < limit:
        buf = read_at(pos, min(cfg.chunk_bytes, size - pos))
        if not buf:
            break
        found, used = _timed_line(buf, line_time, last=pos + len(buf) >= size)
        if found is not None:
            return Probe(offset, pos + found[0], found[1], False)
        if used:
            pos += used
            continue
        nxt = _next_line_start(read_at, pos + len(buf) - 1, size, cfg)  # a line longer than a chunk
        if nxt is None:
            return Probe(offset, pos, None, False)
        pos = nxt
    eof = pos >= size
    return Probe(offset, size if eof else pos, None, eof)


def _timed_line(
    buf: bytes, line_time: LineTime, *, last: bool
) -> tuple[tuple[int, datetime] | None, int]:
    """First timed line in ``buf`` (its index and time) and the bytes of whole lines looked at.

    A line cut by the end of ``buf`` is tried on its head only when no whole
    line precedes it (a long line) or when ``buf`` ends the input.
    """
    i = 0
    many = getattr(line_time, "many", None)
    if many is not None:  # all whole lines in one call (``lines.FormatLineTime``)
        spans = _line_spans(buf)
        for (lo, hi), t in zip(spans, many([buf[lo:hi] for lo, hi in spans]), strict=True):
            if t is not None:
                return (lo, t), hi
        i = spans[-1][1] if spans else 0
    while (nl := buf.find(NL, i)) >= 0:
        t = line_time(buf[i : nl + 1])
        if t is not None:
            return (i, t), nl + 1
        i = nl + 1
    if i < len(buf) and (i == 0 or last):
        t = line_time(buf[i:])
        if t is not None:
            return (i, t), len(buf)
        return None, len(buf) if last else i
    return None, i


def _line_spans(buf: bytes, *, whole: bool = True) -> list[tuple[int, int]]:
    """(start, end) of each line of ``buf``, its newline included; a last line without one
    too unless ``whole``."""
    spans, i = [], 0
    while (nl := buf.find(NL, i)) >= 0:
        spans.append((i, nl + 1))
        i = nl + 1
    if not whole and i < len(buf):
        spans.append((i, len(buf)))
    return spans


def _next_line_start(read_at: ReadAt, frm: int, size: int, cfg: WindowConfig) -> int | None:
    """Position after the first newline at or after ``frm``.

    ``size`` when the input ends first; None when the look-ahead ends first.
    """
    pos, limit = frm, min(size, frm + cfg.lookahead_bytes)
    while pos < limit:
        buf = read_at(pos, min(cfg.chunk_bytes, size - pos))
        if not buf:
            return size
        k = buf.find(NL)
        if k >= 0:
            return pos + k + 1
        pos += len(buf)
    return size if pos >= size else None


def first_line(
    read_at: ReadAt,
    span: tuple[int, int],
    keep: Callable[[datetime], bool],
    line_time: LineTime,
    cfg: WindowConfig,
) -> int | None:
    """Start of the first line in ``span`` whose time satisfies ``keep``.

    ``span[1]`` when every line of the span was looked at and none does; None
    when the span is longer than one read of ``gap_bytes + lookahead_bytes``
    and no line in the part read does (the caller then keeps its bound).
    """
    frm, stop = span
    cap = cfg.gap_bytes + cfg.lookahead_bytes
    buf = read_at(frm, min(stop - frm, cap)) if stop > frm else b""
    many = getattr(line_time, "many", None)
    if many is not None:  # all lines in one call (``lines.FormatLineTime``)
        spans = _line_spans(buf, whole=False)
        for (lo, _hi), t in zip(spans, many([buf[lo:hi] for lo, hi in spans]), strict=True):
            if t is not None and keep(t):
                return frm + lo
        return stop if stop - frm <= cap else None
    i = 0
    while i < len(buf):
        nl = buf.find(NL, i)
        end = len(buf) if nl < 0 else nl + 1
        t = line_time(buf[i:end])
        if t is not None and keep(t):
            return frm + i
        i = end
    return stop if stop - frm <= cap else None


def last_line_time(
    read_at: ReadAt, size: int, line_time: LineTime, cfg: WindowConfig
) -> datetime | None:
    """Time on the last timed line within ``lookahead_bytes`` of the end (the log's "now")."""
    frm = max(0, size - cfg.lookahead_bytes)
    tail = read_at(frm, size - frm)
    lines = tail.split(NL)
    if frm > 0:
        lines = lines[1:]  # the first piece may be the end of a longer line
    for line in reversed(lines):
        t = line_time(line)
        if t is not None:
            return t
    return None
