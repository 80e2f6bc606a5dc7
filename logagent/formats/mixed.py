"""Inputs of different formats read in one run (PURE).

Each input's format is detected on its own; when they differ (an nginx
``combined`` log next to a JSON-lines access log), ``FirstOf`` parses every
line with each of their formats in turn and keeps the first that makes a
record of it. So every input's records count under their own format, and a
line that none of them parses is malformed — the count the result reports.
(A line inside one input that is of *another* input's format is parsed under
that format, not counted as malformed: the formats of a run are a set.)

Application layouts written into one file together (``APP_MIXES``: Tomcat's
``catalina.out`` holds its own JULI records and the app's log4j ones) are read
by ``combined_app``: one layout whose patterns are both layouts', tried in
order, and whose records start where either layout's do. Read by one of them,
the other's records had been folded into the records above as stack-trace
lines, and the answer was "exact" without them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

import polars as pl

from logagent.formats.app import AppRegexFormat
from logagent.formats.base import STATUS, Format
from logagent.formats.extract import CONTINUATION
from logagent.formats.levels import LEVEL_MAP

#: Application layouts one file may hold together, read by ``combined_app``: Tomcat's
#: catalina.out (JULI's records and the app's log4j ones, both on standard output; before
#: Tomcat 8.5, java.util.logging's two-line records); an Airflow scheduler's output (its
#: records, and its log server's gunicorn lines).
APP_MIXES = frozenset(
    {
        frozenset({"log4j", "tomcat"}),
        frozenset({"airflow", "gunicorn"}),
        frozenset({"log4j", "jul"}),  # an older Tomcat's catalina.out (``javalogs``)
    }
)


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


def combined_app(parts: Sequence[object]) -> AppRegexFormat | None:
    """One layout reading the lines of each of ``parts`` (regex layouts, the first tried
    first), or None when they read levels differently (a word of two levels in their
    vocabularies, levels read from words, years, refused components) and so cannot be one.
    A record without a component gets its error kind when a part's does
    (``head_component``); only the first part's ``fast`` patterns stay (another part's may
    match a line an earlier pattern reads)."""
    apps = [p for p in parts if isinstance(p, AppRegexFormat)]
    if len(apps) < 2 or len(apps) < len(parts):
        return None
    first = apps[0]
    same = ("level_words", "year", "refused_components")
    if any(getattr(p, a) != getattr(first, a) for p in apps[1:] for a in same):
        return None
    levels: dict[str, str] = {}  # each part's vocabulary, where none reads a word otherwise
    for p in apps:
        for word, level in p.level_map or LEVEL_MAP.items():
            if levels.setdefault(word, level) != level:
                return None
    if any(p.record_start is None for p in apps):  # a part whose every line is a record
        return None
    starts = [p.record_start for p in apps if p.record_start is not None]
    extra = [p.continuation for p in apps if p.continuation is not None]
    times = tuple(dict.fromkeys(f for p in apps for f in p.time_formats))
    names = "+".join(p.name for p in apps)
    return replace(
        first,
        name=f"mixed({names})",
        patterns=tuple(pattern for p in apps for pattern in p.patterns),
        fast=first.fast,
        time_formats=times,
        record_start="|".join(f"(?:{start})" for start in starts),
        continuation="|".join(f"(?:{c})" for c in extra) if extra else None,
        min_line_bytes=min(p.min_line_bytes for p in apps),
        level_map=() if all(not p.level_map for p in apps) else tuple(levels.items()),
        head_component=any(p.head_component for p in apps),
        ruled_out_by=None,
        description=f"{names} in one file: each line read by the layout that parses it",
        example=first.example,
    )
