"""What an application-log format is (PURE): lines -> ts, time, level, component, message.

An ``AppFormat`` gives Polars expressions over a column of lines (no newline,
no trailing CR) for the columns:

* ``ts`` - the timestamp as written (str);
* ``time`` - that timestamp as a UTC ``Datetime`` where it parses (a timestamp
  without a zone is taken as UTC; one without a year, as syslog RFC 3164 and
  glog write it, needs the format's ``year``, else ``time`` is null);
* ``level`` - normalized by ``levels.normalize_level``;
* ``component`` - who logged it (logger, program, module, class, file); ``-``
  when the line names none;
* ``message`` - the rest of the line; never null on a record, so a line is a
  valid record exactly when ``message`` is not null.

``record_start``, when set, is a prefix regex that the first line of every
record matches and that continuation lines (stack traces) do not; it is
written in the subset of syntax on which Python's bytes ``re`` and Polars'
Rust regex agree (ASCII classes such as ``[0-9]``, no ``\\d \\s \\w``, no
``$``), because the reader cuts units on it in bytes and the parser folds
lines on it in Polars, and the two must never disagree. None: every line is
a record.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

import polars as pl

from logagent.formats.base import Stages
from logagent.formats.levels import level_from_message, level_from_pri, normalize_level

TS, TIME, LEVEL, COMPONENT, MESSAGE = "ts", "time", "level", "component", "message"
APP_COLUMNS = (TS, TIME, LEVEL, COMPONENT, MESSAGE)
NO_COMPONENT = "-"
UTC = pl.Datetime("us", "UTC")
#: Marks a time format for timestamps written without a year.
YEAR = "{year}"
#: The year of year-less stamps: a year (``--year``: every stamp in it), or a reference time
#: ("now"): its year, or the year before for a stamp that would lie more than a day after it,
#: as ``timewindow`` places them too (a December line read in January is last year's).
YearOf = int | datetime | None


class AppFormat(Protocol):
    """An application-log format: name, l_min, record start and a vectorized parser."""

    @property
    def name(self) -> str:
        """Format name as used by ``--format``."""
        ...

    @property
    def description(self) -> str:
        """One line for ``logagent formats``."""
        ...

    @property
    def min_line_bytes(self) -> int:
        """l_min: shorter record lines are malformed."""
        ...

    @property
    def record_start(self) -> str | None:
        """Prefix regex of a record's first line (None: every line is a record)."""
        ...

    def fields(self, line: pl.Expr) -> dict[str, pl.Expr]:
        """Expressions for ts, time, level, component and message from a column of lines."""
        ...


def parse_app(fmt: AppFormat, lines: pl.Series) -> pl.DataFrame:
    """The app columns of each line (null message: not a record)."""
    return pl.DataFrame({"line": lines}).select(**fmt.fields(pl.col("line")))


def parse_times(ts: pl.Expr, formats: Sequence[str], year: YearOf = None) -> pl.Expr:
    """``ts`` as UTC by the first of ``formats`` (strftime) that parses it.

    A format starting with ``{year}`` is for timestamps written without a year
    (syslog RFC 3164, glog): the year (``YearOf``) is put in front; without one
    they stay null.
    """
    text = ts.str.replace_all(r"\s+", " ")  # syslog pads the day with a space
    tries = [attempt(text) for attempt in _time_tries(formats, year)]
    return pl.coalesce(tries) if tries else pl.lit(None, dtype=UTC)


def staged_times(
    ts: pl.Expr, formats: Sequence[str], name: str, year: YearOf = None
) -> tuple[Stages, pl.Expr]:
    """``parse_times`` as helper columns named after ``name`` (``base.staged_fields``): each
    format tries only the stamps the formats before it left null. In one expression every
    format parsed every stamp, and a strptime that fails costs about what one that parses
    does (five formats: 0.30 s a 400 k stamps, against 0.11 s in turn)."""
    tries = _time_tries(formats, year)
    if not tries:
        return [], pl.lit(None, dtype=UTC)
    text = f"{name}_stamp"
    got = [f"{name}_time{i}" for i in range(len(tries))]
    stages: list[dict[str, pl.Expr]] = [{text: ts.str.replace_all(r"\s+", " ")}]
    stages.append({got[0]: tries[0](pl.col(text))})
    for i in range(1, len(tries)):
        left = pl.when(pl.col(got[i - 1]).is_null()).then(pl.col(text))  # null: parsed before
        stages.append({got[i]: pl.coalesce(pl.col(got[i - 1]), tries[i](left))})
    return stages, pl.col(got[-1])


def _time_tries(formats: Sequence[str], year: YearOf) -> list[Callable[[pl.Expr], pl.Expr]]:
    """One parse of the stamp text per format (see ``parse_times``), in order."""
    tries: list[Callable[[pl.Expr], pl.Expr]] = []
    for fmt in formats:
        if fmt.startswith(YEAR):
            if year is None:
                continue
            tries.append(_in_year(year, "%Y" + fmt.removeprefix(YEAR)))
        else:
            tries.append(_strptime(fmt))
    return tries


def _strptime(fmt: str) -> Callable[[pl.Expr], pl.Expr]:
    return lambda text: text.str.strptime(UTC, fmt, strict=False)


