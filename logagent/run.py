"""State and edges of one run, shared by the read loops (the engine's private parts).

``RunEnv`` carries every edge a run touches (clocks, memory readings, the
interrupt flag, the progress display), so tests replace them with fakes.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import structlog

from logagent import memory
from logagent.config import Settings
from logagent.counters import Accumulator, Tally, tally_batch
from logagent.evidence.race import Estimate
from logagent.evidence.rates import RateEntry
from logagent.formats import Format
from logagent.formats.extract import Scanned, extract_scanned, scan
from logagent.formats.routes import RouteRule
from logagent.result import DecisionRecord, Question
from logagent.router import Decision
from logagent.sources import Batch, Source

log = structlog.get_logger("logagent.engine")


@dataclass(frozen=True)
class ProgressEvent:
    """What the progress display is told after each batch."""

    bytes_read: int
    bytes_total: int | None
    lines_read: int


@dataclass(frozen=True)
class RunEnv:
    """The edges a run uses; tests replace them."""

    clock: Callable[[], float] = time.monotonic
    cpu_clock: Callable[[], float] = time.process_time
    peak_rss: Callable[[], int] = memory.peak_rss_bytes
    interrupted: Callable[[], str | None] = lambda: None
    on_progress: Callable[[ProgressEvent], None] | None = None
    rss: Callable[[], int] = memory.rss_bytes
    available_memory: Callable[[], int] = memory.available_bytes


@dataclass
class Run:
    """State of one run while it reads."""

    question: Question
    settings: Settings
    env: RunEnv
    sources: list[Source]
    started: float
    cpu_started: float
    acc: Accumulator = field(default_factory=Accumulator)
    warnings: list[str] = field(default_factory=list)
    decisions: list[DecisionRecord] = field(default_factory=list)
    partial: bool = False
    settled: bool = False
    estimates: list[Estimate] = field(default_factory=list)
    rate_entries: list[RateEntry] = field(default_factory=list)
    rate_bound: float = 0.0  # M of the error-rate evidence, for the totals' bounds
    ties: list[list[str]] = field(default_factory=list)
    seed: int | None = None
    recused_by: tuple[str, str] | None = None  # (reason code, detail) from Router-Mem
    reading: str = "sequential"  # sequential | random_units | stream
    evidence_s: float = 0.0  # CPU time of the deciding thread in evidence + Router-Mem

    def record(self, decision: Decision, units_read: int, units_total: int) -> None:
        """Append a decision to the trace and to the log."""
        fraction = units_read / units_total if units_total else 1.0
        self.decisions.append(
            DecisionRecord(
                units_read=units_read,
                fraction_read=round(fraction, 6),
                action=decision.action.value,
                reason=decision.reason.value,
                detail=decision.detail,
            )
        )
        log.info(
            "decision",
            action=decision.action.value,
            reason=decision.reason.value,
            units_read=units_read,
            fraction_read=fraction,
            detail=decision.detail,
        )


class ParsePool:
    """Scanned batches waiting for one parse.

    Polars' cost is mostly per call, and with a prefilter a batch leaves only a
    few hundred candidate lines, so small scans are pooled and parsed together.
    """

    MIN_LINES = 20_000
    MAX_BATCHES = 64

    def __init__(
        self,
        fmt: Format,
        *,
        errors_only: bool,
        rules: list[RouteRule] | None,
        all_units: bool = False,
    ) -> None:
        self._fmt, self._errors_only, self._rules = fmt, errors_only, rules
        self._all_units = all_units
        self._scans: list[Scanned] = []
        self._units = self._bytes = self._truncated = 0  # never keep a batch: its buffer is large

    def add(self, batch: Batch) -> int:
        """Scan one batch; returns its line count."""
        scanned = scan(batch, self._fmt, errors_only=self._errors_only)
        self._scans.append(scanned)
        self._units += len(batch.units)
        self._bytes += batch.bytes_read
        self._truncated += batch.lines_truncated
        return scanned.lines

    def due(self) -> bool:
        """Whether enough lines wait to make a parse worth its fixed cost."""
        waiting = sum(int(s.text.len()) for s in self._scans)
        return waiting >= self.MIN_LINES or len(self._scans) >= self.MAX_BATCHES

    def flush(self) -> Tally:
        """Parse and tally everything waiting (an empty tally when nothing waits)."""
        if not self._scans:
            return Tally()
        extracted = extract_scanned(
            self._scans,
            self._fmt,
            errors_only=self._errors_only,
            rules=self._rules,
            all_units=self._all_units,
        )
        tally = tally_batch(
            extracted, units=self._units, bytes_read=self._bytes, truncated=self._truncated
        )
        self._scans = []
        self._units = self._bytes = self._truncated = 0
        return tally
