"""A worker's memory readings and its ladder over one batch (EDGE: the worker, psutil, /proc).

A task reads its worker's own memory limit (``distributed.get_worker()``'s
memory manager; the budget sent with the task where the worker has none) and
the process's RSS (``routermem.memory``, the adapter the local engine uses),
then counts its units as ``routermem.worker.decide_on_worker`` says: whole,
in smaller pieces, or up to a stop. The readings come from a ``Probe`` sent
with the task, so a test sends ``ScriptedProbe`` (a HIGH reading on a real
worker, with no timing trick) where a run sends ``WorkerProbe``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from logagent.counters.tally import merge
from logagent.engine.tallied import Tallied
from logagent.errors import LogagentError
from logagent.routermem import memory as process_memory
from logagent.routermem.forecast import Forecast
from logagent.routermem.router import Action, MemoryView
from logagent.routermem.worker import decide_on_worker, piece_units, worker_budget
from logagent.sources.batches import I64


@dataclass(frozen=True)
class Reading:
    """One memory snapshot of a worker process."""

    rss_bytes: int
    peak_bytes: int
    limit_bytes: int | None  # the worker's own limit (None: it has none)
    free_bytes: int  # what its machine can still give
    worker: str  # its address (or pid outside a Dask worker)


class Probe(Protocol):
    """Readings for one task, taken in turn (picklable: it travels with the task)."""

    def start(self) -> Callable[[], Reading]:
        """A reader for one task."""
        ...


@dataclass(frozen=True)
class WorkerProbe:
    """The real readings: the Dask worker's limit, this process's RSS."""

    def start(self) -> Callable[[], Reading]:
        """Each call reads anew."""
        limit, name = _worker_limit()

        def read() -> Reading:
            return Reading(
                process_memory.rss_bytes(),
                process_memory.peak_rss_bytes(),
                limit,
                process_memory.available_bytes(),
                name,
            )

        return read


@dataclass(frozen=True)
class ScriptedProbe:
    """A test double: the worker's real limit, an RSS scripted as shares of it, in turn.

    ``use=(0.9, 1.2)``: HIGH before the first piece, over the limit after it
    (the last share repeats). Outside a Dask worker the limit is ``fallback_limit_bytes``.
    """

    use: tuple[float, ...]
    fallback_limit_bytes: int = 1 << 30

    def start(self) -> Callable[[], Reading]:
        """Readings that follow the script."""
        limit, name = _worker_limit()
        base = limit or self.fallback_limit_bytes
        shares: Iterator[float] = iter(self.use)
        last = [self.use[-1]]

        def read() -> Reading:
            last[0] = next(shares, last[0])
            rss = int(base * last[0])
            return Reading(rss, rss, base, 0, name)

        return read


def _worker_limit() -> tuple[int | None, str]:
    """The Dask worker's memory limit and address (None, pid: not in a Dask worker)."""
    try:
        from distributed import get_worker

        worker = get_worker()
    except (ImportError, ValueError):
        return None, f"pid {os.getpid()}"
    manager = getattr(worker, "memory_manager", None)
    limit = getattr(manager, "memory_limit", None) or getattr(worker, "memory_limit", None)
    return (int(limit) if limit else None), str(worker.address)


@dataclass(frozen=True)
class TaskMemory:
    """What a task is told of memory: the budget where its worker has no limit, the probe."""

    fallback_budget_bytes: int | None = None
    probe: Probe = field(default_factory=WorkerProbe)


@dataclass(frozen=True)
class WorkerNote:
    """What the ladder did in one task: on which worker, which steps, and whether it stopped."""

    worker: str
    first_unit: int  # the first unit of the task's slice (which batch it was)
    units: int  # units of the slice
    counted: int  # units counted (all, unless it stopped)
    steps: tuple[str, ...]
    details: tuple[str, ...]  # each step's decision, as traced
    stopped: str | None = None  # the stop's detail

    def describe(self) -> str:
        """One line for the trace and the log."""
        steps = ", ".join(self.steps) or "none"
        what = f"worker {self.worker}: steps {steps} on the batch from unit {self.first_unit}"
        if self.stopped is None:
            return f"{what} ({self.units} units counted)"
        return f"{what}: stopped, {self.counted} of {self.units} units counted; {self.stopped}"


@dataclass(frozen=True)
class Counted:
    """A task's result: its counted prefix of the slice (None: nothing), and the note."""

    tallied: Tallied | None
    note: WorkerNote


class WorkerMemoryStop(LogagentError):
    """A task of a full read stopped: its worker's memory would break its limit."""

    def __reduce__(self) -> tuple[type[WorkerMemoryStop], tuple[str]]:
        return (WorkerMemoryStop, (str(self),))


def count_in_pieces(
    units: I64, count: Callable[[I64], Tallied], memory: TaskMemory, *, unit_size: int
) -> Counted:
    """Count ``units`` (a slice of the reading order) in turn, as the worker's ladder says."""
    read = memory.probe.start()
    first = read()
    budget = worker_budget(
        first.limit_bytes, memory.fallback_budget_bytes, first.rss_bytes, first.free_bytes
    )
    forecast, reading = Forecast(), first
    forecast.start(first.rss_bytes, first.peak_bytes)
    steps: list[str] = []
    details: list[str] = []
    parts: list[Tallied] = []
    pos, stopped = 0, None
    while pos < len(units):
        piece = units[pos : pos + piece_units(len(units), tuple(steps))]
        nxt = forecast.next_batch(len(piece) * unit_size, len(piece))
        decision = decide_on_worker(MemoryView(reading.rss_bytes, budget, nxt, tuple(steps)))
        if decision.step:
            steps.append(decision.step)
            details.append(decision.detail)
            continue
        if decision.action is Action.STOP_PARTIAL:
            stopped = decision.detail
            break
        parts.append(count(piece))
        pos += len(piece)
        reading = read()
        forecast.observe(reading.rss_bytes, reading.peak_bytes, parts[-1].bytes_read, len(piece))
    note = WorkerNote(
        worker=first.worker,
        first_unit=int(units[0]) if len(units) else -1,
        units=len(units),
        counted=pos,
        steps=tuple(steps),
        details=tuple(details),
        stopped=stopped,
    )
    return Counted(merge_tallied(parts) if parts else None, note)


def merge_tallied(parts: list[Tallied]) -> Tallied:
    """Pieces of one slice as the one batch of it (tallies added, per-unit arrays in order)."""
    if len(parts) == 1:
        return parts[0]
    lines = [p.unit_lines for p in parts]
    records = [p.unit_records for p in parts]
    return Tallied(
        units=np.concatenate([p.units for p in parts]),
        bytes_read=sum(p.bytes_read for p in parts),
        lines=sum(p.lines for p in parts),
        tally=merge(p.tally for p in parts),
        unit_lines=None if any(x is None for x in lines) else np.concatenate(lines),  # type: ignore[arg-type]  # checked: none is None
        unit_records=None if any(x is None for x in records) else np.concatenate(records),  # type: ignore[arg-type]  # checked
    )
