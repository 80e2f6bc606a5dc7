"""The bisected range never loses an in-window line (hypothesis)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from logagent.timewindow import WindowConfig, find_window, line_time_for

BASE = datetime(2026, 11, 1, tzinfo=UTC)
LINE_TIME = line_time_for("iso8601")
TOL_S = 300
CFG = WindowConfig(tolerance_s=TOL_S, gap_bytes=512, chunk_bytes=256, order_probes=16)


@st.composite
def logs(draw: st.DrawFn) -> tuple[bytes, list[tuple[int, int, datetime | None]]]:
    """Lines with non-decreasing base times, late by up to half the tolerance, with junk."""
    n = draw(st.integers(1, 300))
    steps = draw(st.lists(st.integers(0, 120), min_size=n, max_size=n))
    lates = draw(st.lists(st.integers(0, TOL_S // 2), min_size=n, max_size=n))
    pads = draw(st.lists(st.integers(0, 150), min_size=n, max_size=n))
    junk = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    out: list[tuple[int, int, datetime | None]] = []
    chunks: list[bytes] = []
    pos = base = 0
    for step, late, pad, j in zip(steps, lates, pads, junk, strict=True):
        base += step
        t = BASE + timedelta(seconds=base - late)
        for line, when in [(f"{t.isoformat()} m {'p' * pad}\n".encode(), t)] + [
            (b"\tat x.y(Z)\n", None)
        ] * j:
            chunks.append(line)
            out.append((pos, len(line), when))
            pos += len(line)
    return b"".join(chunks), out


@settings(max_examples=150, deadline=None)
@given(logs(), st.integers(-200, 40_000), st.integers(0, 20_000), st.booleans())
def test_range_holds_every_in_window_line(
    log: tuple[bytes, list[tuple[int, int, datetime | None]]],
    lo_s: int,
    span_s: int,
    open_end: bool,
) -> None:
    """Every line in [since, until] starts in the range; lines far outside fill at most a gap."""
    data, lines = log
    since = BASE + timedelta(seconds=lo_s)
    until = None if open_end else since + timedelta(seconds=span_s)
    w = find_window(
        lambda o, k: data[o : o + k], len(data), LINE_TIME, since=since, until=until, config=CFG
    )
    assert w.method == "bisection"
    a, b = w.byte_range
    hi = until or datetime(3000, 1, 1, tzinfo=UTC)
    for start, _, t in lines:
        if t is not None and since <= t <= hi:
            assert a <= start < b
    # Lines two tolerances outside the window can only sit in the last bisection gap
    # (plus the line a probe lands on) at either end.
    tol2 = timedelta(seconds=2 * TOL_S)
    far = sum(
        size
        for start, size, t in lines
        if t is not None and a <= start < b and (t < since - tol2 or t > hi + tol2)
    )
    longest = max(size for _, size, _ in lines)
    assert far <= 2 * (CFG.gap_bytes + 2 * longest)


@settings(max_examples=50, deadline=None)
@given(logs())
def test_halves_in_the_wrong_order_are_detected(
    log: tuple[bytes, list[tuple[int, int, datetime | None]]],
) -> None:
    """A later half written before an earlier one (rotated files joined wrongly) is caught."""
    data, lines = log
    assume(sum(t is not None for _, _, t in lines) >= 20)
    cut = next(start for start, _, _ in lines if start >= len(data) // 2)
    later = data[cut:].replace(b"2026-", b"2027-")  # a year later: far beyond the tolerance
    swapped = later + data[:cut]
    w = find_window(
        lambda o, k: swapped[o : o + k], len(swapped), LINE_TIME, since=BASE, until=None, config=CFG
    )
    assert w.method == "filter" and w.time_ordered is False
    assert w.byte_range == (0, len(swapped))
