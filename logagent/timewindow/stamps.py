"""Parse log timestamps to UTC, one at a time or a whole column (PURE).

Kinds of timestamp (``STAMP_KINDS``) and how a line's stamp is found:

=============  ==========================================  ==========================
kind           example                                     zone when none is written
=============  ==========================================  ==========================
iso8601        ``2026-11-28T00:00:01,123+01:00``, RFC 5424  ``tz``
clf            ``10/Oct/2000:13:55:36 -0700`` (in ``[...]``)  always written; also
               ``10/Oct/2000 13:55:36`` (Werkzeug)          ``tz``
               ``Tue, 10 Oct 2000 13:55:36 GMT`` (morgan)  GMT
syslog         ``Oct 11 22:14:15`` (RFC 3164, no year)      ``tz``; year: ``reference``
apache_error   ``Wed Oct 11 14:32:52.123 2000`` (in ``[...]``)  ``tz``
epoch          ``1764288000``, ``1764288000123`` (s/ms/us/ns)  UTC by definition
=============  ==========================================  ==========================

Naive times are read in ``tz`` (default UTC), a ``zoneinfo`` name, so a local
clock across a DST change still maps to the right instant (an ambiguous hour
takes its first occurrence; a skipped one gives null). A syslog stamp has no
year: it takes ``reference``'s year, or the year before when that would put it
more than a day after ``reference`` (required: no clock is read here).
Nothing here raises on a bad stamp: it gives None (scalar) or null (column).
Month names are English whatever the process locale.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

STAMP_KINDS = ("iso8601", "clf", "syslog", "apache_error", "epoch")
_MONTH_TEXT = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec"
MONTHS = {m: i + 1 for i, m in enumerate(_MONTH_TEXT.split())}
_DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

_ISO = re.compile(
    r"(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2})?)(?:[.,](\d+))?\s?(Z|[+-]\d{2}:?\d{2})?"
)
_CLF = re.compile(r"(\d{1,2})/([A-Z][a-z]{2})/(\d{4}):(\d{2}):(\d{2}):(\d{2}) ([+-])(\d{2})(\d{2})")
#: The other stamps written where CLF's stands: Werkzeug's and Python http.server's local
#: ``22/Sep/2020 08:27:44`` (no zone), and morgan's RFC 1123 ``Tue, 06 Feb 2018 06:31:06 GMT``.
_CLF_LOCAL = re.compile(r"(\d{1,2})/([A-Z][a-z]{2})/(\d{4}) (\d{2}):(\d{2}):(\d{2})")
#: A CLF stamp, or one written in its place, in its brackets (group 1: the stamp).
CLF_BRACKETED = (
    r"\[([0-9]{1,2}/[A-Z][a-z]{2}/[0-9]{4}[: ][^\]]{8,20}"
    r"|[A-Z][a-z]{2}, [0-9]{2} [A-Z][a-z]{2} [0-9]{4} [0-9:]{8} GMT)\]"
)
_RFC1123 = re.compile(r"[A-Z][a-z]{2}, (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT")
_SYSLOG = re.compile(r"([A-Z][a-z]{2}) {1,2}(\d{1,2}) (\d{2}):(\d{2}):(\d{2})")
_APACHE = re.compile(
    r"[A-Z][a-z]{2} ([A-Z][a-z]{2}) (\d{1,2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d+))? (\d{4})"
)
_EPOCH = re.compile(r"\d{9,19}(?:\.\d+)?")


def parse_timestamp(
    text: str, kind: str, *, tz: str = "UTC", reference: datetime | None = None
) -> datetime | None:
    """The instant ``text`` names (aware, UTC), or None when it is not a ``kind`` stamp.

    ValueError (a caller bug, not bad data) for a syslog stamp without ``reference``.
    """
    need_reference(kind, reference)
    try:
        parsed = _PARSERS[kind](text.strip(), ZoneInfo(tz), reference)
    except (ValueError, OverflowError, KeyError):
        return None
    return None if parsed is None else parsed.astimezone(UTC)


def need_reference(kind: str, reference: datetime | None) -> None:
    """Syslog stamps carry no year: without a reference time they cannot be placed."""
    if kind == "syslog" and reference is None:
        raise ValueError("syslog (RFC 3164) stamps need a reference time: they carry no year")


def _localize(naive: datetime, tz: ZoneInfo) -> datetime | None:
    """Attach ``tz``; None for a wall time the zone skips (spring-forward gap)."""
    aware = naive.replace(tzinfo=tz, fold=0)
    back = aware.astimezone(UTC).astimezone(tz).replace(tzinfo=None)
    return aware if back == naive else None


def _iso(text: str, tz: ZoneInfo, _ref: datetime | None) -> datetime | None:
    m = _ISO.fullmatch(text)
    if not m:
        return None
    date, clock, frac, off = m.groups()
    stamp = f"{date}T{clock}" + (f".{frac[:6]}" if frac else "")
    value = datetime.fromisoformat(stamp + ("+00:00" if off == "Z" else off or ""))
    return value if value.tzinfo else _localize(value, tz)


def _clf(text: str, tz: ZoneInfo, _ref: datetime | None) -> datetime | None:
    bare = text.strip("[]")
    m = _CLF.fullmatch(bare)
    if not m:
        local, rfc = _CLF_LOCAL.fullmatch(bare), _RFC1123.fullmatch(bare)
        if local is None and rfc is None:
            return None
        d, mon, y, hh, mm, ss = (local or rfc).groups()  # type: ignore[union-attr]
        naive = datetime(int(y), MONTHS[mon], int(d), int(hh), int(mm), int(ss))
        if rfc and bare[:3] != _DAYS[naive.weekday()]:  # as Polars' %a: a wrong day is none
            return None
        return naive.replace(tzinfo=UTC) if rfc else _localize(naive, tz)
    d, mon, y, hh, mm, ss, sign, oh, om = m.groups()
    offset = timedelta(hours=int(oh), minutes=int(om)) * (-1 if sign == "-" else 1)
    naive = datetime(int(y), MONTHS[mon], int(d), int(hh), int(mm), int(ss))
    return (naive - offset).replace(tzinfo=UTC)


def _syslog(text: str, tz: ZoneInfo, ref: datetime | None) -> datetime | None:
    m = _SYSLOG.fullmatch(text)
    if not m:
        return None
    mon, d, hh, mm, ss = m.groups()
    assert ref is not None  # need_reference checked it
    for year in (ref.year, ref.year - 1):
        value = _localize(datetime(year, MONTHS[mon], int(d), int(hh), int(mm), int(ss)), tz)
        if value is None or value <= ref + timedelta(days=1):
            return value
    return None


def _apache(text: str, tz: ZoneInfo, _ref: datetime | None) -> datetime | None:
    m = _APACHE.fullmatch(text.strip("[]"))
    if not m:
        return None
    mon, d, hh, mm, ss, frac, y = m.groups()
    micros = int((frac or "0")[:6].ljust(6, "0"))
    naive = datetime(int(y), MONTHS[mon], int(d), int(hh), int(mm), int(ss), micros)
    return _localize(naive, tz)


def _epoch(text: str, _tz: ZoneInfo, _ref: datetime | None) -> datetime | None:
    if not _EPOCH.fullmatch(text):
        return None
    value = float(text)
    return datetime.fromtimestamp(value / epoch_scale(value), UTC)


def epoch_scale(value: float) -> float:
    """Divisor turning an epoch number to seconds, guessed from its size (s, ms, us, ns)."""
    for scale in (1.0, 1e3, 1e6):
        if abs(value) < 1e11 * scale:
            return scale
    return 1e9


_Parser = Callable[[str, ZoneInfo, datetime | None], datetime | None]
_PARSERS: dict[str, _Parser] = {
    "iso8601": _iso,
    "clf": _clf,
    "syslog": _syslog,
    "apache_error": _apache,
    "epoch": _epoch,
}
