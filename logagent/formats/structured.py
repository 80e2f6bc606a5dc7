"""Application logs with named fields: JSON lines and logfmt (PURE).

Keys are found automatically from a sample, as ``jsonl.auto_mapping`` does
for access logs: for each of ts, level, component and message the first
well-known key present in at least half of the sampled records; explicit
keys win. A line is a record when it is a JSON object (logfmt: only
``key=value`` pairs) holding the level or the message key.

logfmt covers the Go text loggers (logrus ``time="…" level=error msg="…"``,
slog's TextHandler) and Heroku-style ``at=error``; glog/klog is ``golog``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

import polars as pl

from logagent.formats.app import (
    COMPONENT,
    KIND_NOTE,
    LEVEL,
    MESSAGE,
    NO_COMPONENT,
    TIME,
    TS,
    message_head,
)
from logagent.formats.apptimes import parse_times, staged_times
from logagent.formats.base import Stages
from logagent.formats.jsonl import (
    OBJECT_FIRST,
    PLAIN_KEY,
    jsonpath,
)
from logagent.formats.levels import LEVEL_MAP, normalize_level
from logagent.formats.stagedtime import StampTimes
from logagent.timewindow.columns import stamp_expr

#: Well-known keys per field, most specific first (dotted: nested JSON objects).
APP_KEYS: dict[str, tuple[str, ...]] = {
    # Timestamp, Level, MessageTemplate, Properties.SourceContext: Serilog's JsonFormatter
    TS: (
        *("time", "ts", "timestamp", "@timestamp", "@t", "datetime", "asctime", "date", "t"),
        "Timestamp",
    ),
    LEVEL: (
        *("level", "lvl", "severity", "levelname", "log.level", "loglevel", "@l", "at", "Level"),
        "error_severity",  # PostgreSQL's jsonlog (probe O: "(no level)" 3,544, exact)
    ),
    COMPONENT: (
        "logger",
        "logger_name",
        "loggerName",
        "log.logger",
        "component",
        "module",
        "name",
        "category",
        "service",
        "svc",
        "source",
        "subsystem",
        "app",
        "SourceContext",
        "Properties.SourceContext",
        "caller",  # zap's and go-kit's file:line, where no logger is named (as the zap layout)
    ),
    MESSAGE: (
        *("message", "msg", "@m", "@mt", "event", "log", "text", "error"),
        *("RenderedMessage", "MessageTemplate"),
    ),
}
TIME_FORMATS = (
    "%Y-%m-%dT%H:%M:%S%.f%#z",
    "%Y-%m-%d %H:%M:%S%.f%#z",
    "%Y-%m-%dT%H:%M:%S%.f",
    "%Y-%m-%d %H:%M:%S,%3f",
    "%Y-%m-%d %H:%M:%S%.f",
)
#: A flat JSON object (each value a string, a small integer, true, false or null) with no
#: ``\u`` escape: the lines on which ``json_decode`` and ``json_path_match`` read the same
#: value for a key written once (a float's digits, 1e2 or -0.0, read differently; an escape
#: could spell a key twice). Blanks as JSON allows them on one line.
_WS = r"[ \t\r]*"
_STRING = r'"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt])*"'
_SCALAR = rf"(?:{_STRING}|0|-?[1-9][0-9]{{0,14}}|true|false|null)"
_MEMBER = rf"{_STRING}{_WS}:{_WS}{_SCALAR}{_WS}"
FLAT_OBJECT = rf"^\{{{_WS}(?:{_MEMBER}(?:,{_WS}{_MEMBER})*)?\}}{_WS}$"
Reader = Callable[[pl.Expr], dict[str, pl.Expr]]
_VALUE = r'(?:"((?:[^"\\]|\\.)*)"|([^ \t"]*))'
_KEY = r"[A-Za-z0-9_.@/\-]+"
_PAIR = _KEY + r'=(?:"(?:[^"\\]|\\.)*"|[^ \t"]*)'
#: A line of pairs; after the first, a key may stand alone before a pair (go-logfmt reads
#: ``key`` as a key with no value: Traefik writes ``ACME CA="https://..."``). A line that
#: opens with a bare word is no logfmt (a text log with a ``key=value`` in it), nor one that
#: ends with bare words (``msg=disk full on /var``: an unquoted message, which would be cut).
LOGFMT_LINE = r"^[ \t]*" + _PAIR + r"(?:[ \t]+(?:" + _KEY + r"[ \t]+)*" + _PAIR + r")*[ \t]*$"


class KeyedFields:
    """The app columns of a format that reads each field from a key (``raw``), plain or
    staged: the shared ``fields``/``staged_fields`` of the JSON and logfmt formats."""

    name: str
    #: Whether the level and component are read from keys of their own, not from the message
    #: (``staged_fields(message_text=False)`` may then skip the message where a level is).
    own_level_keys = False
    #: Raw level values (stripped, upper case) and their levels: the shared ``LEVEL_MAP``
    #: unless a layout writes a vocabulary of its own (``JsonLayout.level_map``).
    level_map: Mapping[str, str] = LEVEL_MAP
    #: A record that names no component gets its error kind (``app.message_head``), as the
    #: regex layouts' ``head_component`` does: set where no sampled record names one
    #: (``names_component``; Traefik's and Authelia's logs had every record under "-").
    head_component: bool = False

    @property
    def layout_note(self) -> str | None:
        """What a result on this format must say that its name does not (``Run.layout_note``):
        components ranked by error kind where the log names none."""
        return KIND_NOTE if self.head_component else None

    def raw(self, line: pl.Expr) -> tuple[dict[str, pl.Expr], pl.Expr]:
        """Each mapped field's value as written, and whether the line can be a record."""
        raise NotImplementedError

    def fields(self, line: pl.Expr) -> dict[str, pl.Expr]:
        """The mapped keys of each line that is a record (see ``raw``)."""
        return fields_of(*self.raw(line), level_map=self.level_map, head=self.head_component)

    def staged_raw(
        self, line: pl.Expr, *, rare: Collection[str] = ()
    ) -> tuple[Stages, Reader, pl.Expr]:
        """For ``staged_fields``: stages to run first, a reader of each key's raw value from a
        line (or from the line masked to ``""``), and whether the line can be a record; by
        default ``raw``'s, with no stages. ``rare``: fields read on few lines only (the
        stages need not prepare them for every line)."""
        return [], lambda text: self.raw(text)[0], self.raw(line)[1]

    def stamp_times(self) -> StampTimes:
        """Its time from the stamp as written (``staged_of``'s ``ts`` helper)."""
        return StampTimes(f"_app_{self.name}_{TS}", keyed_times)

    def staged_fields(
        self, line: pl.Expr, *, message_text: bool = True
    ) -> tuple[Stages, dict[str, pl.Expr]]:
        """``fields`` with each key read once a line (``staged_of``).

        ``message_text=False``: a caller that needs only whether a record has a level or a
        message (not the message's text: no error types) has the message read only on the
        lines without a level, one key read fewer on the others (their ``message`` is then
        empty, and which lines are records does not change).
        """
        names = self.raw(line)[0]
        lean = not message_text and self.own_level_keys and LEVEL in names and MESSAGE in names
        lean = lean and not self.head_component  # the kind is read from every message
        first, read, is_record = self.staged_raw(line, rare=(MESSAGE,) if lean else ())
        get = read(line)
        if not lean:
            stages, cols = staged_of(
                self.name, get, is_record, level_map=self.level_map, head=self.head_component
            )
            return [*first, *stages], cols

        def message(level: pl.Expr) -> pl.Expr:  # read on the lines without a level only
            masked = pl.when(level.is_null()).then(line).otherwise(pl.lit(""))
            return pl.when(level.is_null()).then(read(masked)[MESSAGE])

        rest = {k: v for k, v in get.items() if k != MESSAGE}
        stages, cols = staged_of(self.name, rest, is_record, message, level_map=self.level_map)
        return [*first, *stages], cols


