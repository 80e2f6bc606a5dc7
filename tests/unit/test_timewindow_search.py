"""Bisection of a time window over bytes in memory."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from logagent.timewindow import WindowConfig, find_window, line_time_for, probe, window_for_source

BASE = datetime(2026, 11, 1, tzinfo=UTC)
LINE_TIME = line_time_for("iso8601")


def log(minutes: list[int], *, trace_every: int = 0) -> bytes:
    """One ISO-stamped line per entry (minutes after BASE), with optional trace lines."""
    out = []
    for i, m in enumerate(minutes):
        out.append(f"{(BASE + timedelta(minutes=m)).isoformat()} INFO {'x' * (i % 40)}\n".encode())
        if trace_every and i % trace_every == 0:
            out.append(b"    at com.example.Foo.bar(Foo.java:12)\n")
    return b"".join(out)


def reader(data: bytes):  # type: ignore[no-untyped-def]
    """read_at over bytes."""
    return lambda offset, n: data[offset : offset + n]


def test_window_holds_exactly_the_in_window_lines_plus_slack() -> None:
    """Every line in [since, until] is inside the range; little else is."""
    data = log(list(range(0, 30 * 1440, 2)), trace_every=5)
    since, until = BASE + timedelta(days=10), BASE + timedelta(days=11)
    w = find_window(reader(data), len(data), LINE_TIME, since=since, until=until)
    a, b = w.byte_range
    assert w.method == "bisection" and w.time_ordered
    pos = 0
    for line in data.splitlines(keepends=True):
        t = LINE_TIME(line)
        if t is not None and since <= t <= until:
            assert a <= pos < b
        pos += len(line)
    assert (b - a) < 1.2 * len(data) / 30


def test_unordered_file_is_filtered() -> None:
    """Two days concatenated in the wrong order are detected; the whole file is kept."""
    data = log(list(range(1440, 2880))) + log(list(range(0, 1440)))
    w = find_window(
        reader(data), len(data), LINE_TIME, since=BASE + timedelta(hours=30), until=None
    )
    assert w.method == "filter" and w.time_ordered is False
    assert w.byte_range == (0, len(data))
    assert w.warning is not None and "go back" in w.reason


def test_small_disorder_is_tolerated() -> None:
    """Lines a few minutes late keep the file ordered."""
    minutes = [m + (3 if m % 10 == 0 else 0) for m in range(0, 5000)]
    data = log(minutes)
    w = find_window(
        reader(data), len(data), LINE_TIME, since=BASE + timedelta(minutes=2000), until=None
    )
    assert w.method == "bisection"


def test_window_outside_the_log_is_empty() -> None:
    """A window after the last line gives an empty range at the end."""
    data = log(list(range(100)))
    w = find_window(reader(data), len(data), LINE_TIME, since=BASE + timedelta(days=2), until=None)
    assert w.byte_range[0] == w.byte_range[1]


def test_no_timestamps_means_filter() -> None:
    """A file without any parseable stamp cannot be bisected."""
    data = b"junk\n" * 1000
    w = find_window(reader(data), len(data), LINE_TIME, since=BASE, until=None)
    assert w.method == "filter" and "no line" in w.reason


def test_probe_skips_long_and_junk_lines() -> None:
    """A probe aligns to a line start, skips junk and a line longer than a chunk, finds a time."""
    data = b"x" * 50 + b"\n" + b"y" * 20_000 + b"\n\xff\xfe\n" + log([7])
    cfg = WindowConfig(chunk_bytes=1024)
    p = probe(reader(data), len(data), 10, LINE_TIME, cfg)
    assert p.time == BASE + timedelta(minutes=7)
    assert data[p.line_start :].startswith(b"2026-11-01T00:07")


def test_probe_past_lookahead_is_unknown_not_eof() -> None:
    """No time within the look-ahead is 'not found', which never shrinks the range."""
    data = b"z" * 10_000 + b"\n" + log([1])
    p = probe(reader(data), len(data), 5, LINE_TIME, WindowConfig(lookahead_bytes=2048))
    assert p.time is None and not p.eof


@dataclass
class FakeSource:
    """Minimal stand-in for sources.files.Source."""

    data: bytes
    seekable: bool

    @property
    def size(self) -> int | None:
        """Size when seekable, unknown for a stream."""
        return len(self.data) if self.seekable else None

    def read_at(self, offset: int, n: int) -> bytes:
        """Bytes at offset."""
        return self.data[offset : offset + n]


def test_streams_are_filtered_not_bisected() -> None:
    """A gz or stdin source is never probed: method filter, zero probes."""
    w = window_for_source(FakeSource(log([1, 2]), False), LINE_TIME, since=BASE, until=None)
    assert w.method == "filter" and w.probes == 0 and "stream" in w.reason


def test_no_bounds_means_all() -> None:
    """Without since/until the whole input is in scope and nothing is probed."""
    data = log([1, 2])
    w = window_for_source(FakeSource(data, True), LINE_TIME, since=None, until=None)
    assert (w.method, w.byte_range, w.probes) == ("all", (0, len(data)), 0)


def test_to_dict_states_how_the_window_was_found() -> None:
    """The result dict names the bounds, the method, the byte range and the probes."""
    data = log(list(range(3000)))
    w = window_for_source(
        FakeSource(data, True), LINE_TIME, since=BASE + timedelta(minutes=1500), until=None
    )
    d = w.to_dict()
    assert d["method"] == "bisection" and d["since"] == "2026-11-02T01:00:00+00:00"
    assert d["byte_range"] == list(w.byte_range) and d["probes"] == w.probes > 0


def test_a_format_timed_probe_finds_the_window_the_stamp_kind_finds() -> None:
    """``line_time_by`` (a format's own time expression, lines handed over a read at a time)
    finds the same byte range, line for line, as the per-line ISO reader on the same log."""
    import polars as pl

    from logagent.timewindow import line_time_by

    def iso(line: pl.Expr) -> pl.Expr:
        stamp = line.str.extract(r"^([0-9T:+-]+) ", 1)
        return stamp.str.to_datetime("%Y-%m-%dT%H:%M:%S%:z", strict=False).dt.convert_time_zone(
            "UTC"
        )

    data = log(list(range(0, 30 * 1440, 2)), trace_every=5)
    for since, until in [
        (BASE + timedelta(days=10), BASE + timedelta(days=11)),
        (BASE + timedelta(days=3, minutes=7), None),
        (None, BASE + timedelta(days=20, minutes=3)),
    ]:
        by_kind = find_window(reader(data), len(data), LINE_TIME, since=since, until=until)
        by_format = find_window(
            reader(data), len(data), line_time_by(iso), since=since, until=until
        )
        assert by_format.method == by_kind.method == "bisection"
        assert by_format.byte_range == by_kind.byte_range
