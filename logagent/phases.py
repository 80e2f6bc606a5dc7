"""The two-phase early-stop plan: a pilot chooses the unit size, then a fresh sample (EDGE).

Phase 1 (the pilot) reads ``pilot_units(B)`` units of the default size in a
keyed random order and estimates the gaps the asked answer must resolve.
``evidence.unitsize.choose`` then picks S for phase 2, which plans new units,
draws a *fresh* keyed permutation (its own seed) and starts its evidence from
scratch on an empty accumulator: the pilot's data only chose S, so the
e-processes of phase 2 are valid as if S had been fixed in advance. The pilot's
bytes still count as read. The trace says the chosen S, M and forecast; a
checkpoint written in phase 2 holds phase 2's unit size and seed, with order
``keyed``, so a resume goes on with phase 2.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import polars as pl

from logagent.counters import Accumulator
from logagent.counters.tally import ROUTE, N, Tally
from logagent.evidence import race, topk, unitsize
from logagent.formats import STATUS, Format
from logagent.result import QuestionKind
from logagent.router import Action, Decision, Reason
from logagent.run import ParsePool, Run
from logagent.sampled import BATCH_GROWTH, MAX_BATCH_BYTES, pilot_units
from logagent.sources import Batch, Source, UnitPlan, plan_units
from logagent.sources.gather import gathered_batch, iter_gathered_batches
from logagent.sources.permute import KeyedPermutation

#: Order name of a keyed permutation in checkpoints (``random``: a materialized one).
KEYED = "keyed"
_SEED_STEP = 0x9E3779B97F4A7C15


def phase_two_seed(seed: int) -> int:
    """Phase 2's seed: a different permutation from the pilot's, reproducible from the run's."""
    return (seed * 6364136223846793005 + _SEED_STEP) % (1 << 63)


def pilot(
    run: Run, fmt: Format, plan: UnitPlan, sources: Sequence[Source], pool: ParsePool
) -> Tally:
    """Read the pilot: ``pilot_units(B)`` units of the default size in a keyed random order."""
    n = pilot_units(plan.total_units)
    units = KeyedPermutation(plan.total_units, run.seed or 0)[0:n]
    pool.add(gathered_batch(sources, plan, units, cap=run.settings.reader.line_cap))
    return pool.flush()


def choose_unit(
    run: Run, fmt: Format, plan: UnitPlan, tally: Tally, known: int
) -> unitsize.UnitChoice:
    """Phase 2's unit size from the pilot's per-route 5xx totals, scaled to the whole input."""
    errors = tally.counts.filter(pl.col(STATUS).is_between(500, 599))
    per_route = errors.group_by(ROUTE).agg(pl.col(N).sum())
    scale = plan.total_units / max(tally.units, 1)
    totals = {r: float(n) * scale for r, n in per_route.iter_rows()}
    q, a = run.question, run.settings.analysis
    rplan = race.RacePlan(
        k=q.top,
        delta=q.delta,
        population=1,
        bound=1.0,
        max_candidates=a.max_candidates,
        ranked=a.ranked,
    )
    cands = race.candidate_count(rplan)
    gaps = unitsize.top_k_gaps(totals, q.top, candidates=cands, ranked=a.ranked)
    thr = q.top * cands / topk.stage_delta(q.delta / 2, 1)
    return unitsize.choose(
        gaps,
        total_bytes=known,
        min_event_bytes=fmt.min_line_bytes,
        threshold=thr,
        default=plan.unit_size,
    )


def adaptive(run: Run) -> bool:
    """Whether this run chooses its unit size after a pilot (top-errors style, size not forced)."""
    kind = run.question.kind
    return (
        run.settings.reader.unit_size == "auto"
        and run.resume is None
        and kind is not QuestionKind.ERROR_RATE
        and not getattr(run.settings.reader, "record_start", None)
    )


def start_phase_two(
    run: Run, fmt: Format, plan: UnitPlan, sources: Sequence[Source], pool: ParsePool, known: int
) -> UnitPlan:
    """Pilot, choice of S, trace; leaves the run ready for phase 2 and returns its plan."""
    tally = pilot(run, fmt, plan, sources, pool)
    choice = choose_unit(run, fmt, plan, tally, known)
    plan2 = plan_units([s.size or 0 for s in sources], choice.unit_size)
    run.record(
        Decision(Action.CONTINUE, Reason.UNIT_SIZE, choice.describe()),
        tally.units,
        plan.total_units,
    )
    run.acc = Accumulator()
    run.acc.add(Tally(bytes_read=tally.bytes_read))  # the pilot was read: it counts as read
    run.unit_size = choice.unit_size
    run.seed = phase_two_seed(run.seed or 0)
    return plan2


def keyed_batches(
    run: Run, plan: UnitPlan, sources: Sequence[Source], *, start: int = 0
) -> Iterator[Batch]:
    """Phase 2's batches: the same schedule as ``sampled.seekable_batches``, gathered reads."""
    first_units = max(1, run.batch_bytes // plan.unit_size)
    total = plan.total_units
    return iter_gathered_batches(
        sources,
        plan,
        KeyedPermutation(total, run.seed or 0),
        batch_units=first_units,
        cap=run.settings.reader.line_cap,
        first=pilot_units(total),
        growth=BATCH_GROWTH,
        max_units=max(first_units, min(MAX_BATCH_BYTES // plan.unit_size, total // 64)),
        start=start,
        scale=run.batch_scale,
    )