@dataclass(frozen=True)
class JsonAppFormat(KeyedFields):
    """JSON lines; ``mapping`` maps ts/level/component/message to dotted keys."""

    mapping: Mapping[str, str] = field(default_factory=lambda: default_mapping())
    name: str = "jsonapp"
    #: l_min: an event line holds at least a level and a message, e.g. {"level":50,"msg":""}
    min_line_bytes: int = 20
    record_start: str | None = None
    description: str = "JSON lines app log: level/logger/message keys found automatically"
    record_needs = OBJECT_FIRST
    own_level_keys = True
    head_component: bool = False  # KeyedFields.head_component
    #: The top-level keys most sampled lines write, in order (``appkeys.key_order``; ``()``:
    #: none learned): a line that is exactly that flat object is read by one regex
    #: (``fast_pattern``) instead of a shape test, key counts and a JSON decode.
    key_order: tuple[str, ...] = ()

    @property
    def bare(self) -> bool:
        """Whether it maps neither a level nor a message (``appkeys.auto_app_mapping``): any
        JSON object with a stamp is then a record, so detection discounts it as it does
        ``generic`` (``detect.detect_all``)."""
        return LEVEL not in self.mapping and MESSAGE not in self.mapping

    def raw(self, line: pl.Expr) -> tuple[dict[str, pl.Expr], pl.Expr]:
        """Each mapped key's value as written; a line that is no JSON object is no record."""
        get = {k: line.str.json_path_match(jsonpath(v)) for k, v in self.mapping.items()}
        return self._clef(get), line.str.starts_with("{")

    def _clef(self, get: dict[str, pl.Expr]) -> dict[str, pl.Expr]:
        """CLEF's ``@l``: an event without one is Information (Serilog writes none there)."""
        if self.mapping.get(LEVEL) != "@l":
            return get
        return {**get, LEVEL: pl.coalesce(get[LEVEL], pl.lit("Information"))}

    def staged_raw(
        self, line: pl.Expr, *, rare: Collection[str] = ()
    ) -> tuple[Stages, Reader, pl.Expr]:
        """``raw`` in one JSON parse a line where that parse reads as ``raw`` does.

        ``json_path_match`` parses a line's JSON once for each key (~0.75 us each on the
        ERROR lines of a JSON app log); ``json_decode`` reads all the keys in one parse
        (~0.6 us) but raises on a line that is no JSON, and reads a repeated key's first
        value and a number's digits differently. So it decodes only the lines of
        ``FLAT_OBJECT`` that write each mapped key at most once; the others, and every line
        when a key is nested or not plain, keep ``json_path_match``. The keys are counted
        only on the lines of that shape (a log of floats or nested values pays its regex
        test alone), and each stage names a column of its own: with the shape test's column
        overwritten by the next stage, a 200 MB log of floats took 2.08 s, against 1.85 s.
        The ``rare`` fields are not decoded: their reader reads them by path, from whatever
        text it is given (a message read only where a line has no level had cost every ERROR
        line of a JSON app log ~0.4 us of decoding, the parse's largest part).
        """
        decoded = {k: v for k, v in self.mapping.items() if k not in rare}
        keys = sorted(set(decoded.values()))
        # a plain key (``jsonl.PLAIN_KEY``) without dots (a dotted one is a nested path here)
        # is counted as ``"key"``: no allowed escape spells it
        if not keys or not all(PLAIN_KEY.fullmatch(k) and "." not in k for k in keys):
            return super().staged_raw(line)
        shape, flat, doc, fast = (f"_app_{self.name}_{n}" for n in ("shape", "flat", "doc", "fast"))
        groups = fast_groups(self.key_order, keys)
        is_record = line.str.starts_with("{")
        first: list[dict[str, pl.Expr]] = []
        fit = pl.lit(False)
        if groups:  # the lines the learned order's regex reads skip the three stages below
            first.append({fast: line.str.extract_groups(fast_pattern(self.key_order, keys))})
            fit = pl.col(fast).struct.field(next(iter(groups.values()))).is_not_null()
            line = pl.when(~fit).then(line)
        shaped = pl.when(pl.col(shape)).then(line)  # counted only where the shape is flat
        once = [key_count(shaped, k) <= 1 for k in keys]
        as_text = pl.Struct(dict.fromkeys(keys, pl.String))
        first += [
            {shape: line.str.contains(FLAT_OBJECT)},
            {flat: pl.col(shape) & pl.all_horizontal(once)},
            {doc: pl.when(pl.col(flat)).then(line).str.json_decode(as_text)},
        ]

        def decoded_value(key: str, rest: pl.Expr) -> pl.Expr:
            value = (
                pl.when(pl.col(flat))
                .then(pl.col(doc).struct.field(key))
                .otherwise(rest.str.json_path_match(jsonpath(key)))
            )
            if not groups:
                return value
            held = pl.col(fast).struct.field(groups[key]) if key in groups else pl.lit(None)
            return pl.when(fit).then(held).otherwise(value)

        def read(text: pl.Expr) -> dict[str, pl.Expr]:
            rest = pl.when(~pl.col(flat) & ~fit).then(text)  # null where read above: unparsed
            return self._clef(
                {
                    k: decoded_value(v, rest)
                    if k in decoded
                    else text.str.json_path_match(jsonpath(v))
                    for k, v in self.mapping.items()
                }
            )

        return first, read, is_record


