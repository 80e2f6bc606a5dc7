"""The early-stop read loop: random-order units, evidence and Router-Mem after each batch.

Reads the pilot (``min(max(50, 1% B), 500)`` units) as one batch, then
batches of about ``batch_bytes``; after each it updates the evidence (pure),
asks ``router.decide`` (pure) and records the decision. Edges (clock, memory)
come from ``RunEnv``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Collection, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

import numpy as np
import polars as pl

from logagent.config import memory_budget_bytes
from logagent.counters import sketch
from logagent.counters.tally import ROUTE, UNIT, N, Tally
from logagent.engine.healthy import Checks, ChecksPlan, plan_checks
from logagent.engine.run import ProgressEvent, Run
from logagent.engine.tallied import Feed, Tallied
from logagent.errors import InputCorrupt
from logagent.evidence import race, rates
from logagent.evidence.matrix import UnitCounts, unit_counts
from logagent.formats import STATUS, Format
from logagent.questions import counts_events
from logagent.result import QuestionKind
from logagent.routermem.forecast import Forecast
from logagent.routermem.router import (
    Action,
    Budget,
    Decision,
    EvidenceView,
    MemoryLevel,
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
#: Under memory pressure (level MEDIUM or HIGH), freed heap pages go back to the system
#: (``RunEnv.release_memory``) every this many batches; not when memory is plentiful, since
#: trimmed pages must be faulted in again (~4 us each here: 10-30 % of a full read's time).
RELEASE_EVERY = 4
#: Threads computing the final intervals (total and each key's share) at once.
INTERVAL_THREADS = 2


def pilot_units(total_units: int) -> int:
    """Stats note §4: ``min(max(50, 1% of B), 500)`` units, at most B."""
    return min(total_units, min(max(50, math.ceil(0.01 * total_units)), 500))


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
    first_units = max(1, min(run.batch_bytes // plan.unit_size, FIRST_BATCH_UNITS))
    total = plan.total_units
    most = min(MAX_BATCH_BYTES // plan.unit_size, MAX_BATCH_UNITS, total // 64)
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
    done = [snapshot.bytes_read if replay else 0]  # bytes read, for the progress display
    seekable = population != STREAM_POPULATION
    every = run.settings.checkpoint.every

    def after_batch(batch_bytes: int, units: int, lines: int, tick: float) -> Decision:
        """Ask Router-Mem about the evidence so far, trace the decision, take a memory step."""
        done[0] += batch_bytes
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
            run.env.on_progress(ProgressEvent(done[0], total_bytes, lines))
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


def _stop_unread(run: Run, loop: _Loop, population: int, why: str, reason: Reason) -> None:
    """A batch could not be read: a partial answer from what is counted, saying why."""
    run.partial = True
    run.warnings.append(
        f"partial answer: {why}; counts cover only what was read"
        + ("; the last periodic checkpoint is intact" if run.saved else "")
    )
    run.record(Decision(Action.STOP_PARTIAL, reason, why), loop.read, population)


def _loop_batches(
    run: Run,
    loop: _Loop,
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


def _loop_for(run: Run, population: int, bound: float, delta_share: float = 1.0) -> _Loop:
    """The evidence of the run's question, at its share of delta (the checks take the rest)."""
    a, q = run.settings.analysis, run.question
    delta = q.delta * delta_share
    if q.kind is QuestionKind.ERROR_RATE:
        return _ErrorRateLoop(
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
    return _TopErrorsLoop(run, plan)


def _budget(run: Run) -> Budget:
    b = run.settings.budget
    return Budget(
        max_seconds=b.max_seconds,
        max_cpu_seconds=b.max_cpu_seconds,
        max_fraction=b.max_fraction,
        min_parse_rate=run.settings.analysis.min_format_confidence,
        degrade_above=run.settings.analysis.degrade_above,
    )


class _Loop:
    """What the sampled loop carries between batches; subclasses hold a question's evidence."""

    def __init__(self, run: Run, population: int) -> None:
        self.run, self.population = run, population
        self.read = 0
        self.read_units: list[I64] = []  # reading order, batch by batch
        self.forecast = Forecast()
        self.forecast.start(run.env.rss(), run.env.peak_rss())

    def account(self, tally: Tally, units: I64) -> None:
        """Add a batch's counts to the evidence."""
        self.read += len(units)
        self.read_units.append(units)
        self._advance(tally, units)

    def _advance(self, tally: Tally, units: I64) -> None:
        raise NotImplementedError

    def view(self, parse_rate: float) -> EvidenceView:
        """What the router needs to know of the evidence."""
        raise NotImplementedError

    def _answer(self, decision: Decision) -> None:
        raise NotImplementedError

    def memory(
        self, limit: int, batch_bytes: int, units: int, steps: tuple[str, ...] = ()
    ) -> MemoryView:
        """Snapshot, and the learned forecast of a next batch like the last one."""
        env = self.run.env
        rss = env.rss()
        self.forecast.observe(rss, env.peak_rss(), batch_bytes, units)
        return MemoryView(rss, limit, self.forecast.next_batch(batch_bytes, units), steps)

    def take_step(self, step: str) -> None:
        """Apply a memory step of Router-Mem's ladder, protecting the evidence's candidates."""
        take_step(self.run, step, self.candidates())

    def candidates(self) -> tuple[str, ...]:
        """The routes the evidence tracks one by one."""
        raise NotImplementedError

    def prune(self, totals: dict[str, int]) -> dict[str, int]:
        """Per-route totals, bounded once the run took the "sketch" step."""
        cap = self.run.settings.budget.sketch_keys
        if "sketch" not in self.run.ladder or len(totals) <= 2 * cap:
            return totals
        return sketch.prune_totals(totals, cap, self.candidates())[0]

    def progress(self) -> ProgressView:
        """Units read, time and CPU so far, and whether the run was interrupted."""
        env = self.run.env
        return ProgressView(
            self.read,
            self.population,
            env.clock() - self.run.started,
            env.cpu_clock() - self.run.cpu_started,
            env.interrupted(),
        )

    def conclude(self, decision: Decision, *, exhausted: bool = False) -> None:
        """Leave the answer's evidence in the run (nothing when everything was read: exact)."""
        run = self.run
        if decision.action is Action.RECUSE:
            run.recused_by = (decision.reason.value, decision.detail)
            return
        if decision.action is Action.STOP_PARTIAL:
            run.partial = True
            run.warnings.append(f"partial answer: {decision.detail}; intervals cover what is known")
            sink = run.env.checkpoint
            if sink is not None and run.saved:
                run.warnings.append(
                    f"progress saved: `logagent resume {sink.path}` goes on from here"
                )
        if self.read == 0 or exhausted or self.read >= self.population:
            return
        run.settled = decision.action is Action.STOP_SETTLED
        self._answer(decision)

    def history(self, frame: pl.DataFrame, cands: tuple[str, ...]) -> UnitCounts:
        """Per-unit counts of everything read so far, in reading order."""
        return unit_counts(frame, np.concatenate(self.read_units), cands)


class _TopErrorsLoop(_Loop):
    """Top-k routes by 5xx count (stats note §4)."""

    def __init__(self, run: Run, plan: race.RacePlan) -> None:
        super().__init__(run, plan.population)
        self.plan = plan
        self.totals: dict[str, int] = {}
        self.state: race.RaceState | None = None

    def candidates(self) -> tuple[str, ...]:
        """The race's candidates."""
        return self.state.ranking.candidates if self.state and self.state.ranking else ()

    def take_step(self, step: str) -> None:
        """As for every loop; without per-unit detail outside C the race keeps its candidates."""
        super().take_step(step)
        if step == "drop_detail":
            self.plan = replace(self.plan, restarts=False)

    def _advance(self, tally: Tally, units: I64) -> None:
        _add_totals(self.totals, tally.counts, errors_only=True)
        self.totals = self.prune(self.totals)
        rows = tally.unit_errors

        def new(cands: tuple[str, ...]) -> UnitCounts:
            return unit_counts(rows, units, cands)

        if self.state is None:
            self.state = race.begin(self.plan, self.totals, self.read, self._history)
        else:
            self.state = race.advance(self.plan, self.state, new, self.totals, self._history)

    def _history(self, cands: tuple[str, ...]) -> UnitCounts:
        return self.history(self.run.acc.snapshot().unit_errors, cands)

    def view(self, parse_rate: float) -> EvidenceView:
        """Settled top-k, and the §6 forecast of the fraction the race will need."""
        assert self.state is not None
        v = race.verdict(self.plan, self.state)
        return EvidenceView(
            settled=v.settled,
            pilot_done=True,
            parse_rate=parse_rate,
            events=self.state.errors,
            forecast_fraction=race.forecast_fraction(self.plan, self.state),
            unsettled_pairs=v.unsettled_pairs,
        )

    def _answer(self, decision: Decision) -> None:
        assert self.state is not None
        v = race.verdict(self.plan, self.state)
        self.run.ties = v.ties
        with ThreadPoolExecutor(INTERVAL_THREADS) as pool:  # numpy frees the GIL: both cores
            self.run.estimates = race.estimates(
                self.plan, self.state, v.top, self._history, each=pool.map
            )


class _ErrorRateLoop(_Loop):
    """Top-k routes by 5xx rate among routes with enough requests (stats note §5 Q4)."""

    def __init__(self, run: Run, plan: rates.RatePlan) -> None:
        super().__init__(run, plan.population)
        self.plan = plan
        self.errors: dict[str, int] = {}
        self.requests: dict[str, int] = {}
        self.state: rates.RateState | None = None

    def candidates(self) -> tuple[str, ...]:
        """The rate evidence's candidates."""
        return self.state.candidates if self.state else ()

    def _advance(self, tally: Tally, units: I64) -> None:
        _add_totals(self.errors, tally.counts, errors_only=True)
        _add_totals(self.requests, tally.counts, errors_only=False)
        if "sketch" in self.run.ladder:
            self.requests = self.prune(self.requests)
            self.errors = {r: n for r, n in self.errors.items() if r in self.requests}
        if self.state is None:
            scale = self.population / self.read
            cands = rates.choose_candidates(self.errors, self.requests, self.plan, scale)
            snapshot = self.run.acc.snapshot()
            pilot = _rate_counts(snapshot, np.concatenate(self.read_units), cands)
            self.state = rates.begin(self.plan, cands, pilot)
        else:
            new = _rate_counts(tally, units, self.state.candidates)
            self.state = rates.observe(self.plan, self.state, new)

    def view(self, parse_rate: float) -> EvidenceView:
        """Settled top-k by rate, and the forecast of the fraction it will need."""
        assert self.state is not None
        v = rates.verdict(self.plan, self.state, self.errors, self.requests)
        forecast = rates.forecast_fraction(self.plan, self.state, self.errors, self.requests)
        return EvidenceView(
            settled=v.settled,
            pilot_done=True,
            parse_rate=parse_rate,
            events=sum(self.errors.values()),
            forecast_fraction=forecast,
            unsettled_pairs=v.unsettled,
        )

    def _answer(self, decision: Decision) -> None:
        assert self.state is not None
        v = rates.verdict(self.plan, self.state, self.errors, self.requests)
        entries = {
            e.key: e for e in rates.entries_of(self.plan, self.state, self.errors, self.requests)
        }
        self.run.rate_entries = [entries[k] for k in v.top]
        self.run.rate_bound = self.plan.bound


def replay_tally(snapshot: Tally, units: I64) -> Tally:
    """What the evidence saw of ``units`` when first read, rebuilt from the per-unit counts.

    The loops use a batch's per-unit rows and its per-route totals of 5xx and
    of records: 5xx are counted as status 500 and the other records as 200.
    """
    keep = pl.col(UNIT).is_in(pl.Series(units, dtype=pl.Int64).implode())
    errors = snapshot.unit_errors.filter(keep)
    requests = snapshot.unit_requests.filter(keep)
    err = errors.group_by(ROUTE).agg(pl.col(N).sum())
    other = (
        requests.group_by(ROUTE)
        .agg(pl.col(N).sum())
        .join(err, on=ROUTE, how="left", suffix="_err")
        .select(ROUTE, (pl.col(N) - pl.col(f"{N}_err").fill_null(0)).alias(N))
        .filter(pl.col(N) > 0)
    )
    counts = pl.concat(
        [
            err.select(ROUTE, pl.lit(500, pl.Int32).alias(STATUS), N),
            other.select(ROUTE, pl.lit(200, pl.Int32).alias(STATUS), N),
        ]
    )
    return Tally(counts=counts, unit_errors=errors, unit_requests=requests, units=len(units))


def _rate_counts(tally: Tally, units: I64, cands: tuple[str, ...]) -> rates.RateCounts:
    errors = unit_counts(tally.unit_errors, units, cands)
    requests = unit_counts(tally.unit_requests, units, cands)
    return rates.RateCounts(errors.x, requests.x, errors.rest)


def _add_totals(totals: dict[str, int], counts: pl.DataFrame, *, errors_only: bool) -> None:
    """Add per-route 5xx (or all records) of a batch to running totals."""
    rows = counts.filter(pl.col(STATUS).is_between(500, 599)) if errors_only else counts
    for route, n in rows.group_by(ROUTE).agg(pl.col(N).sum()).iter_rows():
        totals[route] = totals.get(route, 0) + int(n)


def take_step(run: Run, step: str, protect: Collection[str], *, warn: bool = True) -> None:
    """Apply a step of Router-Mem's memory ladder (router.LADDER) to the run.

    ``smaller_batches`` acts through ``Run.batch_scale``; ``sketch`` bounds the
    per-route counts; ``drop_detail`` collapses what is outside ``protect``
    (nothing when nothing is protected: a new full read keeps no per-unit rows).
    """
    run.ladder.append(step)
    kind = run.question.kind
    keys = run.settings.budget.sketch_keys
    if step == "sketch":
        errors_only, by_status = counts_events(kind), kind is QuestionKind.STATUS
        run.acc.limit(keys, errors_only=errors_only, protect=protect, by_status=by_status)
        if warn:
            run.warnings.append(
                f"memory: per-route counts were bounded to the {keys} heaviest routes "
                "(a heavy-hitters summary); answer.count_error bounds what that lost"
            )
    elif step == "drop_detail" and protect:
        run.acc.drop_detail(protect)
        if warn:
            run.warnings.append(
                f"memory: per-status and per-unit detail was dropped for routes outside the "
                f"{len(protect)} tracked ones (their breakdowns show only 5xx/other)"
            )


def release_if_tight(run: Run, memory: MemoryView, batches: int) -> None:
    """Give freed heap pages back every few batches, only when memory is not plentiful."""
    if memory.level is not MemoryLevel.LOW and batches % RELEASE_EVERY == 0:
        run.env.release_memory()


def reapply_steps(run: Run, protect: Collection[str] = ()) -> None:
    """A new or restored accumulator keeps the memory steps already taken."""
    steps, run.ladder = list(run.ladder), []
    for step in steps:
        take_step(run, step, protect, warn=False)


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
            env.cpu_clock() - self.run.cpu_started,
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
