"""The one-sided WoR share test: valid under M at any stop, and it proves what it should."""

from __future__ import annotations

import numpy as np
import pytest

from logagent.evidence import share
from logagent.evidence.matrix import F64

B, LINES, M = 2000, 20, 20.0  # units, lines per unit, most events one unit can hold
BATCH = 50


def plan(rate: float, alpha: float = 0.01) -> share.SharePlan:
    """A test over B units of LINES lines each."""
    return share.SharePlan(rate, alpha, B, M, float(LINES))


def population(total_events: int, *, hidden: bool) -> tuple[F64, F64]:
    """Events per unit: packed M to a unit (the worst case for sampling), or one per unit."""
    events = np.zeros(B)
    if hidden:
        full, rest = divmod(total_events, int(M))
        events[:full] = M
        events[full] = rest
    else:
        events[:total_events] = 1.0
    return events, np.full(B, float(LINES))


def run_order(
    p: share.SharePlan, events: F64, lines: F64, order: np.ndarray
) -> tuple[int | None, int | None]:
    """Units read when "below" and when "above" were first proved (None: never)."""
    state = share.begin(p)
    first_below = first_above = None
    for lo in range(0, B, BATCH):
        idx = order[lo : lo + BATCH]
        state = share.observe(p, state, events[idx], lines[idx])
        if first_below is None and share.below(p, state):
            first_below = state.units
        if first_above is None and share.above(p, state):
            first_above = state.units
    return first_below, first_above


@pytest.mark.parametrize("hidden", [True, False])
def test_below_is_wrong_at_most_alpha_when_the_share_is_at_the_rate(hidden: bool) -> None:
    """Share exactly at the rate (a true null): "below" is claimed in <= alpha of 600 orders."""
    p = plan(rate=0.01, alpha=0.05)
    events, lines = population(int(0.01 * B * LINES), hidden=hidden)  # 400 events = rate exactly
    rng = np.random.default_rng(7)
    wrong = sum(run_order(p, events, lines, rng.permutation(B))[0] is not None for _ in range(600))
    assert wrong <= 600 * 0.05 + 3 * np.sqrt(600 * 0.05)  # binomial(600, 0.05) + 3 sd


def test_no_events_prove_below_early_and_the_forecast_is_close() -> None:
    """With no event at all, "below" is proved after a small share, near the §6 forecast."""
    p = plan(rate=0.02, alpha=0.01)
    events, lines = population(0, hidden=False)
    rng = np.random.default_rng(3)
    stops = [run_order(p, events, lines, rng.permutation(B))[0] for _ in range(20)]
    assert all(s is not None for s in stops)
    fraction = float(np.median([s for s in stops if s is not None])) / B
    state = share.observe(p, share.begin(p), events[:BATCH], lines[:BATCH])
    assert fraction < 0.5
    assert abs(share.forecast_fraction(p, state) - fraction) < 0.15


def test_a_share_well_over_the_rate_proves_above_and_never_below() -> None:
    """5 % events against a 1 % rate: the mirror test proves "above"; "below" never comes."""
    p = plan(rate=0.01)
    events, lines = population(int(0.05 * B * LINES), hidden=False)
    below, above = run_order(p, events, lines, np.random.default_rng(1).permutation(B))
    assert below is None and above is not None and above < B // 2


def test_a_full_read_under_the_rate_is_proved_exactly() -> None:
    """Hidden in full units and read to the end, a share just under the rate is proved."""
    p = plan(rate=0.01)
    events, lines = population(int(0.01 * B * LINES) - 1, hidden=True)
    below, _ = run_order(p, events, lines, np.random.default_rng(2).permutation(B))
    assert below is not None


def test_forecast_is_one_when_the_margin_is_gone() -> None:
    """A share at or above the rate has no margin: the forecast says a full read."""
    p = plan(rate=0.01)
    events, lines = population(int(0.02 * B * LINES), hidden=False)
    state = share.observe(p, share.begin(p), events[:400], lines[:400])
    assert share.forecast_fraction(p, state) == 1.0
