"""A layout never seen before: the header of a line inferred from sampled lines (PURE).

``infer_generic(sample)`` looks at the sampled lines for

* a timestamp: the shape (``TS_SHAPES``) found in the first ``TS_WINDOW_BYTES``
  bytes of the most lines;
* a level word after it (``LEVEL_WORD``: upper or title case, or any case when
  bracketed, within a few tokens of the timestamp; lower case as the first word
  after the timestamp, ``LOWER_LEVEL``);
* a component in what follows the level: ``(name)`` at the end, ``Class@line``,
  ``[name]``, ``name:``, ``name -``, a dotted logger, env_logger's ``module::path]`` or
  NLog's ``|Logger|``, whichever shape fits
  most lines (``COMPONENT_SHAPES``); none fitting, the error kind (message head).

It reports what it inferred and on which share of the sample in its
``description`` (shown by ``logagent detect`` and ``logagent formats``).
The parser itself is two regexes built from those choices: vectorized.
Detection scores it below every known layout (``GENERIC_DISCOUNT``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from logagent.formats.app import (
    COMPONENT,
    LEVEL,
    LEVEL_WORDS,
    MESSAGE,
    NO_COMPONENT,
    TIME,
    TS,
    message_head,
)
from logagent.formats.apptimes import parse_times
from logagent.formats.levels import normalize_level
from logagent.formats.records import CONTINUATION_LIKE
from logagent.formats.serverlogs import ISO_TIMES

NAME = "generic"
TS_WINDOW_BYTES = 40
#: A guessed layout is never as sure as a known one: its detection score is multiplied by this.
GENERIC_DISCOUNT = 0.9
TS_SHAPES: tuple[tuple[str, str], ...] = (
    (
        "ISO 8601",
        r"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]+)?"
        r"(?:Z|[+-][0-9]{2}:?[0-9]{2})?",
    ),
    ("yyyy/mm/dd", r"[0-9]{4}/[0-9]{2}/[0-9]{2}[ T-][0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]+)?"),
    (
        "dd/Mon/yyyy",
        r"[0-9]{2}/[A-Z][a-z]{2}/[0-9]{4}:[0-9]{2}:[0-9]{2}:[0-9]{2}(?: [+-][0-9]{4})?",
    ),
    (
        "ctime",
        r"[A-Z][a-z]{2} [A-Z][a-z]{2} +[0-9]{1,2} [0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)? [0-9]{4}",
    ),
    ("BSD syslog", r"[A-Z][a-z]{2} +[0-9]{1,2} [0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?"),
    (
        "dd.mm.yyyy",
        r"[0-9]{2}[./-][0-9]{2}[./-][0-9]{4}[ T][0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]+)?",
    ),
    ("compact date", r"[0-9]{6,8}[ T-][0-9]{2}:?[0-9]{2}:?[0-9]{2}(?:[.,][0-9]+)?"),
    ("epoch seconds", r"1[0-9]{9}(?:\.[0-9]{1,9})?"),
    ("time of day", r"[0-9]{2}:[0-9]{2}:[0-9]{2}[.,][0-9]{3,9}"),
    ("time of day (seconds)", r"[0-9]{2}:[0-9]{2}:[0-9]{2}"),
)
_TS_FORMATS = (
    *ISO_TIMES,
    "%Y/%m/%d %H:%M:%S%.f",
    "%d/%b/%Y:%H:%M:%S %z",
    "%a %b %d %H:%M:%S%.f %Y",
)
_WORDS = LEVEL_WORDS
#: A level word in brackets or angle brackets, any case; or bare, upper or title case.
_MARKED = r"\[ *(?P<bl>(?i:" + _WORDS + r")) *\]|<(?P<al>(?i:" + _WORDS + r"))>"
_MARKED_LEVEL = r"(?:" + _MARKED + ")"
_BARE_LEVEL = r"(?P<wl>" + _WORDS + "|" + _WORDS.title() + r")"
LEVEL_WORD = r"(?:" + _MARKED + "|" + _BARE_LEVEL + ")"
#: A level word in lower case (``2016-06-30 12:00:01 error msg``, winston's ``info: msg``,
#: VMware's ``... info vpxd[45715] ...``) counts only as the first word after the timestamp:
#: anywhere else it may be prose (``connection error``).
LOWER_LEVEL = r"(?P<ll>" + _WORDS.lower() + r")"
_AFTER_LEVEL = r"(?:[ :|]*-+ |[ :|]+|$)"  # Ruby's Logger writes "ERROR -- Rails: msg"
#: (name, regex over the text after the level with groups component and message).
COMPONENT_SHAPES: tuple[tuple[str, str], ...] = (
    ("(name) at the end", r"^(?P<message>.*?) \((?P<component>[A-Za-z_$][A-Za-z0-9_$.\-]*)\) *$"),
    (
        "Class@line",
        r"^\[(?:.*:)?(?P<component>[A-Za-z_$][A-Za-z0-9_$.]*)@[0-9]+\]:? *-? *(?P<message>.*)$",
    ),
    ("Class@line", r"^(?P<component>[A-Za-z_$][A-Za-z0-9_$.]*)@[0-9]+:? *-? *(?P<message>.*)$"),
    ("[name]", r"^\[(?P<component>[^\] ]+) *\]:? *-? *(?P<message>.*)$"),
    (  # loguru: "module:function:line - message"
        "name:function:line -",
        r"^(?P<component>[A-Za-z_][A-Za-z0-9_.]*)(?::[A-Za-z0-9_<>.]+)*:[0-9]+ +- (?P<message>.*)$",
    ),
    ("name:", r"^(?P<component>[A-Za-z_][A-Za-z0-9_$.\-/]*)(?:\[[0-9]+\])?: (?P<message>.*)$"),
    ("name -", r"^(?:\[[^\]]*\] +)?(?P<component>[A-Za-z_$][A-Za-z0-9_$.]*) +- (?P<message>.*)$"),
    ("dotted logger", r"^(?P<component>[a-z][A-Za-z0-9_$]*(?:\.[A-Za-z0-9_$]+)+) (?P<message>.*)$"),
    # Rust's env_logger: "[ts LEVEL module::path] msg"
    (
        "[ts level name]",
        r"^(?P<component>[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z0-9_]+)*)\] +(?P<message>.*)$",
    ),
    # NLog's default: "ts|LEVEL|Logger.Name|msg" (a dotted logger: "user1|msg" is no component)
    (
        "|name|",
        r"^(?P<component>[A-Za-z_][A-Za-z0-9_`+\-]*(?:\.[A-Za-z0-9_`+\-]+)+)\|(?P<message>.*)$",
    ),
)
MIN_COMPONENT_SHARE = 0.6


@dataclass(frozen=True)
class GenericFormat:
    """The inferred layout: a timestamp shape, a level word and a component shape."""

    ts_shape: str | None
    ts_pattern: str | None
    component_shape: str | None
    component_pattern: str | None
    description: str
    name: str = NAME
    min_line_bytes: int = 8
    #: Whether a record's line may start with a blank (``infer_generic``: most sampled lines
    #: with a stamp do). When not, an indented line is part of the record above it: Fluentd
    #: writes each backtrace frame as an indented line with its own stamp and level, and
    #: those 188 frames had been counted as ERROR records.
    indented: bool = True

    @property
    def record_start(self) -> str | None:
        """A line starts a record when the timestamp is in its first bytes (stack traces fold)."""
        if self.ts_pattern is None:
            return None
        return ts_window(self.indented, newline=False) + self.ts_pattern

    def fields(self, line: pl.Expr) -> dict[str, pl.Expr]:
        """Timestamp, level word, component and message of the inferred header."""
        head = header_regex(self.ts_pattern, indented=self.indented)
        groups = line.str.extract_groups(head)
        ts, rest = groups.struct.field("ts"), groups.struct.field("rest")
        words = ("bl", "al", "wl") if self.ts_pattern is None else ("bl", "al", "wl", "ll")
        raw = pl.coalesce(*(groups.struct.field(g) for g in words))
        ok = raw.is_not_null()
        component, message = pl.lit(None, dtype=pl.String), rest
        if self.component_pattern is not None:
            parts = rest.str.extract_groups(self.component_pattern)
            component = parts.struct.field(COMPONENT)
            message = pl.coalesce(parts.struct.field(MESSAGE), rest)
        component = pl.coalesce(component, message_head(message), pl.lit(NO_COMPONENT))
        return {
            TS: pl.when(ok).then(ts),
            TIME: pl.when(ok).then(parse_times(ts, _TS_FORMATS)),
            LEVEL: pl.when(ok).then(normalize_level(raw)),
            COMPONENT: pl.when(ok).then(component),
            MESSAGE: pl.when(ok).then(message.fill_null("")),
        }


def ts_window(indented: bool, *, newline: bool = True) -> str:
    """What may come before the stamp: up to ``TS_WINDOW_BYTES`` bytes, starting with no
    blank unless ``indented`` (``newline``: ``.`` for a regex run on one line)."""
    any_byte = "." if newline else "[^\\n]"
    if indented:
        return any_byte + "{0," + str(TS_WINDOW_BYTES) + "}?"
    return "(?:[^ \\t\\n]" + any_byte + "{0," + str(TS_WINDOW_BYTES - 1) + "}?)?"


def header_regex(ts_pattern: str | None, *, indented: bool = True) -> str:
    """Timestamp in the first bytes, a few tokens, then the level word and the rest."""
    gap = r"[^A-Za-z]{0,24}?(?:[^ ]+ +){0,6}?[\[(<|]?"  # up to six fields (BGL: five)
    if ts_pattern is None:
        # a bare level word follows no letter, digit or underscore: a class name is no level
        # (a Rails log's ``ActionController::RoutingError (No route ...)`` lines had been its
        # ERROR records); a bracketed one may follow a name (``worker-1[ERROR] job ...``)
        return (
            r"^(?P<ts>)(?:[^ ]{0,40}?(?:[^ ]+ +){0,2}?"
            + _MARKED_LEVEL
            + r"|(?:[^ ]{0,39}[^ \w])?(?:[^ ]+ +){0,2}?"
            + _BARE_LEVEL
            + ")"
            + _AFTER_LEVEL
            + r"(?P<rest>.*)$"
        )
    return (
        "^"
        + ts_window(indented)
        + r"(?P<ts>"
        + ts_pattern
        + r")(?:[ \t]+"
        + LOWER_LEVEL
        + "|"
        + gap
        + LEVEL_WORD
        + r"[\])>|]?)"
        + _AFTER_LEVEL
        + r"(?P<rest>.*)$"
    )


def infer_generic(sample: Sequence[str]) -> GenericFormat:
    """Infer the header of the sampled lines; what was chosen and how often it fits."""
    lines = pl.Series("line", [x for x in sample if x.strip()], dtype=pl.String)
    n = max(lines.len(), 1)
    ts_name, ts_pattern, ts_share, stamped = _best_ts(lines)
    indented = ts_pattern is not None and _indented(lines, ts_pattern, stamped)
    frame = pl.DataFrame({"line": lines}).select(
        g=pl.col("line").str.extract_groups(header_regex(ts_pattern, indented=indented))
    )
    rest = frame["g"].struct.field("rest").drop_nulls()
    level_share = rest.len() / n
    comp_name, comp_pattern, comp_share = _best_component(rest)
    where = (
        f"{ts_name} in {ts_share:.0%} of the sampled lines that are no part of a record's trace"
        if ts_name
        else "none"
    )
    comp = f"{comp_name} ({comp_share:.0%})" if comp_name else "error kind (message head)"
    description = (
        f"generic, inferred from the sample: timestamp {where}; level word in {level_share:.0%}; "
        f"component = {comp}"
    )
    if ts_pattern is not None and not indented:
        description += "; an indented line continues the record above"
    return GenericFormat(
        ts_name, ts_pattern, comp_name, comp_pattern, description, indented=indented
    )


def _indented(lines: pl.Series, ts_pattern: str, stamped: int) -> bool:
    """Whether records start with a blank: under a tenth of the ``stamped`` sampled lines (a
    stamp in their first bytes, ``_best_ts``) start without one (a log padded throughout).
    Else the lines that start at the edge are the records, however many indented frames
    follow each."""
    (blank,) = _matches(lines, ["^[ \t].{0," + str(TS_WINDOW_BYTES) + "}?" + ts_pattern])
    return stamped > 0 and 10 * (stamped - blank) < stamped


def _best_ts(lines: pl.Series) -> tuple[str | None, str | None, float, int]:
    """The timestamp shape most sampled lines start with, and its share of them: of the lines
    that carry it or look like no part of a record (``CONTINUATION_LIKE``: a stack trace's
    frames are the record's, and .NET's "   at ..." frames had been 54 of an NLog log's 82
    lines, its stamp under half of them and none inferred: refused, probe T); and how many
    lines carry it (a review: ``_indented`` had been given the share times every line)."""
    best: tuple[str | None, str | None, float, int] = (None, None, 0.0, 0)
    window = "^.{0," + str(TS_WINDOW_BYTES) + "}?"
    line = pl.col("line")
    unlike = ~line.str.contains(CONTINUATION_LIKE)
    exprs = []
    for i, (_, pattern) in enumerate(TS_SHAPES):
        stamped = line.str.contains(window + pattern)
        exprs += [stamped.sum().alias(f"s{i}"), (stamped | unlike).sum().alias(f"n{i}")]
    row = pl.DataFrame({"line": lines}).select(exprs).row(0, named=True)
    for i, (name, pattern) in enumerate(TS_SHAPES):
        found, n = int(row[f"s{i}"] or 0), max(int(row[f"n{i}"] or 0), 1)
        if found / n > best[2]:
            best = (name, pattern, found / n, found)
    return best if best[2] >= 0.5 else (None, None, best[2], 0)


def _best_component(rest: pl.Series) -> tuple[str | None, str | None, float]:
    n = max(rest.len(), 1)
    best: tuple[str | None, str | None, float] = (None, None, 0.0)
    hits = _matches(rest, [pattern for _, pattern in COMPONENT_SHAPES])
    for (name, pattern), found in zip(COMPONENT_SHAPES, hits, strict=True):
        share = found / n
        if share > best[2] + 0.05:  # an earlier, more specific shape wins near-ties
            best = (name, pattern, share)
    return best if best[2] >= MIN_COMPONENT_SHARE else (None, None, best[2])


def _matches(lines: pl.Series, patterns: list[str]) -> list[int]:
    """How many of ``lines`` each pattern matches, in one Polars query: one query a shape
    cost every run's detection ~10 ms (18 shapes, a Polars call each)."""
    counts = [pl.col("line").str.contains(p).sum().alias(f"p{i}") for i, p in enumerate(patterns)]
    row = pl.DataFrame({"line": lines}).select(counts).row(0)
    return [int(found or 0) for found in row]


def describe() -> str:
    """The catalog line of the generic layout (before it has seen a sample)."""
    return "generic: timestamp, level word and component inferred from sampled lines"
