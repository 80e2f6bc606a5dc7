"""The unit size chosen for the question after a pilot, then a fresh sample (EDGE: reads the pilot).

For a large seekable input (``reader.adapt_from`` bytes on) and a ranking
question, the pilot reads ``pilot_units(B)`` units of the default size, in the
run's random order, and estimates the gaps the asked answer must resolve
(the k-th key against the next and against REST; each adjacent pair with
``--ranked``). ``evidence.unitsize.choose`` then picks S by the forecast cost
of the read. The main phase plans the units of S, draws a *fresh* permutation
(its own seed, derived from the run's) and starts its evidence from nothing:
the pilot's data only chose S, and a fresh order is independent of them, so
the main phase's guarantee is as if S had been fixed in advance. The pilot's
bytes still count as read; its counts are not in the answer. When no size is
forecast to beat a read of everything, the run degrades at once. The trace
says the chosen S, M, the binding gap and the forecast.
"""

from __future__ import annotations

from dataclasses import dataclass

from logagent.counters import Accumulator, Tally
from logagent.engine.loops import add_totals
from logagent.engine.run import ParsePool, Run
from logagent.engine.tallied import tally_one
from logagent.evidence import race, topk, unitsize
from logagent.evidence.unitsize import pilot_units
from logagent.formats import Format
from logagent.result import QuestionKind
from logagent.routermem.router import Action, Decision, Reason
from logagent.sources import Source, UnitPlan, iter_seekable_batches, plan_units
from logagent.sources.permute import KeyedPermutation, Ordering

#: Questions ranked by the race whose pilot totals are what the race counts.
RANKED = frozenset(
    {
        QuestionKind.TOP_ERRORS,
        QuestionKind.TOP_ERROR_COMPONENTS,
        QuestionKind.TOP,
        QuestionKind.TOP_4XX,
        QuestionKind.TOP_CLIENTS,
    }
)
_SEED_STEP = 0x9E3779B97F4A7C15


@dataclass(frozen=True)
class MainPhase:
    """What the sampled read goes on with: the new plan and order, or a DEGRADE."""

    plan: UnitPlan
    order: Ordering
    degrade: bool = False


def phase_two_seed(seed: int) -> int:
    """The main phase's seed: another permutation than the pilot's, reproducible from the run's."""
    return (seed * 6364136223846793005 + _SEED_STEP) % (1 << 63)


def adaptive(run: Run, known: int) -> bool:
    """Whether this run chooses its unit size after a pilot."""
    reader = run.settings.reader
    return (
        reader.unit_size == "auto"
        and run.resume is None
        and run.env.backend is None
        and known >= reader.adapt_from
        and run.question.kind in RANKED
        and not run.question.since
        and not run.question.until
    )


def choose_units(
    run: Run,
    fmt: Format,
    plan: UnitPlan,
    order: Ordering,
    sources: list[Source],
    pool: ParsePool,
    known: int,
) -> MainPhase:
    """Read the pilot, choose S, trace it, and leave the run ready for the main phase."""
    n = pilot_units(plan.total_units)
    cap = run.settings.reader.line_cap
    (batch,) = iter_seekable_batches(sources, plan, order[:n], batch_units=n, cap=cap)
    pilot = tally_one(batch, pool, fmt, (False, False)).tally
    choice = _choice(run, fmt, plan, pilot, known, prescanned=pool.prescan() is not None)
    run.acc = Accumulator()
    run.acc.add(Tally(bytes_read=pilot.bytes_read))  # the pilot was read: it counts as read
    never = run.settings.analysis.degrade_above >= 1.0  # the early stop itself is asked for
    if not choice.gaps or choice.cost < 1.0 or never:
        pays = bool(choice.gaps) and choice.cost < 1.0
        size = choice.unit_size if pays else plan.unit_size
        new = plan_units([s.size or 0 for s in sources], size)
        detail = choice.describe() if pays else _kept(plan.unit_size, bool(choice.gaps))
        run.record(Decision(Action.CONTINUE, Reason.UNIT_SIZE, detail), n, plan.total_units)
        run.unit_size = size
        run.main_pilot = -(-pilot.bytes_read // size)
        run.main_seed = phase_two_seed(run.seed or 0)
        # keyed whatever its size: only the ranks read are computed (a materialized
        # permutation of 2.4M units costs 0.25 s)
        return MainPhase(new, KeyedPermutation(new.total_units, run.main_seed))
    g = choice.binding
    assert g is not None
    detail = (
        f"the pilot's binding gap ({g.a:,.0f} vs {g.b:,.0f} estimated over the input) leaves "
        f"no unit size whose sampled read is forecast cheaper than reading everything (the "
        f"cheapest: {choice.unit_size:,} B units, ~{choice.fraction:.0%} read at "
        f"{choice.cost:.1f}x the time of a full read): read it all"
    )
    run.record(Decision(Action.DEGRADE, Reason.FULL_READ_CHEAPER, detail), n, plan.total_units)
    return MainPhase(plan, order, degrade=True)


def _kept(size: int, gap: bool) -> str:
    why = (
        "no size is forecast to pay (a full read is not allowed: degrade_above = 1)"
        if gap
        else "the pilot saw too few keys to estimate a gap"
    )
    return f"unit size {size:,} B kept: {why}; a fresh permutation is read with fresh e-processes"


def _choice(
    run: Run, fmt: Format, plan: UnitPlan, pilot: Tally, known: int, *, prescanned: bool
) -> unitsize.UnitChoice:
    """S for the main phase from the pilot's per-key totals, scaled to the whole input."""
    seen: dict[str, int] = {}
    add_totals(seen, pilot.counts, errors_only=True)
    scale = plan.total_units / max(pilot.units, 1)
    totals = {key: n * scale for key, n in seen.items()}
    q, a = run.question, run.settings.analysis
    rplan = race.RacePlan(
        k=q.top,
        delta=q.delta,
        population=plan.total_units,
        bound=1.0,
        max_candidates=a.max_candidates,
        ranked=a.ranked,
    )
    cands = race.candidate_count(rplan)
    gaps = unitsize.top_k_gaps(totals, q.top, candidates=cands, ranked=a.ranked)
    threshold = q.top * cands / topk.stage_delta(q.delta / 2, 1)
    return unitsize.choose(
        gaps,
        total_bytes=known,
        min_event_bytes=fmt.min_line_bytes,
        threshold=threshold,
        prescanned=prescanned,
    )
