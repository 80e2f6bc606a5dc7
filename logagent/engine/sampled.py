"""The early-stop read loop: random-order units, evidence and Router-Mem after each batch.

Reads the pilot (``min(max(50, 1% B), 500)`` units) as one batch, then
batches of about ``batch_bytes``; after each it updates the evidence (pure),
asks ``router.decide`` (pure) and records the decision. Edges (clock, memory)
come from ``RunEnv``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from logagent.config import memory_budget_bytes
from logagent.engine.healthy import Checks, ChecksPlan, plan_checks
from logagent.engine.loops import (
    ErrorRateLoop,
    Loop,
    TopErrorsLoop,
    reapply_steps,
    release_if_tight,
    replay_tally,
)
from logagent.engine.run import ProgressEvent, Run
from logagent.engine.tallied import Feed, Tallied
from logagent.errors import InputCorrupt
from logagent.evidence import race, rates
from logagent.evidence.unitsize import pilot_units
from logagent.formats import Format
from logagent.result import QuestionKind
from logagent.routermem.forecast import Forecast
from logagent.routermem.router import (
    Action,
    Budget,
    Decision,
    EvidenceView,
    MemoryView,
    ProgressView,
    Reason,
    decide,
)
from logagent.sources import Batch, Source, UnitPlan, iter_seekable_batches
from logagent.sources.batches import I64, batch_bounds
from logagent.sources.files import InputChanged, ReadStopped
from logagent.sources.permute import Ordering

#: Batches grow by this factor up to MAX_BATCH_BYTES (and 1/64 of the input): a decision costs
#: a fixed ~20 ms of Polars and numpy, so long runs decide less often; the overshoot past
#: the settling point is at most one batch.
BATCH_GROWTH = 1.5
MAX_BATCH_BYTES = 16 << 20
#: ... and batches of small units are counted in units too: each unit is a positional read
#: (~4-6 us here) and a column of the evidence, so 8 MiB of 64 B units (131k of them) would
#: cost a second before the first decision after the pilot and overshoot the stop by as much.
FIRST_BATCH_UNITS = 8192
MAX_BATCH_UNITS = 1 << 16


def unit_bound(unit_size: int, fmt: Format) -> float:
    """M: the most records one unit can hold, since the parser counts no line under l_min."""
    return float(math.ceil(unit_size / fmt.min_line_bytes))


#: Population used for a stream read under --assume-exchangeable: unknown and large, so the
#: WoR e-process becomes the i.i.d. (super-population) one: the answer is model-based.
STREAM_POPULATION = 10**12


def seekable_batches(
    run: Run, plan: UnitPlan, order: Ordering, seekable: list[Source], *, start: int = 0
) -> Iterator[Batch]:
    """Random-order batches of a seekable input: the pilot, then growing batches.

    ``start``: units of the order already read (a resumed run). Batches shrink
    once Router-Mem took the "smaller batches" step.
    """
    return iter_seekable_batches(
        seekable, plan, order, cap=run.settings.reader.line_cap, **_schedule(run, plan, start)
    )


def sampled_slices(run: Run, plan: UnitPlan, order: Ordering, *, start: int = 0) -> Iterator[I64]:
    """The slices of ``order`` that ``seekable_batches`` reads as batches, in turn (a
    backend reads each elsewhere; ``scale`` is asked as each slice is cut)."""
    sched = _schedule(run, plan, start)
    units = sched.pop("batch_units")
    for lo, hi in batch_bounds(len(order), units, **sched):
        yield order[lo:hi]


def _schedule(run: Run, plan: UnitPlan, start: int) -> dict[str, Any]:
    """The batch schedule of a sampled read: the pilot, then batches growing to a cap."""
    total = plan.total_units
    first = max(1, min(run.batch_bytes // plan.unit_size, FIRST_BATCH_UNITS))
    first_units = run.budget_units(total, first)
    most = run.budget_units(
        total, min(MAX_BATCH_BYTES // plan.unit_size, MAX_BATCH_UNITS, total // 64)
    )
    return {
        "batch_units": first_units,
        # a main phase's pilot reads at least the bytes the unit-size pilot read (in units of
        # 64 B, 500 of them would see too few events to forecast anything)
        "first": min(total, max(pilot_units(total), run.main_pilot)),
        "growth": BATCH_GROWTH,
        "max_units": max(first_units, most),
        "start": start,
        "scale": run.batch_scale,
    }


def read_sampled(
    run: Run,
    fmt: Format,
    feed: Feed,
    *,
    population: int,
    unit_size: int,
    parse_rate: float,
    replay: tuple[I64, ...] = (),
    cost_factor: float | None = None,
) -> bool:
    """Read batches until Router-Mem says stop; the evidence stays in ``run``.

    ``feed`` gives the counted batches in reading order (``tallied.iter_tallied``
    here, or a backend's), asked before each batch what the share checks need.

    ``replay``: the batches a checkpoint holds (their counts are in ``run.acc``);
    the evidence is rebuilt from them, batch by batch as first read, before
    reading on. Returns True when Router-Mem chose to DEGRADE to a full read.
    ``cost_factor`` (``evidence.unitsize``): what reading by units costs, for that choice.
    """
    bound = unit_bound(unit_size, fmt)
    checks = Checks(_checks_plan(run, population, unit_size, bound, parse_rate), active=not replay)
    loop = _loop_for(run, population, bound, checks.plan.question_share)
    budget = _budget(run)
    limit = memory_budget_bytes(run.settings.budget.memory, run.env.available_memory())
    total_bytes = sum(s.size or 0 for s in run.sources if s.seekable) or None
    snapshot = run.acc.snapshot()
    for units in replay:
        loop.account(replay_tally(snapshot, units), units)
    if replay:
        reapply_steps(run, loop.candidates())
    # bytes and lines read so far, for the progress display
    done = [snapshot.bytes_read if replay else 0, snapshot.lines if replay else 0]
    seekable = population != STREAM_POPULATION
    every = run.settings.checkpoint.every

    def after_batch(batch_bytes: int, units: int, lines: int, tick: float) -> Decision:
        """Ask Router-Mem about the evidence so far, trace the decision, take a memory step."""
        done[0] += batch_bytes
        done[1] += lines
        view = replace(_with_checks(loop.view(parse_rate), checks), cost_factor=cost_factor)
        if not seekable:  # forward-only: never DEGRADE, read on instead
            view = replace(view, forecast_fraction=None)
        memory = loop.memory(limit, batch_bytes, units, tuple(run.ladder))
        release_if_tight(run, memory, len(loop.read_units))
        decision = decide(view, memory, budget, loop.progress())
        run.evidence_s += time.thread_time() - tick
        if decision.action is Action.STOP_PARTIAL and seekable:
            run.save("sampled", "random", batches=loop.read_units)  # before the stop is traced
        run.record(decision, loop.read, population)
        if run.env.on_progress:
            run.env.on_progress(ProgressEvent(done[0], total_bytes, done[1]))
        if decision.step:
            loop.take_step(decision.step)
        return decision

    # A resumed run first takes the decision its last batch was stopped before.
    traced = run.decisions[-1].units_read if run.decisions else 0
    pending = bool(replay) and traced != loop.read
    items = feed(checks.needs)
    try:
        return _loop_batches(run, loop, items, pending, after_batch, every, seekable, checks)
    except ReadStopped as exc:  # a signal or budget inside a batch (one very long line)
        _stop_unread(run, loop, population, exc.message, Reason(exc.reason))
        return False
    except InputCorrupt as exc:  # the input shrank or was replaced: keep what is counted
        reason = Reason.INPUT_CHANGED if isinstance(exc, InputChanged) else Reason.INPUT_DAMAGED
        _stop_unread(run, loop, population, str(exc), reason)
        return False
    except MemoryError:  # a batch did not fit after all: keep what is counted, say so
        _stop_unread(
            run, loop, population, "out of memory while reading (MemoryError)", Reason.MEMORY
        )
        return False


def _stop_unread(run: Run, loop: Loop, population: int, why: str, reason: Reason) -> None:
    """A batch could not be read: a partial answer from what is counted, saying why."""
    run.partial = True
    run.warnings.append(
        f"partial answer: {why}; counts cover only what was read"
        + ("; the last periodic checkpoint is intact" if run.saved else "")
    )
    run.record(Decision(Action.STOP_PARTIAL, reason, why), loop.read, population)


def _loop_batches(
    run: Run,
    loop: Loop,
    items: Iterator[Tallied],
    pending: bool,
    after_batch: Callable[[int, int, int, float], Decision],
    every: int,
    seekable: bool,
    checks: Checks,
) -> bool:
    """The loop of ``read_sampled``: batch, evidence, decision, until a stop or the end."""
    while True:
        if pending:
            decision, pending = after_batch(0, 0, 0, time.thread_time()), False
        else:
            item = next(items, None)
            if item is None:
                break
            tally = item.tally
            run.acc.add(tally)
            tick = time.thread_time()  # CPU of this thread: waits for the reader's GIL don't count
            checks.observe(item.units, tally.unit_errors, item.unit_lines, item.unit_records)
            loop.account(tally, item.units)
            decision = after_batch(item.bytes_read, len(item.units), item.lines, tick)
        if decision.step:
            continue
        if decision.action is Action.DEGRADE:
            return True
        if decision.action is not Action.CONTINUE:
            loop.conclude(decision)
            return False
        if seekable and run.env.checkpoint is not None and len(loop.read_units) % every == 0:
            run.save("sampled", "random", batches=loop.read_units)
    loop.conclude(
        Decision(Action.STOP_SETTLED, Reason.EXHAUSTED, "every unit read"), exhausted=True
    )
    return False


def _checks_plan(
    run: Run, population: int, unit_size: int, bound: float, parse_rate: float
) -> ChecksPlan:
    """The share checks of this read: none for a stream, none inside a time window."""
    a, q = run.settings.analysis, run.question
    if population == STREAM_POPULATION:
        return ChecksPlan(None, None)
    return plan_checks(
        kind=q.kind,
        delta=q.delta,
        negligible=a.negligible,
        min_parse_rate=a.min_format_confidence,
        parse_rate=parse_rate,
        population=population,
        unit_size=unit_size,
        bound=bound,
        windowed=bool(q.since or q.until),
        abort_left=run.abort_left,
    )


def _with_checks(view: EvidenceView, checks: Checks) -> EvidenceView:
    """The question's evidence plus the share checks; the forecast is the sooner of the two."""
    negligible, format_check = checks.views()
    forecast = view.forecast_fraction
    neg = checks.forecast()
    if neg is not None and forecast is not None:
        forecast = min(forecast, neg)
    if checks.holds_degrade:
        forecast = None
    return replace(
        view, negligible=negligible, format_check=format_check, forecast_fraction=forecast
    )


def _loop_for(run: Run, population: int, bound: float, delta_share: float = 1.0) -> Loop:
    """The evidence of the run's question, at its share of delta (the checks take the rest)."""
    a, q = run.settings.analysis, run.question
    delta = q.delta * delta_share
    if q.kind is QuestionKind.ERROR_RATE:
        return ErrorRateLoop(
            run, rates.RatePlan(q.top, delta, population, bound, q.min_requests, a.max_candidates)
        )
    plan = race.RacePlan(
        k=q.top,
        delta=delta,
        population=population,
        bound=bound,
        epsilon=q.epsilon,
        max_candidates=a.max_candidates,
        ranked=a.ranked,
    )
    return TopErrorsLoop(run, plan)


def _budget(run: Run) -> Budget:
    b = run.settings.budget
    return Budget(
        max_seconds=b.max_seconds,
        max_cpu_seconds=b.max_cpu_seconds,
        max_fraction=b.max_fraction,
        min_parse_rate=run.settings.analysis.min_format_confidence,
        degrade_above=run.settings.analysis.degrade_above,
    )


class FullReadGuard:
    """Router-Mem for a read of everything: no evidence to settle, but interrupts, budgets and
    the memory forecast still stop it with a partial answer (decide() rules 5-7)."""

    def __init__(self, run: Run, total_units: int, already_read: int = 0) -> None:
        self.run, self.total_units = run, total_units
        self.budget = _budget(run)
        self.limit = memory_budget_bytes(run.settings.budget.memory, run.env.available_memory())
        self.read = already_read  # a resumed read counts its earlier sessions' units too
        self.batches = 0
        self.forecast = Forecast()
        self.forecast.start(run.env.rss(), run.env.peak_rss())

    def check(self, batch: Batch) -> Decision | None:
        """A STOP_PARTIAL or memory-step decision after this batch (traced), or None to go on."""
        self.read += len(batch.units)
        env = self.run.env
        rss = env.rss()
        units = len(batch.units)
        self.forecast.observe(rss, env.peak_rss(), batch.bytes_read, units)
        streams = any(not s.seekable for s in self.run.sources)
        total = STREAM_POPULATION if streams else max(self.total_units, self.read)
        progress = ProgressView(
            self.read,
            total,
            env.clock() - self.run.started,
            self.run.cpu_for_budget(),
            env.interrupted(),
        )
        steps = tuple(self.run.ladder)
        nxt = self.forecast.next_batch(batch.bytes_read, units)
        memory = MemoryView(rss, self.limit, nxt, steps)
        self.batches += 1
        release_if_tight(self.run, memory, self.batches)
        evidence = EvidenceView(settled=False, pilot_done=False, parse_rate=1.0, events=1)
        decision = decide(evidence, memory, self.budget, progress)
        if decision.step:
            self.run.record(decision, self.read, total)
            return decision
        return decision if decision.action is Action.STOP_PARTIAL else None
