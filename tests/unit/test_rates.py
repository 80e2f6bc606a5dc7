"""Top routes by 5xx rate (stats note §5 Q4): eligibility, REST bound, validity over orders."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from logagent.evidence import rates

B, DELTA, N_MIN = 2000, 0.05, 300
NAMES = ("/busy-bad", "/busy", "/ok", "/calm", "/tiny-awful", "/rare")
I64 = npt.NDArray[np.int64]


def population(seed: int) -> tuple[I64, I64]:
    """Requests and 5xx per unit: one busy route at 30 %, a tiny route at 90 % but ineligible."""
    rng = np.random.default_rng(seed)
    lam = np.array([3.0, 2.0, 2.0, 1.0, 0.05, 0.02])
    p = np.array([0.30, 0.05, 0.04, 0.02, 0.90, 0.10])
    req = rng.poisson(lam, size=(B, len(lam)))
    return req, rng.binomial(req, p)


def counts(err: I64, req: I64, rows: I64, cands: tuple[str, ...]) -> rates.RateCounts:
    idx = [NAMES.index(c) for c in cands]
    rest_cols = [j for j in range(len(NAMES)) if NAMES[j] not in cands]
    rest = err[rows][:, rest_cols].max(axis=1) if rest_cols else np.zeros(len(rows))
    return rates.RateCounts(
        err[rows][:, idx].astype(float), req[rows][:, idx].astype(float), rest.astype(float)
    )


def totals(mat: I64) -> dict[str, int]:
    return {n: int(v) for n, v in zip(NAMES, mat.sum(axis=0), strict=True) if v}


def race(req: I64, err: I64, seed: int, *, k: int = 1) -> tuple[rates.RateVerdict, float]:
    """Read in a seeded random order until settled or everything is read."""
    plan = rates.RatePlan(k, DELTA, B, float(req.sum(axis=1).max()), N_MIN, max_candidates=6)
    order = np.random.default_rng(seed).permutation(B)
    read = 50
    e, r = totals(err[order[:read]]), totals(req[order[:read]])
    cands = rates.choose_candidates(e, r, plan, B / read)
    state = rates.begin(plan, cands, counts(err, req, order[:read], cands))
    verdict = rates.verdict(plan, state, e, r)
    while not verdict.settled and read < B:
        new = order[read : read + 40]
        read += len(new)
        state = rates.observe(plan, state, counts(err, req, new, cands))
        e, r = totals(err[order[:read]]), totals(req[order[:read]])
        verdict = rates.verdict(plan, state, e, r)
    return verdict, read / B


def test_settled_rate_leader_is_right_and_never_an_ineligible_route() -> None:
    """Over seeded orders, a settled answer names the true eligible leader (not the tiny route)."""
    req, err = population(0)
    assert req[:, 4].sum() < N_MIN and err[:, 4].sum() / req[:, 4].sum() > 0.5
    settled = wrong = 0
    fractions = []
    for seed in range(60):
        verdict, fraction = race(req, err, seed)
        if verdict.settled:
            settled += 1
            wrong += verdict.top != ["/busy-bad"]
            fractions.append(fraction)
    assert wrong == 0
    assert settled >= 40 and min(fractions) < 1.0  # the worst-case bound M makes Q4 read a lot


def test_rate_intervals_cover_the_true_rates_when_settled() -> None:
    """The reported interval of every candidate contains its true rate."""
    req, err = population(1)
    plan = rates.RatePlan(1, DELTA, B, float(req.sum(axis=1).max()), N_MIN, max_candidates=6)
    order = np.random.default_rng(5).permutation(B)
    e, r = totals(err[order[:400]]), totals(req[order[:400]])
    cands = rates.choose_candidates(e, r, plan, B / 400)
    state = rates.begin(plan, cands, counts(err, req, order[:50], cands))
    state = rates.observe(plan, state, counts(err, req, order[50:400], cands))
    for entry in rates.entries_of(plan, state, e, r):
        j = NAMES.index(entry.key)
        truth = err[:, j].sum() / req[:, j].sum()
        assert entry.rate_low <= truth <= entry.rate_high


@pytest.mark.parametrize("n_min", [50, 10**6])
def test_nothing_settles_when_no_candidate_can_be_eligible(n_min: int) -> None:
    """With an n_min no route reaches, no answer is settled, however much is read."""
    req, err = population(2)
    plan = rates.RatePlan(1, DELTA, B, float(req.sum(axis=1).max()), n_min, max_candidates=6)
    order = np.random.default_rng(0).permutation(B)
    e, r = totals(err[order[:200]]), totals(req[order[:200]])
    cands = rates.choose_candidates(e, r, plan, B / 200)
    state = rates.begin(plan, cands, counts(err, req, order[:200], cands))
    verdict = rates.verdict(plan, state, e, r)
    if n_min > req.sum():
        assert not verdict.settled and verdict.top == []
