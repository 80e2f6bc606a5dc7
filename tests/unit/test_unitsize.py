"""Choosing the unit size from the pilot's gaps (stats note §10-11)."""

from __future__ import annotations

from logagent.evidence.unitsize import (
    Gap,
    choose,
    fraction_needed,
    read_cost,
    sizes,
    top_k_gaps,
)

THR = 5 * 16 / (0.9 * 0.005)


def test_wide_gap_on_a_big_log_picks_small_units() -> None:
    """A 10 GB log whose 5th and 6th routes are far apart gets units of a few hundred bytes."""
    c = choose([Gap(7930, 3996)], total_bytes=10**10, min_event_bytes=50, threshold=THR)
    assert 64 <= c.unit_size <= 4096 and c.fraction < 0.1


def test_unknown_gap_keeps_the_default() -> None:
    """A pilot that cannot tell the boundary apart keeps the default size, not the largest."""
    c = choose([Gap(5, 5)], total_bytes=10**9, min_event_bytes=50, threshold=THR, default=4096)
    assert c.unit_size == 4096 and c.cost == 1.0


def test_choice_is_within_slack_of_the_best_and_largest() -> None:
    """No larger size is within 1.2x of the best cost than the one chosen."""
    g = Gap(757, 500)
    c = choose([g], total_bytes=10**9, min_event_bytes=50, threshold=THR)
    costs = {}
    for size in sizes():
        units = -(-(10**9) // size)
        f0 = min(max(50, -(-units // 100)), 500) / units
        f = fraction_needed(g, bound=-(-size // 50), threshold=THR, f0=f0)
        costs[size] = read_cost(f, size)
    best = min(costs.values())
    assert c.cost <= 1.2 * best
    assert all(costs[s] > 1.2 * best for s in costs if s > c.unit_size)


def test_fraction_grows_with_the_bound() -> None:
    """More events hidden per unit never lowers the forecast fraction."""
    g = Gap(1000, 600)
    fs = [fraction_needed(g, bound=m, threshold=THR, f0=0.0) for m in (1, 10, 100, 1000)]
    assert fs == sorted(fs) and fs[-1] <= 1.0


def test_read_cost_is_capped_by_a_sequential_read() -> None:
    """Tiny units cost at most the fraction plus a bare sequential read, never above 1."""
    assert read_cost(0.5, 64) <= 0.65 and read_cost(1.0, 64) == 1.0


def test_top_k_gaps_count_rest_and_ranked_pairs() -> None:
    """The k-th route is raced against the (k+1)-th or REST, and adjacent pairs when ranked."""
    totals = {f"r{i}": float(100 - i) for i in range(30)}
    gaps = top_k_gaps(totals, 3, candidates=10, ranked=True)
    assert gaps[0].a == 98 and gaps[0].b == sum(100 - i for i in range(10, 30))
    assert len(gaps) == 3