@dataclass(frozen=True)
class LogfmtFormat(KeyedFields):
    """logfmt lines (``key=value key="quoted value"``); ``mapping`` as for JSON."""

    mapping: Mapping[str, str] = field(default_factory=lambda: default_mapping(logfmt=True))
    name: str = "logfmt"
    #: l_min: an event line holds at least a level and a message, e.g. level=error msg=
    min_line_bytes: int = 16
    record_start: str | None = None
    description: str = "logfmt (logrus/slog text, key=value): level/component/msg keys found"
    own_level_keys = True
    head_component: bool = False  # KeyedFields.head_component

    def raw(self, line: pl.Expr) -> tuple[dict[str, pl.Expr], pl.Expr]:
        """Each mapped key's value as written; only a line of key=value pairs is a record."""
        get = {k: logfmt_value(line, v) for k, v in self.mapping.items()}
        return get, line.str.contains(LOGFMT_LINE)


#: A captured value of ``fast_pattern``: a string with no escape and no control character,
#: whose text is its decoded value.
_PLAIN_STRING = r'"([^"\\\x00-\x1f]*)"'


def fast_groups(order: tuple[str, ...], keys: Collection[str]) -> dict[str, str]:
    """The capture group (``g<i>``) of each of ``keys`` that ``order`` holds, for
    ``fast_pattern``; empty when ``order`` holds none of them."""
    return {k: f"g{i}" for i, k in enumerate(order) if k in keys}


