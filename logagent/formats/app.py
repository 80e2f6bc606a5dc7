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
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

import polars as pl

from logagent.formats.apptimes import YearOf, parse_times, staged_times
from logagent.formats.base import Stages
from logagent.formats.levels import (
    LEVEL_MAP,
    level_from_message,
    level_from_pri,
    normalize_level,
)
from logagent.formats.stagedtime import StampTimes

TS, TIME, LEVEL, COMPONENT, MESSAGE = "ts", "time", "level", "component", "message"
APP_COLUMNS = (TS, TIME, LEVEL, COMPONENT, MESSAGE)
NO_COMPONENT = "-"


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
    #: Lines (beyond ``records.CONTINUATION_LIKE``) this layout writes inside a record.
    continuation: str | None = None
    #: A regex (Polars): a line whose component it matches is no record of this layout
    #: (``compose``: a level word in the service's place is another layout's column).
    refused_components: str | None = None
    #: A regex (Polars, anchored at the line's start): a sample holding a line it matches is
    #: no log of this layout, which then scores 0 in detection (``detect._shares``).
    ruled_out_by: str | None = None
    #: The layout's own level marks and their levels (Redis's ``# * - .``), read instead of
    #: ``levels.LEVEL_MAP`` (pairs: the format stays hashable); empty: the shared map.
    level_map: tuple[tuple[str, str], ...] = ()
    #: Cheaper patterns tried before ``patterns`` by the staged parse only (``fields`` stays
    #: the reference). Each may match only lines on which the first of ``patterns`` that
    #: matches captures the same groups, equal: a subset of the lines, read the same way.
    #: Written one-pass (no choice a later byte decides), Rust's regex takes their captures
    #: in one forward pass instead of a DFA search and then the bounded backtracker
    #: (log4j's: 950 -> 370 ns a line).
    fast: tuple[str, ...] = ()

    def fields(self, line: pl.Expr) -> dict[str, pl.Expr]:
        """Named groups of the first pattern that matches; normalized level and UTC time."""
        groups = self._groups(line)
        cols = {name: _pick(groups, name) for name in _RAW}
        return self._columns(cols, parse_times(cols[TS], self.time_formats, self.year))

    def staged_fields(
        self, line: pl.Expr, *, message_text: bool = True
    ) -> tuple[Stages, dict[str, pl.Expr]]:
        """``fields`` over helper columns (``base.staged_fields``): each pattern's captures,
        each raw group and each column computed once a line, the stamp formats in turn
        (``staged_times``). In one expression Polars ran a pattern's captures again for each
        use of one of its groups: ~18 us a log4j line, against ~2 us staged.

        ``message_text=False``: a caller that needs only whether a line is a record (not
        the message's text: no error types) gets every record's message empty, where a
        format reads neither its level nor its component from the message. Which lines are
        records does not change (a record's message is never null), and copying each
        message out of its line was a fifth of log4j's parse (1.15 M ERROR lines: 0.37 s).
        """
        name = f"_app_{self.name}"
        fast = {f"{name}_fast{i}": message_tail(p) for i, p in enumerate(self.fast)}
        heads = {f"{name}_groups{i}": message_tail(p) for i, p in enumerate(self.patterns)}
        first: list[dict[str, pl.Expr]] = []
        rest = line
        if fast:  # the patterns then run only on the lines no fast pattern read ("" else)
            first.append(
                {
                    h: _not_earlier(line, self.fast[:i]).str.extract_groups(p)
                    for i, (h, p) in enumerate(fast.items())
                }
            )
            read = self.fast_read()
            first.append({f"{name}_rest": pl.when(read).then(pl.lit("")).otherwise(line)})
            rest = pl.col(f"{name}_rest")
        captures = {
            h: _not_earlier(rest, self.patterns[:i]).str.extract_groups(p)
            for i, (h, p) in enumerate(heads.items())
        }
        staged = []
        for h, p in [*fast.items(), *heads.items()]:
            got, matched = _matched_head(h, p)
            if HEAD_GROUP in got:  # the message is the rest of the line (``message_tail``)
                got[MESSAGE] = line.str.slice(got.pop(HEAD_GROUP).str.len_chars())
            staged.append((got, matched))
        raw = {k: f"{name}_raw_{k}" for k in _RAW}
        if not (message_text or self.level_words or self.head_component):
            staged = [({**got, MESSAGE: pl.lit("")}, matched) for got, matched in staged]
        picked = {raw[k]: _first(staged, k) for k in _RAW}
        times, time = staged_times(pl.col(raw[TS]), self.time_formats, name, self.year)
        cols = self._columns({k: pl.col(h) for k, h in raw.items()}, time)
        done = {k: f"{name}_col_{k}" for k in cols}
        last = {done[k]: e for k, e in cols.items()}
        return [*first, captures, picked, *times, last], {k: pl.col(done[k]) for k in cols}

    def stamp_times(self) -> StampTimes:
        """Its time from the stamp as written (``staged_fields``' raw ``ts`` helper)."""
        formats, year = self.time_formats, self.year
        return StampTimes(
            f"_app_{self.name}_raw_{TS}",
            lambda ts, prefix: staged_times(ts, formats, prefix, year),
        )

    def fast_read(self) -> pl.Expr:
        """Whether one of the ``fast`` patterns read the line: over the first stage of
        ``staged_fields`` (their captures), never over the line."""
        name = f"_app_{self.name}"
        heads = (_matched_head(f"{name}_fast{i}", message_tail(p)) for i, p in enumerate(self.fast))
        return pl.any_horizontal([matched for _, matched in heads])

    def fast_only(self) -> AppRegexFormat | None:
        """This layout without ``patterns``, for the lines ``fast_read`` holds (there it reads
        what the whole layout reads: see ``fast``); None without fast patterns. The parse of
        such a line skips every other pattern's test and the choice among them (log4j's ERROR
        lines: ~540 -> ~400 ns a line, ``formats.extract._parse``)."""
        return replace(self, patterns=()) if self.fast and self.patterns else None

    def _columns(self, cols: dict[str, pl.Expr], time: pl.Expr) -> dict[str, pl.Expr]:
        """The fields from the raw groups ``cols`` (``_RAW``) and the parsed ``time``."""
        message = self._refused(cols[MESSAGE], cols[COMPONENT])
        vocabulary = dict(self.level_map) if self.level_map else LEVEL_MAP
        level = pl.coalesce(normalize_level(cols["level"], vocabulary), level_from_pri(cols["pri"]))
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
            TIME: time,
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
        groups = self._groups(line)
        if self.refused_components is None:
            return _pick(groups, MESSAGE)
        return self._refused(_pick(groups, MESSAGE), _pick(groups, COMPONENT))

    def _refused(self, message: pl.Expr, component: pl.Expr) -> pl.Expr:
        """``message``, null (no record) where ``refused_components`` matches the component
        as captured (the layouts refusing some capture no blank)."""
        if self.refused_components is None:
            return message
        refused = component.str.contains(self.refused_components)
        return pl.when(refused).then(pl.lit(None, dtype=pl.String)).otherwise(message)

    def _groups(self, line: pl.Expr) -> list[tuple[pl.Expr, tuple[str, ...]]]:
        """Each pattern's captures (on the lines no earlier pattern matches) and group names."""
        return [
            (_not_earlier(line, self.patterns[:i]).str.extract_groups(p), group_names(p))
            for i, p in enumerate(self.patterns)
        ]


