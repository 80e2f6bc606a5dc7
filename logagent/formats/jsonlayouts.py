"""Named JSON-lines layouts with fixed keys: Docker json-file, journald, zap, pino, bunyan,
slog, ECS, Zeek, Nextcloud, MongoDB and Rust's tracing (PURE).

``jsonapp`` finds keys by itself; these layouts are recognized by the keys
that only they write (``signature``), so ``logagent detect`` names the
system, and they map its fields the way that system means them (journald's
``PRIORITY`` is a syslog severity, pino's ``level`` a number). Each is nested
in ``jsonapp`` (a tie between them is expected, ``catalog.NESTED``).

A layout with ``level_from_message`` takes the level from the words the
wrapped program wrote (Docker's ``log``), as ``serverlogs.CRI`` does.
Zeek's logs carry no level at all: level questions do not apply to them.
A layout whose level values mean something else than the shared vocabulary
(Nextcloud's 0-4, MongoDB's D1..D5) reads them by its own ``level_map``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import polars as pl

from logagent.formats.app import COMPONENT, LEVEL, MESSAGE, TS
from logagent.formats.jsonl import OBJECT_FIRST, jsonpath
from logagent.formats.levels import (
    DEBUG,
    ERROR,
    FATAL,
    INFO,
    INNER_BRACKET,
    INNER_ELASTIC,
    INNER_LEVEL_WORDS,
    LEVEL_MAP,
    WARN,
)
from logagent.formats.structured import KeyedFields

#: Up to three words before the level, one more blank before it (Spring Boot's ``  INFO``).
_INNER_LEVEL = (
    r"^(?:[IWEF][0-9]{4} |(?:[^ ]+ ){0,3}? ?(?:\[|level=|lvl=|\{?\"(?:level|severity|lvl)\": ?\")?"
    r"\"?(" + INNER_LEVEL_WORDS + r")(?:[^\w-]|$))"
)


@dataclass(frozen=True)
class JsonLayout(KeyedFields):
    """A JSON-lines layout: fixed key mapping, and the keys that must all be present."""

    name: str
    mapping: Mapping[str, str]
    signature: tuple[str, ...]
    description: str
    level_from_message: bool = False
    head_component: bool = False
    min_line_bytes: int = 20
    record_start: str | None = None
    example: str = field(default="", compare=False)
    #: A second key per field, read where the first is absent (ECS: dotted or nested).
    fallback: Mapping[str, str] = field(default_factory=dict)
    #: The layout's own level vocabulary (raw value, stripped and upper case -> level), read
    #: instead of the shared ``LEVEL_MAP`` by the parse and by the level prefilter.
    level_map: Mapping[str, str] = field(default_factory=lambda: LEVEL_MAP)
    record_needs = OBJECT_FIRST

    def raw(self, line: pl.Expr) -> tuple[dict[str, pl.Expr], pl.Expr]:
        """Each mapped key's value; only an object holding every signature key is a record."""
        get = {k: line.str.json_path_match(_path(v)) for k, v in self.mapping.items()}
        for k, v in self.fallback.items():
            get[k] = pl.coalesce(get[k], line.str.json_path_match(_path(v)))
        message = get.get(MESSAGE)
        if self.level_from_message and message is not None:
            get[LEVEL] = _inner_level(message)
        # head_component: the error kind is read by ``fields_of`` (KeyedFields)
        signed = [line.str.json_path_match(_path(k)).is_not_null() for k in self.signature]
        return get, line.str.starts_with("{") & pl.all_horizontal(signed)


def _path(key: str) -> str:
    """A JSONPath: ``$…`` as given, else the key taken literally (ECS writes "log.level")."""
    return key if key.startswith("$") else jsonpath(key, nested=False)


def _inner_level(message: pl.Expr) -> pl.Expr:
    """The level word (or klog letter) a wrapped program's message starts with."""
    word = message.str.extract(_INNER_LEVEL, 1)
    elastic = message.str.extract("^" + INNER_ELASTIC, 1)  # the shared patterns (levels.py)
    bracket = message.str.extract("^" + INNER_BRACKET, 1)
    letter = message.str.extract(r"^([IWEF])[0-9]{4} ", 1)
    return pl.coalesce(word, elastic, bracket, letter)


