"""Fakes and builders shipped for tests (PURE): clocks, memory readings, log lines."""

from __future__ import annotations

from dataclasses import dataclass

from logagent.run import RunEnv


@dataclass
class FakeClock:
    """A clock that advances by ``step`` seconds each time it is read."""

    now: float = 0.0
    step: float = 0.001

    def __call__(self) -> float:
        """Read the clock."""
        self.now += self.step
        return self.now


def fake_env(*, peak_rss: int = 100 << 20, interrupt_after: int | None = None) -> RunEnv:
    """A RunEnv with fake clocks and memory; optionally 'interrupted' after N batches."""
    calls = [0]

    def interrupted() -> str | None:
        calls[0] += 1
        return "SIGTERM" if interrupt_after is not None and calls[0] >= interrupt_after else None

    return RunEnv(
        clock=FakeClock(), cpu_clock=FakeClock(), peak_rss=lambda: peak_rss, interrupted=interrupted
    )


def combined_line(
    path: str,
    status: int,
    *,
    client: str = "203.0.113.7",
    size: int = 512,
    request_time: float = 0.05,
) -> str:
    """One nginx ``combined`` line with a trailing request time (no newline)."""
    return (
        f'{client} - - [28/Nov/2026:13:55:36 +0000] "GET {path} HTTP/1.1" {status} {size} '
        f'"https://example.com/" "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0" {request_time:.3f}'
    )


def common_line(path: str, status: int, *, client: str = "198.51.100.4", size: int = 2326) -> str:
    """One apache ``common`` line (no newline)."""
    return f'{client} - frank [28/Nov/2026:13:55:36 +0000] "GET {path} HTTP/1.0" {status} {size}'
