"""The one loop: inputs -> batches -> extraction -> tallies -> answer.

The engine is the only place that knows all parts.

Every edge it touches (clocks, memory readings, the interrupt flag, the
progress display) comes in through ``RunEnv``, so the CLI, cron and the
service drive the same code and tests replace the edges with fakes.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import replace
from typing import Any

import polars as pl

from logagent.config import Settings, memory_budget_bytes
from logagent.counters import Accumulator
from logagent.engine.checkpoint import Checkpoint, CheckpointError, Fingerprint, fingerprint
from logagent.engine.outcome import finish, recused, unrecognized
from logagent.engine.reading import doomed, random_units_ahead, read_all
from logagent.engine.run import Run, RunEnv
from logagent.errors import ConfigError
from logagent.formats import Format
from logagent.formats.adapter import THRESHOLDS, AppAsAccess, literal_prefilter
from logagent.formats.base import STATUS
from logagent.formats.catalog import ACCESS_NAMES, APP_NAMES, AnyFormat, build_any_format, is_app
from logagent.formats.custom import load_custom_formats
from logagent.formats.detect import Detection, app_share, detect_all
from logagent.formats.levelfilter import level_prefilter
from logagent.formats.mixed import FirstOf
from logagent.formats.selected import selection_of
from logagent.formats.windowed import Windowed, line_kind, time_of
from logagent.limits import check_fixed_costs
from logagent.log import get_logger
from logagent.questions import SELECT_KINDS, check_fits, counts_events
from logagent.report.markdown import render
from logagent.result import (
    DecisionRecord,
    Question,
    QuestionKind,
    RecuseCode,
    Report,
    Result,
    Status,
)
from logagent.routermem.router import Reason
from logagent.sources import (
    Source,
    open_source,
    resolve_paths,
)
from logagent.sources.sample import SAMPLE_BYTES, sample_each
from logagent.sources.window import WindowView
from logagent.timeline import bucket_span, bucket_width, bucketed
from logagent.timewindow import Window, line_time_for, parse_window, window_for_source

log = get_logger("logagent.engine")
PER_INPUT_SHARE = 0.5  # an input the run's format reads less of than this is detected alone
READ_BACKSTOP_S = 1.0  # a budget overrun inside one batch stops the read after this much more


def analyze(
    paths: Sequence[str],
    question: Question,
    settings: Settings,
    env: RunEnv | None = None,
    *,
    resume: Checkpoint | None = None,
) -> Result:
    """Answer ``question`` about the logs at ``paths`` (files, globs, '-' for stdin).

    With ``resume``, go on from that checkpoint (same inputs, question and seed).
    """
    env = env or RunEnv()
    env.keep_heap()
    if question.kind is QuestionKind.ERROR_TYPES and question.key is None and resume is None:
        return _error_types_of_top(paths, question, settings, env)
    with ExitStack() as stack:
        sources: list[Source] = []
        inputs: tuple[Fingerprint, ...] = ()
        if env.backend is not None:  # URLs too; checkpoints are of the local engine
            resolved = []
            for source in env.backend.open_inputs(list(paths)):
                sources.append(source)
                stack.callback(source.close)
        else:
            resolved = resolve_paths(list(paths))
            inputs = tuple(fingerprint(p) for p in resolved) if env.checkpoint or resume else ()
        if resume is not None:
            _check_inputs(resume, inputs)
        for path in resolved:
            sources.append(open_source(path))
            stack.callback(sources[-1].close)
        _check_fixed_costs(settings, env, sources)
        run = Run(question, settings, env, sources, env.clock(), env.cpu_clock())
        run.inputs, run.resume = inputs, resume
        if resume is not None:
            _restore(run, resume)
        result = _analyze(run)
        if env.checkpoint is not None and not run.partial:
            env.checkpoint.discard()  # finished: nothing is left to resume
        return result
    raise AssertionError("unreachable")  # pragma: no cover - ExitStack re-raises


def _stop_check(run: Run) -> Callable[[], tuple[str, str] | None]:
    """What a read asks between its chunks: a pending signal, or a time or CPU budget overrun.

    Router-Mem checks every budget after each batch; this is the backstop for
    one batch that takes long (skipping a 10 GB line): a signal stops it at
    once, a budget once overrun by ``READ_BACKSTOP_S``.
    """
    budget, env = run.settings.budget, run.env

    def over(limit: float | None, clock: Callable[[], float], started: float) -> bool:
        return limit is not None and clock() - started > limit + READ_BACKSTOP_S

    def check() -> tuple[str, str] | None:
        if (signal := env.pending_signal()) is not None:
            return Reason.INTERRUPTED.value, f"interrupted by {signal} while reading"
        if over(budget.max_seconds, env.clock, run.started):
            return Reason.TIME_BUDGET.value, f"--max-seconds {budget.max_seconds:g} spent"
        if over(budget.max_cpu_seconds, env.cpu_clock, run.cpu_started):
            return Reason.CPU_BUDGET.value, f"--max-cpu-seconds {budget.max_cpu_seconds:g} spent"
        return None

    return check


def _check_fixed_costs(settings: Settings, env: RunEnv, sources: list[Source]) -> None:
    """A line cap or unit size that can never fit the memory budget is a usage error."""
    reader = settings.reader
    unit = None if reader.unit_size == "auto" else int(reader.unit_size)
    check_fixed_costs(
        budget_bytes=memory_budget_bytes(settings.budget.memory, env.available_memory()),
        line_cap=reader.line_cap,
        unit_size=unit,
        total_bytes=sum(s.size or 0 for s in sources if s.seekable),
    )


def _error_types_of_top(
    paths: Sequence[str], question: Question, settings: Settings, env: RunEnv
) -> Result:
    """error-types without --key: settle the top component at delta/2, then its error types.

    Two calls of the same engine; by the union bound both are right at the
    asked delta. The result keeps the asked question with the key filled in,
    the first call's decisions before the second's, and a note saying so.
    """
    half = question.delta / 2
    top = question.model_copy(
        update={"kind": QuestionKind.TOP_ERROR_COMPONENTS, "top": 1, "delta": half}
    )
    try:
        first = analyze(paths, top, settings, env)
    except ConfigError as exc:  # say it of the question asked, not of its first step
        raise ConfigError(
            exc.message.replace(top.kind.value, question.kind.value, 1)
            + " (in an access log, each route's error types are its 5xx status mix, "
            "shown by top-errors)",
            **exc.context,
        ) from exc
    if first.status is Status.RECUSED or not first.answer.top:  # said of the question asked
        asked = first.model_copy(update={"question": question})
        return asked.model_copy(update={"report": Report(markdown=render(asked))})
    if first.status is Status.PARTIAL:  # no settled key: its error types would claim too much
        note = (
            "error-types needs the top component settled first, and the run stopped while "
            "settling it: this is that first step's partial answer; resuming its checkpoint "
            "finishes that step, then ask error-types with --key"
        )
        return first.model_copy(update={"warnings": [*first.warnings, note]})
    key = first.answer.top[0].key
    second = analyze(paths, question.model_copy(update={"key": key, "delta": half}), settings, env)
    note = (
        f"error types of `{key}`, the component with the most {first.answer.metric}: "
        f"top-error-components settled it first at delta/2 = {half:g} ({first.status.value}, "
        f"{first.progress.fraction_read:.1%} read), then error-types counted at delta/2"
    )
    result = second.model_copy(
        update={
            "question": question.model_copy(update={"key": key}),
            "warnings": list(dict.fromkeys([note, *first.warnings, *second.warnings])),
            "decisions": [*first.decisions, *second.decisions],
        }
    )
    return result.model_copy(update={"report": Report(markdown=render(result))})


def _check_inputs(cp: Checkpoint, inputs: tuple[object, ...]) -> None:
    """A checkpoint goes on only over the very inputs it was written for."""
    if any(f.size is None for f in cp.inputs):
        raise CheckpointError(
            "the checkpointed run read standard input or a pipe, which cannot be read again"
        )
    if list(cp.inputs) != list(inputs):
        was = ", ".join(f"{f.path} ({f.size} bytes)" for f in cp.inputs)
        raise CheckpointError(
            f"the input changed since the checkpoint was written (it was: {was}); "
            "start a new run instead"
        )


def _restore(run: Run, cp: Checkpoint) -> None:
    """Put a checkpoint's counts, trace and clocks back into a new run."""
    run.acc = Accumulator(cp.tally)
    run.decisions = [DecisionRecord.model_validate(d) for d in cp.decisions]
    run.warnings = list(cp.warnings)
    run.ladder = list(cp.ladder)
    run.started -= cp.elapsed_s
    run.cpu_started -= cp.cpu_s
    run.evidence_s = cp.evidence_s
    run.seed = cp.seed


