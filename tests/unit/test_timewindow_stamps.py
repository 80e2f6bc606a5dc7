"""Timestamp parsing (scalar and column) and --since/--until values."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import polars as pl
import pytest

from logagent.errors import ConfigError
from logagent.timewindow import (
    in_window_expr,
    line_time_for,
    parse_bound,
    parse_timestamp,
    parse_timestamps,
    parse_window,
)

REF = datetime(2026, 1, 2, tzinfo=UTC)
CASES = [
    ("iso8601", "2026-11-28T00:00:01,123+01:00", datetime(2026, 11, 27, 23, 0, 1, 123000, UTC)),
    ("iso8601", "2026-11-28 00:00:01.5Z", datetime(2026, 11, 28, 0, 0, 1, 500000, UTC)),
    ("iso8601", "2026-11-28T00:00:01", datetime(2026, 11, 27, 23, 0, 1, tzinfo=UTC)),
    ("iso8601", "2026-11-28T00:00", datetime(2026, 11, 27, 23, tzinfo=UTC)),
    ("iso8601", "2026-03-29T02:30:00", None),  # skipped by the spring DST change in Paris
    ("iso8601", "2026-10-25T02:30:00", datetime(2026, 10, 25, 0, 30, tzinfo=UTC)),  # first of two
    (
        "iso8601",
        "2026-11-28T00:00:01.123456789 +0100",
        datetime(2026, 11, 27, 23, 0, 1, 123456, UTC),
    ),
    ("iso8601", "not a time", None),
    ("clf", "[10/Oct/2000:13:55:36 -0700]", datetime(2000, 10, 10, 20, 55, 36, tzinfo=UTC)),
    ("clf", "10/Oct/2000:13:55:36 +0000", datetime(2000, 10, 10, 13, 55, 36, tzinfo=UTC)),
    ("clf", "10/Foo/2000:13:55:36 +0000", None),
    # written in CLF's place: Werkzeug's local time (read in tz) and morgan's RFC 1123 (GMT)
    ("clf", "[22/Sep/2020 08:27:44]", datetime(2020, 9, 22, 6, 27, 44, tzinfo=UTC)),
    ("clf", "[Tue, 06 Feb 2018 06:31:06 GMT]", datetime(2018, 2, 6, 6, 31, 6, tzinfo=UTC)),
    ("clf", "[31/Sep/2020 08:27:44]", None),
    ("clf", "[Tue, 06 Feb 2018 06:31:06 PST]", None),
    ("clf", "[Mon, 06 Feb 2018 06:31:06 GMT]", None),  # a wrong day: none (as Polars' %a)
    ("syslog", "Oct 11 22:14:15", datetime(2025, 10, 11, 20, 14, 15, tzinfo=UTC)),
    ("syslog", "Jan  1 00:00:01", datetime(2025, 12, 31, 23, 0, 1, tzinfo=UTC)),
    ("syslog", "Feb 30 00:00:00", None),
    (
        "apache_error",
        "[Wed Oct 11 14:32:52.123 2000]",
        datetime(2000, 10, 11, 12, 32, 52, 123000, UTC),
    ),
    ("apache_error", "Wed Oct 11 14:32:52 2000", datetime(2000, 10, 11, 12, 32, 52, tzinfo=UTC)),
    ("epoch", "1764288000", datetime(2025, 11, 28, tzinfo=UTC)),
    ("epoch", "1764288000123", datetime(2025, 11, 28, 0, 0, 0, 123000, UTC)),
    ("epoch", "1764288000.5", datetime(2025, 11, 28, 0, 0, 0, 500000, UTC)),
    ("epoch", "abc", None),
]


@pytest.mark.parametrize(("kind", "text", "want"), CASES)
def test_scalar_stamp(kind: str, text: str, want: datetime | None) -> None:
    """Each kind parses to the right UTC instant in Europe/Paris, or None, never raising."""
    assert parse_timestamp(text, kind, tz="Europe/Paris", reference=REF) == want


@pytest.mark.parametrize("kind", sorted({c[0] for c in CASES}))
def test_column_equals_scalar(kind: str) -> None:
    """The vectorized parser agrees with the scalar one on every case."""
    texts = [c[1] for c in CASES if c[0] == kind]
    col = parse_timestamps(pl.Series(texts), kind, tz="Europe/Paris", reference=REF)
    assert col.dtype == pl.Datetime("us", "UTC")
    assert col.to_list() == [
        parse_timestamp(t, kind, tz="Europe/Paris", reference=REF) for t in texts
    ]


@pytest.mark.parametrize(
    ("fmt", "line", "want"),
    [
        (
            "combined",
            b'1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 1',
            "2000-10-10T20:55:36+00:00",
        ),
        ("jsonl", b'{"level":"E","ts":"2026-11-28T00:00:00Z"}', "2026-11-28T00:00:00+00:00"),
        ("jsonl", b'{"time": 1764288000123, "msg": "x"}', "2025-11-28T00:00:00.123000+00:00"),
        ("syslog", b"<34>Oct 11 22:14:15 host su: bad", "2025-10-11T22:14:15+00:00"),
        ("app", b"2026-11-28 10:00:00,123 ERROR svc: x", "2026-11-28T10:00:00.123000+00:00"),
        (
            "common",
            b'10.129.2.1 - - [22/Sep/2020 08:27:44] "GET /startup_healthz HTTP/1.1" 500 -',
            "2020-09-22T08:27:44+00:00",
        ),
        (
            "combined",
            b'::1 - - [Tue, 06 Feb 2018 06:31:06 GMT] "GET / HTTP/1.1" 200 12 "-" "curl/7"',
            "2018-02-06T06:31:06+00:00",
        ),
        ("app", b"\tat com.Foo.bar(Foo.java:12)", None),
        ("combined", b"\xff\xfe garbage \x00", None),
    ],
)
def test_line_time(fmt: str, line: bytes, want: str | None) -> None:
    """A line's stamp is found per format; lines without one (traces, junk) give None."""
    got = line_time_for(fmt, reference=REF)(line)
    assert (got.isoformat() if got else None) == want


