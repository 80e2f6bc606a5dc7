"""Results of tasks handed on in the order they were submitted, a bounded window ahead.

The early stop's guarantee holds for a uniformly random *reading order*: the
evidence must see the batches in the permutation's order, never in the order
tasks finish (fast ranges come back first, and where a range lies in the
file may correlate with what it holds). ``iter_in_order`` keeps up to
``window`` tasks running, buffers results that arrive early, hands each on
only when every earlier one was handed on, and cancels whatever is still
outstanding when the consumer stops. It depends on no scheduler: Dask's
client and a thread pool (the calibration's simulation) both fit ``Executor``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


class Handle(Protocol):
    """A submitted task (``distributed.Future``, ``concurrent.futures.Future``)."""

    def done(self) -> bool:
        """Whether it finished."""
        ...

    def cancel(self) -> Any:
        """Stop it if it has not run."""
        ...


class Executor(Protocol):
    """Where tasks run."""

    def submit(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> Handle:
        """Start ``fn(*args)``; its value is fetched with ``result``."""
        ...

    def wait_any(self, handles: list[Handle], timeout_s: float) -> None:
        """Return when one of ``handles`` finished or ``timeout_s`` passed."""
        ...

    def result(self, handle: Handle) -> Any:
        """The finished task's value (its exception re-raised)."""
        ...

    def cancel(self, handles: list[Handle]) -> None:
        """Cancel these tasks (finished ones are released)."""
        ...


class InOrder:
    """What ``iter_in_order`` did, for the result and the tests."""

    def __init__(self) -> None:
        self.submitted = 0
        self.handed_on = 0
        self.arrived_early = 0  # results that finished before an earlier one
        self.most_buffered = 0
        self.cancelled = 0


def iter_in_order(
    executor: Executor,
    tasks: Iterator[tuple[Callable[..., T], tuple[Any, ...]]],
    *,
    window: int,
    stats: InOrder | None = None,
    poll_s: float = 0.2,
    stop_check: Callable[[], None] | None = None,
) -> Iterator[T]:
    """Run ``tasks`` (function, arguments) up to ``window`` at once; yield results in order.

    A task is made (``next(tasks)``) only when a slot is free, so what it
    captures (e.g. what the checks need) is as fresh as the window allows.
    ``stop_check`` is called while waiting and may raise to end the run.
    Closing the iterator (or an error) cancels every outstanding task.
    """
    stats = stats or InOrder()
    running: list[Handle] = []  # in submission order; running[0] is the next to hand on
    exhausted = False
    counted: set[int] = set()  # early arrivals already counted
    try:
        while True:
            while not exhausted and len(running) < window:
                task = next(tasks, None)
                if task is None:
                    exhausted = True
                    break
                running.append(executor.submit(*task))
                stats.submitted += 1
            if not running:
                return
            head = running[0]
            while not head.done():
                if stop_check is not None:
                    stop_check()
                executor.wait_any(running, poll_s)
            early = [id(h) for h in running[1:] if h.done()]
            stats.arrived_early += len(set(early) - counted)
            counted.update(early)
            stats.most_buffered = max(stats.most_buffered, len(early))
            value = executor.result(head)
            counted.discard(id(running.pop(0)))
            stats.handed_on += 1
            yield value
    finally:
        if running:
            stats.cancelled += len(running)
            executor.cancel(running)
