"""The evidence of a top-errors run: ranking, shares and totals, settled at delta (PURE).

``delta`` is split across what the answer claims: the ranking gets delta/2,
the shares of the reported routes delta/4, the total of all 5xx delta/4
(stats note §5: a joint guarantee by the union bound). The caller feeds the
units it reads, in reading order, and a ``history`` function that rebuilds the
per-unit counts of everything read so far for a new candidate set (restarts).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace

import numpy as np

from logagent.evidence import intervals, topk
from logagent.evidence.matrix import UnitCounts

History = Callable[[tuple[str, ...]], UnitCounts]


@dataclass(frozen=True)
class RacePlan:
    """Parameters of the question's evidence."""

    k: int
    delta: float
    population: int
    bound: float
    epsilon: float = 0.0
    max_candidates: int = 16
    ranked: bool = False
    restarts: bool = True  # False once per-unit detail outside the candidates is dropped

    @property
    def ranking(self) -> topk.TopKPlan:
        """The ranking's own plan, with its share of delta."""
        return topk.TopKPlan(
            self.k,
            self.delta / 2,
            self.population,
            self.bound,
            self.epsilon,
            self.max_candidates,
            self.ranked,
        )


@dataclass(frozen=True)
class RaceState:
    """Everything the evidence knows after ``units`` units."""

    units: int
    totals: Mapping[str, int]
    errors: int
    pilot: int = 0  # units of the first pilot (the total's e-process starts after it)
    ranking: topk.TopKState | None = None
    stage_start: int = 0  # units read when the current stage began (its pilot)
    restarts: int = 0


@dataclass(frozen=True)
class Estimate:
    """One reported route: count seen, full-input estimate and intervals."""

    key: str
    count: int
    estimate: float
    low: float
    high: float
    share: float
    share_low: float
    share_high: float


def candidate_count(plan: RacePlan) -> int:
    """|C|: enough rivals to race (2k + 6), at most ``max_candidates``; REST bounds the others.

    A smaller C lowers the threshold k|C|/delta and the cost per unit; the REST
    statistic keeps every route outside C bounded, so validity does not depend on it.
    """
    return min(plan.max_candidates, 2 * plan.k + 6)


def begin(plan: RacePlan, totals: Mapping[str, int], units: int, history: History) -> RaceState:
    """Start after the pilot (or restart a stage with everything read as the pilot)."""
    state = RaceState(units, dict(totals), sum(totals.values()), pilot=units)
    return _new_stage(plan, state, history, stage=1)


def advance(
    plan: RacePlan,
    state: RaceState,
    new: Callable[[tuple[str, ...]], UnitCounts],
    totals: Mapping[str, int],
    history: History,
) -> RaceState:
    """Account for the units just read: ``new`` gives their counts for a candidate set."""
    ranking = state.ranking
    assert ranking is not None, "advance() after begin()"
    counts = new(ranking.candidates)
    state = replace(
        state,
        units=state.units + counts.x.shape[0],
        totals=dict(totals),
        errors=sum(totals.values()),
    )
    if plan.restarts and topk.needs_restart(plan.ranking, ranking, totals):
        state = replace(state, restarts=state.restarts + 1)
        return _new_stage(plan, state, history, ranking.stage + 1)
    return replace(state, ranking=topk.observe(plan.ranking, ranking, counts))


def verdict(plan: RacePlan, state: RaceState) -> topk.Verdict:
    """The current top-k and whether it is settled."""
    assert state.ranking is not None
    return topk.verdict(plan.ranking, state.ranking, state.totals)


#: A ``map`` over the intervals to compute (``builtins.map`` in order, or one over threads).
Mapper = Callable[
    [Callable[[int], tuple[float, float]], Iterable[int]], Iterable[tuple[float, float]]
]


def _serial(
    fn: Callable[[int], tuple[float, float]], items: Iterable[int]
) -> Iterable[tuple[float, float]]:
    return [fn(i) for i in items]


