"""Acceptance (small): --since 24h on a generated multi-day log reads about the window."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from logagent.samples.timespread import generate, main
from logagent.sources.files import open_source
from logagent.timewindow import (
    WindowConfig,
    last_line_time,
    line_time_for,
    parse_bound,
    window_for_source,
)

pytestmark = pytest.mark.slow
LINE_TIME = line_time_for("combined")


def test_bisected_window_matches_truth(tmp_path: Path) -> None:
    """The range holds exactly the truth's window lines plus under 20 % more bytes."""
    path = tmp_path / "month.log"
    truth = generate(path, size_mb=4, days=10, seed=3)
    source = open_source(str(path))
    try:
        assert source.size is not None
        now = last_line_time(source.read_at, source.size, LINE_TIME, WindowConfig())
        assert now == datetime.fromisoformat(truth["now"])
        since = parse_bound("24h", now=now)
        window = window_for_source(source, LINE_TIME, since=since, until=None)
        a, b = window.byte_range
        data = source.read_at(0, source.size)
    finally:
        source.close()
    assert window.method == "bisection"
    pos = inside = inside_bytes = 0
    for line in data.splitlines(keepends=True):
        t = LINE_TIME(line)
        assert t is not None
        if t >= since:
            assert a <= pos < b
            inside, inside_bytes = inside + 1, inside_bytes + len(line)
        pos += len(line)
    assert (inside, inside_bytes) == (truth["window"]["lines"], truth["window"]["bytes"])
    assert b - a <= 1.2 * inside_bytes


def test_log_crosses_dst_in_local_time(tmp_path: Path) -> None:
    """Stamps carry -0400 before the November DST change and -0500 after, UTC stays ordered."""
    path = tmp_path / "m.log"
    assert main(["--size-mb", "0.5", "--days", "30", "-o", str(path)]) == 0
    text = path.read_text()
    assert "-0400]" in text and "-0500]" in text
    with open(f"{path}.truth.json", encoding="utf-8") as fh:
        assert json.load(fh)["now"].startswith("2026-11-27")
    times = [LINE_TIME(line) for line in text.encode().splitlines()]
    assert all(t is not None and t.tzinfo == UTC for t in times)
