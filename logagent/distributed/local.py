"""The Dask backend's driver code over a thread pool with random task delays (EDGE: threads).

For the calibration and the unit tests: tasks complete out of order (each
sleeps a seeded random time before it runs), yet reach the evidence in the
permutation's order through the same ``OrderedFeed`` the Dask backend uses.
No scheduler, no worker processes: many seeded runs stay cheap.
"""

from __future__ import annotations

import concurrent.futures as cf
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from logagent.counters import Tally
from logagent.counters.tally import merge
from logagent.distributed import tasks
from logagent.distributed.feed import OrderedFeed, feed_for
from logagent.distributed.inputs import open_inputs, spec_of
from logagent.distributed.ordered import Handle, InOrder
from logagent.distributed.tasks import TaskOptions
from logagent.distributed.workermem import TaskMemory, WorkerNote
from logagent.engine.run import ParsePool
from logagent.sources import Source, UnitPlan
from logagent.sources.batches import I64, unit_ranges


class ThreadExecutor:
    """``ordered.Executor`` over threads; each task first sleeps ``delay()`` seconds."""

    def __init__(self, workers: int, *, max_delay_s: float = 0.0, seed: int = 0) -> None:
        self.pool = cf.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="logagent-sim")
        self._rng = np.random.default_rng(seed)
        self._lock = threading.Lock()
        self.max_delay_s = max_delay_s
        self.running = 0
        self.most_running = 0

    def submit(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> Handle:
        """Run ``fn(*args)`` on a thread after a random delay."""
        with self._lock:
            delay = float(self._rng.uniform(0, self.max_delay_s)) if self.max_delay_s else 0.0

        def run() -> Any:
            with self._lock:
                self.running += 1
                self.most_running = max(self.most_running, self.running)
            try:
                time.sleep(delay)
                return fn(*args)
            finally:
                with self._lock:
                    self.running -= 1

        return self.pool.submit(run)

    def wait_any(self, handles: list[Handle], timeout_s: float) -> None:
        """Until one finished (or the timeout)."""
        cf.wait(handles, timeout=timeout_s, return_when=cf.FIRST_COMPLETED)  # type: ignore[arg-type]  # cf.Futures

    def result(self, handle: Handle) -> Any:
        """Its value."""
        return handle.result()  # type: ignore[attr-defined]  # a cf.Future

    def cancel(self, handles: list[Handle]) -> None:
        """Cancel those not started."""
        for h in handles:
            h.cancel()

    def close(self) -> None:
        """Stop the threads (cancelling what waits)."""
        self.pool.shutdown(wait=True, cancel_futures=True)


class ThreadBackend:
    """``tallied.Backend`` over a ``ThreadExecutor``: Dask's driver code, simulated workers."""

    def __init__(
        self, executor: ThreadExecutor, *, window: int, memory: TaskMemory | None = None
    ) -> None:
        """``memory``: what each task is told of memory (a test's ``ScriptedProbe``)."""
        self.executor, self.window = executor, window
        self.memory = memory or TaskMemory()
        self.feeds: list[InOrder] = []
        self.notes: list[WorkerNote] = []  # every feed's worker steps and stops

    @property
    def description(self) -> str:
        """What ran the tasks."""
        return "threads with random task delays (simulated workers)"

    def open_inputs(self, paths: Sequence[str]) -> list[Source]:
        """As the Dask backend opens them."""
        return open_inputs(paths)

    def sampled_feed(
        self,
        sources: Sequence[Source],
        plan: UnitPlan,
        slices: Iterator[I64],
        pool: ParsePool,
        *,
        cap: int,
    ) -> OrderedFeed:
        """The Dask backend's feed, on threads."""

        def options() -> TaskOptions:
            return TaskOptions(memory=self.memory)

        feed = feed_for(
            self.executor, sources, plan, slices, pool, window=self.window, cap=cap, options=options
        )
        self.feeds.append(feed.stats)
        self.notes = feed.notes
        return feed

    def count_all(
        self,
        sources: Sequence[Source],
        plan: UnitPlan,
        pool: ParsePool,
        *,
        batch_units: int,
        cap: int,
        most_units: int | None = None,
    ) -> Tally:
        """Every unit of the seekable inputs by tasks, merged here (streams: not simulated);
        ``most_units``: only the units before it."""
        if any(not s.seekable for s in sources):
            raise NotImplementedError("the thread backend simulates seekable inputs only")
        specs = tuple(spec_of(s) for s in sources)
        handles = [
            self.executor.submit(tasks.count_range, (specs, plan, lo, hi, pool, cap))
            for lo, hi in unit_ranges(plan, batch_units, most_units)
        ]
        return merge(self.executor.result(h) for h in handles)
