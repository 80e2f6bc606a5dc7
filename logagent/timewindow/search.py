"""Find a time window's byte range in a seekable, time-ordered log by bisection (PURE).

Everything works on ``read_at(offset, n) -> bytes`` and a ``line_time`` callable,
so tests run on bytes in memory. A *probe* at an offset aligns to the next line
start and reads forward to the first line whose time parses (skipping
continuation lines and junk, at most ``lookahead_bytes``).

Correctness rests on one assumption, *disorder at most* ``tolerance``: a line
is never more than ``tolerance`` older than any line before it (threads that
log a little late). Then a probed line older than ``since - tolerance`` proves
every line before it is older than ``since``, and one newer than
``until + tolerance`` proves every line after it is newer than ``until``: the
range between the two kept probes holds every in-window line, plus at most a
tolerance's worth (and one bisection gap) of lines at each end. The caller
still filters lines by time inside the range.

The assumption is checked, not trusted: evenly spaced probes plus the
bisection's own probes must be ordered within the tolerance; otherwise the
result says ``time_ordered=False`` and method ``filter`` (read everything and
filter), and carries a warning. A probe that finds no time within its
look-ahead only ever makes the range larger.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

from .lines import LineTime
from .probe import Probe, ReadAt, WindowConfig, first_line, probe


@dataclass(frozen=True, slots=True)
class Window:
    """Where the lines of ``[since, until]`` lie and how that was found.

    ``method`` is ``bisection`` (read ``byte_range`` only), ``filter`` (read
    everything, keep lines in the window) or ``all`` (no bound given).
    ``since`` is inclusive, ``until`` inclusive.
    """

    since: datetime | None
    until: datetime | None
    method: str
    byte_range: tuple[int, int]
    probes: int
    time_ordered: bool | None = None
    tolerance_s: float = 0.0
    reason: str = ""
    first_time: datetime | None = field(default=None, compare=False)
    last_time: datetime | None = field(default=None, compare=False)

    @property
    def warning(self) -> str | None:
        """A line for the result's warnings when the window could not be bisected."""
        return (
            f"time window found by filtering every line: {self.reason}"
            if self.method == "filter"
            else None
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready description for the result."""
        return {
            "since": _iso(self.since),
            "until": _iso(self.until),
            "method": self.method,
            "byte_range": list(self.byte_range),
            "probes": self.probes,
            "time_ordered": self.time_ordered,
            "tolerance_s": self.tolerance_s,
            "reason": self.reason,
        }


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


class Seekable(Protocol):
    """What ``window_for_source`` needs of an opened input (``sources.files.Source`` fits)."""

    seekable: bool
    size: int | None

    def read_at(self, offset: int, n: int) -> bytes: ...


def window_for_source(
    source: Seekable,
    line_time: LineTime,
    *,
    since: datetime | None,
    until: datetime | None,
    config: WindowConfig | None = None,
) -> Window:
    """Bisect a seekable input; a stream (gz, stdin) is never bisected: it is filtered."""
    cfg = config or WindowConfig()
    if since is None and until is None:
        return Window(None, None, "all", (0, source.size or 0), 0)
    if not source.seekable or source.size is None:
        reason = "the input is a stream (compressed or stdin) and cannot be searched"
        return Window(
            since, until, "filter", (0, source.size or 0), 0, None, cfg.tolerance_s, reason
        )
    return find_window(source.read_at, source.size, line_time, since=since, until=until, config=cfg)


def find_window(
    read_at: ReadAt,
    size: int,
    line_time: LineTime,
    *,
    since: datetime | None,
    until: datetime | None,
    config: WindowConfig | None = None,
) -> Window:
    """Byte range holding every line with ``since <= time <= until`` (see the module doc)."""
    cfg = config or WindowConfig()
    tol = timedelta(seconds=cfg.tolerance_s)
    probes: list[Probe] = []

    def at(offset: int) -> Probe:
        p = probe(read_at, size, offset, line_time, cfg)
        probes.append(p)
        return p

    for i in range(cfg.order_probes):
        at(size * i // cfg.order_probes)
    start, end = 0, size
    if since is not None:
        start, stop = _lower(at, size, since - tol, cfg.gap_bytes)
        # Scanned line by line, a line older than ``since`` itself is out: no tolerance here.
        found = first_line(read_at, (start, stop), lambda t: t >= since, line_time, cfg)
        start = start if found is None else found
    if until is not None:
        frm, end = _upper(at, size, until + tol, cfg.gap_bytes, start)
        keep_hi = until + tol
        found = first_line(read_at, (frm, end), lambda t: t > keep_hi, line_time, cfg)
        end = end if found is None else found
    ordered, reason = check_order(probes, tol)
    timed = [p.time for p in probes if p.time is not None]
    window = Window(
        since,
        until,
        "bisection" if ordered else "filter",
        (start, max(start, end)) if ordered else (0, size),
        len(probes),
        ordered,
        cfg.tolerance_s,
        reason,
        min(timed, default=None),
        max(timed, default=None),
    )
    return window


def _lower(at: Callable[[int], Probe], size: int, threshold: datetime, gap: int) -> tuple[int, int]:
    """(start, stop): a timed line older than ``threshold`` with no in-window line before
    it, and a line start at or after the first line not older than ``threshold``."""
    first = at(0)
    if first.time is None or first.time >= threshold:
        return 0, 0
    lo, hi, start, stop = 0, size, first.line_start, size
    while hi - lo > gap:
        mid = (lo + hi) // 2
        p = at(mid)
        if p.time is not None and p.time < threshold:
            lo, start = mid, p.line_start
        else:  # newer, end of input, or no time found: the start is not after mid
            hi, stop = mid, max(p.line_start, mid)
    return start, max(stop, start)


def _upper(
    at: Callable[[int], Probe], size: int, threshold: datetime, gap: int, lo: int
) -> tuple[int, int]:
    """(frm, end): a line start before every line newer than ``threshold`` that ends the
    window, and the start of a timed line newer than it with no in-window line after it."""
    hi, frm, end = size, lo, size
    while hi - lo > gap:
        mid = (lo + hi) // 2
        p = at(mid)
        if p.time is not None and p.time > threshold:
            hi, end = mid, p.line_start
        else:  # older, end of input, or no time found: the end is not before mid
            lo = mid
            if p.time is not None:
                frm = p.line_start
    return min(frm, end), end


def check_order(probes: list[Probe], tol: timedelta) -> tuple[bool, str]:
    """Whether probed times, in file order, never go back by more than ``tol``."""
    seen: dict[int, datetime] = {p.line_start: p.time for p in probes if p.time is not None}
    if not seen:
        return False, "no line with a parseable timestamp was found"
    newest: datetime | None = None
    for start in sorted(seen):
        t = seen[start]
        if newest is not None and t < newest - tol:
            back = (newest - t).total_seconds()
            limit = tol.total_seconds()
            return (
                False,
                f"timestamps go back {back:.0f} s at byte {start} (tolerance {limit:.0f} s)",
            )
        newest = t if newest is None else max(newest, t)
    return True, ""