def fast_pattern(order: tuple[str, ...], keys: Collection[str]) -> str:
    """A regex for the lines that are exactly the flat object of ``order``'s keys, in that
    order, each once; each of ``keys`` a plain string (``_PLAIN_STRING``, captured as its
    ``fast_groups`` group), any other value a ``FLAT_OBJECT`` scalar. On such a line each
    key's value is the one ``json_decode`` reads (one object, no key twice, no escape to
    decode); a key of ``keys`` that ``order`` lacks is absent from it (null)."""
    groups = fast_groups(order, keys)
    members = []
    for i, key in enumerate(order):
        value = _PLAIN_STRING.replace("(", f"(?P<g{i}>", 1) if key in groups else _SCALAR
        members.append(f'"{re.escape(key)}"{_WS}:{_WS}{value}{_WS}')
    return rf"^\{{{_WS}" + f",{_WS}".join(members) + rf"\}}{_WS}$"


def key_count(line: pl.Expr, key: str) -> pl.Expr:
    """How many times ``line`` writes ``"key"`` (non-overlapping), for a ``PLAIN_KEY``. As a
    regex: Polars' literal count runs a two-way search a line (~90 ns a key on the ERROR
    lines of a JSON app log), its regex count a memchr prefilter (~55 ns)."""
    return line.str.count_matches(re.escape(f'"{key}"'))


def staged_of(
    name: str,
    get: Mapping[str, pl.Expr],
    is_record: pl.Expr,
    message: Callable[[pl.Expr], pl.Expr] | None = None,
    *,
    level_map: Mapping[str, str] = LEVEL_MAP,
    head: bool = False,
) -> tuple[Stages, dict[str, pl.Expr]]:
    """``fields_of`` over helper columns (``base.staged_fields``): each raw value, and whether
    the line can be a record, computed once a line. In one expression tree Polars read the
    JSON of the level and the message twice a line (once for "is a record", once for the
    column), and once more for the timeline's stamp (``windowed.time_of``): 7 JSON reads a
    line where 4 do. The helpers are named after the format, so they stand apart from
    another format's in one frame. ``message``: the message read after the level, given the
    level's helper column (``KeyedFields.staged_fields(message_text=False)``); ``level_map``: as
    for ``fields_of``."""
    held = {k: f"_app_{name}_{k}" for k in (*get, *([MESSAGE] if message else []))}
    record = f"_app_{name}_record"
    stage = {held[k]: v for k, v in get.items()} | {record: is_record}
    late: Stages = [{held[MESSAGE]: message(pl.col(held[LEVEL]))}] if message else []
    times: Stages = []
    time = None
    if TS in get:
        times, time = keyed_times(pl.col(held[TS]), f"_app_{name}")
    cols = fields_of(
        {k: pl.col(h) for k, h in held.items()}, pl.col(record), time, level_map, head=head
    )
    done = {k: f"_app_{name}_col_{k}" for k in cols}
    last = {done[k]: e for k, e in cols.items()}  # each column once (Polars repeats shared
    return [stage, *late, *times, last], {k: pl.col(done[k]) for k in cols}  # of an expression)


