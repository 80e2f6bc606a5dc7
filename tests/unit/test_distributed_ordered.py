"""The Dask driver's ordering: results in submission order, a bounded window, cancel on stop."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from logagent import Question, analyze, load_settings
from logagent.distributed.local import ThreadBackend, ThreadExecutor
from logagent.distributed.ordered import iter_in_order
from logagent.result import QuestionKind, Result
from logagent.samples import generate
from logagent.testing import fake_env


def numbered(n: int, ran: list[int]) -> Iterator[tuple[Any, tuple[Any, ...]]]:
    lock = threading.Lock()

    def task(i: int) -> int:
        with lock:
            ran.append(i)
        return i

    for i in range(n):
        yield task, (i,)


def test_results_come_in_submission_order_although_tasks_finish_out_of_order() -> None:
    """Random delays finish tasks out of order; the iterator still yields 0, 1, 2, ..."""
    ex = ThreadExecutor(4, max_delay_s=0.02, seed=1)
    stats_ran: list[int] = []
    from logagent.distributed.ordered import InOrder

    stats = InOrder()
    out = list(iter_in_order(ex, numbered(60, stats_ran), window=6, stats=stats, poll_s=0.01))
    ex.close()
    assert out == list(range(60))
    assert stats.arrived_early > 0  # completion order did differ
    assert ex.most_running <= 6


def test_closing_cancels_what_is_outstanding() -> None:
    """Stopping after 5 results leaves at most a window of tasks run, the rest cancelled."""
    ex = ThreadExecutor(2, max_delay_s=0.01, seed=2)
    ran: list[int] = []
    items = iter_in_order(ex, numbered(500, ran), window=4, poll_s=0.01)
    got = [next(items) for _ in range(5)]
    items.close()  # type: ignore[attr-defined]  # a generator
    ex.close()
    assert got == [0, 1, 2, 3, 4]
    assert len(ran) <= 5 + 4


def test_an_error_in_a_task_reaches_the_consumer() -> None:
    """A task's exception is raised where its result would have been handed on."""
    ex = ThreadExecutor(2)

    def boom() -> None:
        raise ValueError("bad unit")

    with pytest.raises(ValueError, match="bad unit"):
        list(iter_in_order(ex, iter([(boom, ())]), window=2, poll_s=0.01))
    ex.close()


@pytest.fixture(scope="module")
def close_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("ordered") / "close.log"
    generate(path, scenario="close", size_mb=3, seed=5)
    return path


def ask(path: Path, backend: ThreadBackend | None, **analysis: Any) -> Result:
    settings = load_settings(
        analysis={"seed": 4, "degrade_above": 1.0, **analysis},
        reader={"unit_size": 2048, "batch_bytes": 256 << 10},
    )
    env = replace(fake_env(), backend=backend)
    return analyze([str(path)], Question(kind=QuestionKind.TOP_ERRORS, top=2), settings, env)


@pytest.mark.parametrize("full", [False, True])
def test_out_of_order_workers_give_the_local_answer(close_log: Path, full: bool) -> None:
    """The sampled feed (and --full) over out-of-order threads: the local answer and trace."""
    local = ask(close_log, None, full=full)
    ex = ThreadExecutor(3, max_delay_s=0.02, seed=3)
    backend = ThreadBackend(ex, window=6)
    remote = ask(close_log, backend, full=full)
    ex.close()
    assert remote.answer == local.answer and remote.status == local.status
    trace = [(d.units_read, d.action) for d in local.decisions]
    assert [(d.units_read, d.action) for d in remote.decisions] == trace
    if not full:
        assert backend.feeds and backend.feeds[0].handed_on == len(local.decisions)
