"""Router-Mem's memory half through the real engine: the ladder's steps, in order, and cost."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from logagent import Question, analyze, load_settings
from logagent.result import QuestionKind, Status
from logagent.routermem.router import LADDER
from logagent.samples import generate
from logagent.testing import MemorySink, fake_env

MIB = 1 << 20


@pytest.fixture(scope="module")
def high_card(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    path = tmp_path_factory.mktemp("ladder") / "high_card.log"
    return path, generate(path, scenario="high_cardinality", size_mb=24, seed=2)


def _steps(result: Any) -> list[tuple[str, str]]:
    return [(d.action, d.reason) for d in result.decisions if d.reason.startswith("memory")]


@pytest.mark.parametrize("full", [False, True], ids=["sampled", "full"])
def test_a_tiny_budget_walks_the_ladder_in_order_then_stops_with_a_checkpoint(
    high_card: tuple[Path, dict[str, Any]], full: bool
) -> None:
    """Every decision over budget takes the next step; with none left: STOP_PARTIAL, saved."""
    path, _ = high_card
    sink = MemorySink()
    settings = load_settings(
        analysis={"seed": 1, "full": full}, budget={"memory": "1MiB"}, reader={"unit_size": "4KiB"}
    )
    r = analyze([str(path)], Question(), settings, replace(fake_env(), checkpoint=sink))
    steps = _steps(r)
    assert steps == [("DEGRADE", "memory_step")] * len(LADDER) + [
        ("STOP_PARTIAL", "memory_forecast")
    ]
    details = [d.detail for d in r.decisions if d.reason == "memory_step"]
    assert [d.split(";")[0] for d in details] == [
        f"step {i + 1} of {len(LADDER)}: {name}" for i, name in enumerate(LADDER)
    ]
    assert r.status is Status.PARTIAL
    assert sink.saved and sink.saved[-1].ladder == LADDER  # the checkpoint knows the steps taken
    assert any("logagent resume" in w for w in r.warnings)


def test_the_sketch_bounds_raw_path_counts_and_says_by_how_much(
    high_card: tuple[Path, dict[str, Any]],
) -> None:
    """Memory HIGH (never over): every step is taken, the read completes, each reported raw
    path's true count lies in [count, count + E] with E > 0 in the result, the total is exact."""
    path, truth = high_card
    budget = 1000 * MIB
    env = replace(fake_env(), rss=lambda: 900 * MIB, available_memory=lambda: 4 * budget)
    settings = load_settings(
        analysis={"seed": 1, "full": True, "normalize": False},
        budget={"memory": "1000MiB", "sketch_keys": 100},
        reader={"unit_size": "4KiB", "batch_bytes": "256KiB"},
    )
    r = analyze([str(path)], Question(normalize=False), settings, env)
    assert [
        d.detail.split(";")[0].split(": ")[1] for d in r.decisions if d.reason == "memory_step"
    ] == list(LADDER)
    assert r.status is Status.SETTLED  # not "exact": counts are bounded, not exact
    e = r.answer.count_error
    assert e > 0
    raw = dict(map(tuple, truth["top_errors_raw"]))
    assert r.answer.total == truth["lines_5xx"]  # dropped 5xx are still counted
    for entry in r.answer.top:
        assert entry.count <= raw[entry.key] <= entry.count + e == entry.high
    assert any("bounded summary" in w for w in r.warnings)


def test_normalized_routes_stay_exact_under_memory_pressure(
    high_card: tuple[Path, dict[str, Any]],
) -> None:
    """Few keys: the sketch step drops nothing, the top-5 routes equal the truth exactly."""
    path, truth = high_card
    env = replace(fake_env(), rss=lambda: 900 * MIB, available_memory=lambda: 4000 * MIB)
    settings = load_settings(
        analysis={"seed": 1, "full": True},
        budget={"memory": "1000MiB", "sketch_keys": 100},
        reader={"unit_size": "4KiB", "batch_bytes": "256KiB"},
    )
    r = analyze([str(path)], Question(), settings, env)
    assert "sketch" in {d.detail.split(";")[0].split(": ")[-1] for d in r.decisions}
    assert r.status is Status.EXACT and r.answer.count_error == 0
    assert [(e.key, e.count) for e in r.answer.top] == [tuple(x) for x in truth["top_errors"][:5]]


