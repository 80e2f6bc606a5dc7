"""PURE module: the per-scenario plan of which records are 5xx errors.

All 5xx lines of a file are decided up front (a few hundred thousand at
most even for a 10 GB file): their record positions, routes and status
codes.  Planning exact counts, instead of sampling per line, is what makes
the scenario promises (60 % share, exact tie, ...) hold exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .routes import ERROR_CODE_WEIGHTS, ERROR_CODES, Route

I64 = npt.NDArray[np.int64]

SCENARIOS = (
    "dominant",
    "close",
    "tie",
    "late_incident",
    "late_incident_new",
    "high_cardinality",
    "no_errors",
    "garbage",
)
ERROR_RATE = 0.005
LATE_FRACTION = 0.9
LATE_SCENARIOS = ("late_incident", "late_incident_new")
# The incident route of these scenarios gets no request at all before the late window.
NEW_ROUTE_SCENARIOS = ("late_incident_new",)
_ERROR_KINDS = {"collection", "item", "page", "auth", "admin", "webhook"}


@dataclass(frozen=True)
class ErrorPlan:
    """Sorted record positions of 5xx lines with their route and code."""

    positions: I64
    routes: I64
    codes: I64
    prefix_records: int  # records before the late window (first 90 %)
    hidden: int = -1  # route id with no record before the late window (-1: none)


@dataclass(frozen=True)
class Shares:
    """Leading error routes' shares and how the remainder is spread."""

    lead: tuple[float, ...]
    late: tuple[bool, ...]
    rest_routes: int
    rest_decay: float = 0.88


SCENARIO_SHARES = {
    "dominant": Shares((0.60, 0.06), (False, False), 24),
    "high_cardinality": Shares((0.60, 0.06), (False, False), 24),
    "garbage": Shares((0.60, 0.06), (False, False), 24),
    "close": Shares((0.30, 0.292, 0.15), (False, False, False), 20),
    "tie": Shares((0.30, 0.30, 0.12), (False, False, False), 20),
    "late_incident": Shares((0.40, 0.25), (True, False), 20),
    "late_incident_new": Shares((0.40, 0.25), (True, False), 20),
}


