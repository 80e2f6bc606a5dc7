"""Sample lines from the inputs for format detection (EDGE: reads sources).

Lines come from several spots spread over each seekable input (a log whose
head is a banner or a different format still gets a fair vote), and from the
head of each stream (a forward reader can still go back to offset 0 then).
Colour codes are removed, as from every line read (``formats.batchlines.decolour``).
"""

from __future__ import annotations

from collections.abc import Sequence

from logagent.sources.files import Source
from logagent.sources.framing import decoloured

SAMPLE_BYTES = 256 << 10
SPOTS = 8
#: A stream's head is read on past the sample's bytes until it holds this many lines ...
MIN_LINES = 16
#: ... or this many bytes of all streams together (a stream is read once: its head waits in
#: memory for the read).
STREAM_MOST = 16 << 20


def sample_lines(
    sources: Sequence[Source], *, cap: int, sample_bytes: int = SAMPLE_BYTES
) -> list[str]:
    """Up to ``sample_bytes`` of whole lines from the inputs, decoded, without blank lines."""
    return [
        line for each in sample_each(sources, cap=cap, sample_bytes=sample_bytes) for line in each
    ]


def sample_each(
    sources: Sequence[Source], *, cap: int, sample_bytes: int = SAMPLE_BYTES
) -> list[list[str]]:
    """``sample_lines`` of each input on its own (the same lines, kept apart by input)."""
    per_source = max(sample_bytes // max(len(sources), 1), 4096)
    # a stream's head may grow past its share, all streams' together to STREAM_MOST at most
    # (300 streams of long lines had held 16 MiB each: 2.5 GiB under a 1 GiB budget)
    most = max(per_source, STREAM_MOST // max(len(sources), 1))
    out: list[list[str]] = []
    for source in sources:
        lines: list[str] = []
        for offset, data, at_end in _spots(source, per_source, most):
            lines.extend(_whole_lines(data, skip_first=offset > 0, at_end=at_end, cap=cap))
        out.append([line for line in lines if line.strip()])
    return out


def _spots(source: Source, budget: int, most: int) -> list[tuple[int, bytes, bool]]:
    """(offset, bytes, whether they end at the input's end: a read that does ends with its
    last line, newline or not) of the places sampled; a stream's head up to ``most`` bytes."""
    if not source.seekable or source.size is None:
        return [_stream_head(source, budget, most)]
    size = source.size
    if size <= budget:
        return [(0, source.read_at(0, size), True)]
    step = budget // SPOTS
    offsets = sorted({(size - step) * i // (SPOTS - 1) for i in range(SPOTS)})
    return [(off, data := source.read_at(off, step), size == off + len(data)) for off in offsets]


def _stream_head(source: Source, budget: int, most: int) -> tuple[int, bytes, bool]:
    """A stream's first ``budget`` bytes, or more while they hold under ``MIN_LINES`` lines
    (up to ``most``): a first line longer than the budget had been the sample's only line,
    cut, and a valid ``.gz`` log or stdin was refused as no known format. A stream's read is
    short only at its end."""
    data = source.read_at(0, budget)
    while data.count(b"\n") < MIN_LINES and len(data) >= budget and budget < most:
        budget = min(2 * budget, most)
        data = source.read_at(0, budget)
    return 0, data, len(data) < budget


def _whole_lines(data: bytes, *, skip_first: bool, at_end: bool, cap: int) -> list[str]:
    parts = data.split(b"\n")
    cut_last = not data.endswith(b"\n") and not at_end  # cut by the read, not a whole line
    if skip_first:  # the read began inside a line: the part before its first newline is cut
        parts = parts[1:]
        if cut_last:  # and so is the last, even when it is the only part left
            parts = parts[:-1]
    elif len(parts) > 1 and cut_last:  # (a first line longer than the read is kept, cut)
        parts = parts[:-1]
    return [
        decoloured(
            p[:cap].decode("utf-8", "replace").removesuffix("\r").lstrip("\ufeff").lstrip("\x00")
        )
        for p in parts
    ]
