"""Router-Mem on a worker: the pure decision, the ladder over one task, and its exact counts."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

from logagent import Question, analyze, load_settings
from logagent.counters.tally import Tally
from logagent.distributed import tasks
from logagent.distributed.inputs import spec_of
from logagent.distributed.local import ThreadBackend, ThreadExecutor
from logagent.distributed.workermem import (
    ScriptedProbe,
    TaskMemory,
    WorkerMemoryStop,
    count_in_pieces,
    merge_tallied,
)
from logagent.engine.run import ParsePool
from logagent.engine.tallied import Tallied
from logagent.formats.access import COMBINED
from logagent.result import QuestionKind, Result, Status
from logagent.routermem.router import Action, MemoryLevel, MemoryView, Reason
from logagent.routermem.worker import (
    WORKER_LADDER,
    decide_on_worker,
    piece_units,
    worker_budget,
)
from logagent.samples import generate
from logagent.sources import Order, open_source, plan_units, unit_order
from logagent.testing import fake_env

GIB = 1 << 30


def view(use: float, steps: tuple[str, ...] = (), next_share: float = 0.01) -> MemoryView:
    return MemoryView(int(use * GIB), GIB, int(next_share * GIB), steps)


@pytest.mark.parametrize("use", [0.0, 0.3, 0.59, 0.6, 0.7, 0.83, 0.84, 0.9, 0.98])
def test_a_step_is_taken_exactly_when_the_drivers_level_is_high(use: float) -> None:
    """The worker classifies with ``MemoryView.level``: a step iff that says HIGH."""
    memory = view(use)
    decision = decide_on_worker(memory)
    assert (decision.action is Action.DEGRADE) == (memory.level is MemoryLevel.HIGH)
    if decision.action is Action.DEGRADE:
        assert decision.reason is Reason.MEMORY_STEP and decision.step == "smaller_batches"
    else:
        assert decision.action is Action.CONTINUE


def test_high_with_every_step_taken_goes_on_while_under_the_limit() -> None:
    """HIGH, steps taken, the next piece still fits: count on (rule 7 only stops over it)."""
    assert decide_on_worker(view(0.9, WORKER_LADDER)).action is Action.CONTINUE


def test_over_the_limit_with_every_step_taken_stops_for_memory() -> None:
    """Steps taken and the next piece forecast past the limit: STOP_PARTIAL MEMORY."""
    decision = decide_on_worker(view(0.95, WORKER_LADDER, next_share=0.1))
    assert (decision.action, decision.reason) == (Action.STOP_PARTIAL, Reason.MEMORY)
    assert "over the limit" in decision.detail


def test_the_worker_ladder_is_the_drivers_exact_steps_only() -> None:
    """Only smaller batches: a sketch has no accumulator here, drop_detail would change REST."""
    assert WORKER_LADDER == ("smaller_batches",)


def test_pieces_are_a_quarter_once_smaller_batches_is_taken() -> None:
    """Whole slice before the step, a quarter (rounded up, at least 1) after it."""
    assert piece_units(40, ()) == 40
    assert piece_units(40, ("smaller_batches",)) == 10
    assert piece_units(3, ("smaller_batches",)) == 1
    assert piece_units(0, ("smaller_batches",)) == 1


def test_the_workers_own_limit_comes_first_then_the_tasks_budget() -> None:
    """Worker limit, else the budget sent with the task, else RSS plus what is free."""
    assert worker_budget(5, 7, 1, 2) == 5
    assert worker_budget(None, 7, 1, 2) == 7
    assert worker_budget(None, None, 1, 2) == 3


def fake_count(piece: Any) -> Tallied:
    units = np.asarray(piece, dtype=np.int64)
    return Tallied(units, 100 * len(units), len(units), Tally(units=len(units)))


def test_low_memory_counts_the_slice_as_one_piece() -> None:
    """LOW: one call over the whole slice, no step noted."""
    calls: list[int] = []

    def count(piece: Any) -> Tallied:
        calls.append(len(piece))
        return fake_count(piece)

    got = count_in_pieces(
        np.arange(40, dtype=np.int64), count, TaskMemory(probe=ScriptedProbe((0.1,))), unit_size=64
    )
    assert calls == [40] and got.note.steps == () and got.note.stopped is None
    assert got.tallied is not None and got.tallied.tally.units == 40


def test_high_memory_counts_in_quarters_and_notes_the_step() -> None:
    """HIGH throughout but under the limit: four pieces, every unit once, in order."""
    calls: list[int] = []

    def count(piece: Any) -> Tallied:
        calls.append(len(piece))
        return fake_count(piece)

    units = np.arange(100, 140, dtype=np.int64)
    got = count_in_pieces(units, count, TaskMemory(probe=ScriptedProbe((0.9,))), unit_size=64)
    assert calls == [10, 10, 10, 10]
    assert got.note.steps == ("smaller_batches",) and got.note.stopped is None
    assert got.note.first_unit == 100 and got.note.counted == 40
    assert got.tallied is not None and np.array_equal(got.tallied.units, units)
    assert got.tallied.bytes_read == 4000 and got.tallied.tally.units == 40


def test_over_the_limit_after_a_piece_returns_that_prefix_only() -> None:
    """HIGH, then over the limit after the first piece: the first quarter, and the stop."""
    units = np.arange(40, dtype=np.int64)[::-1].copy()  # a slice of a reading order
    got = count_in_pieces(
        units, fake_count, TaskMemory(probe=ScriptedProbe((0.9, 1.2))), unit_size=64
    )
    assert got.note.stopped is not None and "over the limit" in got.note.stopped
    assert got.note.counted == 10 and got.tallied is not None
    assert np.array_equal(got.tallied.units, units[:10])  # a prefix of the order
    assert "stopped, 10 of 40 units counted" in got.note.describe()


def test_over_the_limit_before_any_piece_counts_nothing() -> None:
    """Already over the limit: no piece is read, nothing is claimed."""
    got = count_in_pieces(
        np.arange(8, dtype=np.int64),
        fake_count,
        TaskMemory(probe=ScriptedProbe((1.5,))),
        unit_size=64,
    )
    assert got.tallied is None and got.note.counted == 0 and got.note.stopped is not None


def canonical(tally: Tally) -> dict[str, Any]:
    frames = {
        "counts": tally.counts.sort(pl.all()),
        "unit_errors": tally.unit_errors.sort(pl.all()),
        "unit_requests": tally.unit_requests.sort(pl.all()),
    }
    return {**{k: v.to_dicts() for k, v in frames.items()}, **tally.scalars()}


@pytest.fixture(scope="module")
def close_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("ladder") / "close.log"
    generate(path, scenario="close", size_mb=2, seed=7)
    return path


@pytest.mark.parametrize("needs", [(False, False), (True, False), (True, True)])
def test_pieces_of_a_real_slice_count_exactly_what_one_batch_counts(
    close_log: Path, needs: tuple[bool, bool]
) -> None:
    """A random slice counted in quarters (HIGH) equals it counted whole: tallies, lines, bytes."""
    source = open_source(str(close_log))
    plan = plan_units([source.size or 0], 1024)
    units = unit_order(plan.total_units, Order.RANDOM, 3)[:203]
    specs = (spec_of(source),)
    pool = ParsePool(COMBINED, errors_only=True, rules=None, track_units=True)
    whole = tasks.count_slice(specs, plan, units, pool, 1 << 20, needs)
    high = tasks.TaskOptions(memory=TaskMemory(probe=ScriptedProbe((0.9,))))
    quarters = tasks.count_slice(specs, plan, units, pool, 1 << 20, needs, high)
    source.close()
    assert whole.note.steps == () and quarters.note.steps == ("smaller_batches",)
    a, b = whole.tallied, quarters.tallied
    assert a is not None and b is not None and a.tally.units == 203
    assert np.array_equal(a.units, b.units)
    assert (a.bytes_read, a.lines) == (b.bytes_read, b.lines)
    assert canonical(a.tally) == canonical(b.tally)
    for x, y in ((a.unit_lines, b.unit_lines), (a.unit_records, b.unit_records)):
        assert (x is None) == (y is None) and (x is None or np.array_equal(x, y))


def test_a_full_read_task_that_must_stop_raises_a_picklable_stop(close_log: Path) -> None:
    """A full read keeps no prefix: its task's stop is an error that survives pickling."""
    import pickle

    source = open_source(str(close_log))
    plan = plan_units([source.size or 0], 1024)
    pool = ParsePool(COMBINED, errors_only=True, rules=None, track_units=False)
    over = tasks.TaskOptions(memory=TaskMemory(probe=ScriptedProbe((0.9, 1.2))))
    with pytest.raises(WorkerMemoryStop) as caught:
        tasks.count_range((spec_of(source),), plan, 0, 64, pool, 1 << 20, over)
    source.close()
    again = pickle.loads(pickle.dumps(caught.value))
    assert isinstance(again, WorkerMemoryStop) and str(again) == str(caught.value)


