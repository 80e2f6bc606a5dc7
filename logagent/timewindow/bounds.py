"""Parse ``--since`` / ``--until`` values (PURE: ``now`` comes in as an argument).

Accepted values:

* a duration back from ``now``: ``90s``, ``90m``, ``24h``, ``7d``, ``1w``, or a
  sum such as ``1h30m``;
* ``now``;
* an ISO date or date-time: ``2026-11-28``, ``2026-11-28T00:00``,
  ``2026-11-28 00:00:00+01:00``, ``2026-11-28T00:00:00Z``.

A value without a zone is read in ``tz`` (default UTC; a date means its
midnight there). Results are aware datetimes in UTC. A bad value, or a
``since`` after ``until``, raises ``ConfigError`` naming the flag.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from logagent.errors import ConfigError

UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_DURATION = re.compile(r"(?:\d+(?:\.\d+)?[smhdw])+")
_PART = re.compile(r"(\d+(?:\.\d+)?)([smhdw])")


def parse_duration(value: str) -> timedelta | None:
    """``1h30m`` -> 90 minutes; None when ``value`` is not a duration."""
    text = value.strip().lower()
    if not _DURATION.fullmatch(text):
        return None
    return timedelta(seconds=sum(float(n) * UNIT_SECONDS[u] for n, u in _PART.findall(text)))


def names_an_instant(value: str) -> bool:
    """Whether ``value`` names an instant whatever the clock a log was written by: a duration
    back from now, ``now``, or a date-time with a zone; not a date-time without one (read in
    ``tz``, as a log's own zone-less stamps are) nor a bad value."""
    text = value.strip()
    if text.lower() == "now" or parse_duration(text) is not None:
        return True
    try:
        return datetime.fromisoformat(text).tzinfo is not None
    except ValueError:
        return False


def parse_bound(value: str, *, now: datetime, tz: str = "UTC", flag: str = "--since") -> datetime:
    """The instant (aware, UTC) a ``--since``/``--until`` value names."""
    if now.tzinfo is None:
        raise ValueError("now must be timezone-aware")
    text = value.strip()
    if text.lower() == "now":
        return now.astimezone(UTC)
    span = parse_duration(text)
    if span is not None:
        return (now - span).astimezone(UTC)
    try:
        stamp = datetime.fromisoformat(text)
        return (stamp if stamp.tzinfo else stamp.replace(tzinfo=ZoneInfo(tz))).astimezone(UTC)
    except (ValueError, ZoneInfoNotFoundError) as exc:
        raise ConfigError(
            f"{flag} {value!r} is neither a duration (24h, 90m, 7d, 1w), 'now' "
            "nor an ISO date/time (2026-11-28, 2026-11-28T00:00, ...+01:00, ...Z)",
            flag=flag,
            value=value,
        ) from exc


def parse_window(
    since: str | None, until: str | None, *, now: datetime, tz: str = "UTC"
) -> tuple[datetime | None, datetime | None]:
    """Both bounds (either may be absent); ``since`` must not be after ``until``."""
    lo = None if since is None else parse_bound(since, now=now, tz=tz, flag="--since")
    hi = None if until is None else parse_bound(until, now=now, tz=tz, flag="--until")
    if lo is not None and hi is not None and lo > hi:
        raise ConfigError(
            f"--since {since!r} ({lo.isoformat()}) is after --until {until!r} ({hi.isoformat()})",
            flag="--since",
        )
    return lo, hi
