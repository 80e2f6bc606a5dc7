"""Router-Mem decide(): every rule, the precedence between them, and memory monotonicity."""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any, TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logagent.routermem.router import (
    LADDER,
    Action,
    Budget,
    Decision,
    EvidenceView,
    MemoryView,
    ProgressView,
    Reason,
    ShareView,
    decide,
)

MIB = 1 << 20

# A run in the middle of its reading: pilot done, format recognized, not settled, no limit hit.
EVIDENCE = EvidenceView(settled=False, pilot_done=True, parse_rate=0.9, events=100)
MEMORY = MemoryView(rss_bytes=100 * MIB, budget_bytes=1024 * MIB, next_batch_bytes=10 * MIB)
BUDGET = Budget(max_seconds=60.0, max_cpu_seconds=120.0, max_fraction=0.5, min_parse_rate=0.01)
PROGRESS = ProgressView(units_read=10, units_total=100, elapsed_s=1.0, cpu_s=1.0)
BASE = (EVIDENCE, MEMORY, BUDGET, PROGRESS)
View = TypeVar("View", EvidenceView, MemoryView, Budget, ProgressView)

# Overrides (field names are unique across the four views) that each trigger one rule alone.
Overrides = dict[str, Any]
# A share test whose e-process crossed ln(1/alpha) = ln(1000) = 6.91, and one just under it.
PROVED = ShareView(rate=0.01, alpha=0.001, log_wealth=7.0, events=3, lines=10_000)
UNPROVED = replace(PROVED, log_wealth=6.9)
UNRECOGNIZED: Overrides = {"format_check": PROVED}
NEGLIGIBLE: Overrides = {"negligible": replace(PROVED, rate=1e-4, alpha=0.0025, events=0)}
DURING_PILOT: Overrides = {"pilot_done": False}
SETTLED: Overrides = {"settled": True}
NO_EVENTS: Overrides = {"events": 0}
ALL_READ: Overrides = {"units_read": 100}
INTERRUPTED: Overrides = {"interrupted": "SIGINT"}
OUT_OF_TIME: Overrides = {"elapsed_s": 60.0}  # reaching a limit counts
OUT_OF_CPU: Overrides = {"cpu_s": 120.0}
OUT_OF_FRACTION: Overrides = {"units_read": 50}
EVERY_BUDGET: Overrides = {"elapsed_s": 1e6, "cpu_s": 1e6, "units_read": 99}
NO_LIMITS: Overrides = {"max_seconds": None, "max_cpu_seconds": None, "max_fraction": None}
LADDER_DONE: Overrides = {"steps_taken": LADDER}  # every memory step already taken
OVER_MEMORY: Overrides = {"rss_bytes": 1020 * MIB, **LADDER_DONE}  # 1020 + 10 > 1024 MiB
HIGH_MEMORY: Overrides = {"rss_bytes": 900 * MIB}  # 910 / 1024 MiB: HIGH, under the budget
EVERYTHING: Overrides = {**SETTLED, **INTERRUPTED, **EVERY_BUDGET, **OVER_MEMORY}

A, R = Action, Reason
CONTINUE = (A.CONTINUE, R.NOT_SETTLED)


def row(name: str, overrides: Overrides, action: Action, reason: Reason) -> Any:
    """One table row: the overrides, the expected action and reason, named after the behaviour."""
    return pytest.param(overrides, action, reason, id=name)


