"""Prescans of a read of everything on several cores (EDGE: child processes).

The prescan (``sources.prescan``) is Python and SIMD calls that hold the GIL,
so threads cannot share it out; ``grep | awk`` is two processes, and so is
this. Forked children scan byte ranges of the already opened sources and send
back only the counts and the candidate lines; batches stay in file order.

A child never logs, never asks the engine's stop check and never raises to
the parent: a range it cannot scan (an error, a file that changed, dense
candidates) comes back as None and the parent reads that batch itself, the
usual way, which raises what is to be raised. So does every range of a child
that died (the OOM killer, a signal): a run never waits for a dead child.

Each child has a pipe of its own and shares no lock with anyone, so it can
die at any moment. ``multiprocessing.Pool`` was used before: its children
wait for tasks on one shared queue, holding its lock while they wait, and a
SIGTERM sent to the whole process group (``timeout``, ``kill -- -PGID``,
systemd stopping a unit) killed the child that held it; the parent's
``terminate`` then waited for that lock forever (a hang). The children ignore
SIGINT and SIGHUP (the terminal sends them to the whole group; the parent
decides), die on SIGTERM, leave when the parent is gone, and are killed when
the read ends, however it ends.
"""

from __future__ import annotations

import itertools
import os
import signal
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from logagent.sources.files import Source
from logagent.sources.prescan import Found, Prescan, scan_range

if TYPE_CHECKING:  # multiprocessing is imported by the reads that fork (start-up time)
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

#: Seconds between a waiting child's looks at whether its parent is still there.
ORPHAN_POLL = 1.0
#: Seconds ``close`` waits for a killed child (one stuck in an uninterruptible read, a hung
#: network file system, is left to multiprocessing's own reaping rather than waited for).
STOP_WAIT = 5.0
#: The signals a child leaves to its parent (the terminal and ``kill -- -PGID`` send them to
#: the whole group): blocked from the fork until the child has set its own dispositions.
_PARENTS_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
#: One read forks at a time: a child forked while another read is between its ``Pipe()`` and
#: its ``close`` of the child's end would hold that end (and the sentinel's), and the other
#: read would never see its own child die (two reads at once in the service).
_FORKING = threading.Lock()


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
    import multiprocessing

    if multiprocessing.current_process().daemon:  # inside a Pool or Celery worker: no children
        return None
    try:
        return ScanWorkers(sources, prescan, cap=cap, processes=n)
    except OSError:  # no fork allowed (limits): one process reads it all
        return None


class ScanWorkers:
    """Forked prescanning processes for one read, one pipe each (a context manager)."""

    def __init__(self, sources: Sequence[Source], prescan: Prescan, *, cap: int, processes: int):
        import multiprocessing

        ctx = multiprocessing.get_context("fork")
        self._children: list[_Child] = []
        self._turn = itertools.count()
        parent_ends: list[Connection] = []
        open_ends: list[Connection] = []  # a child's end the parent has not closed yet
        try:
            with _FORKING, _blocked(_PARENTS_SIGNALS) as masked:
                for i in range(processes):
                    mine, theirs = ctx.Pipe()
                    parent_ends.append(mine)
                    open_ends.append(theirs)
                    proc = ctx.Process(
                        target=_serve,
                        args=(theirs, tuple(parent_ends), sources, prescan, cap, masked),
                        name=f"logagent-scan-{i}",
                        daemon=True,
                    )
                    proc.start()
                    theirs.close()  # the child's end lives in the child: its death is an EOF
                    self._children.append(_Child(proc, mine))
        except BaseException:  # a fork refused: what was made is undone, nothing leaks
            for end in (*parent_ends[len(self._children) :], *open_ends):
                end.close()
            self.close()
            raise

    def submit(self, source: int, start: int, stop: int) -> Job:
        """Scan the lines starting in ``[start, stop)`` of source ``source`` in a child."""
        children = self._children  # ``close`` may empty it meanwhile (another thread)
        for _ in range(len(children)):
            child = children[next(self._turn) % len(children)]
            seq = child.send((source, start, stop))
            if seq is not None:
                return Job(child, seq)
        return Job(None, 0)  # every child is gone: the parent reads the range itself

    def close(self) -> None:
        """Stop the children now (pending scans are dropped)."""
        children, self._children = self._children, []
        for child in children:
            child.stop()

    def __enter__(self) -> ScanWorkers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextmanager
def _blocked(signals: frozenset[signal.Signals]) -> Iterator[set[int | signal.Signals]]:
    """``signals`` blocked in this thread (a fork's child inherits the mask); the mask before."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, signals)
    try:
        yield before
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


@dataclass(eq=False)
class _Child:
    """One child and its pipe; results come back in the order their tasks were sent."""

    proc: BaseProcess
    conn: Connection
    sent: int = 0
    got: int = 0
    dead: bool = False
    results: dict[int, Found | None] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def send(self, task: tuple[int, int, int]) -> int | None:
        """The task's number, or None when this child is gone."""
        with self.lock:
            if self.dead:
                return None
            try:
                self.conn.send(task)
            except (OSError, ValueError):  # a broken pipe (the child died) or a closed end
                self.dead = True
                return None
            self.sent += 1
            return self.sent - 1

    def collect(self, seq: int, timeout: float | None) -> bool:
        """Receive results up to task ``seq``'s, waiting at most ``timeout`` seconds (None:
        until it comes); whether it is in. A dead child's outstanding tasks answer None."""
        with self.lock:
            while self.got <= seq:
                if not self._receive(timeout):
                    return False
            return True

    def _receive(self, timeout: float | None) -> bool:
        """The next result into ``results`` (None from a dead child); False when none came
        within ``timeout``."""
        from multiprocessing.connection import wait

        if not self.dead and not self.conn.poll(0):
            if not wait([self.conn, self.proc.sentinel], timeout):
                return False
            self.dead = not self.conn.poll(0)  # the sentinel alone: the child is gone
        result = None
        if not self.dead:
            try:
                result = self.conn.recv()
            except (EOFError, OSError):  # died while sending: nothing of it is trusted
                self.dead = True
        self.results[self.got] = result
        self.got += 1
        return True

    def stop(self) -> None:
        """Kill the child (it holds nothing another process waits for) and reap it."""
        with self.lock:
            self.dead = True
            if self.proc.exitcode is None:
                self.proc.kill()
            self.proc.join(STOP_WAIT)
            self.conn.close()


class Job:
    """A submitted scan: ``ready``, ``wait`` and ``get`` as ``multiprocessing``'s AsyncResult."""

    def __init__(self, child: _Child | None, seq: int) -> None:
        self._child = child
        self._seq = seq

    def ready(self) -> bool:
        """Whether the result is in (never blocks)."""
        return self._child is None or self._child.collect(self._seq, 0)

    def wait(self, timeout: float | None = None) -> None:
        """Wait until the result is in, or ``timeout`` seconds."""
        if self._child is not None:
            self._child.collect(self._seq, timeout)

    def get(self) -> Found | None:
        """The child's result (None: the parent reads the range itself)."""
        if self._child is None:
            return None
        self._child.collect(self._seq, None)
        return self._child.results.pop(self._seq)


def _serve(
    conn: Connection,
    inherited: Sequence[Connection],
    sources: Sequence[Source],
    prescan: Prescan,
    cap: int,
    masked: set[int | signal.Signals],
) -> None:
    """A child's loop: scan each range asked for and send the result back, until the pipe
    closes or the parent is gone. The parent's handlers (a stop flag that raises on a second
    signal) are not the child's: SIGINT and SIGHUP are the parent's to act on, SIGTERM kills."""
    parent = os.getppid()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, masked)  # blocked since before the fork
    for end in inherited:  # the parent's ends, copied by the fork: the parent's alone to hold
        end.close()
    for source in sources:
        source.stop_check = None  # the parent's stop check is the parent's to ask
    while True:
        while not conn.poll(ORPHAN_POLL):
            if os.getppid() != parent:
                return
        try:
            source, start, stop = conn.recv()
            conn.send(_scan(sources[source], prescan, cap, start, stop))
        except (EOFError, OSError):  # the parent closed its end, or is gone
            return


def _scan(src: Source, prescan: Prescan, cap: int, start: int, stop: int) -> Found | None:
    """One range, scanned in a child; None when it cannot be (the parent reads it then)."""
    try:
        return scan_range(src.read_at, src.read_into, start, stop, cap=cap, prescan=prescan)
    except Exception:  # the parent reads this range itself and reports properly
        return None