def estimates(
    plan: RacePlan,
    state: RaceState,
    keys: list[str],
    history: History,
    *,
    each: Mapper = _serial,
) -> list[Estimate]:
    """Counts, full-input estimates and time-uniform intervals of ``keys``.

    The share and total e-processes are computed here, once, over the units
    read in order: they do not drive the stop, and computing a process late
    gives the same path as computing it as the units arrived. Each share runs
    from its stage's start for every candidate of the stage (the threshold
    counts all |C|), so evaluating only the reported ones is enough. The
    intervals are independent of each other: ``each`` (a ``map``; the engine
    passes one over threads, numpy releasing the GIL) computes them.
    """
    assert state.ranking is not None
    if not keys:  # nothing to report (a negligible stop with no 5xx seen): no interval to build
        return []
    scale = plan.population / max(state.units, 1)
    left = (plan.population - state.units) * plan.bound
    shares = [state.totals.get(key, 0) / state.errors if state.errors else 0.0 for key in keys]
    pool = pooled(plan, state, history(state.ranking.candidates))
    counts, bplan, bstate = pool.counts, pool.plan, pool.state

    def interval(i: int) -> tuple[float, float]:  # -1: the total; i: the share of keys[i]
        if i < 0:
            lo, hi = _total_interval(bplan, bstate, counts, left)
            return lo, hi + pool.tail
        return _share_interval(bplan, bstate, counts, keys[i], shares[i])

    total_iv, *share_ivs = each(interval, range(-1, len(keys)))
    share_ivs = [pool.widen(iv, total_iv[0]) for iv in share_ivs]
    out = []
    for key, share, (s_lo, s_hi) in zip(keys, shares, share_ivs, strict=True):
        count = state.totals.get(key, 0)
        low = max(float(count), s_lo * total_iv[0])
        high = min(float(count) + left, s_hi * total_iv[1])
        out.append(Estimate(key, count, count * scale, low, max(low, high), share, s_lo, s_hi))
    return out


#: Past this many units read, the reported intervals run over blocks of consecutive units.
#: High: blocks cost width (the bets are capped by g M, and most blocks hold far less):
#: at 21k units of 1 KiB, blocks of 3 widened a 10 GB top route's interval from
#: [77k, 255k] to [48k, 416k], so only reads of 10^5+ tiny units are pooled.
MAX_DRAWS = 1 << 16


@dataclass(frozen=True)
class Pooled:
    """The units read as blocks of ``g`` consecutive ones, for the reported intervals.

    Their e-processes cost grid x draws: 10^5 tiny units read would spend
    seconds on them. In a uniformly random order the blocks of g consecutive
    units come in a uniformly random order among the N // g complete blocks
    (any order of the same blocks is as likely), their totals sum to those of
    the units in them, and each holds at most g M: the same sequences over the
    blocks read (population N // g, bound g M) are valid at every block count,
    hence at the stop. A stage starts at the first block wholly after its first
    unit (so every bet is placed before its block is read). The last N mod g
    units of the order form no block and are unread (t < N): ``tail``, at most
    ``(N mod g) M`` events, widens the total's top and each share (``widen``).
    The units after the last complete block read are left to the sure bounds.
    """

    counts: UnitCounts
    plan: RacePlan
    state: RaceState
    tail: float = 0.0

    def widen(self, share: tuple[float, float], total_low: float = 0.0) -> tuple[float, float]:
        """A share of the blocks' units, made one of all units: ``tail`` events may be
        anywhere (or none), so ``s T / (T + tail)`` and ``s + tail / T`` bound it."""
        lo, hi = share
        if not self.tail:
            return share
        if total_low <= 0:
            return 0.0, 1.0
        return lo * total_low / (total_low + self.tail), min(1.0, hi + self.tail / total_low)