DOCKER_JSON = JsonLayout(
    name="docker_json",
    mapping={TS: "time", MESSAGE: "log"},
    signature=("log", "stream", "time"),
    level_from_message=True,
    head_component=True,
    description="Docker json-file container log: level from the message; component = error kind",
    example='{"log":"ERROR failed\\n","stream":"stderr","time":"2024-01-01T00:00:00Z"}',
)
JOURNALD = JsonLayout(
    name="journald",
    mapping={
        TS: "__REALTIME_TIMESTAMP",
        LEVEL: "PRIORITY",
        COMPONENT: "SYSLOG_IDENTIFIER",
        MESSAGE: "MESSAGE",
    },
    signature=("MESSAGE", "__REALTIME_TIMESTAMP"),
    description="journald JSON export: level = PRIORITY (syslog severity), component = identifier",
)
ZAP_JSON = JsonLayout(
    name="zap_json",
    mapping={TS: "ts", LEVEL: "level", COMPONENT: "caller", MESSAGE: "msg"},
    # no "caller" in the signature: programs that turn zap's AddCaller off (Caddy) write
    # the logger's name alone, and it is their component then
    signature=("level", "ts", "msg"),
    fallback={COMPONENT: "logger"},
    description="zap JSON (production encoder): component = caller, else the logger's name",
)
#: CloudNativePG's operator log: zap JSON whose PostgreSQL records (``"msg":"record"``) carry
#: the server's own severity and message in ``record``; the wrapper's ``level`` is "info" on
#: every one, so a cluster's ERROR and FATAL records were "no ERROR+ record in the whole
#: input" as zap_json (probe Q). Its own lines (``logger`` setup, wal-archive) keep zap's.
CLOUDNATIVE_PG = JsonLayout(
    name="cloudnative_pg",
    mapping={
        TS: "ts",
        LEVEL: "$.record.error_severity",
        COMPONENT: "logger",
        MESSAGE: "$.record.message",
    },
    signature=("level", "ts", "msg", "logging_pod"),
    fallback={LEVEL: "level", MESSAGE: "msg"},
    description="CloudNativePG (zap JSON): PostgreSQL's record.error_severity, else the "
    "operator's level; component = logger",
    example='{"level":"info","ts":1669575482.09,"logger":"postgres","msg":"record",'
    '"logging_pod":"pg-1","record":{"error_severity":"ERROR","message":"syntax error"}}',
)
PINO = JsonLayout(
    name="pino",
    mapping={TS: "time", LEVEL: "level", COMPONENT: "name", MESSAGE: "msg"},
    signature=("level", "time", "pid", "hostname"),
    description="pino JSON (numeric levels 10-60): component = name (or '-')",
)
BUNYAN = JsonLayout(
    name="bunyan",
    mapping={TS: "time", LEVEL: "level", COMPONENT: "name", MESSAGE: "msg"},
    signature=("v", "level", "name", "hostname", "pid", "msg"),
    description="bunyan JSON (numeric levels 10-60, v:0): component = name",
)
SLOG_JSON = JsonLayout(
    name="slog_json",
    mapping={TS: "time", LEVEL: "level", COMPONENT: "$.source.file", MESSAGE: "msg"},
    signature=("time", "level", "msg"),
    # zap with its time key named "time" writes these keys too, and its caller (probe T: a
    # blog's zap log ranked message heads, "caller":"blog/router.go:12" left unread)
    fallback={COMPONENT: "caller"},
    # logrus' JSON writes the same keys and never a source: Traefik's log had every record
    # under "-" (probe N), where jsonapp ranked its error kinds
    head_component=True,
    description="Go slog JSONHandler, logrus JSON, zap with a 'time' key: component = source "
    "file (AddSource), else zap's caller, else the error kind",
)
ECS_JSON = JsonLayout(
    name="ecs_json",
    mapping={TS: "@timestamp", LEVEL: "log.level", COMPONENT: "log.logger", MESSAGE: "message"},
    signature=("@timestamp", "log.level", "message"),
    fallback={COMPONENT: "$.log.logger"},  # ecs-logging nests it: "log":{"logger":…}
    description="Elastic Common Schema JSON (ecs-logging): component = log.logger",
)
ZEEK_JSON = JsonLayout(
    name="zeek",
    mapping={TS: "ts", COMPONENT: "_path", MESSAGE: "uid"},  # no message either: the uid
    signature=("ts", "uid"),
    description="Zeek JSON logs (conn, dns, http...): no level, so level questions do not apply",
)

NEXTCLOUD = JsonLayout(
    name="nextcloud",
    mapping={TS: "time", LEVEL: "level", COMPONENT: "app", MESSAGE: "message"},
    signature=("reqId", "level", "time", "remoteAddr", "app", "message"),
    # Nextcloud's ILogger numbers, not syslog severities (read so, its INFO 1 was FATAL)
    level_map={"0": DEBUG, "1": INFO, "2": WARN, "3": ERROR, "4": FATAL},
    description="Nextcloud nextcloud.log (levels 0-4: DEBUG..FATAL): component = app",
)
MONGODB_JSON = JsonLayout(
    name="mongodb_json",
    mapping={TS: "$['t']['$date']", LEVEL: "s", COMPONENT: "c", MESSAGE: "msg"},
    signature=("t", "s", "c", "id", "ctx", "msg"),
    # MongoDB's severities: F, E, W, I, and D1..D5 for its debug verbosities
    level_map={
        "F": FATAL,
        "E": ERROR,
        "W": WARN,
        "I": INFO,
        **{f"D{i}": DEBUG for i in range(1, 6)},
    },
    description="MongoDB >= 4.4 structured log: level = s (F E W I D1-D5), component = c",
)
TRACING_JSON = JsonLayout(
    name="tracing_json",
    mapping={
        TS: "timestamp",
        LEVEL: "level",
        COMPONENT: "target",
        MESSAGE: "$['fields']['message']",
    },
    signature=("timestamp", "level", "fields", "target"),
    description="Rust tracing-subscriber JSON: component = target, message = fields.message",
)

JSON_LAYOUTS = (
    DOCKER_JSON,
    JOURNALD,
    ZAP_JSON,
    CLOUDNATIVE_PG,
    BUNYAN,
    PINO,
    ECS_JSON,
    SLOG_JSON,
    ZEEK_JSON,
    NEXTCLOUD,
    MONGODB_JSON,
    TRACING_JSON,
)