def keyed_times(ts: pl.Expr, prefix: str) -> tuple[Stages, pl.Expr]:
    """``keyed_time`` as helper columns named after ``prefix`` (``base.staged_fields``): the
    text formats in turn, each on the stamps the ones before it left, then a number on the
    stamps none of them read."""
    times, text = staged_times(ts, TIME_FORMATS, prefix)
    epoch = f"{prefix}_epoch"
    last = {epoch: pl.coalesce(text, epoch_time(pl.when(text.is_null()).then(ts)))}
    return [*times, last], pl.col(epoch)


def keyed_time(ts: pl.Expr) -> pl.Expr:
    """A keyed layout's stamp as UTC: text by ``TIME_FORMATS`` (ISO 8601), else a number of
    epoch seconds, milliseconds, microseconds or nanoseconds (``epoch_time``)."""
    return pl.coalesce(parse_times(ts, TIME_FORMATS), epoch_time(ts))


#: The times an epoch number in a stamp key may stand for: a number outside them is no stamp
#: (a duration or a counter under "time" read as 1973-1998, a compact "20240101000007" as a
#: millisecond epoch in 2611: a review). Logs written as JSON lines began after 2000.
EPOCH_FROM, EPOCH_UNTIL = datetime(2000, 1, 1, tzinfo=UTC), datetime(2100, 1, 1, tzinfo=UTC)


def epoch_time(ts: pl.Expr) -> pl.Expr:
    """``ts`` as an epoch number, its unit by its size (``timewindow.columns``): zap's
    ``"ts":1700000000.123``, pino's ``"time":1700000000123``, journald's microseconds; null
    outside ``EPOCH_FROM``..``EPOCH_UNTIL``. Read as no time, these had left --since/--until
    with no stamp to window by (a usage error) and the timeline empty."""
    time = stamp_expr(ts, "epoch")
    return pl.when(time.is_between(pl.lit(EPOCH_FROM), pl.lit(EPOCH_UNTIL), closed="left")).then(
        time
    )


def fields_of(
    get: Mapping[str, pl.Expr],
    is_record: pl.Expr,
    time: pl.Expr | None = None,
    level_map: Mapping[str, str] = LEVEL_MAP,
    *,
    head: bool = False,
) -> dict[str, pl.Expr]:
    """The app columns from the extracted raw fields of the lines that are records;
    ``time``: the stamps already parsed (``app.staged_times``), else parsed here;
    ``level_map``: how raw levels read (``levels.normalize_level``); ``head``: a record that
    names no component gets its message's error kind (``KeyedFields.head_component``)."""
    level, message = get.get(LEVEL), get.get(MESSAGE)
    present = [e.is_not_null() for e in (level, message) if e is not None]
    if not present and TS in get:  # a format that maps neither (``appkeys``: JSON events
        present = [get[TS].is_not_null()]  # that write none): a record holds its stamp
    ok = is_record & pl.any_horizontal(present) if present else pl.lit(False)
    ts = get.get(TS, pl.lit(None, dtype=pl.String))
    component = get.get(COMPONENT, pl.lit(None, dtype=pl.String)).str.strip_chars()
    if head and message is not None:
        named = pl.when(component.str.len_bytes() > 0).then(component)
        component = pl.coalesce(named, message_head(message.fill_null("")))
    return {
        TS: pl.when(ok).then(ts),
        TIME: pl.when(ok).then(keyed_time(ts) if time is None else time),
        LEVEL: pl.when(ok).then(normalize_level(level, level_map) if level is not None else None),
        COMPONENT: pl.when(ok).then(
            pl.when(component.str.len_bytes() > 0).then(component).otherwise(pl.lit(NO_COMPONENT))
        ),
        MESSAGE: pl.when(ok).then((message if message is not None else pl.lit("")).fill_null("")),
    }


def logfmt_value(line: pl.Expr, key: str) -> pl.Expr:
    """The value of ``key`` (quoted values unescaped), or null."""
    groups = line.str.extract_groups(r"(?:^|[ \t])" + re.escape(key) + "=" + _VALUE)
    quoted = groups.struct.field("1").str.replace_all(r'\\(["\\])', "$1")
    return pl.coalesce(quoted, groups.struct.field("2"))


def default_mapping(*, logfmt: bool = False) -> dict[str, str]:
    """The most common key of each field (used when no sample is at hand)."""
    return {
        TS: "time",
        LEVEL: "level",
        COMPONENT: "component" if logfmt else "logger",
        MESSAGE: "msg" if logfmt else "message",
    }
