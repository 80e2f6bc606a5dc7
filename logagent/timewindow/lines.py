"""Find and parse the timestamp of one raw log line (PURE).

``line_time_for(kind)`` returns the ``line_time(line: bytes) -> datetime | None``
callable the bisection probes with. It looks only at the head of the line
(``HEAD_BYTES``), never raises on junk, and returns None for a line without a
stamp (a stack-trace continuation, a blank line, binary noise).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime

import polars as pl

from logagent.sources.framing import decoloured

from .stamps import CLF_BRACKETED, need_reference, parse_timestamp

LineTime = Callable[[bytes], datetime | None]
HEAD_BYTES = 1024
#: The most of a line ``line_time_by`` hands its format (a format reads the whole line).
WHOLE_BYTES = 1 << 20

#: Format names of logagent (and a few aliases) -> the kind of stamp their lines carry.
FORMAT_KINDS = {
    "combined": "clf",
    "common": "clf",
    "vhost_combined": "clf",
    "clf": "clf",
    "jsonl": "json",
    "json": "json",
    "syslog": "syslog",
    "rfc3164": "syslog",
    "rfc5424": "iso8601",
    "iso8601": "iso8601",
    "app": "iso8601",
    "log4j": "iso8601",
    "python": "iso8601",
    "logfmt": "iso8601",
    "apache_error": "apache_error",
    "epoch": "epoch",
}

_FIND = {
    "iso8601": re.compile(
        r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2})?(?:[.,]\d+)?(?: ?(?:Z|[+-]\d{2}:?\d{2})\b)?"
    ),
    "clf": re.compile(CLF_BRACKETED),
    "syslog": re.compile(r"^(?:<\d{1,3}>)?([A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2})"),
    "apache_error": re.compile(r"^\[([^\]]{20,40})\]"),
    "epoch": re.compile(r"\b(\d{9,19}(?:\.\d+)?)\b"),
}
_JSON_TIME = re.compile(
    r'"(?:ts|time|timestamp|@timestamp|datetime)"\s*:\s*(?:"([^"]{6,40})"|(\d[\d.]*))'
)


def line_time_for(fmt: str, *, tz: str = "UTC", reference: datetime | None = None) -> LineTime:
    """A ``line_time`` for lines of format (or stamp kind) ``fmt``; ValueError when unknown."""
    kind = FORMAT_KINDS.get(fmt)
    if kind is None:
        raise ValueError(f"no timestamp rule for format {fmt!r}; one of {sorted(FORMAT_KINDS)}")
    need_reference(kind, reference)
    if kind == "json":
        return lambda line: _json_time(_head(line), tz, reference)
    finder = _FIND[kind]

    def line_time(line: bytes) -> datetime | None:
        m = finder.search(_head(line))
        if m is None:
            return None
        text = m.group(m.lastindex or 0)
        return parse_timestamp(text, kind, tz=tz, reference=reference)

    return line_time


class FormatLineTime:
    """A ``line_time`` that reads a line's time as the run's filter does: ``time`` (a
    format's time expression over its ``line`` column). For the layouts whose stamps no
    kind above reads (HDFS's ``081109 203615``, PostgreSQL's zone). One Polars query costs
    ~1 ms, so the probes hand it all the lines of a read at once (``many``)."""

    def __init__(self, time: Callable[[pl.Expr], pl.Expr]) -> None:
        self._expr = time(pl.col("line")).alias("t")

    def __call__(self, line: bytes) -> datetime | None:
        return self.many([line])[0]

    def many(self, lines: list[bytes]) -> list[datetime | None]:
        """The time of each line (None where it has none)."""
        texts = [
            decoloured(x[:WHOLE_BYTES].decode("utf-8", "replace").rstrip("\r\n")) for x in lines
        ]
        frame = pl.DataFrame({"line": texts}, schema={"line": pl.String})
        return [t if isinstance(t, datetime) else None for t in frame.select(self._expr)["t"]]


def line_time_by(time: Callable[[pl.Expr], pl.Expr]) -> LineTime:
    """``FormatLineTime(time)``: lines timed by a format's own time expression."""
    return FormatLineTime(time)


def _head(line: bytes) -> str:
    return decoloured(line[:HEAD_BYTES].decode("utf-8", "replace"))


def _json_time(text: str, tz: str, reference: datetime | None) -> datetime | None:
    m = _JSON_TIME.search(text)
    if m is None:
        return None
    if m.group(2) is not None:
        return parse_timestamp(m.group(2), "epoch")
    quoted = m.group(1)
    return parse_timestamp(quoted, "iso8601", tz=tz, reference=reference) or parse_timestamp(
        quoted, "epoch"
    )
