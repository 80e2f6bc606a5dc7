"""The read itself: the early-stop read or the read of everything, in batches.

``read_all`` picks the unit size and the reading order, runs the sampled
(early-stop) read when the question allows one, and reads everything when it
does not or when Router-Mem degrades to an exact read; budgets, memory steps,
signals and changed inputs stop it with a partial answer and a checkpoint.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from logagent.config import memory_budget_bytes
from logagent.counters import Accumulator
from logagent.engine.fullread import (
    count_remotely,
    fresh_seed,
    iter_batches,
    read_everything,
    stop_partial,
)
from logagent.engine.loops import reapply_steps
from logagent.engine.run import ParsePool, Run
from logagent.engine.sampled import (
    STREAM_POPULATION,
    read_sampled,
    sampled_slices,
    seekable_batches,
)
from logagent.engine.tallied import Feed, iter_tallied
from logagent.engine.unitchoice import adaptive, choose_units
from logagent.evidence.unitsize import cost_factor, pilot_units
from logagent.formats import Format
from logagent.formats.fieldsets import ROUTE
from logagent.formats.routes import RouteRule
from logagent.log import get_logger
from logagent.questions import APP_KINDS, counts_events
from logagent.result import (
    QuestionKind,
)
from logagent.routermem.router import Action, Decision, Reason
from logagent.sources import (
    Batch,
    Order,
    UnitPlan,
    choose_unit_size,
    plan_units,
    unit_order,
)
from logagent.sources.permute import KEYED, KeyedPermutation, Ordering
from logagent.sources.prefetch import iter_prefetched

log = get_logger("logagent.engine")
STREAM_UNIT = 64 << 10
BATCH_COST = 24
MIN_BATCH_BYTES = 256 << 10
#: A sampled read's batches are read ahead by a thread only from this unit size on. Smaller
#: units are gathered with one positional read each, and each read releases and retakes the
#: GIL: against a busy counting thread a 256 B read took ~650 us instead of ~3.5 us (the
#: convoy effect), so a 1 GB top-1 run in 4 KiB units took 6.3 s read ahead and 1.2 s not.
PREFETCH_MIN_UNIT = 16 << 10


def read_all(run: Run, fmt: Format, parse_rate: float) -> tuple[int, int | None]:
    """Read the units the answer needs, tallying as it goes; returns unit size and unit count."""
    seekable = [s for s in run.sources if s.seekable]
    known = sum(s.size or 0 for s in seekable)
    unit_size = run.settings.reader.unit_size
    if unit_size == "auto":
        unit_size = choose_unit_size(known or STREAM_UNIT * 1024)
    cp = run.resume
    if cp is not None:
        unit_size = cp.unit_size
    plan = plan_units([s.size or 0 for s in seekable], unit_size)
    run.unit_size = unit_size
    if cp is not None:
        run.seed = cp.seed
    elif run.seed is None:  # the detection cascade may have drawn it already
        run.seed = fresh_seed(run)
    run.batch_bytes = batch_bytes_for(run)
    if cp is None:
        mode = _early_stop(run, plan)
    else:
        mode = "random_units" if cp.phase == "sampled" else None
    degrade, sampled = _read_early(run, fmt, plan, mode, parse_rate) if mode else (False, plan)
    if degrade:  # Router-Mem: an exact read in file order is cheaper than more evidence
        # in the input's default units, however small the sample's (a forced 64 B on 10 GB
        # would be 1.6·10^8 units to book for an answer that does not depend on them)
        run.unit_size = max(run.unit_size, choose_unit_size(known or STREAM_UNIT * 1024))
        plan = plan_units([s.size or 0 for s in seekable], run.unit_size)
        run.acc, run.reading = Accumulator(), "sequential"
        run.env.release_memory()
        reapply_steps(run)
    if degrade or mode is None:
        random = (run.settings.reader.order == "random" or _timeline_sample(run)) and not degrade
        if cp is not None and cp.phase != "sampled":
            random, degrade = cp.order == Order.RANDOM, cp.phase == "degraded"
        order = Order.RANDOM if random else Order.SEQUENTIAL
        phase = "degraded" if degrade else "full"
        skip = cp.done if cp is not None and cp.phase != "sampled" else None
        pool = _pool(run, fmt, sampling=random and _timeline_sample(run))
        if run.env.backend is not None and skip is None and not _timeline_sample(run):
            count_remotely(run, plan, pool)
        else:
            read_everything(run, plan, seekable, pool, known, order, phase, skip)
    if degrade and not run.partial:
        done = Decision(Action.STOP_SETTLED, Reason.EXHAUSTED, "read in file order after DEGRADE")
        run.record(done, plan.total_units, plan.total_units)
    damaged = next((s.error for s in run.sources if s.error), None)
    if damaged and not run.partial:
        stop_partial(run, str(damaged), Reason.INPUT_DAMAGED.value)
    changed = next((f"{s.path}: {why}" for s in run.sources if (why := s.changed())), None)
    if changed and not run.partial:
        stop_partial(run, changed, Reason.INPUT_CHANGED.value)
    streams = any(not s.seekable for s in run.sources)
    if not degrade and mode is not None:  # the sampled read's own units (a main phase's S)
        plan = sampled
    return plan.unit_size, None if streams else plan.total_units


def batch_bytes_for(run: Run) -> int:
    """The batch size: the configured one, smaller when the memory budget leaves little room.

    A batch costs about ``BATCH_COST`` times its size at its peak (buffers read
    ahead, the parse, the allocator's slack, measured on this engine), so the
    first batches fit the room the budget leaves; Router-Mem's forecast then
    takes over.
    """
    env = run.env
    limit = memory_budget_bytes(run.settings.budget.memory, env.available_memory())
    room = max(0, limit - env.rss())
    fitted = max(MIN_BATCH_BYTES, room // BATCH_COST)  # never below a useful size for the room
    return int(min(run.settings.reader.batch_bytes, fitted))  # never above the configured size


def _pool(run: Run, fmt: Format, *, sampling: bool = False) -> ParsePool:
    kind = run.question.kind
    # Components are names, not paths: never normalized.
    rules = _rules(run) if run.question.normalize and kind not in APP_KINDS else None
    if run.selection is not None and run.selection.by != ROUTE:  # a path is raw, others as is
        rules = None
    rate_units = sampling and kind is QuestionKind.ERROR_RATE  # its evidence needs requests/unit
    pool = ParsePool(
        fmt,
        errors_only=counts_events(kind),
        rules=rules,
        all_units=rate_units,
        track_units=sampling,  # only the evidence needs per-unit counts
        keyed=kind is not QuestionKind.STATUS,  # a status distribution has no key to parse
        on_records=run.env.on_records,
    )
    run.prefiltered = pool.selective  # malformed lines are then counted among candidates only
    return pool


def _read_early(
    run: Run, fmt: Format, plan: UnitPlan, mode: str, parse_rate: float
) -> tuple[bool, UnitPlan]:
    """The early-stop read; returns whether Router-Mem degrades to a full read, and the plan
    of the units read (a main phase's after a pilot chose their size)."""
    seekable = [s for s in run.sources if s.seekable]
    pool = _pool(run, fmt, sampling=True)
    backend, closing = run.env.backend, None
    feed: Feed
    known = sum(s.size or 0 for s in seekable)
    cost: float | None = None
    if mode == "random_units":
        run.reading = mode
        start = run.resume.units_read if run.resume is not None else 0
        if adaptive(run, known):  # the pilot takes its first units of a keyed order
            pilot = KeyedPermutation(plan.total_units, run.seed or 0)
            main = choose_units(run, fmt, plan, pilot, seekable, pool, known)
            if main.degrade:
                return True, plan
            plan, order = main.plan, main.order
        else:
            order = _sampled_order(run, plan)
            if run.resume is not None and run.resume.order == KEYED and run.resume.batches:
                run.main_pilot = len(run.resume.batches[0])  # the schedule it was read with
        run.order = order
        if known >= run.settings.reader.adapt_from and backend is None:
            cost = cost_factor(plan.unit_size, prescanned=pool.prescan() is not None)
        if backend is not None:  # the same slices, counted on the backend's workers
            feed = closing = backend.sampled_feed(
                seekable,
                plan,
                sampled_slices(run, plan, order, start=start),
                pool,
                cap=run.settings.reader.line_cap,
            )
        else:
            batches = seekable_batches(run, plan, order, seekable, start=start)
            feed = _local_feed(batches, pool, ahead=plan.unit_size >= PREFETCH_MIN_UNIT)
        population = plan.total_units
    else:  # a stream under --assume-exchangeable
        run.reading = "stream"
        feed = _local_feed(iter_batches(run, plan, seekable, Order.SEQUENTIAL), pool)
        population = STREAM_POPULATION
    try:
        degrade = read_sampled(
            run,
            fmt,
            feed,
            population=population,
            unit_size=plan.unit_size,
            parse_rate=parse_rate,
            replay=run.resume.batches if run.resume is not None else (),
            cost_factor=cost,
        )
    finally:
        if closing is not None:
            closing.close()  # Router-Mem stopped: cancel the tasks still outstanding
    if mode != "random_units":
        _label_model_based(run)
    return degrade, plan


def _sampled_order(run: Run, plan: UnitPlan) -> Ordering:
    """The random order of a sampled read (a resumed main phase: its keyed permutation)."""
    seed = run.order_seed or 0
    if run.resume is not None and run.resume.order == KEYED:
        return KeyedPermutation(plan.total_units, seed)
    return unit_order(plan.total_units, Order.RANDOM, seed)


def _local_feed(batches: Iterator[Batch], pool: ParsePool, *, ahead: bool = True) -> Feed:
    """Batches read ahead by a thread (``ahead``, else in this one), counted here as they come."""
    items = iter_prefetched(batches, depth=1) if ahead else batches
    return lambda needs: iter_tallied(items, pool, pool.fmt, needs)


def doomed(run: Run, confidence: float) -> bool:
    """Recuse on the detection sample alone? Its spots are not a random sample, so when the
    read will be by random units the sample only rules out an input where nothing parses; a
    low share goes on to the sampled read's format check, which recuses only once a bound at
    delta_abort proves the records under the threshold (router rule 1)."""
    low = confidence < run.settings.analysis.min_format_confidence
    return confidence <= 0 or (low and not random_units_ahead(run))


def random_units_ahead(run: Run) -> bool:
    """Whether this run will be read by random units (what ``_early_stop`` will choose)."""
    a = run.settings.analysis
    if (
        a.full
        or run.question.kind in (QuestionKind.STATUS, QuestionKind.TIMELINE)
        or run.resume is not None
    ):
        return False
    if any(not s.seekable for s in run.sources) or a.since or a.until:
        return False
    known = sum(s.size or 0 for s in run.sources)
    size = run.settings.reader.unit_size
    unit_size = choose_unit_size(known) if size == "auto" else int(size)
    total = plan_units([s.size or 0 for s in run.sources], unit_size).total_units
    return total > pilot_units(total)


def _timeline_sample(run: Run) -> bool:
    """``-q timeline --max-fraction F``: a random F of the units, each tracked for the intervals."""
    a = run.settings
    return (
        run.question.kind is QuestionKind.TIMELINE
        and a.budget.max_fraction is not None
        and a.reader.order != "sequential"
        and not a.analysis.full
    )


def _early_stop(run: Run, plan: UnitPlan) -> str | None:
    """How to stop early: random units (seekable), a model-based stream race, or not at all."""
    a = run.settings.analysis
    if a.full or run.question.kind in (QuestionKind.STATUS, QuestionKind.TIMELINE):
        return None  # nothing to settle: read everything (or the --max-fraction sample)
    if any(not s.seekable for s in run.sources):
        run.reading = "stream"
        if a.assume_exchangeable and counts_events(run.question.kind):
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


def _rules(run: Run) -> list[RouteRule]:
    return [RouteRule(r.name, r.pattern, r.replacement) for r in run.settings.routes.rules]
