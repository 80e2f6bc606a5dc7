"""A format restricted to a time window (PURE).

``Windowed`` wraps any access ``Format`` (an application format already seen
through ``adapter.AppAsAccess``) and adds the optional ``in_window`` column
that ``extract`` understands: records outside ``[since, until]`` (or without
a time) are dropped, neither counted nor malformed. It is applied even when
bisection already narrowed the bytes, since that range includes a tolerance.

Times come from the format itself where it parses them (application
formats), else from the line: a CLF stamp ``[10/Oct/2000:13:55:36 -0700]``
for ``combined``/``common``, the mapped ``ts`` key for JSON lines.
``line_kind`` names the stamp kind the bisection probes lines with.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

import polars as pl

from logagent.formats.adapter import AppAsAccess
from logagent.formats.app import TIME, AppFormat
from logagent.formats.base import Format, Stages
from logagent.formats.jsonl import JsonFormat
from logagent.formats.mixed import part_names
from logagent.formats.stagedtime import StagedTime, Timed, TimeOf
from logagent.timewindow import FORMAT_KINDS, in_window_expr
from logagent.timewindow.columns import stamp_expr
from logagent.timewindow.stamps import CLF_BRACKETED

#: Stamp kinds of the formats ``timewindow.FORMAT_KINDS`` does not name.
EXTRA_KINDS = {
    "jsonapp": "json",
    "hadoop": "iso8601",
    "syslog5424": "iso8601",
    "syslog3164": "syslog",
    # Their time is the epoch field, the first number of each line
    "bgl": "epoch",
    "thunderbird": "epoch",
    # Access layouts whose head stamp the bisection can probe (haproxy, cloudfront: filter only).
    "envoy": "iso8601",
    "alb": "iso8601",
    "elb": "iso8601",
    "w3c": "iso8601",
    "caddy": "json",
    "traefik": "json",
}
_CLF = CLF_BRACKETED  # CLF's stamp, or one written in its place (``timewindow.stamps``)


def line_kind(fmt_name: str) -> str | None:
    """The stamp kind lines of ``fmt_name`` carry (None: unknown, so no bisection); of a
    ``mixed(a+b)`` format (``formats.mixed.FirstOf``), its parts' kind when they share one
    (``common`` and ``combined``: the CLF stamp)."""
    kind = FORMAT_KINDS.get(fmt_name) or EXTRA_KINDS.get(fmt_name)
    parts = part_names(fmt_name) if kind is None else ()
    if parts:
        kinds = {line_kind(part) for part in parts}
        return kinds.pop() if len(kinds) == 1 else None
    return kind


def time_of(fmt: Format, *, tz: str = "UTC", reference: datetime | None = None) -> TimeOf | None:
    """How to get each line's UTC time for ``fmt`` (None when it has no known stamp)."""
    from logagent.formats.selected import Selected

    if isinstance(fmt, Selected):  # --by/--where: the time of the format it selects from,
        if isinstance(fmt.view, AppAsAccess):  # over the stages the selection parses in
            return _app_time(fmt.view.app, fmt.app_stages)
        fmt = fmt.view
    if isinstance(fmt, AppAsAccess):
        return _app_time(fmt.app, fmt.app_stages)
    if isinstance(fmt, JsonFormat):
        key = fmt.mapping.get("ts")
        if key is None:
            return None
        path = "$" + "".join(f"['{part}']" for part in key.split("."))
        return lambda line: _json_time(line.str.json_path_match(path), tz)
    own = getattr(fmt, "time_expr", None)  # access layouts that parse their own stamps
    if callable(own):
        return lambda line: own(line, tz)
    if line_kind(fmt.name) == "clf":
        return lambda line: stamp_expr(line.str.extract(_CLF, 1), "clf", tz=tz)
    return None


def _app_time(
    app: AppFormat, stages_of: Callable[[pl.Expr], tuple[Stages, dict[str, pl.Expr]]]
) -> StagedTime:
    """An application format's own time field, over the line or over the stages a view
    parses it in (``AppAsAccess.app_stages``, ``Selected.app_stages``)."""

    def staged(line: pl.Expr) -> tuple[Stages, pl.Expr]:
        stages, cols = stages_of(line)
        return stages, cols[TIME]

    own = getattr(app, "stamp_times", None)
    stamp = own() if callable(own) else None
    return StagedTime(lambda line: app.fields(line)[TIME], staged, stamp)


def _json_time(value: pl.Expr, tz: str) -> pl.Expr:
    """An ISO 8601 string or epoch number (s, ms, us, ns) as UTC."""
    return pl.coalesce(stamp_expr(value, "iso8601", tz=tz), stamp_expr(value, "epoch", tz=tz))


@dataclass(frozen=True)
class Windowed(Timed):
    """``inner`` with records outside ``[since, until]`` dropped (see module doc)."""

    since: datetime | None
    until: datetime | None

    def columns(self, time: pl.Expr) -> dict[str, pl.Expr]:
        """``in_window``."""
        return {"in_window": in_window_expr(time, self.since, self.until)}