#: Level words, upper case, the longer of two alike first (Serilog's short ones too): what
#: ``generic`` reads as a level, and what no component is (``LEVEL_WORD_ALONE``).
LEVEL_WORDS = (  # four letters: log15's and op/go-logging's EROR, DBUG, DEBG; logrus' ERRO
    "FATAL|CRITICAL|CRIT|EMERGENCY|EMERG|ALERT|PANIC|ERROR|ERRO|EROR|ERR|SEVERE|WARNING|WARN"
    "|NOTICE|INFO|DDEBUG|SUBDEBUG|DEBUG|DEBG|DBUG|TRACE|VERBOSE|FTL|WRN|INF|DBG|VRB"
)  # not supervisord's TRAC (its own layout reads it): a program named trac (the wiki) is one
#: The level words no program, service or logger is named like (``LEVEL_WORD_ALONE``): not
#: the four-letter spellings, which name real things in some case (a compose service
#: ``dbug``, the Trac wiki's program).
REFUSED_WORDS = "|".join(
    w for w in LEVEL_WORDS.split("|") if w not in ("ERRO", "EROR", "DEBG", "DBUG")
)
#: A component that is a level word alone, in any case (``AppRegexFormat.refused_components``):
#: where a layout finds one in its component's place, the line is another layout's.
LEVEL_WORD_ALONE = r"(?i)^(?:" + REFUSED_WORDS + r")$"
#: Terminal colour codes (``ESC[31m``, any number of them): containers, ``docker compose`` and
#: RabbitMQ's console handler write them around a line or a level.
ANSI = r"(?:\x1b\[[0-9;?]*[A-Za-z])*"


