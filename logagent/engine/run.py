"""State and edges of one run, shared by the read loops (the engine's private parts).

``RunEnv`` carries every edge a run touches (clocks, memory readings, the
interrupt flag, the progress display), so tests replace them with fakes.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import polars as pl

from logagent.config import Settings
from logagent.counters import Accumulator, Tally, tally_batch
from logagent.engine.checkpoint import Checkpoint, Fingerprint
from logagent.evidence.race import Estimate
from logagent.evidence.rates import RateEntry
from logagent.formats import Format, quick
from logagent.formats.extract import Scanned, count_quick, extract_scanned, scan
from logagent.formats.routes import RouteRule
from logagent.formats.selected import Selected
from logagent.log import get_logger
from logagent.result import DecisionRecord, Question
from logagent.routermem import memory
from logagent.routermem.router import Decision
from logagent.sources import Batch, Source
from logagent.sources.batches import I64
from logagent.sources.permute import KEYED, Ordering
from logagent.sources.prescan import Prescan, prescan_for

if TYPE_CHECKING:
    from logagent.engine.tallied import Backend

log = get_logger("logagent.engine")


@dataclass(frozen=True)
class ProgressEvent:
    """What the progress display is told after each batch."""

    bytes_read: int
    bytes_total: int | None
    lines_read: int  # so far, as bytes_read (not the batch's)


class CheckpointSink(Protocol):
    """Where checkpoints go (an edge: ``checkpoint.CheckpointFile`` writes a file)."""

    @property
    def path(self) -> str:
        """Where the checkpoint is (for the user: ``logagent resume PATH``)."""
        ...

    def save(self, cp: Checkpoint) -> None:
        """Store ``cp``, replacing the previous one."""
        ...

    def discard(self) -> None:
        """The run finished: nothing is left to resume."""
        ...


@dataclass(frozen=True)
class RunEnv:
    """The edges a run uses; tests replace them."""

    clock: Callable[[], float] = time.monotonic
    cpu_clock: Callable[[], float] = time.process_time
    peak_rss: Callable[[], int] = memory.peak_rss_bytes
    interrupted: Callable[[], str | None] = lambda: None
    pending_signal: Callable[[], str | None] = lambda: None  # a peek, no side effects: mid-read
    on_progress: Callable[[ProgressEvent], None] | None = None
    rss: Callable[[], int] = memory.rss_bytes
    available_memory: Callable[[], int] = memory.available_bytes
    checkpoint: CheckpointSink | None = None
    release_memory: Callable[[], None] = memory.release  # give freed heap pages back
    keep_heap: Callable[[], None] = memory.keep_freed_heap  # reuse freed pages (process-wide)
    wall_clock: Callable[[], datetime] = lambda: datetime.now(UTC)  # "now" of --since, years
    on_decision: Callable[[DecisionRecord], None] | None = None  # each one, as traced (service SSE)
    #: each parse's records (unit, route, status, n; bucket with a timeline) before they are
    #: tallied: cron keeps them by the records' own time bucket, which a tally does not
    on_records: Callable[[pl.LazyFrame], None] | None = None
    backend: Backend | None = None  # where batches are counted (--engine dask); None: here


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
    #: the seed of the order actually read, when not ``seed`` (a main phase after a pilot)
    main_seed: int | None = None
    order: Ordering | None = None  # the random reading order of a sampled read, once drawn
    main_pilot: int = 0  # units of a main phase's first batch (engine.unitchoice), at least
    recused_by: tuple[str, str] | None = None  # (reason code, detail) from Router-Mem
    reading: str = "sequential"  # sequential | random_units | stream
    evidence_s: float = 0.0  # CPU time of the deciding thread in evidence + Router-Mem
    resume: Checkpoint | None = None  # the checkpoint this run goes on from
    inputs: tuple[Fingerprint, ...] = ()
    unit_size: int = 0
    ladder: list[str] = field(default_factory=list)  # memory steps taken, in order
    batch_bytes: int = 8 << 20  # bytes per batch, fitted to the memory budget (engine)
    _saves_failed: bool = False
    _last_save_failed: bool = False  # the latest checkpoint write failed (an earlier one holds)
    saved: bool = False  # a checkpoint was written
    window: dict[str, Any] | None = None  # --since/--until: Window.to_dict() (engine)
    known_keys: list[str] = field(default_factory=list)  # error-types: components in the sample
    #: app questions: (records with no level, records) of the sample, measured when asked
    levelless: Callable[[], tuple[int, int]] | None = None
    bucket_s: int | None = None  # the timeline's bucket width (None: no timeline)
    bucket_span: tuple[int, int] | None = None  # first and last bucket of the input's range
    #: where year-less stamps are placed from: the inputs' last stamp (``engine.choose``)
    stamp_ref: datetime | None = None
    event_bound: float = 1.0  # M: the most events one unit of the plan read can hold
    app_log: bool = False  # the format is an application log (levels, not HTTP statuses)
    #: What the chosen layout could only infer, where its name does not say it
    #: (``catalog.FORMAT_NOTES``): the format's own ``layout_note``.
    layout_note: str | None = None
    selection: Selected | None = None  # --by/--where: the field ranked and the conditions
    abort_left: float = 1.0  # share of delta_abort the main read's format check may spend
    prefiltered: bool = False  # only a prefilter's candidate lines are parsed (reading._pool)

    @property
    def order_seed(self) -> int | None:
        """The seed of the reading order: the main phase's after a pilot, else ``seed``."""
        return self.main_seed if self.main_seed is not None else self.seed

    def batch_scale(self) -> float:
        """Batch size factor: a quarter once Router-Mem took the "smaller batches" step."""
        return 0.25 if "smaller_batches" in self.ladder else 1.0

    def save(
        self, phase: str, order: str, *, batches: list[I64] | None = None, done: I64 | None = None
    ) -> None:
        """Write a checkpoint of the counts so far (when the run has a checkpoint sink and its
        inputs can be read again: not standard input or a pipe).

        A failed write (full disk, ...) is a warning, never the end of the run.
        """
        sink = self.env.checkpoint
        if sink is None or self.seed is None:
            return
        if any(f.size is None for f in self.inputs):  # resume would refuse it (core._check_inputs)
            if not self._saves_failed:
                self.warnings.append(
                    "no checkpoint saved: standard input or a pipe cannot be read again"
                )
            self._saves_failed = True
            return
        if order == "random" and self.main_seed is not None:
            order = KEYED  # a main phase after a pilot reads a keyed permutation
        cp = Checkpoint(
            question=self.question.model_dump(mode="json"),
            settings=self.settings.model_dump(mode="json"),
            paths=tuple(f.path for f in self.inputs),
            inputs=self.inputs,
            seed=self.order_seed or 0,
            phase=phase,
            order=order,
            unit_size=self.unit_size,
            tally=self.acc.snapshot(),
            batches=tuple(batches or ()),
            done=done if done is not None else np.zeros(0, np.int64),
            decisions=tuple(d.model_dump(mode="json") for d in self.decisions),
            warnings=tuple(self.warnings),
            ladder=tuple(self.ladder),
            elapsed_s=self.env.clock() - self.started,
            cpu_s=self.env.cpu_clock() - self.cpu_started,
            evidence_s=self.evidence_s,
        )
        try:
            sink.save(cp)
        except OSError as exc:
            if not self._saves_failed:
                self.warnings.append(f"cannot write the checkpoint ({exc.strerror or exc})")
            self._saves_failed = self._last_save_failed = True
            log.warning("checkpoint_failed", error=str(exc))
        else:
            log.info("checkpoint", phase=phase, units=cp.units_read)
            self.saved, self._last_save_failed = True, False

    def say_resumable(self) -> None:
        """Warn that ``logagent resume`` goes on from the checkpoint saved: from an earlier
        point when the last save failed (a full disk: it had said "from here" beside "cannot
        write the checkpoint"); not where the run's owner resumes its checkpoints itself and
        removes them (``checkpoint.hint``: the service, whose paths are no client's business)."""
        sink = self.env.checkpoint
        if sink is None or not self.saved or not self.settings.checkpoint.hint:
            return
        where = "an earlier point (the last checkpoint could not be written)"
        where = where if self._last_save_failed else "here"
        self.warnings.append(f"progress saved: `logagent resume {sink.path}` goes on from {where}")

    def budget_units(self, total_units: int, units: int) -> int:
        """``units`` per batch, no more than an eighth of a ``--max-fraction`` budget: the
        budget is checked between batches, and batches of 8 MiB (and a prescan's eight of
        them) had read 2-8x the budget."""
        fraction = self.settings.budget.max_fraction
        if fraction is None:
            return units
        return max(1, min(units, int(fraction * total_units / 8)))

    def cpu_for_budget(self) -> float:
        """CPU seconds so far when a CPU budget asks for them, else 0.0 (not measured).

        The process CPU clock sums every thread's time: with Polars' pool and the
        scan workers running it cost ~0.5 ms a reading here, 15 ms of a 1 GB read
        that looks once a batch, for a rule that only a CPU budget has.
        """
        if self.settings.budget.max_cpu_seconds is None:
            return 0.0
        return self.env.cpu_clock() - self.cpu_started

    def record(self, decision: Decision, units_read: int, units_total: int) -> None:
        """Append a decision to the trace and to the log."""
        fraction = units_read / units_total if units_total else 1.0
        record = DecisionRecord(
            units_read=units_read,
            fraction_read=round(fraction, 6),
            action=decision.action.value,
            reason=decision.reason.value,
            detail=decision.detail,
        )
        self.decisions.append(record)
        if self.env.on_decision is not None:
            self.env.on_decision(record)
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
        track_units: bool = True,
        keyed: bool = True,
        on_records: Callable[[pl.LazyFrame], None] | None = None,
    ) -> None:
        self._fmt, self._errors_only, self._rules = fmt, errors_only, rules
        self._on_records = on_records
        self._all_units, self._track_units, self._keyed = all_units, track_units, keyed
        self._scans: list[Scanned] = []
        quick_ok = not (keyed or all_units or errors_only)
        self._quick = quick.quick_pattern(fmt) if quick_ok else None
        self._units = self._bytes = self._truncated = 0  # never keep a batch: its buffer is large

    def fresh(self) -> ParsePool:
        """An empty pool of the same configuration (one per task: a pool is not thread-safe)."""
        return ParsePool(
            self._fmt,
            errors_only=self._errors_only,
            rules=self._rules,
            all_units=self._all_units,
            track_units=self._track_units,
            keyed=self._keyed,
        )

    @property
    def fmt(self) -> Format:
        """The format it parses by."""
        return self._fmt

    def prescan(self) -> Prescan | None:
        """What a reader may look for instead of handing on every line (errors-only questions)."""
        return prescan_for(self._fmt.error_prefilter) if self._errors_only else None

    @property
    def selective(self) -> bool:
        """Whether a scan keeps only a prefilter's candidate lines (errors-only questions)."""
        return self._errors_only and self._fmt.error_prefilter is not None

    def scan(self, batch: Batch, ends: I64 | None = None) -> Scanned:
        """The lines of ``batch`` this pool parses (pure: a reader thread may call it);
        ``ends``: its newline positions when the caller found them (``extract.scan``)."""
        return scan(batch, self._fmt, errors_only=self._errors_only, ends=ends)

    def add(self, batch: Batch, scanned: Scanned | None = None) -> int:
        """Add one batch, scanned here unless ``scanned`` (``scan``) is given; returns its
        line count."""
        if scanned is None:
            scanned = self.scan(batch)
        if self._quick is not None:
            scanned = count_quick(scanned, self._quick, self._fmt.min_line_bytes)
        self._scans.append(scanned)
        self._units += len(batch.units)
        self._bytes += batch.bytes_read
        self._truncated += batch.lines_truncated
        return scanned.lines

    def due(self) -> bool:
        """Whether enough lines wait to make a parse worth its fixed cost."""
        waiting = sum(s.weight for s in self._scans)
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
            track_units=self._track_units,
            keyed=self._keyed,
        )
        if self._on_records is not None:
            self._on_records(extracted.records)
        tally = tally_batch(
            extracted, units=self._units, bytes_read=self._bytes, truncated=self._truncated
        )
        self._scans = []
        self._units = self._bytes = self._truncated = 0
        return tally