@pytest.mark.parametrize("fail_on", [1, 3], ids=["first-batch", "later-batch"])
def test_memory_error_becomes_a_partial_answer_or_a_memory_recusal(
    high_card: tuple[Path, dict[str, Any]], monkeypatch: pytest.MonkeyPatch, fail_on: int
) -> None:
    """A MemoryError never crashes: with counts it is a partial answer; with none, a recusal."""
    from logagent.engine.run import ParsePool
    from logagent.result import RecuseCode

    path, _ = high_card
    calls = [0]
    flush = ParsePool.flush

    def failing(self: ParsePool) -> Any:
        calls[0] += 1
        if calls[0] == fail_on:
            raise MemoryError
        return flush(self)

    monkeypatch.setattr(ParsePool, "flush", failing)
    settings = load_settings(
        analysis={"seed": 1, "degrade_above": 1.0},  # stay in the race: a flush per batch
        reader={"unit_size": "4KiB", "batch_bytes": "256KiB"},
    )
    r = analyze([str(path)], Question(), settings, fake_env())
    stops = [(d.action, d.reason, d.detail) for d in r.decisions if d.action == "STOP_PARTIAL"]
    assert stops == [
        ("STOP_PARTIAL", "memory_forecast", "out of memory while reading (MemoryError)")
    ]
    if fail_on == 1:
        assert r.status is Status.RECUSED and r.recuse is not None
        assert r.recuse.reason_code is RecuseCode.MEMORY_EXHAUSTED
    else:
        assert r.status is Status.PARTIAL and r.progress.units_read > 0
        assert any("MemoryError" in w for w in r.warnings)


def test_a_run_stopped_by_memory_goes_on_with_a_larger_budget(
    high_card: tuple[Path, dict[str, Any]],
) -> None:
    """ "Keep going": the checkpoint of a memory stop, resumed with room, reaches the true top."""
    path, truth = high_card
    sink = MemorySink()
    tight = load_settings(
        analysis={"seed": 3, "full": True}, budget={"memory": "1MiB"}, reader={"unit_size": "4KiB"}
    )
    first = analyze([str(path)], Question(), tight, replace(fake_env(), checkpoint=sink))
    assert first.status is Status.PARTIAL and sink.saved
    roomy = load_settings(analysis={"seed": 3, "full": True}, reader={"unit_size": "4KiB"})
    done = analyze([str(path)], Question(), roomy, fake_env(), resume=sink.saved[-1])
    assert done.status in (Status.EXACT, Status.SETTLED)
    assert done.progress.fraction_read == 1.0
    top = [(e.key, e.count) for e in done.answer.top]
    assert top == [tuple(x) for x in truth["top_errors"][:5]]


def test_error_rates_from_the_summary_carry_bounds_that_hold(
    high_card: tuple[Path, dict[str, Any]],
) -> None:
    """error-rate with a pruned summary: each true rate lies in [rate_low, rate_high]."""
    path, truth = high_card
    env = replace(fake_env(), rss=lambda: 900 * MIB, available_memory=lambda: 4000 * MIB)
    settings = load_settings(
        analysis={"seed": 1, "full": True, "question": "error-rate", "min_requests": 1},
        budget={"memory": "1000MiB", "sketch_keys": 10},
        reader={"unit_size": "4KiB", "batch_bytes": "256KiB"},
    )
    r = analyze([str(path)], Question(kind=QuestionKind.ERROR_RATE, min_requests=1), settings, env)
    assert r.answer.count_error > 0 and r.status is Status.SETTLED
    assert any("each rate lies in [rate_low, rate_high]" in w for w in r.warnings)
    for e in r.answer.top:
        route = truth["routes"][e.key]
        true_rate = route["5xx"] / route["requests"]
        assert e.rate_low is not None and e.rate_high is not None
        assert e.rate_low <= true_rate <= e.rate_high, (e.key, e.rate_low, true_rate, e.rate_high)
