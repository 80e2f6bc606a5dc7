"""The error-types question: mine templates on a seed-independent pilot, then count them.

Templates are mined once, before counting, on the events of one component
read at ``PILOT_PLACES`` evenly spaced places of each seekable input (a
stream's pilot is the lines already sampled for detection): the places do not
depend on the reading seed, so neither do the templates. The frozen set is
then matched against every event (``templates.match_expr``); a message no
template covers counts under ``OTHER``, just another key.

``read_pilot_lines`` is the EDGE (it reads the sources); the rest is PURE.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from logagent.formats.app import MESSAGE, AppFormat
from logagent.formats.base import PATH, STATUS, Format
from logagent.formats.extract import IN_WINDOW
from logagent.sources import Source
from logagent.templates import MiningConfig, TemplateSet, mine

PILOT_PLACES = 64
PILOT_BYTES = 64 << 10


def read_pilot_lines(sources: Sequence[Source], fallback: Sequence[str]) -> list[str]:
    """Whole lines read at evenly spaced places of each seekable source (``fallback`` if none)."""
    lines: list[str] = []
    for source in sources:
        if not source.seekable or not source.size:
            continue
        for offset in place_offsets(source.size):
            lines += whole_lines(source.read_at(offset, PILOT_BYTES), at_start=offset == 0)
    return lines or list(fallback)


def place_offsets(size: int) -> list[int]:
    """Start offsets of the pilot places of an input of ``size`` bytes (no overlap)."""
    if size <= PILOT_PLACES * PILOT_BYTES:
        return list(range(0, size, PILOT_BYTES))
    return [i * size // PILOT_PLACES for i in range(PILOT_PLACES)]


def whole_lines(data: bytes, *, at_start: bool) -> list[str]:
    """The complete lines of a chunk: the first is dropped unless the chunk starts the file."""
    end = data.rfind(b"\n")
    if end < 0:
        return []
    start = 0 if at_start else data.find(b"\n") + 1
    text = data[start:end].decode("utf-8", "replace")
    return [line.removesuffix("\r") for line in text.split("\n")]


def pilot_events(lines: Sequence[str], fmt: Format, app: AppFormat, key: str) -> pl.Series:
    """Messages of the pilot's events of component ``key`` (in the time window, if any)."""
    line = pl.col("line")
    cols = fmt.fields(line)
    keep = cols[STATUS].is_between(500, 599) & (cols[PATH] == key)
    if IN_WINDOW in cols:
        keep = keep & cols[IN_WINDOW].fill_null(False)
    frame = pl.DataFrame({"line": list(lines)}, schema={"line": pl.String})
    return frame.filter(keep).select(app.fields(line)[MESSAGE].alias(MESSAGE)).to_series()


def mine_pilot(
    lines: Sequence[str],
    fmt: Format,
    app: AppFormat,
    key: str,
    config: MiningConfig | None = None,
) -> TemplateSet:
    """The frozen templates of component ``key``'s events among the pilot lines."""
    return mine(pilot_events(lines, fmt, app, key), config)
