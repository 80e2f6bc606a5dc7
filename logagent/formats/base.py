"""What a log format is (PURE): a parser from lines to fields, plus a byte prefilter.

A ``Format`` gives Polars expressions that turn a column of lines (no
newline, no trailing CR) into the columns ``path`` (str, raw request path)
and ``status`` (Int32); a line is a valid record when ``status`` is not null.
Being expressions, they run inside one lazy query per batch.
``min_line_bytes`` is the shortest line the format counts (the stats note's
l_min: shorter lines are malformed, which is what bounds the events one unit
can hold). ``error_prefilter``, when present, is a bytes regex that every line
holding a 5xx record matches: lines that do not match need not be parsed when
the question is about 5xx only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

import polars as pl

#: Columns every parser returns.
PATH, STATUS = "path", "status"
#: The optional column of a record's time bucket (formats/bucketed.py; the timeline).
BUCKET = "bucket"
#: Helper columns computed before a format's fields, stage by stage (``staged_fields``).
Stages = Sequence[dict[str, pl.Expr]]


class Format(Protocol):
    """A log format: name, l_min, optional 5xx prefilter and a vectorized parser."""

    @property
    def name(self) -> str:
        """Format name as used by ``--format``."""
        ...

    @property
    def min_line_bytes(self) -> int:
        """l_min: shorter lines are malformed."""
        ...

    @property
    def error_prefilter(self) -> re.Pattern[bytes] | None:
        """A bytes regex every 5xx record matches, or None."""
        ...

    def fields(self, line: pl.Expr) -> dict[str, pl.Expr]:
        """Expressions for ``path`` and ``status`` from a column of lines."""
        ...


def parse(fmt: Format, lines: pl.Series) -> pl.DataFrame:
    """Columns ``path`` and ``status`` of each line (null status: not a record)."""
    return pl.DataFrame({"line": lines}).select(**fmt.fields(pl.col("line")))


@dataclass(frozen=True)
class RegexFormat:
    """A format given by one regex with named groups ``path`` and ``status`` (Rust regex syntax)."""

    name: str
    pattern: str
    min_line_bytes: int
    error_prefilter: re.Pattern[bytes] | None = None
    description: str = ""

    def fields(self, line: pl.Expr) -> dict[str, pl.Expr]:
        """The named groups; ``status`` becomes Int32 (null when the line does not match)."""
        groups = line.str.extract_groups(self.pattern)
        return {
            PATH: groups.struct.field(PATH),
            STATUS: groups.struct.field(STATUS).cast(pl.Int32, strict=False),
        }


def staged_fields(fmt: object, line: pl.Expr) -> tuple[Stages, dict[str, pl.Expr]]:
    """``fmt``'s fields as stages of helper columns and the fields computed over them.

    Polars evaluates a sub-expression once per use, and a parser uses some in
    several branches (``when(valid)...otherwise``): a batch's parse computes
    them once as helper columns instead, each stage's in parallel. The fields
    are the same as ``fmt.fields(line)`` gives (``tests/property``), except
    where a format says otherwise (``Bucketed(events_only=True)`` leaves
    the bucket of a non-event null). A format
    without stages (no ``staged_fields`` method): no helpers, its ``fields``.
    """
    own = getattr(fmt, "staged_fields", None)
    if callable(own):
        stages, fields = own(line)
        return stages, fields
    plain: dict[str, pl.Expr] = fmt.fields(line)  # type: ignore[attr-defined]
    return [], plain


def fast_variant(fmt: object) -> tuple[Format, pl.Expr] | None:
    """``fmt`` for the lines its layout's fast patterns read (``AppRegexFormat.fast_only``),
    and the expression telling those lines, over the first of ``staged_fields(fmt)``'s
    stages; None where ``fmt`` has no such variant. On those lines the variant's fields equal
    ``fmt``'s, and its stages open with the same first stage (``extract._parse``)."""
    own = getattr(fmt, "fast_variant", None)
    if callable(own):
        found: tuple[Format, pl.Expr] | None = own()
        return found
    return None


@dataclass(frozen=True)
class Wrapped:
    """A format around ``inner`` that adds columns (a time window, a time bucket): the same
    name, l_min and prefilter as ``inner``; subclasses give the columns they add (``added``)."""

    inner: Format

    def added(self, line: pl.Expr) -> dict[str, pl.Expr]:
        """The columns this wrapper adds to the inner fields."""
        raise NotImplementedError

    def fields(self, line: pl.Expr) -> dict[str, pl.Expr]:
        """The inner fields plus the added columns."""
        return {**self.inner.fields(line), **self.added(line)}

    def staged_fields(self, line: pl.Expr) -> tuple[Stages, dict[str, pl.Expr]]:
        """The inner format's stages; its fields plus the added columns."""
        stages, fields = staged_fields(self.inner, line)
        return stages, {**fields, **self.staged_added(line, stages)}

    def fast_variant(self) -> tuple[Format, pl.Expr] | None:
        """The inner format's ``fast_variant``, wrapped alike."""
        inner = fast_variant(self.inner)
        return None if inner is None else (replace(self, inner=inner[0]), inner[1])

    def staged_added(self, line: pl.Expr, stages: Stages) -> dict[str, pl.Expr]:
        """The added columns where the inner parse is staged (``stages``): as ``added``, or
        over the helper columns where they hold what the columns need."""
        return self.added(line)

    @property
    def name(self) -> str:
        """The inner format's name."""
        return self.inner.name

    @property
    def min_line_bytes(self) -> int:
        """The inner format's l_min."""
        return self.inner.min_line_bytes

    @property
    def error_prefilter(self) -> re.Pattern[bytes] | None:
        """The inner prefilter: the added columns change no record."""
        return self.inner.error_prefilter

    @property
    def raw_keys(self) -> bool:
        """Whether the inner format's keys are taken as written (``selected.Selected``)."""
        return bool(getattr(self.inner, "raw_keys", False))
