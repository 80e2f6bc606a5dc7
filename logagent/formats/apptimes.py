"""An application format's timestamps as UTC times, by strftime formats tried in turn (PURE).

``parse_times`` gives the time of each stamp by the first of a format's
``time_formats`` that parses it; ``staged_times`` the same as helper columns,
each format tried only on the stamps the ones before it left (and not on a
stamp holding a "," it cannot read: ``stampchars``). A format marked ``YEAR``
is for stamps written without a year (syslog RFC 3164, glog).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from itertools import pairwise

import polars as pl

from logagent.formats.base import Stages
from logagent.formats.stampchars import reads_comma

UTC = pl.Datetime("us", "UTC")
#: Marks a time format for timestamps written without a year.
#: The date and time of day most stamps write (regex parts every layout module shares).
DAY = r"[0-9]{4}-[0-9]{2}-[0-9]{2}"
HMS = r"[0-9]{2}:[0-9]{2}:[0-9]{2}"
YEAR = "{year}"
#: Ends a time format for stamps followed by a blank and their zone: an offset (``+02``,
#: ``-0330``, ``+05:30``) or a common abbreviation (``ZONES``), as PostgreSQL writes them
#: (``%m``: ``2025-08-13 01:45:01.123 PDT``). A zone it does not know is read as UTC
#: (``unknown_zones`` finds them, for a warning).
ZONE = " {zone}"
#: Zone abbreviations and their offsets (hours east of UTC): the unambiguous common ones.
#: CST (US or China), IST (India, Ireland, Israel) and AST (Atlantic, Arabia) are left out,
#: and so are their summer partners CDT and ADT: a file that crosses a DST switch would
#: otherwise jump back by the offset at the switch (a review found 16,616 s); unknown, both
#: halves are read as UTC, in order, with a warning. PST is the US Pacific's (Manila's PST,
#: +08, is read so too).
ZONES = {
    "UTC": 0, "UT": 0, "GMT": 0, "Z": 0, "WET": 0, "WEST": 1, "BST": 1,
    "CET": 1, "CEST": 2, "MET": 1, "MEST": 2, "EET": 2, "EEST": 3, "MSK": 3,
    "EST": -5, "EDT": -4, "MST": -7, "MDT": -6, "PST": -8, "PDT": -7,
    "AKST": -9, "AKDT": -8, "HST": -10, "NST": -3.5, "NDT": -2.5,
    "JST": 9, "KST": 9, "HKT": 8, "SGT": 8, "AWST": 8, "ACST": 9.5, "ACDT": 10.5,
    "AEST": 10, "AEDT": 11, "NZST": 12, "NZDT": 13, "BRT": -3, "ART": -3,
}  # fmt: skip
#: An offset as a zone: ``+02``, ``-0330``, ``+05:30``.
_OFFSET = r"^[+-][0-9]{2}(?::?[0-9]{2})?$"
#: The year of year-less stamps: a year (``--year``: every stamp in it), or a reference time
#: (the inputs' last stamp, else now: ``engine.views.stamp_reference``): its year, or the
#: year before for a stamp that would lie more than a day after it, as ``timewindow`` places
#: them too (a December line before a January one is the year before's).
YearOf = int | datetime | None


def yearless(fmt: object) -> bool:
    """Whether ``fmt`` reads stamps written without a year (a ``{year}`` time format)."""
    formats = getattr(fmt, "time_formats", None) or ()
    return any(isinstance(f, str) and f.startswith(YEAR) for f in formats)


def year_reference(stamps: Sequence[datetime]) -> datetime | None:
    """The stamp year-less ones are placed from, among one input's sampled ``stamps`` (in
    file order, each placed from now): its last, when the log runs in order, across one new
    year at most (Dec 30 to Jan 2: Jan 2); else its latest date in a year. A log of
    excerpts out of order (ossec's ProFTPD entries, May to June then May) had its June lines
    placed a year before; and one last stamp alone past a "new year" (a device's clock
    reset to Jan 1) is no new year: it had moved every other line a year back."""
    if not stamps:
        return None
    in_year = [t.replace(year=2000) for t in stamps]  # 2000: a leap year holds every date
    day = timedelta(days=1)
    back = [i for i, (a, b) in enumerate(pairwise(in_year)) if b < a - day]
    wrapped = len(back) == 1 and len(stamps) - back[0] > 2 and in_year[-1] < in_year[0]
    if not back or wrapped:
        return stamps[-1]
    return stamps[max(range(len(stamps)), key=in_year.__getitem__)]


def parse_times(ts: pl.Expr, formats: Sequence[str], year: YearOf = None) -> pl.Expr:
    """``ts`` as UTC by the first of ``formats`` (strftime) that parses it.

    A format starting with ``{year}`` is for timestamps written without a year
    (syslog RFC 3164, glog): the year (``YearOf``) is put in front; without one
    they stay null.
    """
    text = one_blank(ts)
    tries = [attempt(text) for _, attempt in _time_tries(formats, year)]
    return pl.coalesce(tries) if tries else pl.lit(None, dtype=UTC)


def staged_times(
    ts: pl.Expr, formats: Sequence[str], name: str, year: YearOf = None
) -> tuple[Stages, pl.Expr]:
    """``parse_times`` as helper columns named after ``name`` (``base.staged_fields``): each
    format tries only the stamps the formats before it left null. In one expression every
    format parsed every stamp, and a strptime that fails costs about what one that parses
    does (five formats: 0.30 s a 400 k stamps, against 0.11 s in turn). Nor does a format
    that cannot read a "," try a stamp holding one (``stampchars``: log4j's stamps skip
    the two ISO formats before theirs, 0.54 -> 0.24 s CPU a 1.15 M stamps)."""
    tries = _time_tries(formats, year)
    if not tries:
        return [], pl.lit(None, dtype=UTC)
    text, comma = f"{name}_stamp", f"{name}_comma"
    got = [f"{name}_time{i}" for i in range(len(tries))]
    first: dict[str, pl.Expr] = {text: one_blank(ts)}  # one_blank keeps every ","
    guarded = [not reads_comma(strf) for strf, _ in tries]
    if any(guarded):
        first[comma] = ts.str.contains(",", literal=True)
    stages: list[dict[str, pl.Expr]] = [first]
    for i, (_, attempt) in enumerate(tries):
        left = [pl.col(got[i - 1]).is_null()] if i else []  # null: parsed before
        left += [~pl.col(comma)] if guarded[i] else []
        stamp = pl.when(pl.all_horizontal(left)).then(pl.col(text)) if left else pl.col(text)
        parsed = attempt(stamp)
        stages.append({got[i]: pl.coalesce(pl.col(got[i - 1]), parsed) if i else parsed})
    return stages, pl.col(got[-1])


def one_blank(ts: pl.Expr) -> pl.Expr:
    """``ts`` with each run of blanks as one space (syslog pads the day with a space). The
    regex replaces only where a stamp holds such a run: a replace on every stamp cost ~340 ns
    (a log4j stamp), the test ~100."""
    odd = ts.str.contains(r"\s\s|[^\S ]")  # two blanks, or one that is no space
    return pl.when(odd).then(ts.str.replace_all(r"\s+", " ")).otherwise(ts)


def _time_tries(
    formats: Sequence[str], year: YearOf
) -> list[tuple[str, Callable[[pl.Expr], pl.Expr]]]:
    """One parse of the stamp text per format (see ``parse_times``), in order, each with the
    strftime text it parses by."""
    tries: list[tuple[str, Callable[[pl.Expr], pl.Expr]]] = []
    for fmt in formats:
        if fmt.endswith(ZONE):
            strf = fmt.removesuffix(ZONE)
            tries.append((strf, _zoned(strf)))
        elif fmt.startswith(YEAR):
            if year is None:
                continue
            strf = "%Y" + fmt.removeprefix(YEAR)
            tries.append((strf, _in_year(year, strf)))
        else:
            tries.append((fmt, _strptime(fmt)))
    return tries


#: Polars' cache of parsed stamps looks each one up in a hash map, which cost more than the
#: parse (log4j's stamps, all distinct: 180 ns a stamp against 89 without; a format that
#: fails, 450 against 330).
_CACHE = False


def _strptime(fmt: str) -> Callable[[pl.Expr], pl.Expr]:
    return lambda text: text.str.strptime(UTC, fmt, strict=False, cache=_CACHE)


def _in_year(year: int | datetime, strf: str) -> Callable[[pl.Expr], pl.Expr]:
    """A stamp without a year parsed in ``year`` (a reference time: the latest year that
    puts it at most a day after the reference)."""

    def in_year(y: int, text: pl.Expr) -> pl.Expr:
        stamp = pl.concat_str([pl.lit(str(y)), text])
        return stamp.str.strptime(UTC, strf, strict=False, cache=_CACHE)

    if not isinstance(year, datetime):
        return lambda text: in_year(year, text)
    latest = pl.lit(year + timedelta(days=1)).cast(UTC)

    def recent(text: pl.Expr) -> pl.Expr:
        this = in_year(year.year, text)
        return pl.when(this <= latest).then(this).otherwise(in_year(year.year - 1, text))

    return recent


def _zoned(strf: str) -> Callable[[pl.Expr], pl.Expr]:
    """A stamp, a blank and its zone (``ZONE``): the stamp by ``strf``, moved by the zone's
    offset (null where the text holds no blank or the stamp does not parse)."""

    def zoned(text: pl.Expr) -> pl.Expr:
        zone = text.str.extract(r" ([^ ]+)$", 1)
        local = text.str.extract(r"^(.*) [^ ]+$", 1)
        local = local.str.strptime(UTC, strf, strict=False, cache=_CACHE)
        fixed = local - pl.duration(seconds=zone_offset_s(zone).fill_null(0))
        regional = pl.struct(local=local, zone=zone).map_batches(_regional_utc, return_dtype=UTC)
        return pl.when(zone.str.contains("/", literal=True)).then(regional).otherwise(fixed)

    return zoned


def _regional_utc(stamps: pl.Series) -> pl.Series:
    """UTC times of local times in named regions (``Europe/Berlin``, as PHP writes them): each
    region's offset on that date, summer time included (a clock set back: the earlier of the
    two; a time the clock skipped: null). A name the zone database lacks stays null, and is
    warned of (``unknown_zones``)."""
    local = stamps.struct.field("local").dt.replace_time_zone(None)
    zone = stamps.struct.field("zone")
    out = pl.repeat(None, len(stamps), dtype=UTC, eager=True)
    for name in zone.filter(zone.str.contains("/", literal=True)).unique().to_list():
        if not known_region(name):
            continue
        there = local.dt.replace_time_zone(name, ambiguous="earliest", non_existent="null")
        out = out.zip_with(zone != name, there.dt.convert_time_zone("UTC"))
    return out


@functools.lru_cache(maxsize=64)
def known_region(name: str) -> bool:
    """Whether the zone database (Polars') knows the region ``name``."""
    try:
        pl.Series([datetime(2000, 1, 1)]).dt.replace_time_zone(name)
    except pl.exceptions.PolarsError:
        return False
    return True


def zone_offset_s(zone: pl.Expr) -> pl.Expr:
    """Seconds east of UTC of each zone text: an offset or a known abbreviation (null else)."""
    numeric = zone.str.contains(_OFFSET)
    digits = zone.str.replace(":", "", literal=True)
    minutes = digits.str.slice(1, 2).cast(pl.Int64) * 60 + digits.str.slice(3, 2).cast(
        pl.Int64, strict=False
    ).fill_null(0)
    sign = pl.when(zone.str.starts_with("-")).then(-1).otherwise(1)
    named = zone.str.to_uppercase().replace_strict(
        {k: int(v * 3600) for k, v in ZONES.items()}, default=None, return_dtype=pl.Int64
    )
    return pl.when(numeric).then(sign * minutes * 60).otherwise(named)


def unknown_zones(stamps: list[str | None], formats: Sequence[str]) -> list[str]:
    """The zones of ``stamps`` that a ``ZONE`` format reads as UTC (a word, neither an offset
    nor a known abbreviation), each once, in order; none when no format of ``formats`` has
    one. A stamp with no zone ends in its time, which is no word."""
    if not any(f.endswith(ZONE) for f in formats):
        return []

    seen: dict[str, None] = {}
    for stamp in stamps:
        zone = stamp.rsplit(" ", 1)[-1] if stamp and " " in stamp else None
        if not zone or not zone[0].isalpha() or zone.upper() in ZONES:
            continue
        if "/" not in zone or not known_region(zone):  # a region: placed unless unknown
            seen.setdefault(zone)
    return list(seen)
