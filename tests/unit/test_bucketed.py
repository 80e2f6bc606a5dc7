"""The timeline's bucket column, staged (``formats.bucketed``).

With ``events_only`` the staged parse gives a bucket to the 5xx records alone
(the tally's timeline counts only those) and parses no other line's stamp;
every other column is unchanged. Without it (cron keeps every record by its
bucket) the staged parse equals ``fields``.
"""

from __future__ import annotations

import polars as pl
import pytest

from logagent.formats.access import COMBINED
from logagent.formats.base import BUCKET, PATH, STATUS, staged_fields
from logagent.formats.bucketed import Bucketed
from logagent.formats.windowed import time_of
from logagent.testing import combined_line

LINES = [
    combined_line("/api/a", 200),
    combined_line("/api/b/17", 503),
    combined_line("/login", 500),
    combined_line("/x", 404),
    combined_line("/y", 599),
    '10.0.0.1 - - [01/Dec/2026:23:59:59 +0100] "GET /q?x=\\"1\\" HTTP/1.1" 502 7 "-" "ua"',
    '10.0.0.1 - - [02/Dec/2026:00:00:01 +0000] "BAD REQUEST" 500 0 "-" "-"',
    "not an access line at all, not even close",
    "",
]


def parse(fmt: Bucketed, staged: bool) -> pl.DataFrame:
    frame = pl.LazyFrame({"line": LINES})
    line = pl.col("line")
    if not staged:
        return frame.select(**fmt.fields(line)).collect()
    stages, fields = staged_fields(fmt, line)
    for stage in stages:
        frame = frame.with_columns(**stage)
    return frame.select(**fields).collect()


def bucketed(events_only: bool) -> Bucketed:
    time = time_of(COMBINED)
    assert time is not None
    return Bucketed(COMBINED, time, 3600, events_only)


def test_without_events_only_the_staged_parse_equals_fields() -> None:
    fmt = bucketed(False)
    assert parse(fmt, staged=True).equals(parse(fmt, staged=False))


@pytest.mark.parametrize("column", [PATH, STATUS])
def test_events_only_leaves_the_other_columns_as_they_were(column: str) -> None:
    full = parse(bucketed(False), staged=False)
    assert parse(bucketed(True), staged=True)[column].equals(full[column])


def test_events_only_buckets_exactly_the_5xx_records() -> None:
    full = parse(bucketed(False), staged=False)
    events = parse(bucketed(True), staged=True)
    is_5xx = full[STATUS].is_between(500, 599).fill_null(False)
    assert is_5xx.sum() == 5  # the lines above: 503, 500, 599, 502, 500
    assert events[BUCKET].filter(is_5xx).equals(full[BUCKET].filter(is_5xx))
    assert events[BUCKET].filter(~is_5xx).is_null().all()
    assert full[BUCKET].filter(~is_5xx).is_not_null().any()  # the full parse buckets them


@pytest.mark.parametrize(
    ("span_s", "width"),
    [
        (1.0, 60),
        (100 * 60, 60),
        (100 * 60 + 1, 300),
        (86400 * 100, 86400),
        (604800 * 100, 604800),
        (604800 * 100 + 1, 2 * 604800),  # past the ladder: whole weeks
        (2.3 * 365 * 86400, 2 * 604800),  # lnav's logfile_generic.0: two records, 27 months
        (40 * 365 * 86400, 21 * 604800),
    ],
)
def test_auto_width_cuts_any_range_into_at_most_max_buckets(span_s: float, width: int) -> None:
    """``--bucket auto``: the smallest ladder width with at most ``MAX_BUCKETS`` buckets, and
    past the ladder the fewest whole weeks (a range of years had 119 one-week buckets)."""
    from logagent.formats.bucketed import MAX_BUCKETS, choose_bucket_s

    assert choose_bucket_s(span_s) == width
    assert span_s / width <= MAX_BUCKETS


APP_LINES = [
    "2026-12-01 10:00:00,001 ERROR [main] app.db - pool exhausted",
    "2026-12-01 11:30:00,001 INFO  [main] app.db - ok",
    "2026-12-01 12:59:59,999 FATAL [main] app.web - down",
    "\tat a.B.c(B.java:1)",
    "2026-12-01 13:00:00,000 WARN  [main] app.web - slow",
]


def test_an_app_layout_buckets_its_events_from_its_staged_time() -> None:
    """An app layout's staged parse holds every line's time: the events' bucket is that time,
    masked, not the line parsed again by the unstaged patterns (log4j's -q status spent more
    on the bucket than on its parse: 200 MB, 8.0 -> 2.3 s)."""
    from logagent.formats.adapter import AppAsAccess
    from logagent.formats.applogs import LOG4J

    view = AppAsAccess(LOG4J)
    time = time_of(view)
    assert time is not None
    full, events = Bucketed(view, time, 3600), Bucketed(view, time, 3600, events_only=True)
    frame = pl.LazyFrame({"line": APP_LINES})
    plain = frame.select(**full.fields(pl.col("line"))).collect()
    stages, fields = staged_fields(events, pl.col("line"))
    for stage in stages:
        frame = frame.with_columns(**stage)
    staged = frame.select(**fields)
    got = staged.collect()
    is_event = plain[STATUS].is_between(500, 599).fill_null(False)
    assert is_event.sum() == 2  # ERROR and FATAL
    assert got[BUCKET].filter(is_event).equals(plain[BUCKET].filter(is_event))
    assert got[BUCKET].filter(~is_event).is_null().all()
    plan = staged.explain()
    # the stamp is parsed by the staged time formats alone, never by the patterns again
    unstaged_bucket = (
        pl.LazyFrame({"line": [""]})
        .select(**events.added(pl.col("line")))
        .explain()
        .count("extract_groups")
    )
    assert unstaged_bucket > 0
    assert plan.count("extract_groups") <= len(LOG4J.patterns) + len(LOG4J.fast)
