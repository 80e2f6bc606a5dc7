"""The Dask backend: batches counted on a cluster's workers, evidence kept here (EDGE: dask).

``DaskBackend`` implements ``engine.tallied.Backend`` over a
``distributed.Client``. A sampled read submits the sampled loop's own slices
of the permutation (``sampled.sampled_slices``), one task per batch, a
bounded window ahead, and hands the results on in the permutation's order
(``ordered.iter_in_order``); Router-Mem's stop closes the feed, which cancels
the outstanding tasks. A worker lost mid-run has its tasks retried by Dask;
a batch is counted when its one result is handed on, so never twice. A full
read is a tree-merge of per-task tallies on the workers (exact).

Each task runs its worker's memory ladder (``workermem``) under the worker's
own limit (the budget's share per worker as the fallback); the steps taken,
by which worker, are kept in ``last_notes``, and a worker's stop ends the
read as ``ReadStopped(memory_forecast)``, whose detail names the worker.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from logagent.counters import Tally
from logagent.distributed import tasks
from logagent.distributed.feed import OrderedFeed, feed_for, stop_of
from logagent.distributed.inputs import InputSpec, open_inputs, spec_of
from logagent.distributed.ordered import Handle, InOrder
from logagent.distributed.tasks import TaskOptions
from logagent.distributed.workermem import TaskMemory, WorkerMemoryStop, WorkerNote
from logagent.engine.run import ParsePool
from logagent.errors import ConfigError, LogagentError
from logagent.routermem.router import Reason
from logagent.sources import Source, UnitPlan
from logagent.sources.batches import I64, unit_ranges
from logagent.sources.files import ReadStopped

#: Batches in flight per worker thread: enough to hide a round trip, few enough that a stop
#: wastes little (each batch in flight past the settling point is read for nothing).
WINDOW_PER_THREAD = 2
FAN_IN = 8  # tallies merged by one node of a full read's tree
CONNECT_TIMEOUT_S = 10


class DaskExecutor:
    """``ordered.Executor`` over a ``distributed.Client``."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def submit(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> Handle:
        """One task; futures among ``args`` are resolved on the worker."""
        handle: Handle = self.client.submit(fn, *args, pure=False)
        return handle

    def wait_any(self, handles: list[Handle], timeout_s: float) -> None:
        """Until one finished (or the timeout)."""
        from distributed import wait

        with contextlib.suppress(TimeoutError):
            wait(handles, timeout=timeout_s, return_when="FIRST_COMPLETED")

    def result(self, handle: Handle) -> Any:
        """Its value; a task that kept killing its workers is a clear error."""
        from distributed import KilledWorker

        try:
            return handle.result()  # type: ignore[attr-defined]  # a distributed.Future
        except KilledWorker as exc:
            raise LogagentError(
                f"the Dask cluster lost every worker that ran a task: {exc}"
            ) from exc

    def cancel(self, handles: list[Handle]) -> None:
        """Cancel them (and release finished ones)."""
        self.client.cancel(handles)