def test_unknown_format_is_rejected() -> None:
    """Asking for a format without a timestamp rule is a caller error."""
    with pytest.raises(ValueError, match="no timestamp rule"):
        line_time_for("nope")


NOW = datetime(2026, 11, 29, 12, tzinfo=UTC)


@pytest.mark.parametrize(
    ("value", "want"),
    [
        ("24h", NOW - timedelta(hours=24)),
        ("90m", NOW - timedelta(minutes=90)),
        ("1h30m", NOW - timedelta(minutes=90)),
        ("7d", NOW - timedelta(days=7)),
        ("1w", NOW - timedelta(days=7)),
        ("now", NOW),
        ("2026-11-28", datetime(2026, 11, 27, 23, tzinfo=UTC)),
        ("2026-11-28T00:00", datetime(2026, 11, 27, 23, tzinfo=UTC)),
        ("2026-11-28T00:00:00+02:00", datetime(2026, 11, 27, 22, tzinfo=UTC)),
        ("2026-11-28T00:00:00Z", datetime(2026, 11, 28, tzinfo=UTC)),
    ],
)
def test_bound_values(value: str, want: datetime) -> None:
    """Durations go back from now; naive dates are read in the given zone; results are UTC."""
    assert parse_bound(value, now=NOW, tz="Europe/Paris") == want


@pytest.mark.parametrize("value", ["yesterday", "24x", "", "2026-13-01"])
def test_bad_bound_is_config_error(value: str) -> None:
    """A value that is no duration, 'now' or ISO time raises ConfigError naming the flag."""
    with pytest.raises(ConfigError, match="--until"):
        parse_bound(value, now=NOW, flag="--until")


def test_since_after_until_is_config_error() -> None:
    """An empty-by-construction window is refused."""
    with pytest.raises(ConfigError, match="after --until"):
        parse_window("1h", "2h", now=NOW)
    assert parse_window(None, "1h", now=NOW) == (None, NOW - timedelta(hours=1))
    # the same bound twice is a window of one instant (inclusive bounds): said, not refused
    lo, hi = parse_window("2022-07-26", "2022-07-26", now=NOW)
    assert lo == hi


def test_in_window_expr_is_inclusive_and_drops_nulls() -> None:
    """Both bounds are inclusive; a row without a time is outside the window."""
    ts = pl.Series(
        [NOW - timedelta(hours=2), NOW - timedelta(hours=1), NOW, None]
    ).dt.replace_time_zone("UTC")
    frame = pl.DataFrame({"ts": ts})
    kept = frame.filter(in_window_expr(pl.col("ts"), NOW - timedelta(hours=1), NOW))
    assert kept.height == 2


def test_syslog_without_reference_is_a_caller_error() -> None:
    """A year-less syslog stamp needs a reference time; no clock is read instead."""
    with pytest.raises(ValueError, match="reference"):
        parse_timestamp("Oct 11 22:14:15", "syslog")
    with pytest.raises(ValueError, match="reference"):
        parse_timestamps(pl.Series(["Oct 11 22:14:15"]), "syslog")
    with pytest.raises(ValueError, match="reference"):
        line_time_for("syslog")
