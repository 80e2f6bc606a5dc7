"""The unit size chosen after a pilot (engine.unitchoice), end to end on generated logs: the trace
says the size, the answer is the truth's, a main phase resumes from its checkpoint, and no size
that cannot pay is read by units."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from logagent import Question, analyze, load_settings
from logagent.evidence import unitsize
from logagent.result import Result, Status
from logagent.samples import generate
from logagent.sources.permute import KEYED
from logagent.testing import MemorySink, fake_env


@pytest.fixture(scope="module")
def dominant(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    path = tmp_path_factory.mktemp("units") / "dominant.log"
    generate(path, scenario="dominant", size_mb=12, seed=5)
    return path, json.loads(Path(f"{path}.truth.json").read_text())


@pytest.fixture
def cheap_units(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine where a read by units costs what its bytes cost and the e-processes need no
    more than the variance formula: on a 12 MB log (a few hundred 5xx) a sampled read then
    pays, as it does on 10 GB logs with the measured constants."""
    monkeypatch.setattr(unitsize, "UNIT_S", 1e-7)
    monkeypatch.setattr(unitsize, "SAMPLED_BYTE_S", unitsize.FULL_BYTE_S)
    monkeypatch.setattr(unitsize, "VARIANCE_FACTOR", 1.0)


def _settings(seed: int, **analysis: Any) -> Any:
    return load_settings(
        analysis={"seed": seed, **analysis},
        reader={"adapt_from": "1MiB", "batch_bytes": "256KiB"},
        checkpoint={"every": 2},
    )


def _truth_top(truth: dict[str, Any], k: int) -> list[str]:
    ranked = sorted(truth["routes"].items(), key=lambda kv: -kv[1]["5xx"])
    return [route for route, _ in ranked[:k]]


def _choice(r: Result) -> str:
    (d,) = [d for d in r.decisions if d.reason == "unit_size"]
    return d.detail


@pytest.mark.usefixtures("cheap_units")
def test_top_1_reads_units_of_the_chosen_size_and_gets_the_truth(
    dominant: tuple[Path, dict[str, Any]],
) -> None:
    """Every seed: one unit-size decision after the pilot, the units counted are of that size,
    the settled answer is the true top route, and the pilot's counts are not in it."""
    path, truth = dominant
    size = path.stat().st_size
    main_phases = settled = 0
    for seed in range(6):
        r = analyze([str(path)], Question(top=1), _settings(seed), fake_env())
        assert [e.key for e in r.answer.top] == _truth_top(truth, 1)
        if r.decisions[0].action == "DEGRADE":  # a 50-unit pilot saw a narrow gap: exact
            assert r.status is Status.EXACT and r.decisions[0].reason == "full_read_cheaper"
            continue
        main_phases += 1
        detail = _choice(r)
        unit = int(detail.split("unit size ")[1].split(" B")[0].replace(",", ""))
        assert "fresh permutation" in detail and "M = " in detail
        if any(d.action == "DEGRADE" for d in r.decisions):  # the main phase's own forecast
            assert r.status is Status.EXACT
            continue
        assert r.progress.units_total == math.ceil(size / unit)
        assert r.status is Status.SETTLED
        settled += 1
        if r.status is Status.SETTLED:
            top = r.answer.top[0]
            assert top.low is not None and top.high is not None
            assert top.low <= truth["routes"][top.key]["5xx"] <= top.high
    assert settled >= 2


@pytest.mark.usefixtures("cheap_units")
def test_the_same_seed_gives_the_same_run(dominant: tuple[Path, dict[str, Any]]) -> None:
    path, _ = dominant
    a = analyze([str(path)], Question(top=1), _settings(3), fake_env())
    b = analyze([str(path)], Question(top=1), _settings(3), fake_env())
    assert a.answer == b.answer
    trace = [[(d.units_read, d.action, d.reason) for d in r.decisions] for r in (a, b)]
    assert trace[0] == trace[1] and a.seed == b.seed == 3


@pytest.mark.usefixtures("cheap_units")
def test_a_main_phase_resumes_from_its_checkpoint(dominant: tuple[Path, dict[str, Any]]) -> None:
    """Stopped during the main phase: the checkpoint holds its keyed order and unit size, and
    the resumed run ends with the answer and trace of an uninterrupted one."""
    path, _ = dominant
    settings = _settings(2, degrade_above=1.0)
    q = Question(top=1)
    whole = analyze([str(path)], q, settings, fake_env())
    resumed_any = False
    for after in (2, len(whole.decisions) // 2, len(whole.decisions) - 1):
        sink = MemorySink()
        env = replace(fake_env(interrupt_after=after), checkpoint=sink)
        stopped = analyze([str(path)], q, settings, env)
        if stopped.status is not Status.PARTIAL or sink.last is None:
            continue
        cp = sink.last
        assert cp.order == KEYED
        resumed = analyze([str(path)], q, settings, fake_env(), resume=cp)
        assert (resumed.status, resumed.answer) == (whole.status, whole.answer)
        assert [(d.units_read, d.reason) for d in resumed.decisions] == [
            (d.units_read, d.reason) for d in whole.decisions
        ]
        resumed_any = True
    assert resumed_any


def test_a_gap_no_sampled_read_can_pay_for_degrades_after_the_pilot(
    dominant: tuple[Path, dict[str, Any]],
) -> None:
    """Top-5 of `dominant` (its 5th and 6th routes 12 % apart): the pilot's forecast says a read
    by units would cost more than reading everything (the pilot's, or the main phase's once it
    sees the gap), so the run degrades to an exact read."""
    path, truth = dominant
    r = analyze([str(path)], Question(top=5), _settings(1), fake_env())
    assert r.status is Status.EXACT
    degrade = [d for d in r.decisions if d.action == "DEGRADE"]
    assert [d.reason for d in degrade] == ["full_read_cheaper"]
    assert "read it all" in degrade[0].detail and "time of" in degrade[0].detail
    assert [e.key for e in r.answer.top] == _truth_top(truth, 5)


def test_small_inputs_keep_the_fixed_size(tmp_path: Path) -> None:
    """Under reader.adapt_from no pilot chooses a size: no unit-size decision is traced."""
    path = tmp_path / "small.log"
    generate(path, scenario="dominant", size_mb=2, seed=1)
    r = analyze([str(path)], Question(top=1), load_settings(analysis={"seed": 1}), fake_env())
    assert not [d for d in r.decisions if d.reason == "unit_size"]
