"""Inputs of different formats read in one run (PURE).

Each input's format is detected on its own; when they differ (an nginx
``combined`` log next to a JSON-lines access log), ``FirstOf`` parses every
line with each of their formats in turn and keeps the first that makes a
record of it. So every input's records count under their own format, and a
line that none of them parses is malformed — the count the result reports.
(A line inside one input that is of *another* input's format is parsed under
that format, not counted as malformed: the formats of a run are a set.)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from logagent.formats.base import STATUS, Format
from logagent.formats.extract import CONTINUATION


def part_names(name: str) -> tuple[str, ...]:
    """The part names of a ``mixed(a+b)`` name (``FirstOf.name``), else ()."""
    if not (name.startswith("mixed(") and name.endswith(")")):
        return ()
    parts = tuple(name[len("mixed(") : -1].split("+"))
    return parts if len(parts) > 1 else ()


@dataclass(frozen=True)
class FirstOf:
    """A format made of several: a line is read by the first that parses it."""

    parts: tuple[Format, ...]

    @property
    def name(self) -> str:
        """``mixed(a+b)``."""
        return "mixed(" + "+".join(p.name for p in self.parts) + ")"

    @property
    def min_line_bytes(self) -> int:
        """The shortest line any part counts."""
        return min(p.min_line_bytes for p in self.parts)

    @property
    def error_prefilter(self) -> re.Pattern[bytes] | None:
        """Every part's 5xx prefilter, as one alternation; none if a part has none."""
        filters = [p.error_prefilter for p in self.parts]
        if any(f is None for f in filters):
            return None
        return re.compile(b"|".join(b"(?:" + f.pattern + b")" for f in filters if f is not None))

    def fields(self, line: pl.Expr) -> dict[str, pl.Expr]:
        """The columns every part yields, each from the first part whose ``status`` parses."""
        each = [p.fields(line) for p in self.parts]
        names = [n for n in each[0] if all(n in f for f in each[1:])]
        out = {name: _first(each, name) for name in names}
        flags = [f[CONTINUATION].fill_null(False) for f in each if CONTINUATION in f]
        if flags and CONTINUATION not in out:  # a part's own non-record lines (W3C directives)
            out[CONTINUATION] = out[STATUS].is_null() & pl.any_horizontal(flags)
        return out


def _first(each: Sequence[dict[str, pl.Expr]], name: str) -> pl.Expr:
    """``name`` of the first part whose status is not null (null if none parses)."""
    expr = each[-1][name]
    for fields in reversed(each[:-1]):
        expr = pl.when(fields[STATUS].is_not_null()).then(fields[name]).otherwise(expr)
    return expr