TABLE = [
    # 9. nothing applies
    row("nothing_applies_continues", {}, *CONTINUE),
    row("no_limits_continue_whatever_the_progress", {**NO_LIMITS, **EVERY_BUDGET}, *CONTINUE),
    row("just_under_every_budget_continues",
        {"elapsed_s": 59.9, "cpu_s": 119.9, "units_read": 49}, *CONTINUE),
    # 1. unrecognized format beats everything, but only once the pilot is done
    row("unrecognized_format_recuses", UNRECOGNIZED, A.RECUSE, R.UNRECOGNIZED_FORMAT),
    row("unrecognized_format_beats_everything",
        {**UNRECOGNIZED, **EVERYTHING, **NO_EVENTS, **ALL_READ}, A.RECUSE, R.UNRECOGNIZED_FORMAT),
    row("a_proved_low_parse_rate_recuses_even_during_the_pilot",
        {**UNRECOGNIZED, **DURING_PILOT}, A.RECUSE, R.UNRECOGNIZED_FORMAT),
    row("an_unproved_low_parse_rate_reads_on", {"format_check": UNPROVED}, *CONTINUE),
    row("a_low_point_estimate_alone_never_recuses", {"parse_rate": 0.0}, *CONTINUE),
    # 4b. negligible: proved under the rate, after the pilot
    row("proved_negligible_stops_settled", NEGLIGIBLE, A.STOP_SETTLED, R.NEGLIGIBLE),
    row("negligible_beats_interrupt_budgets_memory",
        {**NEGLIGIBLE, **INTERRUPTED, **EVERY_BUDGET, **OVER_MEMORY},
        A.STOP_SETTLED, R.NEGLIGIBLE),
    row("settled_answer_beats_negligible", {**NEGLIGIBLE, **SETTLED}, A.STOP_SETTLED, R.SETTLED),
    row("exact_read_beats_negligible", {**NEGLIGIBLE, **ALL_READ}, A.STOP_SETTLED, R.EXHAUSTED),
    row("no_events_in_a_full_read_is_none_at_all_not_negligible",
        {**NEGLIGIBLE, **ALL_READ, **NO_EVENTS}, A.RECUSE, R.NO_MATCHING_EVENTS),
    row("negligible_is_not_judged_during_the_pilot", {**NEGLIGIBLE, **DURING_PILOT}, *CONTINUE),
    row("unproved_negligible_reads_on",
        {"negligible": replace(UNPROVED, rate=1e-4, alpha=0.001)}, *CONTINUE),
    # 2. every unit read and no event
    row("all_read_without_events_recuses",
        {**ALL_READ, **NO_EVENTS}, A.RECUSE, R.NO_MATCHING_EVENTS),
    row("empty_input_recuses_no_matching_events",
        {**NO_EVENTS, **DURING_PILOT, "units_read": 0, "units_total": 0},
        A.RECUSE, R.NO_MATCHING_EVENTS),
    row("no_events_beats_settled_interrupt_budgets_memory",
        {**EVERYTHING, **NO_EVENTS, **ALL_READ}, A.RECUSE, R.NO_MATCHING_EVENTS),
    row("no_events_before_the_end_continues", NO_EVENTS, *CONTINUE),
    # 3. every unit read: exact
    row("all_read_is_exhausted", ALL_READ, A.STOP_SETTLED, R.EXHAUSTED),
    row("exhausted_beats_settled", {**ALL_READ, **SETTLED}, A.STOP_SETTLED, R.EXHAUSTED),
    row("exhausted_beats_interrupt_budgets_memory",
        {**EVERYTHING, **ALL_READ}, A.STOP_SETTLED, R.EXHAUSTED),
    row("exhausted_even_during_the_pilot",
        {**ALL_READ, **DURING_PILOT}, A.STOP_SETTLED, R.EXHAUSTED),
    # 4. settled (after the pilot) beats interrupts, budgets and memory
    row("settled_stops", SETTLED, A.STOP_SETTLED, R.SETTLED),
    row("settled_beats_an_exhausted_time_budget",
        {**SETTLED, **OUT_OF_TIME}, A.STOP_SETTLED, R.SETTLED),
    row("settled_beats_interrupt_budgets_memory", EVERYTHING, A.STOP_SETTLED, R.SETTLED),
    row("settled_during_the_pilot_does_not_stop", {**SETTLED, **DURING_PILOT}, *CONTINUE),
    row("settled_during_the_pilot_does_not_mask_a_budget",
        {**SETTLED, **DURING_PILOT, **OUT_OF_TIME}, A.STOP_PARTIAL, R.TIME_BUDGET),
    # 5. interrupted
    row("interrupt_stops_partial", INTERRUPTED, A.STOP_PARTIAL, R.INTERRUPTED),
    row("interrupt_beats_budgets_and_memory",
        {**INTERRUPTED, **EVERY_BUDGET, **OVER_MEMORY}, A.STOP_PARTIAL, R.INTERRUPTED),
    row("interrupt_during_the_pilot_stops",
        {**INTERRUPTED, **DURING_PILOT}, A.STOP_PARTIAL, R.INTERRUPTED),
    # 6. budgets, in the order time, cpu, fraction
    row("time_budget_stops_partial", OUT_OF_TIME, A.STOP_PARTIAL, R.TIME_BUDGET),
    row("cpu_budget_stops_partial", OUT_OF_CPU, A.STOP_PARTIAL, R.CPU_BUDGET),
    row("fraction_budget_stops_partial", OUT_OF_FRACTION, A.STOP_PARTIAL, R.FRACTION_BUDGET),
    row("time_budget_beats_cpu_and_fraction", EVERY_BUDGET, A.STOP_PARTIAL, R.TIME_BUDGET),
    row("cpu_budget_beats_fraction",
        {**OUT_OF_CPU, **OUT_OF_FRACTION}, A.STOP_PARTIAL, R.CPU_BUDGET),
    row("budgets_beat_memory",
        {**OUT_OF_FRACTION, **OVER_MEMORY}, A.STOP_PARTIAL, R.FRACTION_BUDGET),
    row("budget_applies_during_the_pilot",
        {**OUT_OF_CPU, **DURING_PILOT}, A.STOP_PARTIAL, R.CPU_BUDGET),
    # 7. memory forecast
    row("memory_forecast_over_budget_stops_partial", OVER_MEMORY, A.STOP_PARTIAL, R.MEMORY),
    row("next_batch_alone_can_break_the_budget",
        {"rss_bytes": 0, "next_batch_bytes": 2048 * MIB, **LADDER_DONE}, A.STOP_PARTIAL, R.MEMORY),
    row("memory_high_takes_the_first_ladder_step", HIGH_MEMORY, A.DEGRADE, R.MEMORY_STEP),
    row("over_budget_takes_a_ladder_step_before_stopping",
        {"rss_bytes": 1020 * MIB}, A.DEGRADE, R.MEMORY_STEP),
    row("memory_high_with_every_step_taken_but_under_budget_continues",
        {**HIGH_MEMORY, **LADDER_DONE}, *CONTINUE),
    row("memory_step_beats_a_full_read_degrade",
        {"forecast_fraction": 0.9, **HIGH_MEMORY}, A.DEGRADE, R.MEMORY_STEP),
    row("forecast_exactly_at_the_budget_continues",
        {"rss_bytes": 1014 * MIB, **LADDER_DONE}, *CONTINUE),
    row("memory_forecast_applies_during_the_pilot",
        {**OVER_MEMORY, **DURING_PILOT}, A.STOP_PARTIAL, R.MEMORY),
    # 8. the evidence would need most of the input: a plain full read is cheaper
    row("forecast_over_half_degrades_to_a_full_read",
        {"forecast_fraction": 0.8}, A.DEGRADE, R.FULL_READ_CHEAPER),
    row("forecast_at_the_threshold_continues", {"forecast_fraction": 0.5}, *CONTINUE),
    row("memory_beats_degrade",
        {"forecast_fraction": 0.9, **OVER_MEMORY}, A.STOP_PARTIAL, R.MEMORY),
    row("settled_beats_degrade", {"forecast_fraction": 0.9, **SETTLED}, A.STOP_SETTLED, R.SETTLED),
    # 8 with a cost model: the rest read by units costs more than reading everything
    row("costly_small_forecast_degrades",
        {"forecast_fraction": 0.4, "cost_factor": 6.0}, A.DEGRADE, R.FULL_READ_CHEAPER),
    row("cheap_large_forecast_continues",
        {"forecast_fraction": 0.8, "cost_factor": 1.2}, *CONTINUE),
    row("cost_at_break_even_continues",
        {"forecast_fraction": 0.35, "cost_factor": 4.0}, *CONTINUE),
    row("degrade_above_one_never_degrades_even_at_a_cost",
        {"forecast_fraction": 0.9, "cost_factor": 50.0, "degrade_above": 1.0}, *CONTINUE),
]  # fmt: skip


