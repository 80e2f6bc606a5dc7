"""The one loop: inputs -> batches -> extraction -> tallies -> answer.

The engine is the only place that knows all parts.

Every edge it touches (clocks, memory readings, the interrupt flag, the
progress display) comes in through ``RunEnv``, so the CLI, cron and the
service drive the same code and tests replace the edges with fakes.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from dataclasses import replace

import polars as pl
import structlog

from logagent.answers import answer, sampled_answer
from logagent.config import Settings
from logagent.counters import Accumulator, Tally
from logagent.errors import InputCorrupt
from logagent.formats import Format, build_format, detect
from logagent.formats.detect import Detection, valid_share
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
    Saving,
    Status,
)
from logagent.run import ParsePool, ProgressEvent, Run, RunEnv
from logagent.sampled import STREAM_POPULATION, pilot_units, read_sampled, seekable_batches
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
        run = Run(question, settings, env, sources, env.clock(), env.cpu_clock())
        return _analyze(run)
    raise AssertionError("unreachable")  # pragma: no cover - ExitStack re-raises


def _analyze(run: Run) -> Result:
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
    unit_size, units_total = _read_all(run, fmt, detection.confidence)
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


def _read_all(run: Run, fmt: Format, parse_rate: float) -> tuple[int, int | None]:
    """Read the units the answer needs, tallying as it goes; returns unit size and unit count."""
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
    pool = ParsePool(fmt, errors_only=errors_only, rules=rules)
    run.seed = _seed(run)
    degrade = False
    mode = _early_stop(run, plan)
    if mode == "random_units":
        run.reading = mode
        order = unit_order(plan.total_units, Order.RANDOM, run.seed)
        degrade = read_sampled(
            run,
            fmt,
            seekable_batches(run, plan, order, seekable),
            pool,
            population=plan.total_units,
            unit_size=unit_size,
            parse_rate=parse_rate,
        )
    elif mode == "stream_model":
        run.reading = "stream"
        batches = _iter_batches(run, plan, seekable, Order.SEQUENTIAL)
        read_sampled(
            run,
            fmt,
            batches,
            pool,
            population=STREAM_POPULATION,
            unit_size=unit_size,
            parse_rate=parse_rate,
        )
        _label_model_based(run)
    if degrade:  # Router-Mem: an exact read in file order is cheaper than more evidence
        run.acc, run.reading = Accumulator(), "sequential"
        pool = ParsePool(fmt, errors_only=errors_only, rules=rules)
    if degrade or mode is None:
        asked = Order.RANDOM if run.settings.reader.order == "random" and not degrade else None
        _read_everything(run, plan, seekable, pool, known, asked or Order.SEQUENTIAL)
    damaged = next((s.error for s in run.sources if s.error), None)
    if damaged and not run.partial:
        _stop_partial(run, str(damaged))
    streams = any(not s.seekable for s in run.sources)
    return unit_size, None if streams else plan.total_units


def _early_stop(run: Run, plan: UnitPlan) -> str | None:
    """How to stop early: random units (seekable), a model-based stream race, or not at all."""
    a = run.settings.analysis
    if a.full or run.question.kind is not QuestionKind.TOP_ERRORS:
        return None
    if any(not s.seekable for s in run.sources):
        run.reading = "stream"
        if a.assume_exchangeable:
            return "stream_model"
        run.warnings.append(
            "input read in order (a stream): no early stop, since a prefix of a stream is not "
            "a random sample of it (--assume-exchangeable allows a model-based one)"
        )
        return None
    return "random_units" if plan.total_units > pilot_units(plan.total_units) else None


def _label_model_based(run: Run) -> None:
    """A stream's early answer rests on a model: say so, and extrapolate nothing."""
    if not run.estimates:
        return
    run.warnings.append(
        "model-based answer: the stream was read in order and stopped early assuming its units "
        "are exchangeable (a stationary log); this is not guaranteed at delta. Counts are those "
        "of the prefix read; shares are of the stationary model"
    )
    run.estimates = [
        replace(e, estimate=float(e.count), low=float(e.count), high=float(e.count))
        for e in run.estimates
    ]