def test_merging_one_piece_is_that_piece() -> None:
    """No step: the task's result is the very batch it counted."""
    one = fake_count(np.arange(3))
    assert merge_tallied([one]) is one


def ask(path: Path, backend: ThreadBackend | None) -> Result:
    settings = load_settings(
        analysis={"seed": 4, "degrade_above": 1.0},
        reader={"unit_size": 2048, "batch_bytes": 256 << 10},
    )
    env = replace(fake_env(), backend=backend)
    return analyze([str(path)], Question(kind=QuestionKind.TOP_ERRORS, top=2), settings, env)


def thread_backend(use: tuple[float, ...]) -> tuple[ThreadExecutor, ThreadBackend]:
    ex = ThreadExecutor(2, max_delay_s=0.005, seed=1)
    return ex, ThreadBackend(ex, window=4, memory=TaskMemory(probe=ScriptedProbe(use)))


def test_high_workers_give_the_local_answer_and_note_their_steps(close_log: Path) -> None:
    """Every task HIGH: batches counted in quarters, the local answer and trace, steps noted."""
    local = ask(close_log, None)
    ex, backend = thread_backend((0.9,))
    remote = ask(close_log, backend)
    ex.close()
    assert remote.status == local.status and remote.answer == local.answer
    trace = [(d.units_read, d.action, d.reason) for d in local.decisions]
    assert [(d.units_read, d.action, d.reason) for d in remote.decisions] == trace
    assert len(backend.notes) == len(local.decisions)  # every task took the step
    assert all(n.steps == ("smaller_batches",) and n.stopped is None for n in backend.notes)


def test_a_worker_over_its_limit_ends_the_read_partial_for_memory(close_log: Path) -> None:
    """The pilot's task stops after its first quarter: a partial answer of exactly those units."""
    local = ask(close_log, None)
    ex, backend = thread_backend((0.9, 1.2))
    remote = ask(close_log, backend)
    ex.close()
    assert remote.status is Status.PARTIAL
    last = remote.decisions[-1]
    assert (last.action, last.reason) == ("STOP_PARTIAL", "memory_forecast")
    assert "a worker's memory would break its limit" in last.detail and "pid " in last.detail
    pilot = local.decisions[0].units_read
    stop = backend.notes[0]
    assert stop.stopped is not None and stop.counted == piece_units(pilot, WORKER_LADDER)
    assert remote.progress.units_read == stop.counted < pilot