def _analyze(run: Run) -> Result:
    if all(s.seekable and s.size == 0 for s in run.sources):
        return recused(run, None, RecuseCode.EMPTY_INPUT, "every input is empty (0 bytes)")
    cap = run.settings.reader.line_cap
    samples = sample_each(run.sources, cap=cap)
    sample = [line for each in samples for line in each]
    if not sample:
        damaged = next((s.error for s in run.sources if s.error), None)
        if damaged:
            return recused(run, None, RecuseCode.INPUT_UNREADABLE, str(damaged))
        return recused(run, None, RecuseCode.EMPTY_INPUT, "the input holds no non-blank lines")
    detection, found = _choose_format(run, sample, samples)
    auto = run.settings.analysis.format == "auto"
    if auto and doomed(run, detection.confidence):
        if detection.confidence > 0 or not random_units_ahead(run):
            return unrecognized(run, detection, sample)
        from logagent.engine.cascade import after_spots  # the spots are no proof: search

        searched = after_spots(
            run, detection, sample, _build(run), lambda lines: _choose_format(run, lines, [lines])
        )
        if isinstance(searched, Result):
            return searched
        detection, found = searched
    if not auto and detection.confidence == 0 and _sampled_whole(run):
        return unrecognized(run, detection, sample, named=True)  # it reads no line of them
    run.app_log = is_app(found)
    fmt = _within_window(run, _as_access(run.question, found, sample), sample)
    run.selection = selection_of(fmt)
    if run.selection is not None:  # the field the engine chose (route or component) is said
        run.question = run.question.model_copy(update={"by": run.selection.by})
    if run.question.kind is QuestionKind.ERROR_TYPES:
        fmt = _with_templates(run, fmt, sample)
    fmt = _with_timeline(run, fmt, sample)
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
    # A format named by the user is not second-guessed after the pilot (it was read as asked).
    parse_rate = detection.confidence if auto else 1.0
    for source in run.sources:  # from here on, a read may be cut short inside a batch
        source.stop_check = _stop_check(run)
    unit_size, units_total = read_all(run, fmt, parse_rate)
    run.event_bound = float(-(-unit_size // max(fmt.min_line_bytes, 1)))
    return finish(run, detection, unit_size, units_total)


def _choose_format(
    run: Run, sample: list[str], samples: list[list[str]]
) -> tuple[Detection, AnyFormat]:
    """Detect the format among all (access, app, custom), or build the one named.

    Each input is checked on its own sample: an input the overall format does
    not read gets its own detection, and inputs of different formats are read
    together by ``FirstOf`` (never one format for all, which would drop the
    others' records).
    """
    name = run.settings.analysis.format
    build = _build(run)
    keys, year, custom = build["json_keys"], build["year"], build["custom"]
    if name == "auto":
        detection = detect_all(sample, json_keys=keys, year=year, custom=custom)
        fmt = build_any_format(detection.best, sample, json_keys=keys, year=year, custom=custom)
        if len(samples) > 1:
            mixed = _per_input(run, detection, fmt, samples, keys=keys, year=year, custom=custom)
            if mixed is not None:
                return mixed
        if detection.ambiguous:
            (best, top), (second, score) = detection.scores[:2]
            run.warnings.append(
                f"format detection is ambiguous: {best} parses {top:.1%} of sampled lines, "
                f"{second} {score:.1%}; name one with --format"
            )
        return detection, fmt
    fmt = build_any_format(name, sample, json_keys=keys, year=year, custom=custom)
    share = app_share(fmt, pl.Series("line", sample, dtype=pl.String))
    return Detection(((name, share),), len(sample)), fmt


def _sampled_whole(run: Run) -> bool:
    """Whether the format sample held every line of the inputs (small seekable files)."""
    each = max(SAMPLE_BYTES // max(len(run.sources), 1), 4096)  # as sample_each reads them
    return all(s.seekable and s.size is not None and s.size <= each for s in run.sources)


def _build(run: Run) -> dict[str, Any]:
    """What building a format needs besides the sample: JSON keys, a year, custom formats."""
    settings = run.settings
    return {
        "json_keys": settings.formats.json_keys,
        # year-less stamps (syslog): the window's reference (app.YearOf: now, the year before
        # for a stamp that would lie ahead; or the end of --year, which places all in it)
        "year": _stamp_reference(run),
        "custom": load_custom_formats(
            settings.formats.custom_dir, reserved=(*ACCESS_NAMES, *APP_NAMES)
        ),
    }


def _per_input(
    run: Run,
    detection: Detection,
    fmt: AnyFormat,
    samples: list[list[str]],
    **build: Any,
) -> tuple[Detection, AnyFormat] | None:
    """None if the overall format reads every input; else each input's own, read together."""
    chosen: dict[str, AnyFormat] = {detection.best: fmt}
    per_path: list[tuple[str, str]] = []
    for source, lines in zip(run.sources, samples, strict=True):
        own = detection.best
        if lines and _share(fmt, lines) < PER_INPUT_SHARE:
            found = detect_all(
                lines, json_keys=build["keys"], year=build["year"], custom=build["custom"]
            )
            if found.confidence >= PER_INPUT_SHARE:
                own = found.best
                if own not in chosen:
                    chosen[own] = build_any_format(
                        own,
                        lines,
                        json_keys=build["keys"],
                        year=build["year"],
                        custom=build["custom"],
                    )
        per_path.append((source.path, own))
    if len(chosen) == 1:
        return None
    kinds = {is_app(f) for f in chosen.values()}
    listing = ", ".join(f"{path} is {name}" for path, name in per_path)
    if len(kinds) > 1:
        raise ConfigError(
            f"the inputs hold different kinds of log ({listing}): access and application logs "
            "answer different questions; analyze them separately"
        )
    if any(is_app(f) for f in chosen.values()):
        raise ConfigError(
            f"the inputs are application logs of different formats ({listing}); "
            "analyze each format separately or name one with --format"
        )
    mixed = FirstOf(tuple(chosen.values()))  # type: ignore[arg-type]  # access formats
    share = _share(mixed, [line for each in samples for line in each])
    run.warnings.append(f"inputs of different formats, each read under its own: {listing}")
    scores = ((mixed.name, share), *detection.scores)
    return Detection(scores, detection.sample_lines), mixed


def _share(fmt: Any, lines: list[str]) -> float:
    return app_share(fmt, pl.Series("line", lines, dtype=pl.String))


def _as_access(question: Question, fmt: AnyFormat, sample: list[str]) -> Format:
    """The format as the engine counts it; a question that does not fit it is a usage error."""
    app = is_app(fmt)
    check_fits(question.kind, fmt_name=fmt.name, app=app)
    if question.kind in SELECT_KINDS:  # --by/--where: the format's fields, checked
        from logagent.engine.selection import select

        view = AppAsAccess(fmt, every_level=True) if app else fmt  # type: ignore[arg-type]
        return select(question, fmt, view, sample)  # type: ignore[arg-type]
    if app:
        if question.kind is QuestionKind.STATUS:  # on an app log: the distribution of levels
            return AppAsAccess(fmt, level=question.level, every_level=True)  # type: ignore[arg-type]
        levels = THRESHOLDS.get(question.level, ())
        return AppAsAccess(
            fmt,  # type: ignore[arg-type]  # is_app: an AppFormat
            level=question.level,
            error_prefilter=level_prefilter(fmt, levels),  # JSON logs: only candidate lines
        )
    return fmt  # type: ignore[return-value]  # not app: an access Format


def _with_templates(run: Run, fmt: Format, sample: list[str]) -> Format:
    """error-types: mine the component's templates on a seed-independent pilot, then freeze."""
    base = fmt.inner if isinstance(fmt, Windowed) else fmt
    assert isinstance(base, AppAsAccess) and run.question.key is not None  # checked before
    key = run.question.key
    run.known_keys = _components(base, sample)
    from logagent.errortypes import mine_pilot, read_pilot_lines  # drain3: only for error types

    templates = mine_pilot(read_pilot_lines(run.sources, sample), fmt, base.app, key)
    run.warnings.append(
        f"error types: {len(templates.templates)} templates of `{key}` mined from "
        f"{templates.pilot_messages} events read at evenly spaced places, then frozen; "
        "messages none of them covers count as OTHER"
    )
    typed = replace(
        base, component=key, templates=templates, error_prefilter=literal_prefilter(key)
    )
    return replace(fmt, inner=typed) if isinstance(fmt, Windowed) else typed


def _components(fmt: AppAsAccess, sample: list[str]) -> list[str]:
    """The components the sample's records name, most frequent first (for "did you mean")."""
    from logagent.formats.app import COMPONENT

    lines = pl.DataFrame({"line": sample}, schema={"line": pl.String})
    found = lines.select(fmt.app.fields(pl.col("line"))[COMPONENT].alias("c")).drop_nulls()
    counted = found.group_by("c").len().sort(["len", "c"], descending=[True, False])
    return [str(c) for c in counted["c"].to_list() if c not in ("", "-")]


def _within_window(run: Run, fmt: Format, sample: list[str]) -> Format:
    """With --since/--until: narrow each plain file to its window by bisection, filter by time.

    The sources of the run are replaced by views of their windows' byte ranges;
    records are filtered by time in any case (a range includes a tolerance,
    and a stream or an unordered file is read whole).
    """
    q = run.question
    if q.since is None and q.until is None:
        return fmt
    now = run.env.wall_clock()
    since, until = parse_window(q.since, q.until, now=now)
    reference = _stamp_reference(run)
    time = time_of(fmt, reference=reference)
    if time is None:
        raise ConfigError(
            f"--since/--until: no timestamp is known for format {fmt.name}", format=fmt.name
        )
    _check_stamps_read(fmt, time, sample)
    kind = line_kind(fmt.name)
    windows = []
    for i, source in enumerate(run.sources):
        if kind is None or source.compression is not None or not source.seekable:
            why = "the format's line stamps are unknown" if kind is None else "it is a stream"
            window = Window(since, until, "filter", (0, source.size or 0), 0, reason=why)
        else:
            line_time = line_time_for(kind, reference=reference)
            window = window_for_source(source, line_time, since=since, until=until)
        if window.method == "bisection":
            run.sources[i] = WindowView.of(source, *window.byte_range)
        elif window.warning:
            run.warnings.append(f"{source.path}: {window.warning}")
        windows.append({"path": source.path, **window.to_dict()})
    run.window = windows[0] if len(windows) == 1 else _merged_windows(windows)
    log.info("window", windows=windows)
    return Windowed(fmt, time, since, until)


def _check_stamps_read(fmt: Format, time: Callable[[pl.Expr], pl.Expr], sample: list[str]) -> None:
    """A window needs times: if no sampled record's stamp can be read, say so (every record
    would otherwise be dropped as outside it, and "nothing in the window" would be false)."""
    line = pl.col("line")
    frame = pl.DataFrame({"line": sample}, schema={"line": pl.String})
    record = fmt.fields(line)[STATUS].is_not_null()
    records, timed = frame.select(
        record.sum().alias("records"), (record & time(line).is_not_null()).sum().alias("timed")
    ).row(0)
    if records and not timed:
        raise ConfigError(
            f"--since/--until: logagent reads no timestamp in the {records:,} sampled records of "
            f"{fmt.name}, so it cannot place them in a window; leave the window out, or name a "
            "format (or a custom one) that parses their stamps",
            format=fmt.name,
        )


def _with_timeline(run: Run, fmt: Format, sample: list[str]) -> Format:
    """Records carry their time bucket (``--bucket``) when the format has timestamps."""
    time = fmt.time if isinstance(fmt, Windowed) else time_of(fmt, reference=_stamp_reference(run))
    if time is None:
        return fmt
    q = run.question
    window: tuple[datetime.datetime | None, ...] = (None, None)
    if q.since or q.until:
        window = parse_window(q.since, q.until, now=run.env.wall_clock())
    try:
        run.bucket_s = bucket_width(run.settings.analysis.bucket, time, sample, window)
    except ValueError as exc:
        raise ConfigError(str(exc)) from exc
    if run.bucket_s is None:
        return fmt
    run.bucket_span = bucket_span(run.bucket_s, time, sample, window)
    # A question that parses every line stamps its 5xx lines only (the timeline counts
    # those); one that parses only its candidates stamps them all (they are nearly all
    # events, and the extra stage would cost an app log's JSON keys a second parse); cron
    # keeps every record by its bucket (on_records).
    every_line = not counts_events(q.kind)
    return bucketed(fmt, time, run.bucket_s, events_only=every_line and run.env.on_records is None)


def _stamp_reference(run: Run) -> datetime.datetime:
    """The time year-less stamps (syslog, glog) are placed by: now, or the end of ``--year``."""
    year = run.settings.analysis.year
    if year is None:
        return run.env.wall_clock()
    return datetime.datetime(year, 12, 31, 23, 59, 59, tzinfo=datetime.UTC)


def _merged_windows(windows: list[dict[str, Any]]) -> dict[str, Any]:
    """One description of several inputs' windows: bounds, method(s) and each input's."""
    methods = sorted({w["method"] for w in windows})
    return {
        "since": windows[0]["since"],
        "until": windows[0]["until"],
        "method": methods[0] if len(methods) == 1 else "mixed",
        "sources": windows,
    }