def error_total(scenario: str, n_records: int) -> int:
    """Number of 5xx lines: ~0.5 %, but at least min(200, 5 %) of lines."""
    if scenario == "no_errors" or n_records <= 0:
        return 0
    return max(round(ERROR_RATE * n_records), min(200, n_records // 20))


def lead_counts(scenario: str, shares: Shares, total: int) -> list[int]:
    """Exact 5xx counts of the leading routes (tie equal, close < 3 %)."""
    counts = [round(s * total) for s in shares.lead]
    if scenario == "close":
        counts[1] = max(0, counts[0] - max(1, int(0.027 * counts[0])))
    if scenario == "tie":
        counts[1] = counts[0]
    while sum(counts) > total:  # only for a handful of errors (tiny files)
        counts[counts.index(max(counts))] -= 1
    return counts


def spread(total: int, n: int, decay: float) -> I64:
    """Split ``total`` over n routes with geometric weights (exact sum)."""
    w = decay ** np.arange(n, dtype=np.float64)
    raw = total * w / w.sum()
    counts = np.floor(raw).astype(np.int64)
    short = total - int(counts.sum())
    order = np.argsort(-(raw - counts), kind="stable")
    counts[order[:short]] += 1
    out: I64 = counts
    return out


def error_candidates(routes: list[Route]) -> I64:
    """Route indices that may fail with 5xx (APIs, pages; not static)."""
    ok = [i for i, r in enumerate(routes) if r.kind in _ERROR_KINDS]
    return np.asarray(ok[:80], dtype=np.int64)


def pick_routes(routes: list[Route], rng: np.random.Generator, n_lead: int, n_pick: int) -> I64:
    """Random error routes; the leading ones always have placeholders.

    So the top route's raw paths differ from its normalized template.
    """
    cands = rng.permutation(error_candidates(routes))
    templated = np.array(["{" in routes[i].template for i in cands])
    lead = cands[templated][:n_lead]
    rest = cands[~np.isin(cands, lead)][: n_pick - n_lead]
    return np.concatenate([lead, rest])


def route_counts(
    scenario: str, routes: list[Route], total: int, rng: np.random.Generator
) -> tuple[I64, I64, I64]:
    """Pick error routes; return (route ids, 5xx counts, late flags)."""
    shares = SCENARIO_SHARES[scenario]
    n_pick = len(shares.lead) + shares.rest_routes
    picked = pick_routes(routes, rng, len(shares.lead), n_pick)
    lead = lead_counts(scenario, shares, total)
    rest = spread(total - sum(lead), n_pick - len(lead), shares.rest_decay)
    counts = np.concatenate([np.asarray(lead, dtype=np.int64), rest])
    late = np.zeros(n_pick, dtype=np.int64)
    late[: len(shares.late)] = shares.late
    return picked, counts, late


def place(n_records: int, counts: I64, late: I64, rng: np.random.Generator) -> tuple[I64, I64]:
    """Distinct positions per error event; late routes in the last 10 %."""
    route_slot = np.repeat(np.arange(len(counts)), counts)
    is_late = late[route_slot].astype(bool)
    normal = np.sort(rng.choice(n_records, int((~is_late).sum()), replace=False))
    positions = np.empty(len(route_slot), dtype=np.int64)
    positions[~is_late] = normal
    positions[is_late] = late_positions(n_records, normal, int(is_late.sum()), rng)
    slots = np.empty_like(route_slot)
    slots[~is_late] = rng.permutation(route_slot[~is_late])
    slots[is_late] = route_slot[is_late]
    return positions, slots


def late_positions(n_records: int, taken: I64, count: int, rng: np.random.Generator) -> I64:
    """``count`` free positions inside the last 10 % of the records."""
    if count == 0:
        return np.zeros(0, dtype=np.int64)
    prefix = int(LATE_FRACTION * n_records)
    free = np.setdiff1d(np.arange(prefix, n_records), taken, assume_unique=True)
    return rng.choice(free, count, replace=False)


def make_plan(
    scenario: str, routes: list[Route], n_records: int, rng: np.random.Generator
) -> ErrorPlan:
    """Build the complete 5xx plan of a file of ``n_records`` records."""
    prefix = int(LATE_FRACTION * n_records)
    total = error_total(scenario, n_records)
    if total == 0:
        empty = np.zeros(0, dtype=np.int64)
        return ErrorPlan(empty, empty, empty, prefix)
    ids, counts, late = route_counts(scenario, routes, total, rng)
    positions, slots = place(n_records, counts, late, rng)
    order = np.argsort(positions, kind="stable")
    codes = rng.choice(
        np.asarray(ERROR_CODES, dtype=np.int64), total, p=np.asarray(ERROR_CODE_WEIGHTS)
    )
    hidden = int(ids[0]) if scenario in NEW_ROUTE_SCENARIOS else -1
    return ErrorPlan(positions[order], ids[slots[order]], codes, prefix, hidden)


def hide_route(plan: ErrorPlan, routes: I64, first: int) -> I64:
    """Move the hidden route's records before the late window to a neighbouring route.

    ``routes`` are the drawn routes of records ``first, first + 1, ...``; the
    result is a new array (the input is left alone).  Used for traffic draws
    only: the 5xx plan never puts the hidden route before the late window.
    """
    if plan.hidden < 0:
        return routes
    index = first + np.arange(len(routes))
    early = (index < plan.prefix_records) & (routes == plan.hidden)
    substitute = plan.hidden - 1 if plan.hidden > 0 else plan.hidden + 1
    out: I64 = np.where(early, substitute, routes)
    return out
