"""``app.staged_times`` (each stamp format tried only where the ones before it failed) gives
the times ``app.parse_times`` (every format on every stamp, the first that parses) gives:
the same format wins on every stamp, including stamps two formats parse differently,
stamps without a year read in a given year, and junk."""

from __future__ import annotations

from datetime import datetime

import polars as pl
from hypothesis import example, given, settings
from hypothesis import strategies as st

from logagent.formats.apptimes import YEAR, one_blank, parse_times, staged_times
from logagent.formats.structured import TIME_FORMATS

STAMPS = st.sampled_from(
    [
        "2026-12-03T10:00:00.5+01:00",
        "2026-12-03 10:00:00.123Z",
        "2026-12-03T10:00:00",
        "2026-12-03 10:00:00,123",
        "2026-12-03 10:00:00.25",
        "2026-12-03  10:00:00",
        "Dec  3 10:00:00",
        "Dec 31 23:59:59.5",
        "1203 10:00:00.1",
        "12-03 10:00:00",
        "2026-13-03 10:00:00",
        "03/04/2026 10:00",
        "13/04/2026  10:00",
        "04/13/2026 10:00",
        "",
        "x",
    ]
)
DAY_FIRST = ("%d/%m/%Y %H:%M", "%m/%d/%Y %H:%M")
# The structured formats' list, one with year-less formats, formats in another order, and two
# formats that read some stamps differently.
FORMAT_LISTS = st.sampled_from(
    [
        TIME_FORMATS,
        (f"{YEAR} %b %d %H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f", f"{YEAR}%m%d %H:%M:%S%.f"),
        tuple(reversed(TIME_FORMATS)),
        DAY_FIRST,  # both read 03/04: the first must win
    ]
)
YEARS = st.sampled_from([None, 2025, datetime(2026, 12, 3, 12, 0), datetime(2027, 1, 1, 0, 30)])


@settings(max_examples=300, deadline=None)
@example(stamps=["03/04/2026 10:00", "04/13/2026 10:00", None], formats=DAY_FIRST, year=None)
@given(stamps=st.lists(st.one_of(STAMPS, st.none()), max_size=12), formats=FORMAT_LISTS, year=YEARS)
def test_staged_times_equal_parse_times(
    stamps: list[str | None], formats: tuple[str, ...], year: int | datetime | None
) -> None:
    frame = pl.LazyFrame({"ts": pl.Series(stamps, dtype=pl.String)})
    want = frame.select(parse_times(pl.col("ts"), formats, year).alias("t")).collect()["t"]
    stages, time = staged_times(pl.col("ts"), formats, "_x", year)
    for stage in stages:
        frame = frame.with_columns(**stage)
    got = frame.select(time.alias("t")).collect()["t"]
    assert got.to_list() == want.to_list()


BLANKY = st.lists(
    st.sampled_from(
        [" ", "  ", "\t", "\u00a0", "\u2003", "\u0085", "\x0b", "\r", "a", "1", ":", ""]
    ),
    max_size=8,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.none(), BLANKY, st.text(max_size=8)), max_size=10))
@example([" ", "a  b", "a\tb", "a\u00a0b", "a b", None, ""])
def test_one_blank_replaces_only_where_a_replace_would_change_the_stamp(
    stamps: list[str | None],
) -> None:
    """``one_blank`` tests a stamp before it replaces its blanks: the result is the replace's."""
    frame = pl.DataFrame({"ts": pl.Series(stamps, dtype=pl.String)})
    got = frame.select(one_blank(pl.col("ts"))).to_series().to_list()
    want = frame.select(pl.col("ts").str.replace_all(r"\s+", " ")).to_series().to_list()
    assert got == want