#: A word of an error kind: no digit first, no quote or colon but Ruby's and C++'s ``::``.
_KIND_WORD = r"[A-Za-z_][A-Za-z0-9_./()'-]*(?:::[A-Za-z0-9_./()'-]+)*"
#: The error kind of a message: up to four whole leading words, the last perhaps ending in a
#: colon (``plugin/hosts: File does not exist``, ``java.lang.IllegalStateException: boom``
#: had no kind at all: "-"); Apache's errno before it (``(13)Permission denied: ...``) is not.
HEAD = rf"^(?:\[[^\]]*\] )*(?:\([0-9]+\))?({_KIND_WORD}(?: {_KIND_WORD}){{0,3}}):?(?: |$)"


#: What a result says where records that name no component were ranked by ``message_head``.
KIND_NOTE = (
    "lines that name no component are ranked by their error kind (the head of the message) instead"
)


def message_head(message: pl.Expr) -> pl.Expr:
    """The error kind of each message: its first words up to a digit, quote or colon."""
    return message.str.extract(HEAD, 1).str.replace_all(r"[ :,.;-]+$", "")


#: The groups a pattern may capture that ``fields`` reads.
_RAW = (TS, "level", "pri", COMPONENT, MESSAGE)


def _matched_head(held: str, head: str) -> tuple[dict[str, pl.Expr], pl.Expr]:
    """The groups ``fields`` reads of the captures column ``held`` of pattern ``head`` (its
    ``HEAD_GROUP`` too, if any), and whether the pattern matched."""
    names = group_names(head)
    got = {k: pl.col(held).struct.field(k) for k in names if k in (*_RAW, HEAD_GROUP)}
    taking = names  # a line is a record where any of these took part (``_matched``)
    if HEAD_GROUP in names:  # the message is the rest of the line (``message_tail``)
        if SPACE_GROUP in names:  # an optional message took part where a space follows
            taking = tuple(n for n in names if n != HEAD_GROUP)
        else:  # a ".*" message takes part in every match
            taking = (HEAD_GROUP,)
    return got, _matched(pl.col(held), taking)


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
    got = [
        ({n: struct.struct.field(n) for n in names}, _matched(struct, names))
        for struct, names in groups
    ]
    return _first(got, name)


def _first(groups: list[tuple[dict[str, pl.Expr], pl.Expr]], name: str) -> pl.Expr:
    """Field ``name`` from the first pattern that matched the line, given each pattern's
    fields and whether it matched."""
    out: pl.Expr = pl.lit(None, dtype=pl.String)
    for got, matched in reversed(groups):
        value = got.get(name, pl.lit(None, dtype=pl.String))
        if name == MESSAGE:
            value = value.fill_null("")  # an optional empty message is still a message
        out = pl.when(matched).then(value).otherwise(out)
    return out