@pytest.mark.parametrize("taken", range(len(LADDER) + 1))
def test_ladder_steps_come_one_at_a_time_in_order(taken: int) -> None:
    """Under memory pressure each decision names the next step not yet taken, then stops."""
    evidence, memory, budget, progress = views({"rss_bytes": 1020 * MIB})
    memory = replace(memory, steps_taken=LADDER[:taken])
    decision = decide(evidence, memory, budget, progress)
    if taken < len(LADDER):
        assert (decision.action, decision.reason, decision.step) == (
            A.DEGRADE,
            R.MEMORY_STEP,
            LADDER[taken],
        )
        assert f"step {taken + 1} of {len(LADDER)}" in decision.detail
    else:
        assert (decision.action, decision.reason, decision.step) == (A.STOP_PARTIAL, R.MEMORY, "")


def views(overrides: Overrides) -> tuple[EvidenceView, MemoryView, Budget, ProgressView]:
    """The base views, each override applied to the one view that has that field."""
    known = {f.name for view in BASE for f in fields(view)}
    assert set(overrides) <= known, set(overrides) - known
    return (
        with_overrides(EVIDENCE, overrides),
        with_overrides(MEMORY, overrides),
        with_overrides(BUDGET, overrides),
        with_overrides(PROGRESS, overrides),
    )


def with_overrides(view: View, overrides: Overrides) -> View:
    """``view`` with the overrides that name one of its fields."""
    names = {f.name for f in fields(view)}
    return replace(view, **{k: v for k, v in overrides.items() if k in names})


