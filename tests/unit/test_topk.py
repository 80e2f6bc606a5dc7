"""The top-k race (stats note §4): seeded simulations over random reading orders, and its parts.

A population is a units x routes array of 5xx counts, each at most M. A run reads the units in
a seeded random order without replacement: a pilot of min(max(50, 1% of B), 500) units, then
fixed batches; after each batch it calls observe (or, when needs_restart says so, rebuilds the
candidates from everything read and begins a new stage with all of it as the pilot) and
verdict, and stops at the first settled verdict. The guarantee is per population, over orders:
a settled top-k is wrong with probability at most delta.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pytest

from logagent.evidence import topk
from logagent.evidence.matrix import UnitCounts

I64 = npt.NDArray[np.int64]
Builder = Callable[[np.random.Generator], I64]

UNITS = 2000  # B
ROUTES = 40
BOUND = 20  # M: most 5xx lines of one route in one unit
DELTA = 0.05
RUNS = 100  # seeded random orders per scenario
BATCH = 40  # units per check after the pilot
# P(Binomial(100, 0.05) > 12) ~ 0.0015: a valid rule exceeds this once in ~700 scenarios.
WRONG_MAX = 12
NAMES = tuple(f"/api/r{j:02d}" for j in range(ROUTES))


@dataclass(frozen=True)
class Run:
    """The outcome of one reading order."""

    verdict: topk.Verdict
    fraction: float  # share of units read when the run stopped
    restarts: int
    winner_in_rest: bool  # the true top route was not a candidate after the pilot


def pilot_size(units: int) -> int:
    """Pilot length of the stats note: min(max(50, 1% of B), 500) units."""
    return min(max(50, units // 100), 500)


def unit_counts(pop: I64, rows: I64, candidates: Sequence[str]) -> UnitCounts:
    """Counts of the candidates, REST (max of the other routes) and all 5xx of ``rows``."""
    cols = [NAMES.index(c) for c in candidates]
    read = pop[rows]
    others = np.delete(read, cols, axis=1)
    rest = others.max(axis=1) if others.shape[1] else np.zeros(len(rows), np.int64)
    return UnitCounts(
        read[:, cols].astype(np.float64),
        rest.astype(np.float64),
        read.sum(axis=1).astype(np.float64),
    )


def totals_of(column_sums: I64) -> dict[str, int]:
    """Route name -> count, as the accumulator reports it."""
    return dict(zip(NAMES, column_sums.tolist(), strict=True))


def true_top(pop: I64, k: int) -> list[str]:
    """The population's top-k routes by total, ties broken by name."""
    totals = pop.sum(axis=0)
    return sorted(NAMES, key=lambda r: (-totals[NAMES.index(r)], r))[:k]


def race(pop: I64, plan: topk.TopKPlan, seed: int, *, batch: int = BATCH) -> Run:
    """Read ``pop`` in the seeded random order until the verdict settles or every unit is read."""
    units = pop.shape[0]
    order = np.random.default_rng(seed).permutation(units)
    read = pilot_size(units)
    sums = pop[order[:read]].sum(axis=0)
    candidates = topk.choose_candidates(totals_of(sums), plan.max_candidates)
    winner_in_rest = true_top(pop, 1)[0] not in candidates
    state = topk.begin(plan, candidates, unit_counts(pop, order[:read], candidates), 1)
    verdict = topk.verdict(plan, state, totals_of(sums))
    restarts = 0
    while not verdict.settled and read < units:
        new = order[read : read + batch]
        read += len(new)
        sums = sums + pop[new].sum(axis=0)
        totals = totals_of(sums)
        if topk.needs_restart(plan, state, totals):
            restarts += 1
            candidates = topk.choose_candidates(totals, plan.max_candidates)
            everything = unit_counts(pop, order[:read], candidates)
            state = topk.begin(plan, candidates, everything, state.stage + 1)
        else:
            state = topk.observe(plan, state, unit_counts(pop, new, state.candidates))
        verdict = topk.verdict(plan, state, totals)
    return Run(verdict, read / units, restarts, winner_in_rest)


def set_total(pop: I64, col: int, target: int, rng: np.random.Generator) -> None:
    """Add or remove single errors of route ``col`` in random units until it totals ``target``."""
    while (gap := target - int(pop[:, col].sum())) != 0:
        room = pop[:, col] < BOUND if gap > 0 else pop[:, col] > 0
        units = rng.choice(np.flatnonzero(room), size=min(abs(gap), int(room.sum())))
        np.add.at(pop[:, col], units, 1 if gap > 0 else -1)
        np.clip(pop[:, col], 0, BOUND, out=pop[:, col])


