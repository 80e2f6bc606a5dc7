"""Top-k routes by 5xx rate among routes with enough requests, settled at delta (PURE).

Stats note §5 Q4. Rates ``rho_e = T_e / N_e`` are ratios, so routes are not
compared pairwise (bilinear in totals) but through per-route confidence
sequences: for each candidate e and grid value rho, a two-sided WoR e-process
on ``W = X_e - rho R_e`` (X: 5xx, R: requests per unit). Eligibility is
certified by one-sided tests of ``N_e`` against ``n_min``. Every route outside
the candidates that has at least ``n_min`` requests has a rate of at most
``T_u / n_min <= sum_b Y_b / n_min`` (Y_b: the most 5xx any non-candidate holds
in unit b), so an upper bound on ``sum_b Y_b`` bounds them all, seen or not.

The answer S (top-k by observed rate among candidates that look eligible) is
settled when each of S is certified eligible and its lower rate bound exceeds
the upper bound of every candidate not certified ineligible, and of REST.
delta is split: eligibility delta/4, rates delta/2, REST delta/4. The
candidate set is fixed after the pilot (REST covers everything else), so no
stage restarts are needed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from logagent.evidence import intervals
from logagent.evidence.eprocess import WorState, rejected, start, update
from logagent.evidence.matrix import F64

RATE_GRID = np.concatenate([[0.0], np.geomspace(1e-4, 1.0, 63)])
CHUNK_UNITS = 256


@dataclass(frozen=True)
class RatePlan:
    """Fixed parameters."""

    k: int
    delta: float
    population: int
    bound: float  # M: most lines (so requests) one unit can hold
    min_requests: int
    max_candidates: int = 16


@dataclass(frozen=True)
class RateCounts:
    """Per-unit counts in reading order: 5xx and requests of candidates, REST 5xx."""

    errors: F64  # units x candidates
    requests: F64  # units x candidates
    rest: F64  # units


@dataclass(frozen=True)
class RateState:
    """The race after ``units`` units."""

    candidates: tuple[str, ...]
    units: int
    eligibility: WorState  # 2C rows: N_c >= n_min (first C), N_c < n_min (next C)
    rates: WorState  # 2 C G rows: per candidate and grid value, up then down
    rest: intervals.GridCS
    rest_seen: float = 0.0  # sum of Y over the units read


@dataclass(frozen=True)
class RateEntry:
    """One reported route."""

    key: str
    errors: int
    requests: int
    rate: float
    rate_low: float
    rate_high: float


@dataclass(frozen=True)
class RateVerdict:
    """The current top-k by rate and whether it is settled."""

    top: list[str]
    settled: bool
    unsettled: int
    rest_bound: float  # upper bound on the rate of any eligible non-candidate


def choose_candidates(
    errors: Mapping[str, int], requests: Mapping[str, int], plan: RatePlan, scale: float
) -> tuple[str, ...]:
    """Half by observed rate among plausible eligibles, half by 5xx count (REST stays small)."""
    half = max(1, plan.max_candidates // 2)
    plausible = [r for r, n in requests.items() if n * scale >= plan.min_requests / 2]
    by_rate = sorted(plausible, key=lambda r: (-errors.get(r, 0) / requests[r], r))[:half]
    by_count = sorted((r for r in errors if errors[r] > 0), key=lambda r: (-errors[r], r))
    chosen = list(dict.fromkeys([*by_rate, *by_count]))
    return tuple(chosen[: plan.max_candidates])


def begin(plan: RatePlan, candidates: tuple[str, ...], pilot: RateCounts) -> RateState:
    """Start after the pilot (its units count in every null's boundary)."""
    n = len(pilot.rest)
    state = RateState(
        candidates,
        n,
        start(_eligibility_draws(plan, pilot)),
        start(_rate_draws(pilot)),
        intervals.begin(_rest_grid(plan), pilot.rest, np.ones(n), scale=plan.population),
        float(pilot.rest.sum()),
    )
    return state


def observe(plan: RatePlan, state: RateState, new: RateCounts) -> RateState:
    """Bet on the units just read."""
    elig, rates = state.eligibility, state.rates
    c = len(state.candidates)
    for lo in range(0, len(new.rest), CHUNK_UNITS):
        part = RateCounts(
            new.errors[lo : lo + CHUNK_UNITS],
            new.requests[lo : lo + CHUNK_UNITS],
            new.rest[lo : lo + CHUNK_UNITS],
        )
        elig = update(
            elig,
            _eligibility_draws(plan, part),
            population=plan.population,
            bound=plan.bound + 1.0,
            lower=_eligibility_lower(plan, c),
        )
        rates = update(
            rates,
            _rate_draws(part),
            population=plan.population,
            bound=plan.bound,
            lower=_rate_lower(plan, c),
        )
    rest = intervals.observe(
        state.rest,
        new.rest,
        np.ones(len(new.rest)),
        scale=plan.population,
        population=plan.population,
        bound=plan.bound,
        weight_max=1.0,
        threshold=2 / (plan.delta / 4),  # the one ``_rest_high`` asks
    )
    seen = state.rest_seen + float(new.rest.sum())
    return RateState(state.candidates, state.units + len(new.rest), elig, rates, rest, seen)


def verdict(
    plan: RatePlan, state: RateState, errors: Mapping[str, int], requests: Mapping[str, int]
) -> RateVerdict:
    """Top-k by observed rate among candidates that look eligible, and whether it is settled."""
    entries = entries_of(plan, state, errors, requests)
    c = len(state.candidates)
    hit_e = rejected(state.eligibility, 2 * c / (plan.delta / 4))
    eligible, ineligible = hit_e[:c], hit_e[c:]
    scale = plan.population / max(state.units, 1)
    looks = [i for i, e in enumerate(entries) if e.requests * scale >= plan.min_requests]
    order = sorted(looks, key=lambda i: (-entries[i].rate, entries[i].key))
    top = order[: plan.k]
    rest_bound = min(1.0, _rest_high(plan, state) / plan.min_requests)
    floor = min((entries[i].rate_low for i in top), default=0.0)
    rivals = [j for j in range(c) if j not in top and not ineligible[j]]
    missing = sum(1 for i in top if not eligible[i]) + sum(
        1 for j in rivals if entries[j].rate_high >= floor
    )
    settled = len(top) == plan.k and missing == 0 and floor > rest_bound
    return RateVerdict([entries[i].key for i in top], settled, missing, rest_bound)


def entries_of(
    plan: RatePlan, state: RateState, errors: Mapping[str, int], requests: Mapping[str, int]
) -> list[RateEntry]:
    """Observed rate and its time-uniform interval for every candidate."""
    g = len(RATE_GRID)
    c = len(state.candidates)
    hit = rejected(state.rates, 2 * c / (plan.delta / 2)).reshape(2, c, g)
    out = []
    for j, key in enumerate(state.candidates):
        x, n = errors.get(key, 0), requests.get(key, 0)
        rate = x / n if n else 0.0
        alive = np.flatnonzero(~(hit[0, j] | hit[1, j]))
        if len(alive) == 0:  # narrower than the grid
            lo, hi = _neighbours(rate)
        else:
            lo = float(RATE_GRID[max(alive[0] - 1, 0)])
            hi = float(RATE_GRID[min(alive[-1] + 1, g - 1)])
        out.append(RateEntry(key, x, n, rate, lo, hi))
    return out


def forecast_fraction(
    plan: RatePlan, state: RateState, errors: Mapping[str, int], requests: Mapping[str, int]
) -> float:
    """Stats note §6 applied to the leader's margin: the fraction the race will need.

    The margin is the smallest of: the leader's requests times its rate lead
    over the runner-up and over REST (REST 5xx spread over n_min requests); its
    request margin over n_min (eligibility); and the 5xx REST may still hold
    (rate times n_min, less what it holds): proving that bound on routes not
    yet seen needs most of the input when n_min is small. A forecast, used only to choose
    the cheaper method, never to decide an answer; 1 when settling looks hopeless.
    """
    scale = plan.population / max(state.units, 1)
    chosen = set(state.candidates)
    rest_rate = sum(n for r, n in errors.items() if r not in chosen) * scale / plan.min_requests
    looks = sorted(
        (
            (errors.get(c, 0) / requests[c], requests[c] * scale)
            for c in state.candidates
            if requests.get(c, 0) * scale >= plan.min_requests
        ),
        reverse=True,
    )
    if len(looks) < plan.k:
        return 1.0
    rate_k, n_k = looks[plan.k - 1]
    rival = max(looks[plan.k][0] if len(looks) > plan.k else 0.0, rest_rate)
    rest_room = (rate_k - rest_rate) * plan.min_requests  # 5xx REST may hold, proved by reading
    gap = min((rate_k - rival) * n_k, n_k - plan.min_requests, rest_room)
    if gap <= 0:
        return 1.0
    thr = 2 * len(state.candidates) / (plan.delta / 2)
    f0 = state.units / plan.population
    return float(1 - (1 - f0) * np.exp(-plan.bound * np.log(thr) / (0.9 * gap)))


def _neighbours(rate: float) -> tuple[float, float]:
    i = int(np.searchsorted(RATE_GRID, rate))
    return float(RATE_GRID[max(i - 1, 0)]), float(RATE_GRID[min(i, len(RATE_GRID) - 1)])


def _rest_grid(plan: RatePlan) -> F64:
    """0, then 1 .. B*M geometrically: a REST with no 5xx at all keeps 0 alive (bound = 1)."""
    return np.concatenate([[0.0], intervals.total_grid(plan.population, plan.bound)])


def _rest_high(plan: RatePlan, state: RateState) -> float:
    """Upper bound on sum_b Y_b; when every grid value is rejected (the CS is narrower than
    the grid), two grid steps above the extrapolated sum seen."""
    iv = intervals.interval(state.rest, 2 / (plan.delta / 4))
    if iv is not None:
        return iv[1]
    grid = state.rest.values
    guess = state.rest_seen * plan.population / max(state.units, 1)
    return float(grid[min(int(np.searchsorted(grid, guess)) + 2, len(grid) - 1)])


def _eligibility_lower(plan: RatePlan, c: int) -> F64:
    """R - n/B >= -n/B (tests N >= n_min); its negation >= -M (tests N < n_min)."""
    floor = (plan.min_requests - 0.5) / plan.population
    return np.concatenate([np.full(c, floor), np.full(c, plan.bound)])


def _rate_lower(plan: RatePlan, c: int) -> F64:
    """X - rho R >= -rho M (bets up); rho R - X >= -(1 - rho) M >= -M (bets down)."""
    up = np.tile(RATE_GRID * plan.bound, c)
    return np.concatenate([up, np.full(len(up), plan.bound)])


def _eligibility_draws(plan: RatePlan, counts: RateCounts) -> F64:
    """R - (n_min - 1/2)/B: rejecting sum <= 0 shows N >= n_min; the negation shows N < n_min."""
    d = counts.requests.T - (plan.min_requests - 0.5) / plan.population
    return np.ascontiguousarray(np.concatenate([d, -d]))


def _rate_draws(counts: RateCounts) -> F64:
    """X - rho R for every candidate and grid value, bets up then down: 2 x C x G rows."""
    d = counts.errors.T[:, None, :] - RATE_GRID[None, :, None] * counts.requests.T[:, None, :]
    flat = d.reshape(-1, d.shape[-1])
    return np.ascontiguousarray(np.concatenate([flat, -flat]))