@pytest.mark.parametrize(("overrides", "action", "reason"), TABLE)
def test_decide_table(overrides: Overrides, action: Action, reason: Reason) -> None:
    """Each rule fires on its own condition, and the earlier rule wins when several apply."""
    decision = decide(*views(overrides))
    assert isinstance(decision, Decision)
    assert (decision.action, decision.reason) == (action, reason), decision.detail


def test_continue_reports_the_unsettled_pairs() -> None:
    """CONTINUE says how many pairs are not yet separated."""
    decision = decide(replace(EVIDENCE, unsettled_pairs=7), MEMORY, BUDGET, PROGRESS)
    assert decision.action == Action.CONTINUE and "7 pairs" in decision.detail


def test_decide_is_pure() -> None:
    """The same views always give the same decision and are left unchanged."""
    given_views = views({**OVER_MEMORY, **INTERRUPTED})
    copies = tuple(replace(v) for v in given_views)
    assert decide(*given_views) == decide(*given_views)
    assert given_views == copies


evidence_views = st.builds(
    EvidenceView,
    settled=st.booleans(),
    pilot_done=st.booleans(),
    parse_rate=st.floats(0.0, 1.0),
    events=st.integers(0, 10**6),
    unsettled_pairs=st.integers(0, 1000),
)
budgets = st.builds(
    Budget,
    max_seconds=st.none() | st.floats(0.0, 1e4),
    max_cpu_seconds=st.none() | st.floats(0.0, 1e4),
    max_fraction=st.none() | st.floats(0.0, 1.0),
    min_parse_rate=st.floats(0.0, 1.0),
)
sizes = st.integers(0, 1 << 40)


@st.composite
def progress_views(draw: st.DrawFn) -> ProgressView:
    """Progress with units_read <= units_total, sometimes interrupted."""
    total = draw(st.integers(0, 10_000))
    return ProgressView(
        units_read=draw(st.integers(0, total)),
        units_total=total,
        elapsed_s=draw(st.floats(0.0, 1e4)),
        cpu_s=draw(st.floats(0.0, 1e4)),
        interrupted=draw(st.none() | st.sampled_from(["SIGINT", "SIGTERM", "caller"])),
    )


@settings(max_examples=300, database=None, deadline=None)
@given(
    evidence=evidence_views,
    budget=budgets,
    progress=progress_views(),
    rss=sizes,
    cap=sizes,
    next_batch=sizes,
    more_rss=sizes,
    more_next=sizes,
)
def test_more_memory_pressure_never_turns_a_stop_into_continue(
    evidence: EvidenceView,
    budget: Budget,
    progress: ProgressView,
    rss: int,
    cap: int,
    next_batch: int,
    more_rss: int,
    more_next: int,
) -> None:
    """More memory pressure keeps any stop, and otherwise adds at most a memory step or stop."""
    memory_moves = {(A.DEGRADE, R.MEMORY_STEP), (A.STOP_PARTIAL, R.MEMORY)}
    for taken in (LADDER[:0], LADDER[:1], LADDER):
        low = decide(evidence, MemoryView(rss, cap, next_batch, taken), budget, progress)
        higher = MemoryView(rss + more_rss, cap, next_batch + more_next, taken)
        high = decide(evidence, higher, budget, progress)
        moved = (high.action, high.reason)
        if low.action not in (Action.CONTINUE, Action.DEGRADE):
            assert moved == (low.action, low.reason)
        elif low.action is Action.DEGRADE:
            assert moved == (low.action, low.reason) or moved in memory_moves
        else:
            assert moved == CONTINUE or moved in memory_moves


@pytest.mark.parametrize(
    ("rss_mib", "level"), [(100, "LOW"), (650, "MEDIUM"), (900, "HIGH"), (2000, "HIGH")]
)
def test_memory_levels_count_the_next_batch(rss_mib: int, level: str) -> None:
    """LOW under 60 % of the budget, MEDIUM under 85 %, HIGH above, next batch included."""
    view = MemoryView(rss_bytes=rss_mib * MIB, budget_bytes=1024 * MIB, next_batch_bytes=10 * MIB)
    assert view.level.value == level
    assert level in view.describe()


@pytest.mark.parametrize(
    ("overrides", "words"),
    [
        (UNRECOGNIZED, "records of the format < 1.0000% of lines at alpha 0.001"),
        (NEGLIGIBLE, "events < 0.0100% of lines at alpha 0.0025"),
    ],
)
def test_share_stops_record_the_bound_they_used(overrides: Overrides, words: str) -> None:
    """A recusal or negligible stop names its rate, alpha and e-value in the trace detail."""
    detail = decide(*views(overrides)).detail
    assert words in detail and "log e-value 7.00 vs" in detail
