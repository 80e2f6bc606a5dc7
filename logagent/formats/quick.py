"""Status counts of plain access lines, read without parsing them (PURE).

A status distribution (``-q status``) parses every line, and the staged parse
(``AccessFormat.staged_fields``) spends most of its time on lines that need
none of it: a match test, a split at the first two quotes copying the line, a
plain test on the head, the status cut and cast, then a group-by of every
line. A format with a ``quick_status`` regex (``AccessFormat``) names lines
that are valid, plain records whose first ``" `` closes the request: their
status is the three ASCII bytes two past it, and it is no 5xx. ``split`` tests
every line with that one regex (a match test: Rust's DFA) and finds the ``" ``
(memchr), counts the lines it accepts by their three status bytes, and hands
every other line back for the full parse: 5xx lines (the timeline parses their
stamps), lines shorter than l_min, and lines the regex refuses (escaped quotes,
a quote in the user field, Unicode digits, invalid records).

It applies where such a line's record holds nothing but its status: no key,
no unit, no bucket, no time window (``quick_pattern``). The counts are the
ones the full parse gives (``tests/property/test_quick_property.py``). A
parse pool counts each batch so as it arrives and keeps only the lines left
(``extract.count_quick``), copied out of the batch's buffer (``owned``).
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from logagent.formats.base import STATUS
from logagent.formats.parallel import collect, slices
from logagent.sources.batches import I64

_QUICK, _CODE, N = "_quick", "_code", "n"
#: The most bytes of lines ``owned`` copies out of their batch.
OWN_BYTES = 1 << 20
#: The counts' columns (the records' status and count types).
COUNTS_SCHEMA: dict[str, pl.DataType] = {STATUS: pl.Int32(), N: pl.Int64()}


@dataclass(frozen=True)
class Split:
    """The lines ``split`` counted (``counts``: status, n) and the lines left to parse."""

    counts: pl.DataFrame
    rest: pl.Series
    rest_units: I64


def quick_pattern(fmt: object) -> str | None:
    """``fmt``'s quick-status regex, if it has one (``AccessFormat``; ``Bucketed`` passes
    its inner format's on when it buckets 5xx records only)."""
    pattern = getattr(fmt, "quick_status", None)
    return pattern if isinstance(pattern, str) else None


def split(text: pl.Series, units: I64, pattern: str, min_line_bytes: int) -> Split:
    """Count the lines of ``text`` that ``pattern`` accepts (a format's ``quick_status``: no
    5xx) and l_min admits, by status; the other lines and their units are left to parse."""
    line = pl.col("line")
    quick = line.str.contains(pattern) & (line.str.len_bytes() >= min_line_bytes)
    code = line.cast(pl.Binary).bin.slice(line.str.find('" ', literal=True) + 2, 3)
    # read for a quick line only: three ASCII digits (another line's three bytes may cut a
    # character, which Polars refuses to cast to a string, strict or not)
    status = pl.when(quick).then(code).cast(pl.String).cast(pl.Int32)
    plans = [
        pl.LazyFrame({"line": text.slice(lo, hi - lo)}).select(
            quick.alias(_QUICK), status.alias(_CODE)
        )
        for lo, hi in slices(len(text))
    ]
    found = pl.concat(collect(plans))
    flags = found[_QUICK]
    codes = found[_CODE].drop_nulls().value_counts(name=N)
    counts = codes.rename({_CODE: STATUS}).cast(COUNTS_SCHEMA)  # type: ignore[arg-type]
    keep = ~flags
    return Split(counts, text.filter(keep), units[keep.to_numpy()])


def owned(rest: pl.Series) -> pl.Series | None:
    """``rest`` (a ``Split.rest``) with bytes of its own, or None when it is too long to copy
    (over ``OWN_BYTES``). Polars' filter keeps the views into the batch's buffer, which a
    pool holding the lines would keep from being read into again (``sources.buffers``)."""
    if rest.str.len_bytes().sum() > OWN_BYTES:
        return None
    return pl.Series(rest.name, rest.to_list(), dtype=pl.String)
