"""The read itself: the early-stop read or the read of everything, in batches.

``read_all`` picks the unit size and the reading order, runs the sampled
(early-stop) read when the question allows one, and reads everything when it
does not or when Router-Mem degrades to an exact read; budgets, memory steps,
signals and changed inputs stop it with a partial answer and a checkpoint.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from dataclasses import replace

import numpy as np
import polars as pl

from logagent.config import memory_budget_bytes
from logagent.counters import Accumulator
from logagent.engine.run import ParsePool, ProgressEvent, Run
from logagent.engine.sampled import (
    STREAM_POPULATION,
    FullReadGuard,
    pilot_units,
    read_sampled,
    reapply_steps,
    sampled_slices,
    seekable_batches,
    take_step,
)
from logagent.engine.tallied import Feed, iter_tallied
from logagent.engine.unitchoice import adaptive, choose_units
from logagent.errors import InputCorrupt
from logagent.evidence.unitsize import cost_factor
from logagent.formats import Format
from logagent.formats.fieldsets import ROUTE
from logagent.formats.routes import RouteRule
from logagent.log import get_logger
from logagent.questions import APP_KINDS, counts_events
from logagent.result import (
    DecisionRecord,
    QuestionKind,
)
from logagent.routermem.router import Action, Decision, Reason
from logagent.sources import (
    Batch,
    Order,
    Source,
    UnitPlan,
    choose_unit_size,
    iter_seekable_batches,
    iter_stream_batches,
    plan_units,
    unit_order,
)
from logagent.sources.batches import I64
from logagent.sources.files import InputChanged, ReadStopped
from logagent.sources.permute import KEYED, KeyedPermutation, Ordering
from logagent.sources.prefetch import iter_prefetched
from logagent.sources.prescan import Prescan
from logagent.sources.scanworkers import ScanWorkers, workers_for

log = get_logger("logagent.engine")
STREAM_UNIT = 64 << 10
BATCH_COST = 24
MIN_BATCH_BYTES = 256 << 10
#: Batches per batch of a prescanned read of everything (``sources.prescan``): 64 MiB.
PRESCAN_BATCHES = 8
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
        run.seed = _seed(run)
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
            _count_remotely(run, plan, pool)
        else:
            _read_everything(run, plan, seekable, pool, known, order, phase, skip)
    if degrade and not run.partial:
        done = Decision(Action.STOP_SETTLED, Reason.EXHAUSTED, "read in file order after DEGRADE")
        run.record(done, plan.total_units, plan.total_units)
    damaged = next((s.error for s in run.sources if s.error), None)
    if damaged and not run.partial:
        _stop_partial(run, str(damaged), Reason.INPUT_DAMAGED.value)
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
    return ParsePool(
        fmt,
        errors_only=counts_events(kind),
        rules=rules,
        all_units=rate_units,
        track_units=sampling,  # only the evidence needs per-unit counts
        keyed=kind is not QuestionKind.STATUS,  # a status distribution has no key to parse
        on_records=run.env.on_records,
    )


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
        feed = _local_feed(_iter_batches(run, plan, seekable, Order.SEQUENTIAL), pool)
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


def _read_everything(
    run: Run,
    plan: UnitPlan,
    seekable: list[Source],
    pool: ParsePool,
    known: int,
    order: Order,
    phase: str,
    done: I64 | None,
) -> None:
    """Read every unit (in ``order``), then streams, in batches; budgets and memory still apply.

    ``done``: units already counted (a resumed run), skipped. Checkpoints are
    written every ``checkpoint.every`` batches and when the read stops early.
    """
    if run.reading != "stream":
        run.reading = "random_units" if order is Order.RANDOM else "sequential"
    guard = FullReadGuard(run, plan.total_units, len(done) if done is not None else 0)
    if done is not None:
        reapply_steps(run)  # a resumed read: its counts stay as bounded as they were
    counted = Counted(done)
    nbytes = run.acc.snapshot().bytes_read if done is not None else 0
    every = run.settings.checkpoint.every

    def flush() -> None:
        run.acc.add(pool.flush())
        counted.flushed()

    def stop(why: str, reason: str = "interrupted") -> None:
        flush()
        run.save(phase, order.value, done=counted.units())  # before the stop enters the trace
        _stop_partial(run, why, reason)

    prescan = pool.prescan()
    workers = None
    if prescan is not None and order is Order.SEQUENTIAL:
        reader = run.settings.reader
        workers = workers_for(
            seekable,
            prescan,
            cap=reader.line_cap,
            nbytes=known,
            processes=reader.scan_processes,
            parallel_from=reader.scan_parallel_from,
        )
    try:
        batches = _iter_batches(
            run, plan, seekable, order, skip=counted.skip, prescan=prescan, workers=workers
        )
        for i, batch in enumerate(iter_prefetched(batches, depth=1), start=1):
            nbytes += batch.bytes_read
            lines = pool.add(batch)
            counted.add(batch.units)
            if pool.due():
                flush()
            if run.env.on_progress:
                run.env.on_progress(ProgressEvent(nbytes, known or None, lines))
            decision = guard.check(batch)
            if decision is not None and decision.step:
                take_step(run, decision.step, _heaviest(run))
            elif decision is not None:
                stop(decision.detail, decision.reason.value)
                break
            if run.env.checkpoint is not None and i % every == 0:
                flush()
                run.save(phase, order.value, done=counted.units())
    except ReadStopped as exc:  # inside a batch (one very long line): stop now
        stop(exc.message, exc.reason)
    except InputChanged as exc:
        stop(str(exc), Reason.INPUT_CHANGED.value)
    except InputCorrupt as exc:
        stop(str(exc), Reason.INPUT_DAMAGED.value)
    except MemoryError:
        stop("out of memory while reading (MemoryError)", Reason.MEMORY.value)
    finally:
        if workers is not None:
            workers.close()
    flush()


def _count_remotely(run: Run, plan: UnitPlan, pool: ParsePool) -> None:
    """Every unit and stream counted by the backend's workers, tallies tree-merged (exact)."""
    backend = run.env.backend
    assert backend is not None
    run.reading = "sequential"
    batch_units = max(1, run.batch_bytes // plan.unit_size)
    if any(not s.seekable for s in run.sources):
        run.warnings.append(
            "compressed inputs cannot be split: each was read whole, in order, by one task "
            f"({backend.description})"
        )
    try:
        run.acc.add(
            backend.count_all(
                run.sources, plan, pool, batch_units=batch_units, cap=run.settings.reader.line_cap
            )
        )
    except ReadStopped as exc:  # a signal or budget: nothing of the tree is kept
        _stop_partial(run, exc.message, exc.reason)
    except InputCorrupt as exc:  # a damaged stream or a changed input on a worker
        _stop_partial(run, str(exc), Reason.INPUT_DAMAGED.value)


def _heaviest(run: Run) -> tuple[str, ...]:
    """A full read's "candidates" for the memory ladder: its heaviest routes so far."""
    counts = run.acc.snapshot().counts
    if counts_events(run.question.kind):
        counts = counts.filter(pl.col("status").is_between(500, 599))
    per_route = (
        counts.group_by("route")
        .agg(pl.col("n").sum())
        .sort(["n", "route"], descending=[True, False])
    )
    return tuple(per_route["route"].head(run.settings.analysis.max_candidates * 2).to_list())


class Counted:
    """Units whose counts are in the accumulator (pending ones wait in the parse pool).

    A batch of neighbouring units (file order) is kept as its range, not its array: a
    read of 10 GB in 64 B units counts 1.6·10^8 of them, 1.2 GB as arrays.
    """

    def __init__(self, done: I64 | None) -> None:
        self.skip = done if done is not None and len(done) else None
        self._groups: list[I64 | tuple[int, int]] = [self.skip] if self.skip is not None else []
        self._pending: list[I64 | tuple[int, int]] = []

    def add(self, units: I64) -> None:
        """A batch was handed to the parse pool."""
        n = len(units)
        if n and int(units[-1]) - int(units[0]) == n - 1 and _increasing(units):
            lo, hi = int(units[0]), int(units[-1]) + 1
            last = self._pending[-1] if self._pending else None
            if isinstance(last, tuple) and last[1] == lo:
                self._pending[-1] = (last[0], hi)
            else:
                self._pending.append((lo, hi))
        else:
            self._pending.append(units)

    def flushed(self) -> None:
        """The pool was parsed: its batches are counted."""
        self._groups.extend(self._pending)
        self._pending = []

    def units(self) -> I64:
        """Every counted unit."""
        parts = [np.arange(*g, dtype=np.int64) if isinstance(g, tuple) else g for g in self._groups]
        return np.concatenate(parts) if parts else np.zeros(0, np.int64)


def _increasing(units: I64) -> bool:
    """Whether a batch's units are n neighbours in file order (first to last span n - 1)."""
    return len(units) < 3 or bool(np.all(np.diff(units) == 1))


def _iter_batches(
    run: Run,
    plan: UnitPlan,
    seekable: list[Source],
    order: Order,
    skip: I64 | None = None,
    prescan: Prescan | None = None,
    workers: ScanWorkers | None = None,
) -> Iterator[Batch]:
    """Batches of every unit in ``order``, then of the streams; units in ``skip`` are left out.

    ``prescan``: runs of neighbouring units hand on only their candidate lines.
    """
    reader = run.settings.reader
    unit_size = plan.unit_size
    seed = run.seed if run.seed is not None else _seed(run)
    batch_units = max(1, run.batch_bytes // unit_size)
    # a prescanned batch holds only its candidate lines: larger ones cost no memory and
    # spare the per-batch work (parse call, memory reading, progress) of a fast read; still
    # an eighth of the input at most, so that budgets, signals and progress act between them
    prescan_units = None
    if order is Order.SEQUENTIAL:
        prescan_units = max(batch_units, min(PRESCAN_BATCHES * batch_units, plan.total_units // 8))
    units = unit_order(plan.total_units, order, seed)
    if skip is not None:
        every = units[0 : len(units)]  # a resumed full read: only what is left (materialized)
        units = every[~np.isin(every, skip)]
    yield from iter_seekable_batches(
        seekable,
        plan,
        units,
        batch_units=batch_units,
        cap=reader.line_cap,
        scale=run.batch_scale,
        prescan=prescan,
        prescan_units=prescan_units,
        workers=workers,
    )
    next_unit = plan.total_units
    for source in (s for s in run.sources if not s.seekable):
        for batch in iter_stream_batches(
            source,
            unit_size=unit_size,
            first_unit=next_unit,
            batch_bytes=run.batch_bytes,
            cap=reader.line_cap,
        ):
            next_unit = int(batch.units[-1]) + 1 if len(batch.units) else next_unit
            if skip is not None and len(batch.units) and np.isin(batch.units, skip).all():
                continue  # counted before the checkpoint: read again (a stream), not counted
            yield batch


def draw_seed(run: Run) -> int:
    """The run's seed: ``--seed``, else a random one (drawn once, kept on the run)."""
    if run.seed is None:
        run.seed = _seed(run)
    return run.seed


def _seed(run: Run) -> int:
    seed = run.settings.analysis.seed
    return seed if seed is not None else secrets.randbits(63)


def _rules(run: Run) -> list[RouteRule]:
    return [RouteRule(r.name, r.pattern, r.replacement) for r in run.settings.routes.rules]


def _stop_partial(run: Run, why: str, reason: str = "interrupted") -> None:
    run.partial = True
    run.warnings.append(f"partial answer: {why}; counts cover only what was read")
    tally = run.acc.snapshot()
    total = sum(s.size or 0 for s in run.sources)
    fraction = tally.bytes_read / total if total and all(s.seekable for s in run.sources) else 0.0
    run.decisions.append(
        DecisionRecord(
            units_read=tally.units,
            fraction_read=round(fraction, 6),
            action="STOP_PARTIAL",
            reason=reason,
            detail=why,
        )
    )
    log.warning("stop_partial", reason=why, units_read=tally.units)
    _resume_hint(run)


def _resume_hint(run: Run) -> None:
    sink = run.env.checkpoint
    if sink is not None and run.saved:
        run.warnings.append(f"progress saved: `logagent resume {sink.path}` goes on from here")
