"""The one loop: inputs -> batches -> extraction -> tallies -> answer.

The engine is the only place that knows all parts.

Every edge it touches (clocks, memory readings, the interrupt flag, the
progress display) comes in through ``RunEnv``, so the CLI, cron and the
service drive the same code and tests replace the edges with fakes.

Which format the inputs are read with is chosen in ``choose``; how the run
counts it (access view, time window, templates, timeline) is ``views``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import ExitStack

from logagent.config import Settings, memory_budget_bytes
from logagent.counters import Accumulator
from logagent.engine.checkpoint import Checkpoint, CheckpointError, Fingerprint, fingerprint
from logagent.engine.choose import build_options, choose_format
from logagent.engine.outcome import finish
from logagent.engine.reading import doomed, random_units_ahead, read_all
from logagent.engine.recusal import recused, unrecognized
from logagent.engine.run import Run, RunEnv
from logagent.engine.views import counted_format
from logagent.errors import ConfigError
from logagent.formats.detect import LAST_RESORT
from logagent.formats.generic import GENERIC_DISCOUNT
from logagent.limits import check_fixed_costs
from logagent.log import get_logger
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
from logagent.sources.paths import STDIN, reads_once
from logagent.sources.sample import SAMPLE_BYTES, sample_each

log = get_logger("logagent.engine")
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
        # budgets count from here: a FIFO's writer or a quiet pipe may keep the opening waiting
        started, cpu_started = env.clock(), env.cpu_clock()
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
        early = _checks(env, settings, started, cpu_started, "before a whole line came")
        for path in resolved:  # a pipe without data yet heeds signals and budgets (``polled``)
            sources.append(open_source(path, early))
            stack.callback(sources[-1].close)
        _check_fixed_costs(settings, env, sources)
        run = Run(question, settings, env, sources, started, cpu_started)
        run.inputs, run.resume = inputs, resume
        if resume is not None:
            _restore(run, resume)
        result = _analyze(run)
        if env.checkpoint is not None and not run.partial:
            try:
                env.checkpoint.discard()  # finished: nothing is left to resume
            except OSError as exc:  # a read-only folder: the answer stands, the file stays
                why = exc.strerror or str(exc)
                note = f"the run finished, but its checkpoint could not be removed ({why})"
                result = result.model_copy(update={"warnings": [*result.warnings, note]})
        return result
    raise AssertionError("unreachable")  # pragma: no cover - ExitStack re-raises


#: A sample with fewer lines read as records is said (a combined log with 5 % JSON lines, whose
#: 503s top-errors never saw, had said nothing; under 90 % it said "counted as malformed",
#: which a prefiltered question does not do).
UNPARSED_WARNING = 0.99


def _stop_check(run: Run) -> Callable[[], tuple[str, str] | None]:
    """What a read asks between its chunks: a pending signal, or a time or CPU budget overrun.

    Router-Mem checks every budget after each batch; this is the backstop for
    one batch that takes long (skipping a 10 GB line): a signal stops it at
    once, a budget once overrun by ``READ_BACKSTOP_S``.
    """
    return _checks(run.env, run.settings, run.started, run.cpu_started, "while reading")


def _checks(
    env: RunEnv, settings: Settings, started: float, cpu_started: float, when: str
) -> Callable[[], tuple[str, str] | None]:
    """``_stop_check``'s test, from the clocks at ``started``; ``when`` ends its message."""
    budget = settings.budget

    def over(limit: float | None, clock: Callable[[], float], since: float) -> bool:
        return limit is not None and clock() - since > limit + READ_BACKSTOP_S

    def check() -> tuple[str, str] | None:
        if (signal := env.pending_signal()) is not None:
            return Reason.INTERRUPTED.value, f"interrupted by {signal} {when}"
        if over(budget.max_seconds, env.clock, started):
            return Reason.TIME_BUDGET.value, f"--max-seconds {budget.max_seconds:g} spent {when}"
        if over(budget.max_cpu_seconds, env.cpu_clock, cpu_started):
            limit = budget.max_cpu_seconds
            return Reason.CPU_BUDGET.value, f"--max-cpu-seconds {limit:g} spent {when}"
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
    once = [p for p in paths if reads_once(p)]
    if once:  # the second call would find it read already, and recuse it as empty
        raise ConfigError(
            "error-types without --key reads the input twice (its top component first, then "
            "that component's error types), and a pipe or standard input can be read once: "
            "name a file, or give --key",
            path="<stdin>" if once[0] == STDIN else once[0],
        )
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


def _check_inputs(cp: Checkpoint, inputs: tuple[Fingerprint, ...]) -> None:
    """A checkpoint goes on only over the very inputs it was written for (size, first bytes,
    modification time, inode)."""
    if any(f.size is None for f in cp.inputs):
        raise CheckpointError(
            "the checkpointed run read standard input or a pipe, which cannot be read again"
        )
    same = len(cp.inputs) == len(inputs)
    if not same or not all(a.same_input(b) for a, b in zip(cp.inputs, inputs, strict=True)):
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
        why = "the input holds no non-blank lines (NUL bytes count as blank)"
        return recused(run, None, RecuseCode.EMPTY_INPUT, why)
    detection, found = choose_format(run, sample, samples)
    auto = run.settings.analysis.format == "auto"
    if auto and doomed(run, detection.confidence):
        if detection.confidence > 0 or not random_units_ahead(run):
            return unrecognized(run, detection, sample)
        from logagent.engine.cascade import after_spots  # the spots are no proof: search

        searched = after_spots(
            run,
            detection,
            sample,
            build_options(run),
            lambda lines: choose_format(run, lines, [lines]),
        )
        if isinstance(searched, Result):
            return searched
        detection, found = searched
    if not auto and detection.confidence == 0:  # the format named reads no sampled line
        if _sampled_whole(run):
            return unrecognized(run, detection, sample, named=True)  # it reads no line at all
        # its records may be rare (one access line in 20,000 app lines): read on, said (a
        # "no 5xx line in the whole input" of a log full of them means the format is wrong)
        run.warnings.append(
            f"--format {detection.best} reads none of the {detection.sample_lines} lines "
            "sampled across the input: its records, if any, are rare, or the format is wrong"
        )
    fmt = counted_format(run, found, sample)
    # the share the layout read: detection discounts the last resorts and a bare JSON layout
    # (a clean log's every line read as jsonapp had been "only 90.0 % of sampled lines", probe U)
    last_resort = fmt.name in LAST_RESORT or bool(getattr(found, "bare", False))
    share = detection.confidence / (GENERIC_DISCOUNT if last_resort and auto else 1.0)
    if share < UNPARSED_WARNING and getattr(found, "record_start", None):
        run.warnings.append(  # a multi-line layout: such lines are folded, not dropped
            f"only {share:.1%} of sampled lines parse as {fmt.name} or look like "
            "a stack trace: a line that starts no record of it is read as part of the record "
            "above (a multi-line record; before the first record, not counted), one that "
            "starts a record but does not parse is malformed"
        )
    elif share < UNPARSED_WARNING:
        run.warnings.append(
            f"only {share:.1%} of sampled lines parse as {fmt.name}; the other "
            "lines are no records of it and are not counted (a question that parses only "
            "candidate lines, such as top-errors, does not even count them as malformed: a "
            "5xx line of another layout is missed)"
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


def _sampled_whole(run: Run) -> bool:
    """Whether the format sample held every line of the inputs (small seekable files)."""
    each = max(SAMPLE_BYTES // max(len(run.sources), 1), 4096)  # as sample_each reads them
    return all(s.seekable and s.size is not None and s.size <= each for s in run.sources)
