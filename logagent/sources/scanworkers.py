"""Prescans of a read of everything on several cores (EDGE: child processes).

The prescan (``sources.prescan``) is Python and SIMD calls that hold the GIL,
so threads cannot share it out; ``grep | awk`` is two processes, and so is
this. Forked children scan byte ranges of the already opened sources and send
back only the counts and the candidate lines; batches stay in file order.

A child never logs, never asks the engine's stop check and never raises to
the parent: a range it cannot scan (an error, a file that changed, dense
candidates) comes back as None and the parent reads that batch itself, the
usual way, which raises what is to be raised. The children ignore SIGINT
(the terminal sends it to the whole group; the parent decides), die on
SIGTERM, and are terminated when the read ends, however it ends.
"""

from __future__ import annotations

import itertools
import os
import signal
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from logagent.sources.files import Source
from logagent.sources.prescan import Found, Prescan, scan_range

if TYPE_CHECKING:  # multiprocessing is imported by the reads that fork (start-up time)
    from multiprocessing.pool import AsyncResult, Pool

#: The read a pool serves: (token, sources, prescan, cap), set just before its fork and read
#: by its children. Every task carries the token: a child forked for another read (two runs
#: of the service at once, a child respawned later) answers None and the parent reads itself.
_SHARED: tuple[int, Sequence[Source], Prescan, int] | None = None
_FORKING = threading.Lock()
_TOKENS = itertools.count(1)


def available_processes() -> int:
    """Cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def workers_for(
    sources: Sequence[Source],
    prescan: Prescan,
    *,
    cap: int,
    nbytes: int,
    processes: int,
    parallel_from: int,
) -> ScanWorkers | None:
    """Workers for a read of ``nbytes`` seekable bytes, or None when one process is better.

    ``processes``: 0 is one per core. Below ``parallel_from`` bytes the fork
    and the pool cost more than a second core gives back.
    """
    n = processes or available_processes()
    if n < 2 or nbytes < parallel_from or not sources:
        return None
    try:
        return ScanWorkers(sources, prescan, cap=cap, processes=n)
    except OSError:  # no fork allowed (limits): one process reads it all
        return None


class ScanWorkers:
    """A pool of forked prescanning processes for one read (a context manager)."""

    def __init__(self, sources: Sequence[Source], prescan: Prescan, *, cap: int, processes: int):
        import multiprocessing

        global _SHARED
        self._token = next(_TOKENS)
        with _FORKING:  # one pool forks at a time, each with its own read
            _SHARED = (self._token, sources, prescan, cap)
            try:
                self._pool: Pool | None = multiprocessing.get_context("fork").Pool(
                    processes, initializer=_child_start
                )
            finally:
                _SHARED = None  # the children have their copy; the parent keeps no reference

    def submit(self, source: int, start: int, stop: int) -> AsyncResult[Found | None]:
        """Scan the lines starting in ``[start, stop)`` of source ``source`` in a child."""
        assert self._pool is not None
        return self._pool.apply_async(_scan_in_child, (self._token, source, start, stop))

    def close(self) -> None:
        """Stop the children now (pending scans are dropped)."""
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None

    def __enter__(self) -> ScanWorkers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _child_start() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if _SHARED is not None:
        for source in _SHARED[1]:
            source.stop_check = None  # the parent's stop check is the parent's to ask


def _scan_in_child(token: int, source: int, start: int, stop: int) -> Found | None:
    """One range, scanned in a child; None when it cannot be (the parent reads it then)."""
    if _SHARED is None or _SHARED[0] != token:
        return None
    _, sources, prescan, cap = _SHARED
    src = sources[source]
    try:
        return scan_range(src.read_at, src.read_into, start, stop, cap=cap, prescan=prescan)
    except Exception:  # the parent reads this range itself and reports properly
        return None