#: The group ``message_tail`` puts around what comes before a pattern's message.
HEAD_GROUP = "_la_head"
#: The group ``message_tail`` puts around the space before an optional message.
SPACE_GROUP = "_la_space"
#: The endings of a pattern whose message is the rest of the line (``message_tail``), and what
#: the head must match after itself instead.
_TAILS = (
    ("(?P<message>.*)$", ""),
    ("(?: (?P<message>.*))?$", f"(?:(?P<{SPACE_GROUP}> )|$)"),
)
#: An inline flag group (``(?i)``, ``(?x:``), a ``(?<name>`` group or look-around: a pattern
#: whose text the parsers here do not follow (an escaped ``\(?`` counts too: a false alarm
#: costs only speed).
FLAGS = re.compile(r"\(\?(?!P<|:)")


def message_tail(pattern: str) -> str:
    """``pattern`` with its message group replaced by a ``HEAD_GROUP`` group around what comes
    before it, where the message is the rest of the line (``^H(?P<message>.*)$``, or ``^H(?:
    (?P<message>.*))?$``): the line's message is then its text after the head's match.

    A line holds no newline, so ``.*$`` matches whatever follows the head: the
    pattern matches a line exactly where the head does, and the head's first match
    in the regex's order of preference is the one the whole pattern takes. The
    captures engine then runs over the head only, not the message (log4j's captures: ~2
    us a line -> ~1). Any other pattern (no anchor, an alternation at the top) unchanged."""
    if FLAGS.search(pattern):  # (?x) comments, for one, may hide a "|" at the top
        return pattern
    for tail, keep in _TAILS:
        if pattern.startswith("^") and pattern.endswith(tail):
            head = pattern[1 : -len(tail)]
            if tail not in head and not _top_alternation(head):
                return f"^(?P<{HEAD_GROUP}>{head}{keep})"
    return pattern


def _top_alternation(pattern: str) -> bool:
    """Whether ``pattern`` holds a ``|`` outside every group and class (or is not balanced)."""
    marks = structure(pattern)
    if marks is None:
        return True
    depth = 0
    for _, c in marks:
        depth += {"(": 1, ")": -1}.get(c, 0)
        if depth < 0 or (c == "|" and depth == 0):
            return True
    return depth != 0


def structure(pattern: str) -> list[tuple[int, str]] | None:
    """Where ``pattern``'s groups open and close and its alternatives split: each ``(``, ``)``
    and ``|`` outside escapes and classes, with its index; None when a class is not closed."""
    marks: list[tuple[int, str]] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 1
        elif c == "[":
            i = class_end(pattern, i)
            if i < 0:
                return None
        elif c in "()|":
            marks.append((i, c))
        i += 1
    return marks


def class_end(pattern: str, i: int) -> int:
    """The index of the ``]`` that closes the class opening at ``i`` (-1 if none); a ``]``
    first in the class (after an optional ``^``) is a member, and nested classes count."""
    j = i + 1
    if j < len(pattern) and pattern[j] == "^":
        j += 1
    if j < len(pattern) and pattern[j] == "]":
        j += 1
    while j < len(pattern):
        c = pattern[j]
        if c == "\\":
            j += 2
            continue
        if c == "[":
            j = class_end(pattern, j)
            if j < 0:
                return -1
        elif c == "]":
            return j
        j += 1
    return -1


def _matched(struct: pl.Expr, names: tuple[str, ...]) -> pl.Expr:
    """Whether the pattern matched (on no match Polars gives every group null; every
    pattern has at least one group that takes part in each match)."""
    return pl.any_horizontal([struct.struct.field(n).is_not_null() for n in names])
