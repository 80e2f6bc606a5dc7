"""The unit size chosen after a pilot (evidence.unitsize): small units for a wide gap on a big
log, no sampled read where none pays, the largest size within SLACK of the best."""

from __future__ import annotations

import math

import pytest

from logagent.evidence import unitsize
from logagent.evidence.unitsize import Gap

TEN_GB = 10_000_000_000
THRESHOLD = 1 * 16 / (0.9 * 0.005)  # k |C| / delta_stage for top-1 at delta 0.01


def _choose(gaps: list[Gap], total: int = TEN_GB, prescanned: bool = True) -> unitsize.UnitChoice:
    return unitsize.choose(
        gaps, total_bytes=total, min_event_bytes=50, threshold=THRESHOLD, prescanned=prescanned
    )


def test_a_wide_gap_on_a_big_log_takes_units_smaller_than_the_default() -> None:
    """10 GB, top route 10x the next (the `dominant` top-1): a size under today's 16 KiB, forecast
    to read under 2 % at a small share of a full read's cost."""
    choice = _choose([Gap(141_934, 14_193)])
    assert unitsize.MIN_UNIT <= choice.unit_size < 16 << 10
    assert choice.fraction < 0.02 and choice.cost < 0.3
    assert choice.bound == math.ceil(choice.unit_size / 50)


def test_the_choice_is_the_largest_size_within_slack_of_the_cheapest() -> None:
    gaps = [Gap(141_934, 14_193)]
    choice = _choose(gaps)
    costs = {
        s: unitsize.fraction_needed(
            gaps[0],
            bound=math.ceil(s / 50),
            threshold=THRESHOLD,
            f0=unitsize.pilot_fraction(math.ceil(TEN_GB / s)),
        )
        * unitsize.cost_factor(s, prescanned=True)
        for s in unitsize.sizes()
    }
    best = min(costs.values())
    assert choice.cost == pytest.approx(costs[choice.unit_size])
    assert choice.cost <= unitsize.SLACK * best
    assert all(c > unitsize.SLACK * best for s, c in costs.items() if s > choice.unit_size)


def test_a_narrow_gap_or_none_leaves_no_sampled_read_that_pays() -> None:
    """The 10 GB top-5 boundary (7,839 vs 6,898: 12 %) needs about a third of the input, which
    read by units costs more than reading it all; no gap at all (fewer than k keys seen) is
    forecast at the whole input."""
    narrow = _choose([Gap(7_839, 6_898)])
    assert narrow.fraction > 0.2 and narrow.cost >= 1.0
    assert _choose([]).fraction == 1.0 and _choose([]).cost >= 1.0
    assert _choose([Gap(500, 700)]).fraction == 1.0  # REST above the k-th: never separable


def test_reading_by_units_costs_more_per_byte_the_smaller_the_unit() -> None:
    factors = [unitsize.cost_factor(s, prescanned=True) for s in unitsize.sizes()]
    assert factors == sorted(factors, reverse=True)
    # a read of everything that parses every line is as dear per byte as a sampled one
    assert unitsize.cost_factor(1 << 20, prescanned=False) == pytest.approx(1.0, rel=0.01)
    assert unitsize.cost_factor(4096, prescanned=True) > unitsize.cost_factor(
        4096, prescanned=False
    )


def test_more_events_per_unit_need_more_of_the_input() -> None:
    gap = Gap(5_000, 1_000)
    fractions = [
        unitsize.fraction_needed(gap, bound=m, threshold=THRESHOLD, f0=0.001)
        for m in (1, 10, 100, 1000)
    ]
    assert fractions == sorted(fractions) and fractions[-1] > 10 * fractions[0]


def test_top_k_gaps_bind_the_kth_key_to_its_strongest_rival() -> None:
    totals = {"a": 100.0, "b": 50.0, "c": 40.0, "d": 5.0, "e": 4.0, "f": 3.0}
    assert unitsize.top_k_gaps(totals, 2, candidates=10) == [Gap(50.0, 40.0)]
    # REST (outside the top 3 candidates: 12 in all) is weaker than the 3rd key here...
    assert unitsize.top_k_gaps(totals, 1, candidates=3) == [Gap(100.0, 50.0)]
    # ...and binds when it outweighs the next key
    assert unitsize.top_k_gaps(totals, 3, candidates=3) == [Gap(40.0, 12.0)]
    ranked = unitsize.top_k_gaps(totals, 3, candidates=10, ranked=True)
    assert ranked == [Gap(40.0, 5.0), Gap(100.0, 50.0), Gap(50.0, 40.0)]
    assert unitsize.top_k_gaps({"a": 1.0}, 2, candidates=10) == []


def test_the_choice_near_the_best_still_pays() -> None:
    """1 GB top-1 (the pilot's gap 11,684 vs 2,921, 8 candidates): 1 KiB units are forecast at
    0.95 of a full read and 4 KiB at 1.07, within SLACK of it. The larger size would have been
    read all instead (DEGRADE) where the cheapest pays: the choice must pay."""
    threshold = 1 * 8 / (0.9 * 0.005)
    choice = unitsize.choose(
        [Gap(11_684, 2_921)],
        total_bytes=997_040_687,
        min_event_bytes=50,
        threshold=threshold,
        prescanned=True,
    )
    assert choice.cost < 1.0
    assert choice.unit_size <= 2048 and choice.fraction < 0.05
