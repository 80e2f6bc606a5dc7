"""Fakes and builders shipped for tests (PURE): clocks, memory readings, log lines."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from logagent.engine.checkpoint import Checkpoint
from logagent.engine.run import RunEnv
from logagent.errors import LLMUnavailable
from logagent.result import (
    Answer,
    DecisionRecord,
    InputInfo,
    Progress,
    Question,
    Recuse,
    RecuseCode,
    Result,
    Saving,
    Status,
    TopEntry,
)


@dataclass
class FakeClock:
    """A clock that advances by ``step`` seconds each time it is read."""

    now: float = 0.0
    step: float = 0.001

    def __call__(self) -> float:
        """Read the clock."""
        self.now += self.step
        return self.now


class MemorySink:
    """A checkpoint sink that keeps every checkpoint in memory (``saved[-1]`` is the last)."""

    path = "memory"

    def __init__(self) -> None:
        self.saved: list[Checkpoint] = []

    @property
    def last(self) -> Checkpoint | None:
        """The checkpoint a resume would start from (None once the run finished)."""
        return self.saved[-1] if self.saved else None

    def save(self, cp: Checkpoint) -> None:
        """Keep ``cp``."""
        self.saved.append(cp)

    def discard(self) -> None:
        """The run finished: nothing is left to resume."""
        self.saved.clear()


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


def settled_result(**updates: Any) -> Result:
    """A settled top-errors result with two routes (for report tests); ``updates`` replace keys."""
    top = [
        TopEntry(
            key="/api/v1/pay/{id}",
            count=1834,
            estimate=87210.0,
            low=85100.0,
            high=89400.0,
            share=0.61,
            share_low=0.58,
            share_high=0.64,
            breakdown={"503": 0.71, "504": 0.27, "500": 0.02},
        ),
        TopEntry(
            key="/api/v1/users/{id}",
            count=402,
            estimate=19100.0,
            low=17800.0,
            high=20500.0,
            share=0.134,
            share_low=0.121,
            share_high=0.147,
            breakdown={"500": 0.9, "502": 0.1},
        ),
    ]
    base = Result(
        question=Question(top=2),
        input=InputInfo(
            paths=["/var/log/nginx/access.log"],
            bytes_total=10_400_000_000,
            format="combined",
            format_confidence=0.998,
            seekable=True,
            reading="random_units",
        ),
        status=Status.SETTLED,
        answer=Answer(top=top, total=3007, distinct_keys=14, metric="5xx"),
        progress=_progress(fraction_read=0.021, bytes_read=218_400_000, elapsed_s=0.84),
        decisions=[
            DecisionRecord(
                units_read=64, fraction_read=0.006, action="CONTINUE", reason="not_settled"
            ),
            DecisionRecord(
                units_read=212,
                fraction_read=0.021,
                action="STOP_SETTLED",
                reason="settled",
                detail="settled at 2.10% read",
            ),
        ],
        saving=Saving(bytes=10_181_600_000, cpu_s=61.3, evidence_share=0.04),
        seed=7,
    )
    return base.model_copy(update=updates)


def recused_result(code: RecuseCode, detail: str = "nothing parsed") -> Result:
    """A recusal with ``code`` (for report tests)."""
    return settled_result(
        status=Status.RECUSED,
        answer=Answer(),
        recuse=Recuse(
            reason_code=code,
            detail=detail,
            suggestion="name the format with --format",
            attempted="read 0.1% of the input (120 lines)",
        ),
    )


def _progress(*, fraction_read: float, bytes_read: int, elapsed_s: float) -> Progress:
    return Progress(
        units_read=212,
        units_total=10240,
        fraction_read=fraction_read,
        bytes_read=bytes_read,
        lines_read=1_204_113,
        lines_parsed=5000,
        malformed_lines=12,
        malformed_scope="prefiltered_lines",
        invalid_utf8_lines=0,
        truncated_lines=0,
        elapsed_s=elapsed_s,
        cpu_s=1.31,
        peak_rss_bytes=118_000_000,
    )


@dataclass
class StubLLM:
    """A ``ChatClient`` with scripted replies; ``down`` makes every call unavailable."""

    replies: list[str]
    model: str = "stub"
    down: bool = False
    seen: list[list[dict[str, str]]] = field(default_factory=list)

    def ready(self) -> None:
        """Unavailable when ``down``."""
        if self.down:
            raise LLMUnavailable("stub is down")

    def chat(self, messages: list[dict[str, str]]) -> str:
        """The next scripted reply (the last one repeats)."""
        self.seen.append(messages)
        return self.replies[min(len(self.seen), len(self.replies)) - 1]