def background(rng: np.random.Generator, scale: float = 0.3) -> I64:
    """Every route spread over all units, route j at Poisson rate scale * 0.85^j per unit."""
    rates = scale * 0.85 ** np.arange(ROUTES)
    return np.minimum(rng.poisson(rates, size=(UNITS, ROUTES)), BOUND).astype(np.int64)


def dominant(rng: np.random.Generator) -> I64:
    """Route 0 holds about 60% of all 5xx."""
    pop = background(rng)
    pop[:, 0] = rng.poisson(2.6, size=UNITS)
    return pop


def close(rng: np.random.Generator) -> I64:
    """Routes 0 and 1 lead, route 1 with 2.5% fewer errors than route 0."""
    pop = background(rng)
    pop[:, :2] = rng.poisson(2.0, size=(UNITS, 2))
    set_total(pop, 1, round(0.975 * pop[:, 0].sum()), rng)
    return pop


def exact_tie(rng: np.random.Generator) -> I64:
    """Routes 0 and 1 lead with exactly equal totals."""
    pop = close(rng)
    set_total(pop, 1, int(pop[:, 0].sum()), rng)
    return pop


def late_incident(rng: np.random.Generator) -> I64:
    """Route 0 wins with all its errors in 4% of the units; route 1 is spread evenly."""
    pop = background(rng)
    burst = rng.choice(UNITS, size=UNITS * 4 // 100, replace=False)
    pop[:, 0] = 0
    pop[burst, 0] = rng.integers(12, BOUND + 1, size=len(burst))
    pop[:, 1] = rng.poisson(0.5, size=UNITS)
    set_total(pop, 1, round(0.8 * pop[:, 0].sum()), rng)
    return pop


def new_route(rng: np.random.Generator) -> I64:
    """The last route has no errors except in 1.5% of units, yet wins; route 0 is spread evenly."""
    pop = background(rng, 0.1)
    burst = rng.choice(UNITS, size=UNITS * 15 // 1000, replace=False)
    pop[:, -1] = 0
    pop[burst, -1] = rng.integers(15, BOUND + 1, size=len(burst))
    pop[:, 0] = rng.poisson(0.2, size=UNITS)
    set_total(pop, 0, round(0.75 * pop[:, -1].sum()), rng)
    return pop


def top3(rng: np.random.Generator) -> I64:
    """Three routes clearly ahead of the rest (top-3 question)."""
    pop = background(rng)
    pop[:, :3] = rng.poisson([2.0, 1.4, 1.0], size=(UNITS, 3))
    return pop


@dataclass(frozen=True)
class Scenario:
    """A population, the question, and what reading it must show."""

    build: Builder
    k: int = 1
    epsilon: float = 0.0
    max_median_read: float = 1.0
    min_median_read: float = 0.0
    exact_tie: bool = False  # any settled verdict claims a strict order that does not exist


SCENARIOS = {
    "dominant": Scenario(dominant, max_median_read=0.25),
    "close": Scenario(close, min_median_read=0.5),
    "exact_tie": Scenario(exact_tie, min_median_read=1.0, exact_tie=True),
    "late_incident": Scenario(late_incident),
    "new_route": Scenario(new_route),
    "top3": Scenario(top3, k=3, max_median_read=0.5),
}


def population(name: str) -> I64:
    """The scenario's population, the same on every call."""
    pop = SCENARIOS[name].build(np.random.default_rng(sum(map(ord, name))))
    assert pop.shape == (UNITS, ROUTES) and pop.min() >= 0 and pop.max() <= BOUND
    return pop


@functools.cache
def runs(name: str) -> tuple[Run, ...]:
    """RUNS seeded reading orders of the scenario's population (computed once per session)."""
    spec = SCENARIOS[name]
    plan = topk.TopKPlan(spec.k, DELTA, UNITS, BOUND, epsilon=spec.epsilon)
    pop = population(name)
    return tuple(race(pop, plan, seed) for seed in range(RUNS))


def test_populations_have_the_intended_shape() -> None:
    """Each synthetic population has the property its scenario is named after."""
    share = {n: np.sort(population(n).sum(axis=0))[::-1] for n in SCENARIOS}
    assert 0.55 <= share["dominant"][0] / share["dominant"].sum() <= 0.65
    assert 0.97 <= share["close"][1] / share["close"][0] < 0.98
    assert share["exact_tie"][0] == share["exact_tie"][1]
    late = population("late_incident")
    assert np.count_nonzero(late[:, 0]) <= 0.04 * UNITS
    assert true_top(late, 1) == [NAMES[0]]
    fresh = population("new_route")
    assert np.count_nonzero(fresh[:, -1]) <= 0.015 * UNITS
    assert true_top(fresh, 1) == [NAMES[-1]]
    assert true_top(population("top3"), 3) == list(NAMES[:3])


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_settled_answers_are_wrong_at_most_delta_of_the_time(name: str) -> None:
    """Over many random orders, a settled top-k differs from the true one in <= ~delta of runs."""
    spec = SCENARIOS[name]
    truth = set(true_top(population(name), spec.k))
    done = runs(name)
    settled = [r for r in done if r.verdict.settled]
    # separating an exact tie is a false claim whichever side is put first
    wrong = sum(spec.exact_tie or set(r.verdict.top) != truth for r in settled)
    median = float(np.median([r.fraction for r in done]))
    assert wrong <= WRONG_MAX, (name, wrong)
    assert spec.min_median_read <= median <= spec.max_median_read, (name, median)


def test_dominant_route_stops_early_in_most_runs() -> None:
    """With one route far ahead, most runs stop well before reading everything."""
    fractions = np.array([r.fraction for r in runs("dominant")])
    assert np.median(fractions) < 0.9
    assert np.mean(fractions < 0.9) >= 0.9


def test_new_route_is_found_from_rest_by_a_restart() -> None:
    """A winner unseen in the pilot hides in REST; a restart brings it in and it is answered."""
    done = runs("new_route")
    from_rest = [r for r in done if r.winner_in_rest]
    assert len(from_rest) >= 10
    assert all(r.restarts >= 1 for r in from_rest if r.verdict.settled)
    assert sum(r.verdict.settled for r in from_rest) >= 5
    assert all(r.verdict.top == [NAMES[-1]] for r in from_rest if r.verdict.settled)


def test_choose_candidates_orders_by_count_then_name() -> None:
    """Candidates are the top m by count, ties by name, without routes that have no 5xx."""
    totals = {"/b": 5, "/a": 5, "/c": 9, "/z": 0, "/d": 1}
    assert topk.choose_candidates(totals, 3) == ("/c", "/a", "/b")
    assert topk.choose_candidates(totals, 10) == ("/c", "/a", "/b", "/d")
    assert topk.choose_candidates({"/z": 0}, 4) == ()


@pytest.mark.parametrize("delta", [0.5, 0.05, 0.01, 1e-6])
def test_stage_budgets_sum_to_at_most_delta(delta: float) -> None:
    """Stage 1 gets 0.9 delta, later stages halve, and any number of stages spends <= delta."""
    budgets = [topk.stage_delta(delta, j) for j in range(1, 200)]
    assert budgets[0] == pytest.approx(0.9 * delta)
    assert all(b > 0 for b in budgets)
    assert all(a > b for a, b in itertools.pairwise(budgets[1:]))
    assert sum(budgets) <= delta


def test_needs_restart_when_an_outsider_reaches_half_the_kth() -> None:
    """A new stage starts once a non-candidate has half the k-th candidate's count, not before."""
    plan = topk.TopKPlan(k=2, delta=DELTA, population=10, bound=BOUND)
    pilot = UnitCounts(np.array([[4.0, 2.0]]), np.zeros(1), np.array([6.0]))
    state = topk.begin(plan, ("/a", "/b"), pilot, 1)
    assert not topk.needs_restart(plan, state, {"/a": 40, "/b": 20, "/c": 9})
    assert topk.needs_restart(plan, state, {"/a": 40, "/b": 20, "/c": 10})
    assert not topk.needs_restart(plan, state, {"/a": 40, "/b": 20})


@pytest.mark.parametrize("seed", range(5))
def test_equal_totals_end_as_a_settled_tie_with_epsilon(seed: int) -> None:
    """With epsilon > 0, two routes with equal totals settle as a tie listed in Verdict.ties."""
    rng = np.random.default_rng(seed)
    pop = background(rng, 0.1)
    pop[:, :2] = rng.poisson(1.0, size=(UNITS, 2))
    set_total(pop, 1, int(pop[:, 0].sum()), rng)  # equal totals, ~2000 each: eps * T >> M
    plan = topk.TopKPlan(k=1, delta=DELTA, population=UNITS, bound=BOUND, epsilon=0.1)
    run = race(pop, plan, seed)
    assert run.verdict.settled, run
    (top,) = run.verdict.top  # whichever of the two is ahead in the units read so far
    other = NAMES[1] if top == NAMES[0] else NAMES[0]
    assert top in NAMES[:2]
    assert run.verdict.ties == [[top, other]]


def read_everything(pop: I64, plan: topk.TopKPlan, seed: int) -> topk.Verdict:
    """Verdict after the pilot and then all remaining units, with no stop in between."""
    order = np.random.default_rng(seed).permutation(pop.shape[0])
    read = pilot_size(pop.shape[0])
    candidates = topk.choose_candidates(totals_of(pop.sum(axis=0)), plan.max_candidates)
    state = topk.begin(plan, candidates, unit_counts(pop, order[:read], candidates), 1)
    state = topk.observe(plan, state, unit_counts(pop, order[read:], candidates))
    return topk.verdict(plan, state, totals_of(pop.sum(axis=0)))


@pytest.mark.parametrize(("name", "k"), [("dominant", 1), ("top3", 3), ("late_incident", 1)])
def test_every_unit_read_settles_a_clear_population_correctly(name: str, k: int) -> None:
    """At t = B the verdict on a population with clear leaders is settled and exact."""
    pop = population(name)
    plan = topk.TopKPlan(k, DELTA, UNITS, BOUND)
    for seed in range(3):
        verdict = read_everything(pop, plan, seed)
        assert verdict.settled and verdict.top == true_top(pop, k)


def narrow_margin(epsilon: float) -> I64:
    """A margin below M at t = B: route 0 has 101 errors vs 100 (or 100 vs 100, eps-tie)."""
    rng = np.random.default_rng(7)
    pop = np.zeros((UNITS, 3), np.int64)
    for col, n in enumerate([100 if epsilon else 101, 100, 30]):
        pop[rng.choice(UNITS, size=n, replace=False), col] = 1
    return np.pad(pop, ((0, 0), (0, ROUTES - 3)))


@pytest.mark.parametrize("epsilon", [0.0, 0.05])
def test_every_unit_read_settles_even_a_margin_below_m(epsilon: float) -> None:
    """At t = B every false null is decided, so a 1-error lead (or an eps-tie) settles exactly."""
    pop = narrow_margin(epsilon)
    plan = topk.TopKPlan(1, DELTA, UNITS, BOUND, epsilon=epsilon)
    verdict = read_everything(pop, plan, 0)
    assert verdict.settled and verdict.top == [NAMES[0]]
    assert verdict.ties == ([[NAMES[0], NAMES[1]]] if epsilon else [])


def test_ranked_option_also_settles_the_order_within_the_top_k() -> None:
    """Two close leaders far ahead of the rest: the set settles early, their order needs more."""
    rng = np.random.default_rng(11)
    pop = background(rng)
    pop[:, :2] = rng.poisson([1.5, 1.45], size=(UNITS, 2))
    as_set = topk.TopKPlan(2, DELTA, UNITS, BOUND)
    ranked = topk.TopKPlan(2, DELTA, UNITS, BOUND, ranked=True)
    for seed in range(5):
        loose, strict = race(pop, as_set, seed), race(pop, ranked, seed)
        assert loose.verdict.settled and set(loose.verdict.top) == set(true_top(pop, 2))
        assert strict.fraction >= loose.fraction
        if strict.verdict.settled and strict.fraction < 1:
            assert strict.verdict.top == true_top(pop, 2)  # a settled ranked list is ordered
    assert any(race(pop, ranked, s).fraction > race(pop, as_set, s).fraction for s in range(5))


def test_an_exact_answer_names_equal_counts_across_the_cut() -> None:
    """Without epsilon, keys with the same count on both sides of the top-k cut are ties: which
    of them is ranked in is arbitrary, so the answer says so (issue 13's review: hidden)."""
    from logagent.engine.answers import exact_ties

    keys = ["/a", "/b", "/c", "/d"]
    assert exact_ties([9, 6, 6, 2], keys, 2, 0.0) == [["/b", "/c"]]
    assert exact_ties([9, 6, 5, 2], keys, 2, 0.0) == []
    assert exact_ties([9, 6, 6, 6], keys, 2, 0.0) == [["/b", "/c"], ["/b", "/d"]]
    assert exact_ties([9, 6, 5, 2], keys, 2, 0.25) == [["/b", "/c"]]
    # 5,000 keys seen once each: a few pairs are named, not 25,000
    many = [f"/p{i}" for i in range(5000)]
    assert len(exact_ties([1] * 5000, many, 5, 0.0)) == 10
