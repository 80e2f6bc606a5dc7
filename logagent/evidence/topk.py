"""Top-k routes by 5xx count, settled at level delta (stats note §4) (PURE).

After a pilot, the candidates C are the top m routes seen; every other route,
including routes never seen, is bounded by REST: ``Y_b = max_{u not in C} X_{b,u}``
(so ``T_u <= sum_b Y_b``). For each ordered pair i in C, j in C + {REST} a WoR
e-process tests ``T_i <= T_j`` on ``D = X_i - X_j``. The current top-k S is
settled when every pair (i in S, j outside S) has crossed ``k|C|/delta_stage``
(at most k|C| pairs can be true nulls, §4.4). With a tolerance eps > 0, a pair
whose totals provably differ by less than eps (relative) is a tie, and a tie is
an answer. When a non-candidate rises to half the k-th candidate's count, a new
stage starts: everything read becomes the pilot, C is rebuilt, e-processes
restart at 1; stage j gets ``0.9 delta`` (j = 1) or ``0.1 delta / 2^(j-1)``.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from logagent.evidence.eprocess import WorState, rejected, start_chunked, update
from logagent.evidence.matrix import F64, UnitCounts

I64 = npt.NDArray[np.int64]
CHUNK_UNITS = 256  # bounds the (rows x units) temporaries of one update


@dataclass(frozen=True)
class TopKPlan:
    """Fixed parameters of the race."""

    k: int
    delta: float
    population: int  # B, units in the input
    bound: float  # M, most 5xx lines of one route one unit can hold
    epsilon: float = 0.0
    max_candidates: int = 16
    ranked: bool = False


@dataclass(frozen=True)
class TopKState:
    """One stage of the race."""

    stage: int
    candidates: tuple[str, ...]
    left: I64
    right: I64  # == len(candidates) for REST
    sep: WorState
    tie: WorState | None  # rows: ordered candidate pairs (left, right), eps-closeness


@dataclass(frozen=True)
class Verdict:
    """The current top-k and whether it is settled."""

    top: list[str]
    settled: bool
    ties: list[list[str]]
    unsettled_pairs: int


def stage_delta(delta: float, stage: int) -> float:
    """Error budget of stage ``stage`` (1-based); the budgets sum to at most delta."""
    return 0.9 * delta if stage == 1 else 0.1 * delta / 2 ** (stage - 1)


def choose_candidates(totals: Mapping[str, int], m: int) -> tuple[str, ...]:
    """The top ``m`` routes by count (ties by name), routes with no 5xx left out."""
    ranked = sorted((r for r, n in totals.items() if n > 0), key=lambda r: (-totals[r], r))
    return tuple(ranked[:m])


def begin(plan: TopKPlan, candidates: tuple[str, ...], pilot: UnitCounts, stage: int) -> TopKState:
    """Start a stage with everything read so far as its pilot."""
    c = len(candidates)
    left, right = np.divmod(np.arange(c * (c + 1)), c + 1)
    keep = left != right
    left, right = left[keep], right[keep]
    sep = start_chunked((_pair_draws(p, left, right) for p in _chunks(pilot)), len(left))
    state = TopKState(stage, candidates, left, right, sep, None)
    if plan.epsilon > 0:
        tl, tr = left[right < c], right[right < c]
        ties = (_tie_draws(p, tl, tr, plan.epsilon) for p in _chunks(pilot))
        tie = start_chunked(ties, len(tl))
        state = TopKState(stage, candidates, left, right, state.sep, tie)
    return state


def observe(plan: TopKPlan, state: TopKState, new: UnitCounts) -> TopKState:
    """Bet on the units just read (reading order)."""
    sep, tie = state.sep, state.tie
    c = len(state.candidates)
    for part in _chunks(new):
        sep = update(
            sep,
            _pair_draws(part, state.left, state.right),
            population=plan.population,
            bound=plan.bound,
        )
        if tie is not None:
            keep = state.right < c
            draws = _tie_draws(part, state.left[keep], state.right[keep], plan.epsilon)
            tie = update(
                tie, draws, population=plan.population, bound=(1 + plan.epsilon) * plan.bound
            )
    return TopKState(state.stage, state.candidates, state.left, state.right, sep, tie)


def needs_restart(plan: TopKPlan, state: TopKState, totals: Mapping[str, int]) -> bool:
    """Whether a non-candidate has reached half the k-th candidate's count."""
    inside = [totals.get(r, 0) for r in state.candidates]
    kth = sorted(inside, reverse=True)[plan.k - 1] if len(inside) >= plan.k else 0
    chosen = set(state.candidates)
    outside = max((n for r, n in totals.items() if r not in chosen), default=0)
    return outside > 0 and 2 * outside >= kth