def _in_year(year: int | datetime, strf: str) -> Callable[[pl.Expr], pl.Expr]:
    """A stamp without a year parsed in ``year`` (a reference time: the latest year that
    puts it at most a day after the reference)."""

    def in_year(y: int, text: pl.Expr) -> pl.Expr:
        return pl.concat_str([pl.lit(str(y)), text]).str.strptime(UTC, strf, strict=False)

    if not isinstance(year, datetime):
        return lambda text: in_year(year, text)
    latest = pl.lit(year + timedelta(days=1)).cast(UTC)

    def recent(text: pl.Expr) -> pl.Expr:
        this = in_year(year.year, text)
        return pl.when(this <= latest).then(this).otherwise(in_year(year.year - 1, text))

    return recent


@dataclass(frozen=True)
class AppRegexFormat:
    """A format given by regexes with named groups (Rust syntax), tried in order per line.

    Groups used: ``ts``, ``level``, ``pri`` (syslog), ``component``, ``message``
    (others are ignored). A line is a record when one pattern matches; the
    first matching pattern gives all fields. ``level_words``: with no level or
    PRI on the line, infer it from the message (syslog without PRI).
    ``head_component``: a record that names no component gets its error kind,
    the head of its message (``message_head``), so component questions rank kinds.
    """

    name: str
    patterns: tuple[str, ...]
    min_line_bytes: int
    time_formats: tuple[str, ...] = ()
    record_start: str | None = None
    description: str = ""
    example: str = ""
    year: YearOf = None
    level_words: bool = False
    head_component: bool = False
    #: Lines (beyond ``detect.CONTINUATION_LIKE``) this layout writes inside a record.
    continuation: str | None = None

    def fields(self, line: pl.Expr) -> dict[str, pl.Expr]:
        """Named groups of the first pattern that matches; normalized level and UTC time."""
        groups = self._groups(line)
        cols = {name: _pick(groups, name) for name in (TS, "level", "pri", COMPONENT, MESSAGE)}
        message = cols[MESSAGE]
        level = pl.coalesce(normalize_level(cols["level"]), level_from_pri(cols["pri"]))
        if self.level_words:
            level = pl.coalesce(
                level, pl.when(message.is_not_null()).then(level_from_message(message))
            )
        component = cols[COMPONENT].str.strip_chars()
        if self.head_component:
            component = pl.when(component.str.len_bytes() > 0).then(component)
            component = component.otherwise(message_head(message))
        return {
            TS: cols[TS],
            TIME: parse_times(cols[TS], self.time_formats, self.year),
            LEVEL: level,
            COMPONENT: pl.when(message.is_not_null()).then(
                pl.when(component.str.len_bytes() > 0)
                .then(component)
                .otherwise(pl.lit(NO_COMPONENT))
            ),
            MESSAGE: message,
        }

    def message_expr(self, line: pl.Expr) -> pl.Expr:
        """``fields(line)[MESSAGE]`` alone, the same expression: detection scores every
        layout on it, and building the other fields (levels, times) was a third of the
        detection every run pays."""
        return _pick(self._groups(line), MESSAGE)

    def _groups(self, line: pl.Expr) -> list[tuple[pl.Expr, tuple[str, ...]]]:
        """Each pattern's captures (on the lines no earlier pattern matches) and group names."""
        return [
            (_not_earlier(line, self.patterns[:i]).str.extract_groups(p), group_names(p))
            for i, p in enumerate(self.patterns)
        ]


#: The error kind of a message: up to four whole leading words (no digit first, no quotes).
HEAD = (
    r"^(?:\[[^\]]*\] )*([A-Za-z_][A-Za-z0-9_./()'-]*(?: [A-Za-z_][A-Za-z0-9_./()'-]*){0,3})(?: |$)"
)


def message_head(message: pl.Expr) -> pl.Expr:
    """The error kind of each message: its first words up to a digit, quote or colon."""
    return message.str.extract(HEAD, 1).str.replace_all(r"[ :,.;-]+$", "")


def _not_earlier(line: pl.Expr, earlier: Sequence[str]) -> pl.Expr:
    """The lines none of ``earlier`` matches; the others as "" (a pattern's captures on an
    empty string cost nothing, and the first matching pattern gives the fields anyway). The
    test is one match test (a DFA), not the earlier patterns' captures again."""
    if not earlier:
        return line
    unnamed = "|".join(f"(?:{_NAMED.sub('(?:', p)})" for p in earlier)
    return pl.when(line.str.contains(unnamed)).then(pl.lit("")).otherwise(line)


_NAMED = re.compile(r"\(\?P<[A-Za-z_][A-Za-z0-9_]*>")


def group_names(pattern: str) -> tuple[str, ...]:
    """Names of the named groups of a regex, in order."""
    return tuple(re.findall(r"\(\?P<([A-Za-z_][A-Za-z0-9_]*)>", pattern))


def _pick(groups: list[tuple[pl.Expr, tuple[str, ...]]], name: str) -> pl.Expr:
    """Field ``name`` from the first pattern that matched the line."""
    out: pl.Expr = pl.lit(None, dtype=pl.String)
    for struct, names in reversed(groups):
        value = struct.struct.field(name) if name in names else pl.lit(None, dtype=pl.String)
        if name == MESSAGE:
            value = value.fill_null("")  # an optional empty message is still a message
        out = pl.when(_matched(struct, names)).then(value).otherwise(out)
    return out


def _matched(struct: pl.Expr, names: tuple[str, ...]) -> pl.Expr:
    """Whether the pattern matched (on no match Polars gives every group null; every
    pattern has at least one group that takes part in each match)."""
    return pl.any_horizontal([struct.struct.field(n).is_not_null() for n in names])
