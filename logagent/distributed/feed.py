"""A sampled read's feed over any ``ordered.Executor`` (EDGE: runs tasks).

``OrderedFeed`` turns the sampled loop's slices of the permutation into
``tasks.count_slice`` tasks, a bounded window ahead, and hands the counted
batches back in the permutation's order (``ordered.iter_in_order``). Dask's
backend and the thread-pool simulation of the calibration both use it, so
the order, the window and the cancellation tested there are Dask's.

Each task's worker may have taken memory steps (``workermem``): their notes
are kept in ``OrderedFeed.notes`` and logged. A task that stopped for memory
hands on the prefix it counted (exact for those units, and still a prefix of
the reading order), then the feed raises ``ReadStopped`` with reason
``memory_forecast``: the engine ends the read as it ends a local batch that
did not fit (STOP_PARTIAL, the counts kept), and its trace names the worker.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from logagent.distributed import tasks
from logagent.distributed.ordered import Executor, InOrder, iter_in_order
from logagent.distributed.tasks import TaskOptions
from logagent.distributed.workermem import Counted, WorkerNote
from logagent.engine.tallied import Needs, Tallied
from logagent.log import get_logger
from logagent.routermem.router import Reason
from logagent.sources import Source
from logagent.sources.batches import I64
from logagent.sources.files import ReadStopped

log = get_logger("logagent.distributed")


class OrderedFeed:
    """``tallied.SampledFeed``: count slices elsewhere, in order; ``close`` cancels the rest."""

    def __init__(
        self,
        executor: Executor,
        shared: Sequence[Any],
        slices: Iterator[I64],
        *,
        window: int,
        cap: int,
        stop: Callable[[], None],
        release: Callable[[], None] = lambda: None,
        options: Callable[[], TaskOptions] = TaskOptions,
    ) -> None:
        """``shared``: the inputs' specs, the unit plan and the parse pool (or handles to them);
        ``options``: each task's (memory, delay), asked as it is submitted."""
        self.executor, self.shared, self.slices = executor, tuple(shared), slices
        self.window, self.cap, self.stop, self.release = window, cap, stop, release
        self.options = options
        self.stats = InOrder()
        self.notes: list[WorkerNote] = []  # the tasks whose worker took a step or stopped
        self._items: Iterator[Counted] | None = None

    def __call__(self, needs: Needs) -> Iterator[Tallied]:
        """Submit slice after slice (what the checks need is fixed at submission), in order."""
        specs, plan, pool = self.shared

        def task_list() -> Iterator[tuple[Callable[..., Counted], tuple[Any, ...]]]:
            for units in self.slices:
                args = (specs, plan, units, pool, self.cap, needs(), self.options())
                yield tasks.count_slice, args

        self._items = iter_in_order(
            self.executor, task_list(), window=self.window, stats=self.stats, stop_check=self.stop
        )
        return self._handed_on(self._items)

    def _handed_on(self, items: Iterator[Counted]) -> Iterator[Tallied]:
        """Each task's counts; its worker's steps noted; after a stopped one's prefix, the stop."""
        for counted in items:
            note = counted.note
            if note.steps or note.stopped is not None:
                self.notes.append(note)
                log.info("worker_memory", worker=note.worker, steps=note.steps, stop=note.stopped)
            if counted.tallied is not None:
                yield counted.tallied
            if note.stopped is not None:
                raise ReadStopped(
                    f"a worker's memory would break its limit ({note.describe()})",
                    Reason.MEMORY.value,
                )

    def close(self) -> None:
        """Cancel the outstanding tasks and release what was shared with the workers."""
        if self._items is not None:
            self._items.close()  # type: ignore[attr-defined]  # a generator
        self.release()


def feed_for(
    executor: Executor,
    sources: Sequence[Source],
    plan: Any,
    slices: Iterator[I64],
    pool: Any,
    *,
    window: int,
    cap: int,
    options: Callable[[], TaskOptions] = TaskOptions,
) -> OrderedFeed:
    """The feed of a sampled read: each task gets the inputs' specs, the plan and the pool.

    Sent with each task, not scattered: a scattered value lost with its worker cannot be
    recomputed, and the tasks that need it would be forgotten instead of retried.
    """
    from logagent.distributed.inputs import spec_of

    specs = tuple(spec_of(s) for s in sources)
    return OrderedFeed(
        executor,
        (specs, plan, pool),
        slices,
        window=window,
        cap=cap,
        stop=stop_of(sources),
        options=options,
    )


def stop_of(sources: Sequence[Source]) -> Callable[[], None]:
    """The engine's mid-read stop check (signals, budgets), raised as the local reads raise it."""
    check = next((s.stop_check for s in sources if s.stop_check is not None), None)

    def stop() -> None:
        if check is not None and (why := check()) is not None:
            raise ReadStopped(why[1], why[0])

    return stop