def verdict(plan: TopKPlan, state: TopKState, totals: Mapping[str, int]) -> Verdict:
    """Current top-k within C and whether the data settle it at the stage's budget."""
    cands = state.candidates
    order = sorted(range(len(cands)), key=lambda i: (-totals.get(cands[i], 0), cands[i]))
    top = order[: plan.k]
    outside = [*order[plan.k :], len(cands)]
    families = 2 if plan.epsilon > 0 else 1
    thr = families * plan.k * max(len(cands), 1) / stage_delta(plan.delta, state.stage)
    sep = _crossed(state.left, state.right, rejected(state.sep, thr))
    close = _tied(state, thr)
    ties = [
        [cands[i], cands[j]] for i in top for j in outside if (i, j) in close and (i, j) not in sep
    ]
    missing = [(i, j) for i in top for j in outside if (i, j) not in sep and (i, j) not in close]
    if plan.ranked:
        rank_thr = families * max(len(cands), 1) ** 2 / stage_delta(plan.delta, state.stage)
        ranked = _crossed(state.left, state.right, rejected(state.sep, rank_thr))
        missing += [
            (a, b)
            for a, b in itertools.pairwise(top)
            if (a, b) not in ranked and (a, b) not in close
        ]
    settled = bool(cands) and not missing
    return Verdict([cands[i] for i in top], settled, ties, len(missing))


def _crossed(left: I64, right: I64, mask: npt.NDArray[np.bool_]) -> set[tuple[int, int]]:
    return {(int(a), int(b)) for a, b in zip(left[mask], right[mask], strict=True)}


def _tied(state: TopKState, thr: float) -> set[tuple[int, int]]:
    """Pairs (both orders) whose totals provably differ by less than eps, relative."""
    if state.tie is None:
        return set()
    c = len(state.candidates)
    keep = state.right < c
    one_way = _crossed(state.left[keep], state.right[keep], rejected(state.tie, thr))
    return {(a, b) for a, b in one_way if (b, a) in one_way}


def _chunks(counts: UnitCounts) -> Iterator[UnitCounts]:
    """``counts`` in runs of ``CHUNK_UNITS`` units (reading order): pairs x units stays small."""
    for lo in range(0, counts.x.shape[0], CHUNK_UNITS):
        hi = lo + CHUNK_UNITS
        yield UnitCounts(counts.x[lo:hi], counts.rest[lo:hi], counts.all_errors[lo:hi])


def _pair_draws(counts: UnitCounts, left: I64, right: I64) -> F64:
    """D = X_left - X_right (REST: Y) per pair, as rows x units."""
    z = np.concatenate([counts.x, counts.rest[:, None]], axis=1)
    return np.ascontiguousarray((counts.x[:, left] - z[:, right]).T)


def _tie_draws(counts: UnitCounts, left: I64, right: I64, epsilon: float) -> F64:
    """D = (1+eps) X_right - X_left: rejecting sum(D) <= 0 proves T_left < (1+eps) T_right."""
    return np.ascontiguousarray(((1 + epsilon) * counts.x[:, right] - counts.x[:, left]).T)
