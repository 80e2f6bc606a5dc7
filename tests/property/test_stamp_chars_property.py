"""A stamp format that ``stampchars.reads_comma`` says cannot read a "," parses no stamp
that holds one (Polars' strptime, the one the parse uses), so ``app.staged_times`` may skip
those stamps for it; the formats that may read one are told apart."""

from __future__ import annotations

import warnings
from datetime import UTC, datetime

import polars as pl
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from logagent.formats.applogs import LOG4J
from logagent.formats.apptimes import _strptime, staged_times
from logagent.formats.stampchars import NO_COMMA, reads_comma
from logagent.formats.structured import TIME_FORMATS

#: Each conversion ``reads_comma`` lets through, with the flags and widths chrono takes.
CONVERSIONS = [*sorted(f"%{c}" for c in NO_COMMA), "%-d", "%_H", "%.3f", "%3f", "%.f", "%:z"]
#: Literals as stamps write them, none a comma.
LITERALS = [" ", "-", ":", "/", ".", "T", "Z", "+", "[", "]", "at", "  "]
PIECES = st.lists(st.sampled_from([*CONVERSIONS, *LITERALS]), min_size=1, max_size=8)
MOMENTS = st.datetimes(datetime(1970, 1, 1), datetime(2100, 1, 1), timezones=st.just(UTC))


def _parse(stamps: list[str], strf: str) -> list[object] | None:
    """Each stamp parsed by ``strf`` as the app formats parse it; None where Polars refuses
    the format itself (the property is about what a format reads, not which it takes)."""
    frame = pl.DataFrame({"s": pl.Series(stamps, dtype=pl.String)})
    try:
        with warnings.catch_warnings():  # Polars warns of formats such as ".%f": read anyway
            warnings.simplefilter("ignore", pl.exceptions.ChronoFormatWarning)
            return frame.select(_strptime(strf)(pl.col("s"))).to_series().to_list()
    except BaseException as e:
        if not _refused(e):
            raise
        return None


def _refused(e: BaseException) -> bool:
    """Whether ``e`` is Polars refusing a format: its error, or its panic (a BaseException)."""
    return isinstance(e, pl.exceptions.PolarsError) or type(e).__name__ == "PanicException"


@settings(max_examples=400, deadline=None)
@given(pieces=PIECES, moment=MOMENTS, where=st.integers(0, 200), data=st.data())
@example(pieces=["%Y-%m-%d %H:%M:%S%.f%#z"], moment=datetime(2026, 11, 28, tzinfo=UTC),
         where=19, data=None)  # fmt: skip
def test_a_format_that_reads_no_comma_parses_no_stamp_holding_one(
    pieces: list[str], moment: datetime, where: int, data: st.DataObject | None
) -> None:
    strf = "".join(pieces)
    assert not reads_comma(strf)
    try:
        shown = pl.select(pl.lit(moment).dt.strftime(strf)).item()
    except BaseException as e:  # a format Polars cannot write: a stamp of another
        if not _refused(e):
            raise
        shown = "2026-11-28 01:00:00.011"
    at = where % (len(shown) + 1)
    replace = data.draw(st.booleans()) if data is not None else False
    stamps = [
        shown[:at] + "," + shown[at:],  # a comma put in
        shown[:at] + "," + shown[at + 1 :] if replace else shown + ",",  # or for a character
        shown.replace(".", ","),  # a decimal comma
        shown.replace(":", ","),
    ]
    stamps = [s for s in stamps if "," in s]
    got = _parse(stamps, strf)
    assume(got is not None)
    assert got == [None] * len(stamps), (strf, stamps, got)


