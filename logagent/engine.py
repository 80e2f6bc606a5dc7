"""The one loop: inputs -> batches -> extraction -> tallies -> answer.

The engine is the only place that knows all parts.

Every edge it touches (clocks, memory readings, the interrupt flag, the
progress display) comes in through ``RunEnv``, so the CLI, cron and the
service drive the same code and tests replace the edges with fakes.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field

import polars as pl
import structlog

from logagent import memory
from logagent.answers import answer
from logagent.config import Settings
from logagent.counters import Accumulator, Tally, tally_batch
from logagent.errors import InputCorrupt
from logagent.formats import Format, build_format, detect
from logagent.formats.detect import Detection, valid_share
from logagent.formats.extract import Scanned, extract_scanned, scan
from logagent.formats.routes import RouteRule
from logagent.report.markdown import render
from logagent.result import (
    Answer,
    DecisionRecord,
    InputInfo,
    Progress,
    Question,
    QuestionKind,
    Recuse,
    RecuseCode,
    Report,
    Result,
    Status,
)
from logagent.sources import (
    Batch,
    Order,
    Source,
    UnitPlan,
    choose_unit_size,
    iter_seekable_batches,
    iter_stream_batches,
    open_source,
    plan_units,
    resolve_paths,
    unit_order,
)
from logagent.sources.prefetch import iter_prefetched
from logagent.sources.sample import sample_lines

log = structlog.get_logger("logagent.engine")
STREAM_UNIT = 64 << 10


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


@dataclass
class _Run:
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


def analyze(
    paths: Sequence[str], question: Question, settings: Settings, env: RunEnv | None = None
) -> Result:
    """Answer ``question`` about the logs at ``paths`` (files, globs, '-' for stdin)."""
    env = env or RunEnv()
    with ExitStack() as stack:
        sources = []
        for path in resolve_paths(list(paths)):
            sources.append(open_source(path))
            stack.callback(sources[-1].close)
        run = _Run(question, settings, env, sources, env.clock(), env.cpu_clock())
        return _analyze(run)
    raise AssertionError("unreachable")  # pragma: no cover - ExitStack re-raises


def _analyze(run: _Run) -> Result:
    if all(s.seekable and s.size == 0 for s in run.sources):
        return _recused(run, None, RecuseCode.EMPTY_INPUT, "every input is empty (0 bytes)")
    cap = run.settings.reader.line_cap
    sample = sample_lines(run.sources, cap=cap)
    if not sample:
        return _recused(run, None, RecuseCode.EMPTY_INPUT, "the input holds no non-blank lines")
    detection, fmt = _choose_format(run.settings, sample)
    auto = run.settings.analysis.format == "auto"
    if auto and detection.confidence < run.settings.analysis.min_format_confidence:
        return _unrecognized(run, detection, sample)
    if detection.confidence < 0.9:
        run.warnings.append(
            f"only {detection.confidence:.1%} of sampled lines parse as {fmt.name}; "
            "the other lines are counted as malformed"
        )
    log.info(
        "reading",
        format=fmt.name,
        confidence=detection.confidence,
        paths=[src.path for src in run.sources],
    )
    unit_size, units_total = _read_all(run, fmt)
    return _finish(run, detection, unit_size, units_total)


def _choose_format(settings: Settings, sample: list[str]) -> tuple[Detection, Format]:
    keys = settings.formats.json_keys
    name = settings.analysis.format
    if name == "auto":
        detection = detect(sample, keys)
        return detection, build_format(detection.best, sample, keys)
    fmt = build_format(name, sample, keys)
    share = valid_share(fmt, pl.Series("line", sample, dtype=pl.String))
    return Detection(((name, share),), len(sample)), fmt


def _read_all(run: _Run, fmt: Format) -> tuple[int, int | None]:
    """Read every unit, tallying as it goes; returns the unit size and unit count."""
    reader = run.settings.reader
    seekable = [s for s in run.sources if s.seekable]
    known = sum(s.size or 0 for s in seekable)
    unit_size = (
        choose_unit_size(known or STREAM_UNIT * 1024)
        if reader.unit_size == "auto"
        else reader.unit_size
    )
    plan = plan_units([s.size or 0 for s in seekable], unit_size)
    rules = _rules(run) if run.question.normalize else None
    errors_only = run.question.kind is QuestionKind.TOP_ERRORS
    pool = _ParsePool(fmt, errors_only=errors_only, rules=rules)
    done = 0
    try:
        for batch in iter_prefetched(_iter_batches(run, plan, seekable, unit_size)):
            done += batch.bytes_read
            lines = pool.add(batch)
            if pool.due():
                run.acc.add(pool.flush())
            if run.env.on_progress:
                run.env.on_progress(ProgressEvent(done, known or None, lines))
            reason = run.env.interrupted()
            if reason:
                run.acc.add(pool.flush())
                _stop_partial(run, f"interrupted by {reason}")
                break
    except InputCorrupt as exc:
        run.acc.add(pool.flush())
        _stop_partial(run, str(exc))
    run.acc.add(pool.flush())
    damaged = next((s.error for s in run.sources if s.error), None)
    if damaged and not run.partial:
        _stop_partial(run, str(damaged))
    streams_units = sum(1 for s in run.sources if not s.seekable)
    return unit_size, plan.total_units if not streams_units else None


class _ParsePool:
    """Scanned batches waiting for one parse.

    Polars' cost is mostly per call, and with a prefilter a batch leaves only a
    few hundred candidate lines, so small scans are pooled and parsed together.
    """

    MIN_LINES = 20_000
    MAX_BATCHES = 64

    def __init__(self, fmt: Format, *, errors_only: bool, rules: list[RouteRule] | None) -> None:
        self._fmt, self._errors_only, self._rules = fmt, errors_only, rules
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
            self._scans, self._fmt, errors_only=self._errors_only, rules=self._rules
        )
        tally = tally_batch(
            extracted, units=self._units, bytes_read=self._bytes, truncated=self._truncated
        )
        self._scans = []
        self._units = self._bytes = self._truncated = 0
        return tally


def _iter_batches(
    run: _Run, plan: UnitPlan, seekable: list[Source], unit_size: int
) -> Iterator[Batch]:
    reader = run.settings.reader
    order = Order.RANDOM if reader.order == "random" else Order.SEQUENTIAL
    seed = _seed(run)
    batch_units = max(1, reader.batch_bytes // unit_size)
    yield from iter_seekable_batches(
        seekable,
        plan,
        unit_order(plan.total_units, order, seed),
        batch_units=batch_units,
        cap=reader.line_cap,
    )
    next_unit = plan.total_units
    for source in (s for s in run.sources if not s.seekable):
        for batch in iter_stream_batches(
            source,
            unit_size=unit_size,
            first_unit=next_unit,
            batch_bytes=reader.batch_bytes,
            cap=reader.line_cap,
        ):
            next_unit = int(batch.units[-1]) + 1 if len(batch.units) else next_unit
            yield batch


def _seed(run: _Run) -> int:
    seed = run.settings.analysis.seed
    return seed if seed is not None else secrets.randbits(63)


def _rules(run: _Run) -> list[RouteRule]:
    return [RouteRule(r.name, r.pattern, r.replacement) for r in run.settings.routes.rules]


def _stop_partial(run: _Run, why: str) -> None:
    run.partial = True
    run.warnings.append(f"partial answer: {why}; counts cover only what was read")
    tally = run.acc.snapshot()
    run.decisions.append(
        DecisionRecord(
            units_read=tally.units,
            fraction_read=0.0,
            action="STOP_PARTIAL",
            reason="interrupted",
            detail=why,
        )
    )
    log.warning("stop_partial", reason=why, units_read=tally.units)


def _finish(run: _Run, detection: Detection, unit_size: int, units_total: int | None) -> Result:
    tally = run.acc.snapshot()
    q = run.question
    ans = answer(tally, q.kind, top=q.top, min_requests=q.min_requests)
    info = _input_info(run, detection, unit_size)
    progress = _progress(run, tally, units_total)
    _warn_counts(run, tally)
    if not run.partial and q.kind is not QuestionKind.STATUS and ans.total == 0:
        detail = "no 5xx line in the whole input" if tally.lines else "no line was read"
        return _recused(
            run, detection, RecuseCode.NO_MATCHING_EVENTS, detail, progress=progress, info=info
        )
    status = Status.PARTIAL if run.partial else Status.EXACT
    return _with_report(
        Result(
            question=q,
            input=info,
            status=status,
            answer=ans,
            progress=progress,
            decisions=run.decisions,
            warnings=run.warnings,
        )
    )


def _warn_counts(run: _Run, tally: Tally) -> None:
    cap = run.settings.reader.line_cap
    if tally.truncated:
        run.warnings.append(
            f"{tally.truncated} lines longer than {cap} bytes were cut to {cap} bytes"
        )
    if tally.invalid_utf8:
        run.warnings.append(f"{tally.invalid_utf8} parsed lines held invalid UTF-8 (replaced)")


def _input_info(run: _Run, detection: Detection | None, unit_size: int | None) -> InputInfo:
    seekable = all(s.seekable for s in run.sources)
    return InputInfo(
        paths=[s.path for s in run.sources],
        bytes_total=sum(s.size or 0 for s in run.sources) if seekable else None,
        format=detection.best if detection else None,
        format_confidence=round(detection.confidence, 6) if detection else None,
        format_scores={n: round(v, 6) for n, v in detection.scores} if detection else {},
        seekable=seekable,
        unit_size=unit_size,
        compression=[s.compression for s in run.sources],
    )


def _progress(run: _Run, tally: Tally, units_total: int | None) -> Progress:
    total = sum(s.size or 0 for s in run.sources)
    seekable = all(s.seekable for s in run.sources)
    if seekable:
        fraction = tally.bytes_read / total if total else 1.0
    else:
        fraction = 0.0 if run.partial else 1.0
    return Progress(
        units_read=tally.units,
        units_total=units_total,
        fraction_read=round(fraction, 6),
        bytes_read=tally.bytes_read,
        lines_read=tally.lines,
        lines_parsed=tally.parsed,
        malformed_lines=tally.malformed,
        malformed_scope="prefiltered_lines"
        if run.question.kind is QuestionKind.TOP_ERRORS
        else "all_lines",
        invalid_utf8_lines=tally.invalid_utf8,
        truncated_lines=tally.truncated,
        elapsed_s=round(run.env.clock() - run.started, 4),
        cpu_s=round(run.env.cpu_clock() - run.cpu_started, 4),
        peak_rss_bytes=run.env.peak_rss(),
    )


def _unrecognized(run: _Run, detection: Detection, sample: list[str]) -> Result:
    examples = "; ".join(repr(line[:120]) for line in sample[:3])
    detail = (
        f"only {detection.confidence:.2%} of {detection.sample_lines} sampled lines parse in any "
        f"known format (best guess: {detection.best}); examples: {examples}"
    )
    return _recused(run, detection, RecuseCode.UNRECOGNIZED_FORMAT, detail)


_SUGGESTIONS = {
    RecuseCode.EMPTY_INPUT: "check the path, or wait until the log has content",
    RecuseCode.UNRECOGNIZED_FORMAT: (
        "name the format with --format, or check that this is an access log"
    ),
    RecuseCode.NO_MATCHING_EVENTS: "nothing to rank: ask --question status for the status mix",
}


def _recused(
    run: _Run,
    detection: Detection | None,
    code: RecuseCode,
    detail: str,
    *,
    progress: Progress | None = None,
    info: InputInfo | None = None,
) -> Result:
    tally = run.acc.snapshot()
    progress = progress or _progress(run, tally, None)
    attempted = f"read {progress.fraction_read:.1%} of the input ({progress.lines_read} lines)"
    if detection:
        attempted += "; formats tried: " + ", ".join(f"{n} {s:.1%}" for n, s in detection.scores)
    recuse = Recuse(
        reason_code=code, detail=detail, suggestion=_SUGGESTIONS.get(code, ""), attempted=attempted
    )
    run.decisions.append(
        DecisionRecord(
            units_read=progress.units_read,
            fraction_read=progress.fraction_read,
            action="RECUSE",
            reason=code.value,
            detail=detail,
        )
    )
    log.info("recuse", reason_code=code.value, detail=detail)
    return _with_report(
        Result(
            question=run.question,
            input=info or _input_info(run, detection, None),
            status=Status.RECUSED,
            answer=Answer(),
            progress=progress,
            decisions=run.decisions,
            recuse=recuse,
            warnings=run.warnings,
        )
    )


def _with_report(result: Result) -> Result:
    return result.model_copy(update={"report": Report(source="template", markdown=render(result))})