class DaskBackend:
    """Counting on a Dask cluster (a real one, or a ``LocalCluster`` of worker processes)."""

    def __init__(
        self,
        client: Any,
        *,
        threads: int,
        description: str,
        memory: TaskMemory | None = None,
        delays: Callable[[], float] | None = None,
    ) -> None:
        """``memory``: what tasks are told of memory; ``delays``: each task's sleep (calibrate)."""
        self.client = client
        self.executor = DaskExecutor(client)
        self.window = max(2, WINDOW_PER_THREAD * threads)
        self._description = description
        self.memory = memory or TaskMemory()
        self.delays = delays
        self.last_feed: InOrder | None = None
        self.last_notes: list[WorkerNote] = []  # the last read's worker steps and stops

    def options(self) -> TaskOptions:
        """The next task's options."""
        delay = self.delays() if self.delays is not None else 0.0
        return TaskOptions(memory=self.memory, delay_s=delay)

    @property
    def description(self) -> str:
        """Where the run's batches were counted."""
        return self._description

    def open_inputs(self, paths: Sequence[str]) -> list[Source]:
        """Resolve and open local paths and URLs (the driver reads only the detection sample)."""
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
        """The sampled loop's batches, counted on the workers, handed on in order."""
        feed = feed_for(
            self.executor,
            sources,
            plan,
            slices,
            pool,
            window=self.window,
            cap=cap,
            options=self.options,
        )
        self.last_feed, self.last_notes = feed.stats, feed.notes
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
        """Every unit and stream counted by tasks, tallies merged in a tree on the workers;
        ``most_units``: only the units before it."""
        seekable = [s for s in sources if s.seekable]
        specs = tuple(spec_of(s) for s in seekable)
        leaves = []
        for lo, hi in unit_ranges(plan, batch_units, most_units):
            args = (specs, plan, lo, hi, pool, cap, self.options())  # see feed_for
            leaves.append(self.client.submit(tasks.count_range, *args, pure=False))
        batch_bytes = batch_units * plan.unit_size
        for s in (s for s in sources if not s.seekable):
            stream = (spec_of(s), pool, cap, plan.unit_size, plan.total_units, batch_bytes)
            leaves.append(self.client.submit(tasks.count_stream, *stream, pure=False))
        if not leaves:
            return Tally()
        final = _tree(self.client, leaves)
        stop = stop_of(sources)
        try:
            while not final.done():
                stop()
                self.executor.wait_any([final], 0.2)
        except BaseException:  # a stop: the tree's tasks go (finished ones are just released)
            self.client.cancel([final, *leaves])
            raise
        try:
            tally: Tally = self.executor.result(final)
        except WorkerMemoryStop as exc:  # nothing of the tree is kept: no count is half-made
            raise ReadStopped(
                f"a worker's memory would break its limit ({exc})", Reason.MEMORY.value
            ) from exc
        return tally


def _tree(client: Any, level: list[Any]) -> Any:
    """Merge futures of tallies FAN_IN at a time until one is left."""
    while len(level) > 1:
        level = [
            client.submit(tasks.merge_tallies, *level[i : i + FAN_IN], pure=False)
            for i in range(0, len(level), FAN_IN)
        ]
    return level[0]


@contextlib.contextmanager
def dask_backend(
    *, scheduler: str | None, workers: int | None, memory_limit_bytes: int | None
) -> Iterator[DaskBackend]:
    """A backend on the cluster at ``scheduler``, or on a new ``LocalCluster`` of processes."""
    import dask

    # The run's own progress is on stderr; a cluster's chatter (and its shutdown) is not news.
    dask.config.set({"logging.distributed": "critical", "distributed.admin.log-length": 0})
    for name in ("distributed", "distributed.worker", "distributed.nanny", "distributed.scheduler"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    from distributed import Client, LocalCluster

    if scheduler is not None:
        try:
            client = Client(scheduler, timeout=CONNECT_TIMEOUT_S)
        except (OSError, TimeoutError) as exc:
            raise ConfigError(f"--scheduler {scheduler}: cannot connect ({exc})") from exc
        with client:
            threads = sum(client.nthreads().values()) or 1
            n = len(client.nthreads())
            yield DaskBackend(
                client, threads=threads, description=f"dask at {scheduler}, {n} workers"
            )
        return
    n = workers or max(1, min(4, os.cpu_count() or 1))
    per_worker = memory_limit_bytes // n if memory_limit_bytes else None
    with (
        LocalCluster(
            n_workers=n,
            threads_per_worker=1,
            processes=True,
            memory_limit=per_worker or "auto",
            dashboard_address=":0",
            silence_logs=logging.CRITICAL,
            scheduler_port=0,
            host="127.0.0.1",
        ) as cluster,
        Client(cluster) as client,
    ):
        yield DaskBackend(
            client,
            threads=n,
            description=f"dask LocalCluster, {n} worker processes",
            memory=TaskMemory(fallback_budget_bytes=per_worker),
        )


def specs_for(sources: Sequence[Source]) -> tuple[InputSpec, ...]:
    """What tasks are told of the inputs (for tests and the benchmark)."""
    return tuple(spec_of(s) for s in sources)