#: Stamp layouts logs write, each read back by its format (so the comma's refusal is the
#: comma's doing): every conversion of ``NO_COMMA`` that a dated stamp can hold.
ROUND_TRIP = [
    *(f for f in TIME_FORMATS if not reads_comma(f)),
    "%d/%b/%Y:%H:%M:%S %z",
    "%a %b %e %H:%M:%S%.6f %Y",
    "%A %B %d %Y %I:%M:%S %p",
    "%Y%m%d %H:%M:%S%.f",
    "%Y-%m-%d %k:%M:%S",
    "%m/%d/%Y %T",
    "%m/%d/%Y %r",
    "%F %T %:z",
    "%Y-%j %X",
    "%d.%m.%Y %l:%M:%S %P",
    "%G-W%V-%u %H:%M:%S",
    "%s",
    "%Y-%m-%dT%H:%M:%S%.3fZ",
    "%Y-%m-%dT%H:%M:%S%3f",
    "%C-%h-%d %-H:%M:%S%#z %Y",
    "%v %_H:%M:%S",
    "%Y-%m-%d%t%H:%M:%S %%",
    "%Y-%U-%w %H:%M",
    "%Y-%W-%a %H:%M",
]


@settings(max_examples=200, deadline=None)
@given(strf=st.sampled_from(ROUND_TRIP), moment=MOMENTS, where=st.integers(0, 200))
def test_a_stamp_its_format_reads_is_refused_once_it_holds_a_comma(
    strf: str, moment: datetime, where: int
) -> None:
    assert not reads_comma(strf)
    shown = pl.select(pl.lit(moment).dt.strftime(strf.replace("%#z", "%:z"))).item()
    at = where % (len(shown) + 1)
    stamps = [shown, shown[:at] + "," + shown[at:], shown[:at] + "," + shown[at + 1 :]]
    got = _parse(stamps, strf)
    assert got is not None and got[0] is not None, (strf, shown)  # the stamp itself is read
    assert got[1:] == [None, None], (strf, stamps, got)


def test_the_formats_that_may_read_a_comma() -> None:
    """A literal comma, a conversion that reads loosely (``%Z`` skips non-blanks, ``%+``,
    ``%c``, an unknown one) or a bare ``%``: the format is tried on every stamp."""
    for strf in (
        "%Y-%m-%d %H:%M:%S,%3f",
        "%d/%m/%Y, %H:%M",
        "%Y %Z",
        "%+",
        "%c",
        "%Q",
        "%Y%",
        "%D",
    ):
        assert reads_comma(strf), strf
    for strf in (*TIME_FORMATS[:3], "%Y-%m-%d %H:%M:%S%.f", "%d %b %Y %%", "%Y-%m-%dT%H:%M:%S%:z"):
        assert not reads_comma(strf), strf
    # the last: Flume's "%d %b %Y %H:%M:%S,%3f" (probe R)
    got = [reads_comma(f) for f in LOG4J.time_formats]
    assert got == [False, False, True, False, True, False, True]


@pytest.mark.parametrize("formats", [LOG4J.time_formats, ("%d/%m/%Y %H:%M", "%d/%m/%Y, %H:%M")])
def test_a_comma_stamp_skips_the_formats_that_cannot_read_it(formats: tuple[str, ...]) -> None:
    """The staged parse tries a comma stamp only by the formats that may read one, and times
    every stamp as trying every format does."""
    stamps = [
        "2026-11-28 01:00:00,011",
        "2026-11-28 01:00:00.011",
        "2026-11-28T01:00:00,5",
        "28/11/2026 01:00",
        "28/11/2026, 01:00",
        None,
    ]
    frame = pl.LazyFrame({"ts": pl.Series(stamps, dtype=pl.String)})
    stages, time = staged_times(pl.col("ts"), formats, "_x")
    plan = frame
    for stage in stages:
        plan = plan.with_columns(**stage)
    got = plan.select(time).collect().to_series().to_list()
    want = [
        next((t for f in formats if (t := _parse([s], f)[0]) is not None), None)  # type: ignore[index]
        if s is not None
        else None
        for s in stamps
    ]
    assert got == want
    for i, strf in enumerate(formats):  # the stamps of a format that cannot read "," are masked
        assert ("_x_comma" in str(stages[i + 1][f"_x_time{i}"])) is not reads_comma(strf)
