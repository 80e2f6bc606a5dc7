"""Jobs in worker threads under one memory budget: admission, queue, cancel, drain (EDGE).

Threads, not processes: the heavy parts of a job (reading, Polars' parse and
group-by, numpy) release the GIL, so two jobs use two cores; and one process
has one RSS, so the service's single memory budget is the very number every
job's Router-Mem already watches (each job's budget is the service's, its
readings the process's). A job whose memory goes HIGH because of the others
takes the ladder's steps like any run, and never crashes the process.

Admission: a job starts when fewer than ``max_jobs`` run and its forecast
(``execute.forecast_bytes``) fits beside theirs — counting both what running
jobs were forecast to need and what the process holds now. Otherwise it
waits in a bounded FIFO queue (a PAUSE in its trace); when the queue is
full the POST is refused (503 + Retry-After). A job never waits for nothing:
with no job running, the head of the queue starts whatever its forecast.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from logagent.log import get_logger
from logagent.service.recovery import CANCEL, RESTART, cancel_asked, verdict
from logagent.service.store import FINAL, Job, JobStore

if TYPE_CHECKING:
    from logagent.result import Result
    from logagent.service.config import ServiceConfig
    from logagent.service.metrics import Metrics

log = get_logger("logagent.service")
PROGRESS_SAVE_S = 1.0  # a running job's progress reaches SQLite at most this often
PROGRESS_EVENT_S = 0.25  # and its SSE stream at most this often
KEEP_FINISHED_EVENTS = (
    256  # event logs of finished jobs kept in memory (older: replayed from SQLite)
)
CHECKPOINT_WAIT_S = 60.0  # drain: how long a job asked to stop gets to write its checkpoint
DRAIN = "SIGTERM"  # the interrupt a drained job sees (its trace says "interrupted by SIGTERM")


class QueueFull(Exception):
    """No room to run the job and no room to wait: HTTP 503 with Retry-After."""


class Draining(Exception):
    """The service is shutting down: HTTP 503."""


@dataclass
class Active:
    """A job admitted to run (its thread, its stop request, its reservation)."""

    job_id: str
    reserved_bytes: int
    thread: threading.Thread | None = None
    stop: str | None = None
    progress: dict[str, Any] = field(default_factory=dict)
    saved_at: float = 0.0
    sent_at: float = 0.0
    streamed: list[dict[str, Any]] = field(default_factory=list)  # decisions sent live


class Events:
    """A job's events for SSE: appended by its thread, read by any number of streams."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []
        self.closed = False

    def add(self, event: str, data: dict[str, Any]) -> None:
        """Append one event."""
        self.items.append({"event": event, "data": data})


#: (job, stop request, on_progress(ProgressEvent), on_decision(DecisionRecord)) -> Result
Execute = Callable[
    [Job, Callable[[], str | None], Callable[[Any], None], Callable[[Any], None]], "Result"
]