def _read_everything(
    run: Run, plan: UnitPlan, seekable: list[Source], pool: ParsePool, known: int, order: Order
) -> None:
    """Read every unit (in ``order``), then streams, in batches."""
    if run.reading != "stream":
        run.reading = "random_units" if order is Order.RANDOM else "sequential"
    done = 0
    try:
        for batch in iter_prefetched(_iter_batches(run, plan, seekable, order)):
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


def _iter_batches(
    run: Run, plan: UnitPlan, seekable: list[Source], order: Order
) -> Iterator[Batch]:
    reader = run.settings.reader
    unit_size = plan.unit_size
    seed = run.seed if run.seed is not None else _seed(run)
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


def _seed(run: Run) -> int:
    seed = run.settings.analysis.seed
    return seed if seed is not None else secrets.randbits(63)


def _rules(run: Run) -> list[RouteRule]:
    return [RouteRule(r.name, r.pattern, r.replacement) for r in run.settings.routes.rules]


def _stop_partial(run: Run, why: str) -> None:
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


def _finish(run: Run, detection: Detection, unit_size: int, units_total: int | None) -> Result:
    tally = run.acc.snapshot()
    q = run.question
    ans = answer(tally, q.kind, top=q.top, min_requests=q.min_requests)
    if run.estimates:
        ans = sampled_answer(tally, run.estimates, run.ties)
    info = _input_info(run, detection, unit_size)
    progress = _progress(run, tally, units_total)
    _warn_counts(run, tally)
    if not run.partial and q.kind is not QuestionKind.STATUS and ans.total == 0:
        detail = "no 5xx line in the whole input" if tally.lines else "no line was read"
        return _recused(
            run, detection, RecuseCode.NO_MATCHING_EVENTS, detail, progress=progress, info=info
        )
    status = Status.PARTIAL if run.partial else Status.SETTLED if run.settled else Status.EXACT
    return _with_report(
        Result(
            question=q,
            input=info,
            status=status,
            answer=ans,
            progress=progress,
            decisions=run.decisions,
            warnings=run.warnings,
            seed=run.seed if run.reading == "random_units" else None,
            saving=_saving(run, progress),
        )
    )


def _saving(run: Run, progress: Progress) -> Saving:
    """Bytes not read, and CPU seconds a full read would have cost beyond this run (estimated)."""
    total = sum(s.size or 0 for s in run.sources)
    if not total or not all(s.seekable for s in run.sources):
        return Saving(bytes=0, cpu_s=0.0, evidence_share=0.0)
    fraction = max(progress.fraction_read, 1e-9)
    cpu_not_spent = progress.cpu_s * (1 / fraction - 1)
    share = run.evidence_s / progress.elapsed_s if progress.elapsed_s > 0 else 0.0
    return Saving(
        bytes=max(0, total - progress.bytes_read),
        cpu_s=round(cpu_not_spent, 3),
        evidence_share=round(share, 4),
    )


def _warn_counts(run: Run, tally: Tally) -> None:
    cap = run.settings.reader.line_cap
    if tally.truncated:
        run.warnings.append(
            f"{tally.truncated} lines longer than {cap} bytes were cut to {cap} bytes"
        )
    if tally.invalid_utf8:
        run.warnings.append(f"{tally.invalid_utf8} parsed lines held invalid UTF-8 (replaced)")


def _input_info(run: Run, detection: Detection | None, unit_size: int | None) -> InputInfo:
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
        reading=run.reading,
    )


def _progress(run: Run, tally: Tally, units_total: int | None) -> Progress:
    total = sum(s.size or 0 for s in run.sources)
    seekable = all(s.seekable for s in run.sources)
    if seekable:
        fraction = tally.bytes_read / total if total else 1.0
    else:
        fraction = 0.0 if run.partial or run.settled else 1.0  # a stream's total is unknown
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


def _unrecognized(run: Run, detection: Detection, sample: list[str]) -> Result:
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
    run: Run,
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
