"""The early-stop read loop: random-order units, evidence and Router-Mem after each batch.

Reads the pilot (``min(max(50, 1% B), 500)`` units) as one batch, then
batches of about ``batch_bytes``; after each it updates the evidence (pure),
asks ``router.decide`` (pure) and records the decision. Edges (clock, memory)
come from ``RunEnv``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator

import numpy as np
import polars as pl

from logagent.config import memory_budget_bytes
from logagent.counters.tally import ROUTE, N, Tally
from logagent.evidence import race
from logagent.evidence.matrix import UnitCounts, unit_counts
from logagent.formats import STATUS, Format
from logagent.router import (
    Action,
    Budget,
    Decision,
    EvidenceView,
    MemoryView,
    ProgressView,
    Reason,
    decide,
)
from logagent.run import ParsePool, ProgressEvent, Run
from logagent.sources import Batch, Source, UnitPlan, iter_seekable_batches
from logagent.sources.batches import I64
from logagent.sources.prefetch import iter_prefetched

#: Batches grow by this factor up to MAX_BATCH_BYTES (and 1/64 of the input): a decision costs
#: a fixed ~20 ms of Polars and numpy, so long runs decide less often; the overshoot past
#: the settling point is at most one batch.
BATCH_GROWTH = 1.5
MAX_BATCH_BYTES = 16 << 20


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
    run: Run, plan: UnitPlan, order: I64, seekable: list[Source]
) -> Iterator[Batch]:
    """Random-order batches of a seekable input: the pilot, then growing batches."""
    first_units = max(1, run.settings.reader.batch_bytes // plan.unit_size)
    total = plan.total_units
    return iter_seekable_batches(
        seekable,
        plan,
        order,
        batch_units=first_units,
        cap=run.settings.reader.line_cap,
        first=pilot_units(total),
        growth=BATCH_GROWTH,
        max_units=max(first_units, min(MAX_BATCH_BYTES // plan.unit_size, total // 64)),
    )


def read_sampled(
    run: Run,
    fmt: Format,
    batches: Iterator[Batch],
    pool: ParsePool,
    *,
    population: int,
    unit_size: int,
    parse_rate: float,
) -> bool:
    """Read batches until Router-Mem says stop; the evidence stays in ``run``.

    Returns True when Router-Mem chose to DEGRADE to a full read in file order.
    """
    a = run.settings.analysis
    rp = race.RacePlan(
        k=run.question.top,
        delta=run.question.delta,
        population=population,
        bound=unit_bound(unit_size, fmt),
        epsilon=run.question.epsilon,
        max_candidates=a.max_candidates,
        ranked=a.ranked,
    )
    budget = _budget(run)
    limit = memory_budget_bytes(run.settings.budget.memory, run.env.available_memory())
    total_bytes = sum(s.size or 0 for s in run.sources if s.seekable) or None
    loop = _Loop(run, rp)
    done = 0
    for batch in iter_prefetched(batches, depth=1):
        done += batch.bytes_read
        pool.add(batch)
        tally = pool.flush()
        run.acc.add(tally)
        tick = time.thread_time()  # CPU of this thread: waits for the reader's GIL don't count
        loop.account(tally, batch.units)
        decision = decide(
            loop.view(parse_rate), loop.memory(limit, batch.bytes_read), budget, loop.progress()
        )
        run.evidence_s += time.thread_time() - tick
        run.record(decision, loop.read, population)
        if run.env.on_progress:
            run.env.on_progress(ProgressEvent(done, total_bytes, batch.lines))
        if decision.action is Action.DEGRADE:
            return True
        if decision.action is not Action.CONTINUE:
            loop.conclude(decision)
            return False
    loop.conclude(
        Decision(Action.STOP_SETTLED, Reason.EXHAUSTED, "every unit read"), exhausted=True
    )
    return False


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
    """What the sampled loop carries between batches."""

    def __init__(self, run: Run, plan: race.RacePlan) -> None:
        self.run, self.plan = run, plan
        self.read = 0
        self.read_units: list[I64] = []  # reading order, batch by batch
        self.totals: dict[str, int] = {}
        self.state: race.RaceState | None = None
        self.last_rss = run.env.rss()
        self.growth = 0

    def account(self, tally: Tally, units: I64) -> None:
        """Add a batch's counts to the evidence."""
        _add_totals(self.totals, tally.counts)
        self.read += len(units)
        self.read_units.append(units)
        rows = tally.unit_errors

        def new(cands: tuple[str, ...]) -> UnitCounts:
            return unit_counts(rows, units, cands)

        if self.state is None:
            self.state = race.begin(self.plan, self.totals, self.read, self._history)
        else:
            self.state = race.advance(self.plan, self.state, new, self.totals, self._history)

    def _history(self, cands: tuple[str, ...]) -> UnitCounts:
        snapshot = self.run.acc.snapshot()
        return unit_counts(snapshot.unit_errors, np.concatenate(self.read_units), cands)

    def view(self, parse_rate: float) -> EvidenceView:
        """What the router needs to know of the evidence."""
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

    def memory(self, limit: int, batch_bytes: int) -> MemoryView:
        """Snapshot and forecast: the larger of the last growth and three batch buffers."""
        rss = self.run.env.rss()
        self.growth, self.last_rss = max(0, rss - self.last_rss), rss
        return MemoryView(rss, limit, max(self.growth, 3 * batch_bytes))

    def progress(self) -> ProgressView:
        """Units read, time and CPU so far, and whether the run was interrupted."""
        env = self.run.env
        return ProgressView(
            self.read,
            self.plan.population,
            env.clock() - self.run.started,
            env.cpu_clock() - self.run.cpu_started,
            env.interrupted(),
        )

    def conclude(self, decision: Decision, *, exhausted: bool = False) -> None:
        """Leave the answer's evidence in the run (nothing when everything was read: exact)."""
        run = self.run
        if decision.action is Action.STOP_PARTIAL:
            run.partial = True
            run.warnings.append(f"partial answer: {decision.detail}; intervals cover what is known")
        if self.state is None or exhausted or self.read >= self.plan.population:
            return
        v = race.verdict(self.plan, self.state)
        run.settled = decision.action is Action.STOP_SETTLED
        run.ties = v.ties
        run.estimates = race.estimates(self.plan, self.state, v.top, self._history)


def _add_totals(totals: dict[str, int], counts: pl.DataFrame) -> None:
    errors = counts.filter(pl.col(STATUS).is_between(500, 599)).group_by(ROUTE).agg(pl.col(N).sum())
    for route, n in errors.iter_rows():
        totals[route] = totals.get(route, 0) + int(n)
