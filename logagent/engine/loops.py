"""The evidence a sampled read carries between batches, one loop per question (PURE but for
the run's edges: its clock, memory readings and the accumulator's snapshot).

``TopErrorsLoop`` holds the race of a top-k question (stats note §4),
``ErrorRateLoop`` the rate evidence (§5 Q4); both turn each counted batch into
the ``EvidenceView`` Router-Mem decides on, and leave the answer's estimates in
the run when it stops. The memory ladder's steps (``take_step``) act on the run
here too. Split from ``engine.sampled``, whose read loop drives them.
"""

from __future__ import annotations

from collections.abc import Collection
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import numpy as np
import polars as pl

from logagent.counters import sketch
from logagent.counters.tally import ROUTE, UNIT, N, Tally
from logagent.engine.run import Run
from logagent.evidence import race, rates
from logagent.evidence.matrix import UnitCounts, unit_counts
from logagent.formats import STATUS
from logagent.questions import counts_events
from logagent.result import QuestionKind
from logagent.routermem.forecast import Forecast
from logagent.routermem.router import (
    Action,
    Decision,
    EvidenceView,
    MemoryLevel,
    MemoryView,
    ProgressView,
)
from logagent.sources.batches import I64

#: Under memory pressure (level MEDIUM or HIGH), freed heap pages go back to the system
#: (``RunEnv.release_memory``) every this many batches; not when memory is plentiful, since
#: trimmed pages must be faulted in again (~4 us each here: 10-30 % of a full read's time).
RELEASE_EVERY = 4
#: Threads computing the final intervals (total and each key's share) at once.
INTERVAL_THREADS = 2


class Loop:
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
            self.run.cpu_for_budget(),
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
            run.say_resumable()
        if self.read == 0 or exhausted or self.read >= self.population:
            return
        run.settled = decision.action is Action.STOP_SETTLED
        self._answer(decision)

    def history(self, frame: pl.DataFrame, cands: tuple[str, ...]) -> UnitCounts:
        """Per-unit counts of everything read so far, in reading order."""
        return unit_counts(frame, np.concatenate(self.read_units), cands)


class TopErrorsLoop(Loop):
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
        add_totals(self.totals, tally.counts, errors_only=True)
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


class ErrorRateLoop(Loop):
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
        add_totals(self.errors, tally.counts, errors_only=True)
        add_totals(self.requests, tally.counts, errors_only=False)
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


def add_totals(totals: dict[str, int], counts: pl.DataFrame, *, errors_only: bool) -> None:
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