class Runner:
    """Admits, queues, runs, cancels and drains the jobs of one service."""

    def __init__(
        self,
        store: JobStore,
        cfg: ServiceConfig,
        *,
        execute: Execute,
        forecast: Callable[[Job], int],
        rss: Callable[[], int],
        baseline_rss: int,
        metrics: Metrics | None = None,
    ) -> None:
        self._store, self._cfg, self._execute, self._forecast = store, cfg, execute, forecast
        self._rss, self._baseline, self._metrics = rss, baseline_rss, metrics
        self._lock = threading.Lock()
        self._queue: deque[str] = deque()
        self._running: dict[str, Active] = {}
        self.events: dict[str, Events] = {}
        self.accepting = True

    # --- admission ------------------------------------------------------------------------

    def would_refuse(self) -> bool:
        """Whether a new job would be refused now (checked before its upload is read)."""
        with self._lock:
            return not self.accepting or (
                len(self._queue) >= self._cfg.max_queue and len(self._running) >= 1
            )

    def submit(self, job: Job, *, bounded: bool = True) -> None:
        """Start the stored ``job`` or queue it; QueueFull / Draining when neither can be."""
        with self._lock:
            if not self.accepting:
                raise Draining
            self.events.setdefault(job.id, Events())
            reserved = self._forecast(job)
            if not self._queue and self._fits(reserved):
                self._start(job.id, reserved)
                return
            if bounded and len(self._queue) >= self._cfg.max_queue:
                raise QueueFull
            self._queue.append(job.id)
        self._pause(job.id, reserved)

    def _fits(self, reserved: int) -> bool:
        """Room for a job forecast at ``reserved`` bytes beside the running ones."""
        if not self._running:
            return True
        if len(self._running) >= self._cfg.max_jobs:
            return False
        promised = self._baseline + sum(a.reserved_bytes for a in self._running.values())
        return max(promised, self._rss()) + reserved <= self._cfg.memory_budget_bytes

    def _pause(self, job_id: str, reserved: int) -> None:
        """Record the wait in the job's trace (Router-Mem's PAUSE, at the service's level)."""
        with self._lock:
            running = len(self._running)
        detail = (
            f"waiting for memory: {running} job(s) running, this one forecast "
            f"~{reserved >> 20} MiB of the {self._cfg.memory_budget_bytes >> 20} MiB budget"
        )
        job = self._store.get(job_id)
        if job is None or job.status != "queued":
            return
        trace = [*job.trace, {"action": "PAUSE", "reason": "memory_forecast", "detail": detail}]
        self._store.update(job_id, trace=trace)
        self.events[job_id].add("decision", trace[-1])

    def _start(self, job_id: str, reserved: int) -> None:
        """Run the job in its own thread (called with the lock held)."""
        active = Active(job_id, reserved)
        self._running[job_id] = active
        self._store.update(job_id, status="running")
        self.events.setdefault(job_id, Events()).add("status", {"status": "running"})
        active.thread = threading.Thread(
            target=self._run, args=(active,), name=f"job-{job_id[:8]}", daemon=True
        )
        active.thread.start()

    def _admit_waiting(self) -> None:
        """Start queued jobs, oldest first, while they fit (called with the lock held)."""
        while self._queue and self.accepting:
            job = self._store.get(self._queue[0])
            if job is None or job.status != "queued":
                self._queue.popleft()
                continue
            reserved = self._forecast(job)
            if not self._fits(reserved):
                return
            self._queue.popleft()
            self._start(job.id, reserved)

    # --- running --------------------------------------------------------------------------

    def _run(self, active: Active) -> None:
        job = self._store.get(active.job_id)
        assert job is not None
        try:
            result = self._execute(
                job,
                lambda: active.stop,
                lambda event: self._progress(active, event),
                lambda record: self._decision(active, record),
            )
        except Exception as exc:
            self._failed(job, exc)
        else:
            self._finished(job, active, result)
        finally:
            with self._lock:
                self._running.pop(job.id, None)
                self._admit_waiting()

    def _progress(self, active: Active, event: Any) -> None:
        total = event.bytes_total
        active.progress = {
            "bytes_read": event.bytes_read,
            "bytes_total": total,
            "lines_read": event.lines_read,
            "fraction_read": round(event.bytes_read / total, 6) if total else None,
        }
        now = time.monotonic()
        if now - active.sent_at >= PROGRESS_EVENT_S or event.bytes_read == total:
            active.sent_at = now
            self.events[active.job_id].add("progress", active.progress)
        if now - active.saved_at >= PROGRESS_SAVE_S:
            active.saved_at = now
            self._store.update(active.job_id, progress=active.progress)

    def _decision(self, active: Active, record: Any) -> None:
        data = record.model_dump(mode="json")
        active.streamed.append(data)
        self.events[active.job_id].add("decision", data)

    def _finished(self, job: Job, active: Active, result: Result) -> None:
        data = result.model_dump(mode="json")
        progress = {**data["progress"], "bytes_total": result.input.bytes_total}
        if active.stop == DRAIN and result.status.value == "partial":
            detail = "service stopping: the job resumes from its checkpoint at the next start"
            now = self._store.get(job.id) or job  # a cancel asked for meanwhile is kept
            trace = [*now.trace, {"action": "PAUSE", "reason": "drained", "detail": detail}]
            self._store.update(job.id, status="queued", progress=progress, trace=trace)
            self.events[job.id].add("decision", trace[-1])
            return
        status = "cancelled" if active.stop == CANCEL else "done"
        self._store.update(job.id, status=status, progress=progress, result=data)
        self._remove_files(job)
        if self._metrics is not None:
            self._metrics.job_done(data)
        ev = self.events[job.id]
        for decision in data["decisions"]:  # those not sent live (restored, or a final stop)
            if decision in active.streamed:
                active.streamed.remove(decision)
            else:
                ev.add("decision", decision)
        ev.add("status", {"status": status, "result_status": data["status"]})
        self._close_events(job.id)

    def _failed(self, job: Job, exc: Exception) -> None:
        from logagent.errors import LogagentError

        if isinstance(exc, LogagentError):
            error = str(exc).replace(job.upload or "\0", "the upload")
        elif isinstance(exc, MemoryError):
            error = "out of memory"
        else:
            log.error("job_internal_error", job=job.id, exc_info=True)
            error = f"internal error: {type(exc).__name__} (see the server log)"
        self._ended(job, "failed", error)

    def _close_events(self, job_id: str) -> None:
        """The job's events are complete; forget the oldest finished jobs' logs (bounded memory)."""
        with self._lock:
            self.events.setdefault(job_id, Events()).closed = True
            finished = [k for k, ev in self.events.items() if ev.closed]
            for old in finished[: max(0, len(finished) - KEEP_FINISHED_EVENTS)]:
                del self.events[old]

    @staticmethod
    def _remove_files(job: Job) -> None:
        for path in (job.upload, job.checkpoint):
            if path:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(path)

    # --- cancel, status, drain, recovery --------------------------------------------------

    def live_progress(self, job_id: str) -> dict[str, Any] | None:
        """The in-memory progress of a running job (fresher than the stored one)."""
        with self._lock:
            active = self._running.get(job_id)
            return dict(active.progress) if active is not None and active.progress else None

    def cancel(self, job_id: str, wait_s: float = 10.0) -> None:
        """Stop the job (a running one ends with its partial answer) and remove its upload."""
        with self._lock:
            active = self._running.get(job_id)
            if active is not None:
                active.stop = CANCEL
            elif job_id in self._queue:
                self._queue.remove(job_id)
        if active is not None:  # kept, so a server killed before the job stops cancels it then
            job = self._store.get(job_id)
            if job is not None:
                asked = {"action": "STOP", "reason": CANCEL, "detail": "cancel asked for"}
                self._store.update(job_id, trace=[*job.trace, asked])
        if active is not None and active.thread is not None:
            active.thread.join(wait_s)
            return
        job = self._store.get(job_id)
        if job is not None and job.status not in FINAL:
            self._store.update(job_id, status="cancelled", error="cancelled before it ran")
            self.events.setdefault(job_id, Events()).add("status", {"status": "cancelled"})
            self._close_events(job_id)
        if job is not None:
            self._remove_files(job)

    def drain(self, grace_s: float) -> None:
        """Stop accepting; running jobs get ``grace_s`` to finish, the rest checkpoint and stop.

        Queued jobs stay queued (in SQLite) and start at the next start; a job
        stopped here goes back to the queue with its checkpoint and goes on
        from it then.
        """
        with self._lock:
            self.accepting = False
            actives = list(self._running.values())
        deadline = time.monotonic() + grace_s
        for active in actives:
            if active.thread is not None:
                active.thread.join(max(0.0, deadline - time.monotonic()))
        left = self.checkpoint_all()
        for active in left:
            if active.thread is not None:
                active.thread.join(CHECKPOINT_WAIT_S)
        say = log.warning if left else log.info  # jobs put off to the next start: worth a look
        say("drained", finished=len(actives) - len(left), checkpointed=len(left))

    def checkpoint_all(self) -> list[Active]:
        """Ask every running job to checkpoint and stop now; the jobs asked."""
        with self._lock:
            self.accepting = False
            left = list(self._running.values())
            for active in left:
                if active.stop is None:
                    active.stop = DRAIN
        return left

    def recover(self) -> None:
        """At start: jobs a stopped server left running go on or end (``recovery.verdict``);
        queued jobs start."""
        from logagent.engine.checkpoint import CheckpointError, load

        self._sweep()
        for job in self._store.with_status("running"):
            saved = None
            if job.checkpoint and os.path.exists(job.checkpoint):
                try:
                    saved = load(job.checkpoint).units_read
                except CheckpointError as exc:
                    log.warning("checkpoint_unusable", job=job.id, error=str(exc))
                    with contextlib.suppress(FileNotFoundError):  # never resumed from
                        os.unlink(job.checkpoint)
            there = not job.upload or os.path.exists(job.upload)
            fate = verdict(job.trace, input_there=there, saved=saved)
            if fate.status != "queued":
                self._ended(job, fate.status, fate.message)
                continue
            entry = {"action": "PAUSE", "reason": RESTART, "detail": fate.message}
            trace = [*job.trace, {**entry, "units_saved": saved or 0}]
            progress = job.progress  # a fresh start counts from 0 again
            if fate.fresh:
                progress = {"bytes_total": job.progress.get("bytes_total")}
            self._store.update(job.id, status="queued", trace=trace, progress=progress)
            self.events.setdefault(job.id, Events()).add("decision", trace[-1])
        for job in self._store.with_status("queued"):
            if cancel_asked(job.trace):  # asked for while it drained
                self._ended(job, "cancelled", "cancelled; the server stopped meanwhile")
                continue
            if job.upload and not os.path.exists(job.upload):
                self._ended(job, "failed", "the upload is gone")
                continue
            self.submit(job, bounded=False)

    def _sweep(self) -> None:
        """Remove the files of no waiting job from the uploads and checkpoints folders: an
        upload a killed server was receiving (no job was made of it: a 45 MB one had stayed
        for good; a review), a checkpoint of a job that ended meanwhile. Before any job runs:
        a file is its job's while its name starts with the job's id."""
        held = {job.id for job in self._store.with_status("queued", "running")}
        for folder in (self._cfg.uploads_dir, self._cfg.checkpoints_dir):
            try:
                names = os.listdir(folder)
            except OSError:
                continue
            for name in names:
                if name.split(".", 1)[0] in held:
                    continue
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(folder, name))
                    log.info("orphan_removed", path=os.path.join(folder, name))

    def _ended(self, job: Job, status: str, error: str) -> None:
        """A job that does not run (again): final with ``error``, its files removed, its
        stream told."""
        self._store.update(job.id, status=status, error=error)
        self._remove_files(job)
        self.events.setdefault(job.id, Events()).add("status", {"status": status, "error": error})
        self._close_events(job.id)

    def expire(self, now: float) -> int:
        """Forget final jobs older than ``expire_s``; returns how many."""
        old = self._store.expired(now - self._cfg.expire_s)
        for job in old:
            self._remove_files(job)
            self._store.delete(job.id)
            self.events.pop(job.id, None)
        return len(old)
