"""One service's parts wired together: store, runner, metrics (EDGE).

Built by ``app.create_app``; ``start`` runs in the app's lifespan (the data
directory, the SQLite store, jobs a stopped server left), ``stop`` drains.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from typing import Any

from logagent.log import get_logger
from logagent.service.config import ServiceConfig
from logagent.service.execute import batch_bytes_for, forecast_bytes, run_job
from logagent.service.metrics import Metrics
from logagent.service.runner import Runner
from logagent.service.store import Job, JobStore

log = get_logger("logagent.service")


#: The data directories this process holds (their real path -> the lock's descriptor).
_HELD: dict[str, int] = {}


def lock_data_dir(data_dir: str) -> int:
    """Hold ``DATA_DIR/serve.lock`` for the process's life (its descriptor, never closed);
    again for a directory this process holds already: its descriptor.

    Two servers on one data directory would both run its jobs: the second's start carries
    the first's running jobs over as if it had stopped. A ``ConfigError`` names the holder.
    """
    import errno
    import fcntl

    from logagent.errors import ConfigError

    path = os.path.join(data_dir, "serve.lock")
    try:
        os.makedirs(data_dir, mode=0o700, exist_ok=True)
        key = os.path.realpath(data_dir)
        if key in _HELD:
            return _HELD[key]
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        raise ConfigError(f"cannot use the data directory ({exc.strerror})", path=path) from exc
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
            raise ConfigError(
                f"another `logagent serve` (pid {holder}) uses this data directory; one "
                "server per data directory (give this one its own --data-dir)",
                path=data_dir,
            ) from None
        pid = f"{os.getpid()}\n".encode()
        os.pwrite(fd, pid, 0)  # then cut: a reader never sees it empty
        os.ftruncate(fd, len(pid))
        held = os.fstat(fd)
    except OSError as exc:
        os.close(fd)
        raise ConfigError(f"cannot lock the data directory ({exc.strerror})", path=path) from exc
    except BaseException:
        os.close(fd)
        raise

    def let_go() -> None:
        """A forked scan child lets go of its copy: a child outliving a killed server for a
        moment (until it sees it is orphaned) must not hold the lock against the restart."""
        with contextlib.suppress(OSError):
            st = os.fstat(fd)
            if (st.st_dev, st.st_ino) == (held.st_dev, held.st_ino):
                os.close(fd)

    os.register_at_fork(after_in_child=let_go)
    _HELD[key] = fd
    return fd


class Service:
    """Everything one running service holds."""

    def __init__(self, cfg: ServiceConfig) -> None:
        self.cfg = cfg
        self._store: JobStore | None = None
        self._runner: Runner | None = None
        self._metrics: Metrics | None = None
        self.batch_bytes = 0

    @property
    def store(self) -> JobStore:
        """The job store (after ``start``)."""
        assert self._store is not None, "the service has not started"
        return self._store

    @property
    def runner(self) -> Runner:
        """The job runner (after ``start``)."""
        assert self._runner is not None, "the service has not started"
        return self._runner

    @property
    def metrics(self) -> Metrics:
        """The metrics (after ``start``)."""
        assert self._metrics is not None, "the service has not started"
        return self._metrics

    def start(self) -> None:
        """Open the data directory and the store; go on with the jobs a stopped server left."""
        import logagent.engine  # the baseline below counts the engine's imports
        import logagent.report.markdown  # noqa: F401
        from logagent.routermem import memory

        cfg = self.cfg
        lock_data_dir(cfg.data_dir)  # before its jobs are touched (the CLI took it already)
        for d in (cfg.data_dir, cfg.uploads_dir, cfg.checkpoints_dir):
            os.makedirs(d, mode=0o700, exist_ok=True)
        self._store = JobStore(cfg.db_path)
        baseline = memory.rss_bytes()
        self.batch_bytes = batch_bytes_for(cfg, baseline)
        self._metrics = Metrics(self._store.counts, memory.rss_bytes, cfg.memory_budget_bytes)
        self._runner = Runner(
            self._store,
            cfg,
            execute=self._execute,
            forecast=self._forecast,
            rss=memory.rss_bytes,
            baseline_rss=baseline,
            metrics=self._metrics,
        )
        self._runner.expire(time.time())
        self._runner.recover()
        log.info("service_started", baseline_rss=baseline, batch_bytes=self.batch_bytes)

    def stop(self) -> None:
        """Drain: stop accepting; running jobs get the grace period to finish, then checkpoint."""
        if self._runner is not None:
            self._runner.drain(self.cfg.grace_s)

    def _forecast(self, job: Job) -> int:
        return forecast_bytes(self.batch_bytes, int(job.progress.get("bytes_total") or 0))

    def _execute(
        self,
        job: Job,
        stop: Callable[[], str | None],
        on_progress: Callable[[Any], None],
        on_decision: Callable[[Any], None],
    ) -> Any:
        from logagent.engine.checkpoint import CheckpointFile
        from logagent.engine.run import RunEnv

        env = RunEnv(
            interrupted=stop,
            pending_signal=stop,
            on_progress=on_progress,
            on_decision=on_decision,
            checkpoint=CheckpointFile(job.checkpoint) if job.checkpoint else None,
            # glibc's own heap policy: admission reads this process's RSS, and heap a job
            # kept for reuse (``memory.keep_freed_heap``) would hold the next jobs back
            keep_heap=lambda: None,
        )
        return run_job(job, self.cfg, env, batch_bytes=self.batch_bytes)
