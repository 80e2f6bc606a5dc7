"""A batch's lines as a Polars column over its buffer, all of them or the candidates (PURE).

``all_lines`` places every line by one vectorized newline search
(``line_ends``) and hands Polars an Arrow string array over the batch buffer,
no byte copied; ``candidate_lines`` keeps only the lines a byte prefilter
finds, located one by one when they are rare. Either way a line has no
newline, no trailing CR and no byte-order mark, and invalid UTF-8 is replaced
and counted. Split from ``formats.extract``, which parses what these find.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import polars as pl

from logagent.formats.parallel import collect, slices
from logagent.sources.batches import I64, Batch
from logagent.sources.framing import (
    ANSI_SEQUENCE,
    ESC,
    Buffer,
    escape_lines,
    matches_decoloured,
)
from logagent.sources.locate import find_hits, is_utf8, polars_pattern, string_series

REPLACEMENT = "\ufffd"


@dataclass(frozen=True)
class Lines:
    """Decoded lines (no newline, no trailing CR) with their start positions in the batch buffer."""

    text: pl.Series
    starts: I64
    invalid_utf8: int


#: Bytes compared per step of ``line_ends``: its boolean scratch stays in the CPU cache (1 MiB:
#: as fast as one whole-batch comparison on warm memory, also where lines are dense).
NEWLINE_STEP = 1 << 20


def line_ends(data: Buffer, size: int) -> I64:
    """Positions of the newlines in ``data[:size]`` (vectorized; also the line count).

    In steps of ``NEWLINE_STEP`` bytes through one reused boolean scratch: ``buf == 10``
    over a whole 16 MiB batch allocated 16 MiB a call, fresh pages that cost 4-40 ms of
    page faults a batch (1 GB JSON app log: 0.3-2.4 s) where the comparison costs 5 ms.
    """
    ends = line_ends_at_most(data, size, size)  # a newline is a byte: never more than size
    assert ends is not None
    return ends


def line_ends_at_most(data: Buffer, size: int, most: int) -> I64 | None:
    """``line_ends(data, size)``, or None as soon as more than ``most`` newlines are found
    (a caller that must not hold the positions of many short lines stops early)."""
    buf = np.frombuffer(data, dtype=np.uint8, count=size)
    scratch = np.empty(min(size, NEWLINE_STEP), dtype=np.bool_)
    parts = []
    found = 0
    for lo in range(0, size, NEWLINE_STEP):
        piece = buf[lo : lo + NEWLINE_STEP]
        hit = scratch[: len(piece)]
        np.equal(piece, 10, out=hit)
        if most < size:  # counted before placed: past ``most``, no position is held
            found += int(np.count_nonzero(hit))
            if found > most:
                return None
        at = np.flatnonzero(hit)
        at += lo
        parts.append(at)
    if len(parts) == 1:
        one: I64 = parts[0]
        return one
    ends: I64 = np.concatenate(parts) if parts else np.empty(0, dtype=np.int64)
    return ends


def line_starts(ends: I64) -> I64:
    """Start position of each line, given the newline positions."""
    starts: I64 = np.empty_like(ends)
    if len(ends):
        starts[0] = 0
        starts[1:] = ends[:-1] + 1
    return starts


def all_lines(batch: Batch, ends: I64) -> Lines:
    """Every line of the batch, decoded (invalid UTF-8 replaced and counted)."""
    data, size = batch.data, batch.size
    if batch.utf8 if batch.utf8 is not None else is_utf8(data, size):
        starts = line_starts(ends)
        return Lines(_stripped(data, starts, ends), starts, 0)
    fixed = data[:size].decode("utf-8", "replace").encode("utf-8")
    fixed_ends = line_ends(fixed, len(fixed))
    text = _stripped(fixed, line_starts(fixed_ends), fixed_ends)
    invalid = int(text.str.contains(REPLACEMENT, literal=True).sum())
    return Lines(text, line_starts(ends), invalid)


def candidate_lines(batch: Batch, prefilter: re.Pattern[bytes]) -> tuple[Lines, int]:
    """The lines of the batch that match ``prefilter`` (each once), decoded; and the line count.

    Candidates are usually rare (5xx lines): their bounds are then found one by
    one, which is cheaper than locating every newline. When they are not rare,
    all newlines are located at once and the lines taken from an Arrow view.
    """
    data, size = batch.data, batch.size
    hits = find_hits(
        data, size, prefilter, utf8=batch.utf8
    )  # memory speed, GIL-free: see sources.locate
    if hits is None and (batch.utf8 if batch.utf8 is not None else is_utf8(data, size)):
        text_pattern = polars_pattern(prefilter)
        if text_pattern is not None:  # no literal to find: Rust's regex tests each line
            lines = _matching_lines(batch, text_pattern)
            return lines, batch.lines  # known from its newline search: not counted again
    if hits is None:
        found = [m.start() for m in prefilter.finditer(data, 0, size)]
        hits = np.asarray(found, dtype=np.int64)
    count = batch.lines
    if len(hits) * 8 < count:
        return _rare_candidates(data, hits.tolist()), count
    ends = line_ends(data, size)
    index = _distinct_sorted(np.searchsorted(ends, hits))
    starts = line_starts(ends)[index]
    if batch.utf8 if batch.utf8 is not None else is_utf8(data, size):
        return Lines(_stripped(data, starts, ends[index]), starts, 0), count
    bounds = zip(starts.tolist(), ends[index].tolist(), strict=True)
    return decode_lines([data[s:e] for s, e in bounds], starts), count


def coloured(batch: Batch) -> bool:
    """Whether the batch holds an escape byte (a colour code, ``framing.ANSI_SEQUENCE``)."""
    return batch.data.find(ESC, 0, batch.size) >= 0


def decolour(lines: Lines) -> Lines:
    """``lines`` without colour codes (the sample's lines are read so: ``sources.sample``)."""
    text = lines.text
    if not text.str.contains(ESC.decode(), literal=True).any():
        return lines
    return Lines(text.str.replace_all(ANSI_SEQUENCE, ""), lines.starts, lines.invalid_utf8)


#: Coloured lines of a batch tested one by one (``coloured_candidates``) up to one in this many
#: bytes of it (and at least ``MIN_COLOURED``); more, and every line is decoded and tested.
COLOURED_BYTES = 2048
MIN_COLOURED = 256


def coloured_candidates(batch: Batch, prefilter: re.Pattern[bytes]) -> tuple[Lines, int]:
    """``candidate_lines`` of a batch with colour codes: the prefilter is tested on the lines
    without them (a code inside what it looks for, ``" \x1b[31m503``, hid a candidate from the
    search of the bytes). A few coloured lines (an escape injected in a user agent) are tested
    one by one beside the search of the bytes; when colour is the rule, every line is decoded
    and tested (one escape per 256 KiB of a 1 GB access log had made its read of everything
    8x slower that way; a review)."""
    data, size = batch.data, batch.size
    spans = escape_lines(data, size, max(MIN_COLOURED, size // COLOURED_BYTES))
    if spans is not None:
        return _with_coloured(batch, prefilter, spans)
    ends = line_ends(data, size)
    batch.know_lines(len(ends))
    if batch.utf8 if batch.utf8 is not None else is_utf8(data, size):
        lines = Lines(_stripped(data, line_starts(ends), ends), line_starts(ends), 0)
    else:
        lines = all_lines(batch, ends)
    lines = decolour(lines)
    pattern = polars_pattern(prefilter)
    if pattern is not None:
        keep = _contains(lines.text, pattern)
    else:  # rare: a prefilter Rust's regex cannot take, on coloured lines
        found = [prefilter.search(t.encode()) is not None for t in lines.text.to_list()]
        keep = np.asarray(found, dtype=np.bool_)
    index = np.flatnonzero(keep)
    text = lines.text.gather(index)
    # invalid UTF-8 among the candidates, as ``candidate_lines`` counts it (0 in a UTF-8 batch)
    invalid = int(text.str.contains(REPLACEMENT, literal=True).sum()) if lines.invalid_utf8 else 0
    return Lines(text, lines.starts[index], invalid), len(ends)


def _with_coloured(
    batch: Batch, prefilter: re.Pattern[bytes], spans: list[tuple[int, int]]
) -> tuple[Lines, int]:
    """The candidates the search of the bytes finds, with the coloured lines (``spans``)
    judged on their bytes without colour codes instead, decoloured."""
    data = batch.data
    lines, count = candidate_lines(batch, prefilter)
    keep = ~np.isin(lines.starts, np.asarray([s for s, _ in spans], dtype=np.int64))
    chosen = [(s, e) for s, e in spans if matches_decoloured(data[s:e], prefilter)]
    starts = np.asarray([s for s, _ in chosen], dtype=np.int64)
    extra = decode_lines([data[s:e] for s, e in chosen], starts)
    text = pl.concat([lines.text.filter(pl.Series(keep)), extra.text])
    at = np.concatenate([lines.starts[keep], extra.starts])
    order = np.argsort(at, kind="stable")
    text, at = text.gather(order), at[order]
    invalid = 0
    if lines.invalid_utf8 or extra.invalid_utf8:  # among the candidates, as candidate_lines
        invalid = int(text.str.contains(REPLACEMENT, literal=True).sum())
    return decolour(Lines(text, at, invalid)), count


def _matching_lines(batch: Batch, pattern: str) -> Lines:
    """The lines of a UTF-8 batch that ``pattern`` (a Polars regex) matches, decoded."""
    ends = line_ends(batch.data, batch.size)
    batch.know_lines(len(ends))
    text = _string_lines(batch.data, ends)
    index = np.flatnonzero(_contains(text, pattern))
    starts = line_starts(ends)[index]
    return Lines(_stripped(batch.data, starts, ends[index]), starts, 0)


def _contains(text: pl.Series, pattern: str) -> npt.NDArray[np.bool_]:
    """``text.str.contains(pattern)`` as booleans, in slices on Polars' threads (one regex
    call runs on one: a JSON app log's level prefilter tested 1 GB of lines at ~0.6 GB/s)."""
    plans = [
        pl.LazyFrame({"line": text.slice(lo, hi - lo)}).select(pl.col("line").str.contains(pattern))
        for lo, hi in slices(len(text))
    ]
    found = collect(plans)
    out: npt.NDArray[np.bool_] = np.concatenate([f.to_series().to_numpy() for f in found])
    return out


def _distinct_sorted(values: I64) -> I64:
    """``np.unique`` of an ascending array (which imports numpy.ma: start-up time)."""
    if len(values) < 2:
        return values
    keep = np.empty(len(values), dtype=bool)
    keep[0] = True
    np.not_equal(values[1:], values[:-1], out=keep[1:])
    out: I64 = values[keep]
    return out


def _rare_candidates(data: Buffer, hits: list[int]) -> Lines:
    starts: list[int] = []
    raw: list[Buffer] = []
    for hit in hits:
        start = data.rfind(b"\n", 0, hit) + 1
        if starts and starts[-1] == start:  # two hits on one line
            continue
        starts.append(start)
        raw.append(data[start : data.find(b"\n", hit)])
    return decode_lines(raw, np.asarray(starts, dtype=np.int64))


def decode_lines(raw: Sequence[Buffer], starts: I64) -> Lines:
    """Decode lines one by one, replacing and counting invalid UTF-8; stripped as ``_stripped``."""
    texts: list[str] = []
    invalid = 0
    for line in raw:  # few lines: stripped here, as ``_stripped`` does (a Polars call costs more)
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            invalid += 1
            text = line.decode("utf-8", "replace")
        text = text.removesuffix("\n").removesuffix("\r").removeprefix("\ufeff")
        texts.append(text.lstrip("\x00"))
    return Lines(pl.Series("line", texts, dtype=pl.String), starts, invalid)


def _string_lines(data: Buffer, ends: I64) -> pl.Series:
    """Item i is line i of UTF-8 ``data`` with its newline (no copy of the bytes)."""
    offsets = np.empty(len(ends) + 1, dtype=np.int64)
    offsets[0] = 0
    offsets[1:] = ends + 1
    return string_series(data, offsets, "line")


def _stripped(data: Buffer, start: I64, stop: I64) -> pl.Series:
    """The lines ``data[start[i]:stop[i]]`` of UTF-8 ``data`` (``stop``: their newlines, in
    order) with no trailing CR, no byte-order mark (it can open a file's first line) and no
    leading NULs, with no copy of the bytes.

    Each line's bounds are moved past those bytes, and the Arrow array holds, in
    turn, the bytes between two lines (a newline, a CR, a mark, or the lines
    not asked for) and a line: its odd items are the lines. Polars' three
    ``strip_*`` calls gave the same strings, copying every line three times
    (16 MiB of lines: 18 -> 8 ms, and 10 -> 2.5 ms when 5 % of them are 8 KB long).
    """
    buf = np.frombuffer(data, dtype=np.uint8)
    # Before an empty line's newline is a newline (or nothing: position 0 holds one) ...
    stop = stop - (buf[np.maximum(stop - 1, 0)] == 13)
    if len(buf) >= 3:
        # ... and a line shorter than a mark has its CR or newline among these three bytes.
        at = np.minimum(start, len(buf) - 3)
        start = start + 3 * ((buf[at] == 0xEF) & (buf[at + 1] == 0xBB) & (buf[at + 2] == 0xBF))
    if len(buf):
        # a run of NULs first (the hole ``copytruncate`` leaves where the writer goes on at its
        # old offset): the record after it is the line's (it had been malformed)
        nul = np.flatnonzero((buf[np.minimum(start, len(buf) - 1)] == 0) & (start < stop))
        start = start.copy() if len(nul) else start  # the caller's starts place the units
        for i in nul.tolist():
            s, e = int(start[i]), int(stop[i])
            piece = bytes(data[s:e])
            start[i] = s + len(piece) - len(piece.lstrip(b"\x00"))
    offsets = np.empty(2 * len(stop) + 1, dtype=np.int64)
    offsets[0] = 0
    offsets[1::2] = start
    offsets[2::2] = stop
    return string_series(data, offsets, "line").gather_every(2, offset=1)