def pooled(plan: RacePlan, state: RaceState, counts: UnitCounts, most: int | None = None) -> Pooled:
    """``counts`` in blocks when more than ``most`` (MAX_DRAWS) units were read."""
    most = MAX_DRAWS if most is None else most
    t = len(counts.all_errors)
    if t <= most:
        return Pooled(counts, plan, state)
    g = -(-t // most)
    if t > plan.population - g:  # the units past the last block may have been read: no blocks
        return Pooled(counts, plan, state)
    blocks = t // g

    def sums(a: np.ndarray) -> np.ndarray:
        return np.asarray(a[: blocks * g].reshape(blocks, g, *a.shape[1:]).sum(axis=1))

    pooled_counts = UnitCounts(sums(counts.x), sums(counts.rest), sums(counts.all_errors))
    bplan = replace(plan, population=plan.population // g, bound=plan.bound * g)
    bstate = replace(
        state,
        units=blocks,
        pilot=min(blocks, -(-state.pilot // g)),
        stage_start=min(blocks, -(-state.stage_start // g)),
    )
    return Pooled(pooled_counts, bplan, bstate, (plan.population % g) * plan.bound)


def _new_stage(plan: RacePlan, state: RaceState, history: History, stage: int) -> RaceState:
    cands = topk.choose_candidates(state.totals, candidate_count(plan))
    ranking = topk.begin(plan.ranking, cands, history(cands), stage)
    return replace(state, ranking=ranking, stage_start=state.units)


def _share_interval(
    plan: RacePlan, state: RaceState, counts: UnitCounts, key: str, share: float
) -> tuple[float, float]:
    assert state.ranking is not None
    cands = state.ranking.candidates
    if key not in cands:
        return 0.0, 1.0
    j, s0 = cands.index(key), state.stage_start
    thr = 2 * max(len(cands), 1) / topk.stage_delta(plan.delta / 4, state.ranking.stage)
    cs = intervals.begin(intervals.SHARE_GRID, counts.x[:s0, j], counts.all_errors[:s0], scale=1.0)
    cs = intervals.observe(
        cs,
        counts.x[s0:, j],
        counts.all_errors[s0:],
        scale=1.0,
        population=plan.population,
        bound=plan.bound,
        weight_max=plan.bound,
        threshold=thr,
    )
    iv = intervals.interval(cs, thr)
    if iv is None:  # narrower than the grid: every grid value is rejected
        step = float(intervals.SHARE_GRID[1] - intervals.SHARE_GRID[0])
        iv = (share - step, share + step)
    return max(0.0, iv[0]), min(1.0, iv[1])


def _total_interval(
    plan: RacePlan, state: RaceState, counts: UnitCounts, left: float
) -> tuple[float, float]:
    lo, hi = float(state.errors), float(state.errors) + left
    a = counts.all_errors
    s0 = min(state.pilot, len(a))
    grid = intervals.total_grid(plan.population, plan.bound)
    cs = intervals.begin(grid, a[:s0], np.ones(s0), scale=plan.population)
    cs = intervals.observe(
        cs,
        a[s0:],
        np.ones(len(a) - s0),
        scale=plan.population,
        population=plan.population,
        bound=plan.bound,
        weight_max=1.0,
        threshold=2 / (plan.delta / 4),
    )
    iv = intervals.interval(cs, 2 / (plan.delta / 4))
    if iv is not None:
        lo, hi = max(lo, iv[0]), min(hi, iv[1])
    return lo, max(lo, hi)


def forecast_fraction(plan: RacePlan, state: RaceState) -> float:
    """Stats note §6: fraction of units read when the race will settle, from today's gap.

    ``1 - (1 - f0) exp(-M ln(thr) / (c G))`` with G the estimated full-input gap
    between the k-th route and its strongest rival: the (k+1)-th, or REST (all
    errors outside the candidates), which binds when the pilot saw few routes.
    A forecast, used only to choose the cheaper method, never to decide an answer.
    """
    ranked = sorted(state.totals.values(), reverse=True)
    if len(ranked) < plan.k:
        return 1.0
    inside = set(state.ranking.candidates) if state.ranking else set()
    rest = sum(n for r, n in state.totals.items() if r not in inside)
    nxt = max(ranked[plan.k] if len(ranked) > plan.k else 0, rest)
    gap = (ranked[plan.k - 1] - nxt) * plan.population / max(state.units, 1)
    if gap <= 0:
        return 1.0
    cands = max(1, min(candidate_count(plan), len(ranked)))
    thr = plan.k * cands / topk.stage_delta(plan.delta / 2, 1)
    f0 = state.units / plan.population
    return float(1 - (1 - f0) * np.exp(-plan.bound * np.log(thr) / (0.9 * gap)))
