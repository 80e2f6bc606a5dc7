"""Admission, the bounded queue, cancel and recovery of the job runner (fake jobs, no engine)."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from logagent.service.config import ServiceConfig
from logagent.service.recovery import MAX_RESTARTS
from logagent.service.runner import CANCEL, Draining, QueueFull, Runner
from logagent.service.store import Job, JobStore

MIB = 1 << 20


class FakeResult:
    """What the runner reads of a result."""

    def __init__(self, status: str) -> None:
        self.status = type("S", (), {"value": status})()
        self.input = type("I", (), {"bytes_total": 10})()

    def model_dump(self, mode: str) -> dict[str, Any]:
        progress = {"bytes_read": 10, "fraction_read": 1.0}
        return {"status": self.status.value, "progress": progress, "decisions": []}


class Jobs:
    """Fake jobs that run until released (or stopped)."""

    def __init__(self) -> None:
        self.release: dict[str, threading.Event] = {}
        self.started: list[str] = []

    def execute(self, job: Job, stop: Any, on_progress: Any, on_decision: Any) -> FakeResult:
        self.started.append(job.id)
        gate = self.release.setdefault(job.id, threading.Event())
        while not gate.wait(0.01):
            if stop() is not None:
                return FakeResult("partial")
        return FakeResult("settled")


def runner(tmp_path: Path, jobs: Jobs, **cfg: Any) -> tuple[Runner, JobStore]:
    store = JobStore(str(tmp_path / "jobs.sqlite"))
    config = ServiceConfig(data_dir=str(tmp_path), memory_budget_bytes=1000 * MIB, **cfg)
    r = Runner(
        store,
        config,
        execute=jobs.execute,
        forecast=lambda job: int(job.params["forecast"]),
        rss=lambda: 100 * MIB,
        baseline_rss=100 * MIB,
    )
    return r, store


def add(store: JobStore, job_id: str, forecast_mib: int = 100) -> Job:
    job = Job(job_id, "queued", time.time(), time.time(), {"forecast": forecast_mib * MIB})
    store.add(job)
    return job


def wait_for(cond: Any, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not cond():
        assert time.monotonic() < deadline, "condition not met"
        time.sleep(0.01)


def test_queue_pauses_then_refuses_and_admits_in_order(tmp_path: Path) -> None:
    """max_jobs running, max_queue waiting (PAUSE traced), then QueueFull; FIFO on release."""
    jobs = Jobs()
    r, store = runner(tmp_path, jobs, max_jobs=2, max_queue=1)
    for name in ("a", "b", "c"):
        r.submit(add(store, name))
    assert store.get("a").status == store.get("b").status == "running"  # type: ignore[union-attr]
    c = store.get("c")
    assert c is not None and c.status == "queued"
    assert c.trace[0]["action"] == "PAUSE" and r.would_refuse()
    with pytest.raises(QueueFull):
        r.submit(add(store, "d"))
    jobs.release.setdefault("a", threading.Event()).set()
    wait_for(lambda: store.get("c").status == "running")  # type: ignore[union-attr]
    assert store.get("a").status == "done"  # type: ignore[union-attr]
    for name in ("b", "c"):
        jobs.release.setdefault(name, threading.Event()).set()
    wait_for(lambda: store.counts()["done"] == 3)


def test_a_job_that_does_not_fit_waits_for_memory(tmp_path: Path) -> None:
    """Under max_jobs, a forecast over the budget's room waits; alone, it runs anyway."""
    jobs = Jobs()
    r, store = runner(tmp_path, jobs, max_jobs=4, max_queue=4)
    r.submit(add(store, "a", 500))
    r.submit(add(store, "big", 600))  # 100 + 500 + 600 > 1000
    assert store.get("big").status == "queued"  # type: ignore[union-attr]
    jobs.release.setdefault("a", threading.Event()).set()
    wait_for(lambda: store.get("big").status == "running")  # type: ignore[union-attr]
    jobs.release.setdefault("big", threading.Event()).set()
    wait_for(lambda: store.counts()["done"] == 2)


def test_cancel_running_and_queued(tmp_path: Path) -> None:
    """A running job stops with its partial answer (cancelled); a queued one never runs."""
    jobs = Jobs()
    r, store = runner(tmp_path, jobs, max_jobs=1, max_queue=2)
    r.submit(add(store, "a"))
    r.submit(add(store, "b"))
    r.cancel("b")
    r.cancel("a")
    wait_for(lambda: store.get("a").status == "cancelled")  # type: ignore[union-attr]
    assert store.get("a").result["status"] == "partial"  # type: ignore[index,union-attr]
    assert store.get("b").status == "cancelled" and "b" not in jobs.started  # type: ignore[union-attr]
    assert CANCEL == "cancel"


def test_drain_requeues_and_recovery_restarts_jobs_without_checkpoint(tmp_path: Path) -> None:
    """Drained jobs go back to the queue; one left running with no checkpoint (SIGKILL) is
    started again from the beginning at the next start, its upload kept."""
    jobs = Jobs()
    r, store = runner(tmp_path, jobs, max_jobs=1, max_queue=2)
    r.submit(add(store, "a"))
    r.drain(0.1)  # "a" does not end within the grace period
    assert store.get("a").status == "queued"  # type: ignore[union-attr]
    assert store.get("a").trace[-1]["reason"] == "drained"  # type: ignore[union-attr]
    upload = tmp_path / "killed.upload"
    upload.write_bytes(b"log")
    add(store, "killed")
    store.update("killed", status="running", upload=str(upload))
    r2, _ = runner(tmp_path, jobs, max_jobs=2, max_queue=2)
    r2.recover()
    wait_for(lambda: jobs.started.count("killed") == 1)
    killed = store.get("killed")
    assert killed is not None and killed.status == "running" and upload.exists()
    assert killed.trace[-1]["reason"] == "restart" and "beginning" in killed.trace[-1]["detail"]
    wait_for(lambda: store.get("a").status == "running")  # type: ignore[union-attr]
    jobs.release["a"].set()
    jobs.release["killed"].set()
    wait_for(lambda: store.get("a").status == "done")  # type: ignore[union-attr]
    wait_for(lambda: store.get("killed").status == "done")  # type: ignore[union-attr]
    assert not upload.exists()  # removed once the job ended


@pytest.mark.parametrize(("before", "runs"), [(MAX_RESTARTS - 1, True), (MAX_RESTARTS, False)])
def test_recovery_fails_a_job_that_stalled_over_too_many_restarts(
    tmp_path: Path, before: int, runs: bool
) -> None:
    """A job found running after ``before`` restarts in a row without saved progress: run
    again up to MAX_RESTARTS of them, failed past it (a job that kills the server must not
    kill it at every start), its files removed and its stream told."""
    jobs = Jobs()
    _, store = runner(tmp_path, jobs, max_jobs=1, max_queue=2)
    upload = tmp_path / "poison.upload"
    upload.write_bytes(b"log")
    add(store, "poison")
    note = {"action": "PAUSE", "reason": "restart", "detail": "...", "units_saved": 0}
    store.update("poison", status="running", upload=str(upload), trace=[note] * before)
    r2, _ = runner(tmp_path, jobs, max_jobs=1, max_queue=2)
    r2.recover()
    poison = store.get("poison")
    assert poison is not None
    if runs:
        wait_for(lambda: "poison" in jobs.started)
        jobs.release.setdefault("poison", threading.Event()).set()
        wait_for(lambda: store.get("poison").status == "done")  # type: ignore[union-attr]
        return
    assert poison.status == "failed", poison
    assert f"stopped {MAX_RESTARTS + 1} times in a row" in str(poison.error)
    assert "poison" not in jobs.started and not upload.exists()
    assert r2.events["poison"].items[-1]["data"]["status"] == "failed"


def test_recovery_goes_on_with_a_job_whose_checkpoint_advanced(tmp_path: Path) -> None:
    """Restarts that each found the checkpoint further on are no strike: a long job beside
    one that kills the server goes on, however often; the restart is streamed."""
    jobs = Jobs()
    _, store = runner(tmp_path, jobs, max_jobs=1, max_queue=2)
    add(store, "long")
    trace = [
        {"action": "PAUSE", "reason": "restart", "detail": "...", "units_saved": n}
        for n in (10, 20, 30, 40, 50)
    ]
    checkpoint = tmp_path / "long.ckpt"
    store.update("long", status="running", trace=trace, checkpoint=str(checkpoint))
    import logagent.engine.checkpoint as ckpt

    class Saved:
        units_read = 60

    original = ckpt.load
    checkpoint.write_bytes(b"x")
    ckpt.load = lambda path: Saved()  # type: ignore[assignment,return-value]
    try:
        r2, _ = runner(tmp_path, jobs, max_jobs=1, max_queue=2)
        r2.recover()
    finally:
        ckpt.load = original
    wait_for(lambda: "long" in jobs.started)
    job = store.get("long")
    assert job is not None and job.trace[-1]["units_saved"] == 60
    assert "resumed from its last checkpoint" in job.trace[-1]["detail"]
    assert r2.events["long"].items[0] == {"event": "decision", "data": job.trace[-1]}
    jobs.release.setdefault("long", threading.Event()).set()
    wait_for(lambda: store.get("long").status == "done")  # type: ignore[union-attr]


def test_a_fresh_restart_shows_no_progress_of_the_killed_attempt(tmp_path: Path) -> None:
    """Started again from the beginning, the job's progress is from 0 again, not the killed
    attempt's 90 %."""
    jobs = Jobs()
    _, store = runner(tmp_path, jobs, max_jobs=1, max_queue=2)
    add(store, "again")
    old = {"bytes_read": 900, "bytes_total": 1000, "fraction_read": 0.9}
    store.update("again", status="running", progress=old)
    r2, _ = runner(tmp_path, jobs, max_jobs=1, max_queue=2)
    r2.recover()
    wait_for(lambda: "again" in jobs.started)
    assert store.get("again").progress == {"bytes_total": 1000}  # type: ignore[union-attr]
    jobs.release.setdefault("again", threading.Event()).set()
    wait_for(lambda: store.get("again").status == "done")  # type: ignore[union-attr]


def test_a_cancel_asked_before_the_server_was_killed_is_kept(tmp_path: Path) -> None:
    """DELETE of a running job writes the ask down: a server killed before the job stopped
    cancels it at the next start instead of running it again; its files go."""
    jobs = Jobs()
    r, store = runner(tmp_path, jobs, max_jobs=1, max_queue=2)
    upload = tmp_path / "c.upload"
    upload.write_bytes(b"log")
    job = add(store, "c")
    store.update("c", upload=str(upload))
    r.submit(store.get("c"))  # type: ignore[arg-type]
    wait_for(lambda: "c" in jobs.started)
    r.cancel("c", wait_s=0.0)  # the server dies before the job notices
    assert store.get("c").trace[-1]["reason"] == CANCEL  # type: ignore[union-attr]
    store.update("c", status="running")  # as the killed server left it
    jobs2 = Jobs()
    r2, _ = runner(tmp_path, jobs2, max_jobs=1, max_queue=2)
    r2.recover()
    c = store.get("c")
    assert c is not None and c.status == "cancelled" and "c" not in jobs2.started
    assert not upload.exists() and job.id == "c"
    jobs.release.setdefault("c", threading.Event()).set()  # the first runner's thread ends


def test_a_cancel_asked_while_the_job_drained_is_kept(tmp_path: Path) -> None:
    """DELETE of a job the drain had put back in the queue: the next start cancels it."""
    jobs = Jobs()
    _, store = runner(tmp_path, jobs, max_jobs=1, max_queue=2)
    add(store, "d")
    trace = [
        {"action": "STOP", "reason": CANCEL, "detail": "cancel asked for"},
        {"action": "PAUSE", "reason": "drained", "detail": "..."},
    ]
    store.update("d", status="queued", trace=trace)
    r2, _ = runner(tmp_path, jobs, max_jobs=1, max_queue=2)
    r2.recover()
    d = store.get("d")
    assert d is not None and d.status == "cancelled" and "d" not in jobs.started


def test_recovery_drops_an_unusable_checkpoint_and_starts_over(tmp_path: Path) -> None:
    """A checkpoint that does not load is removed (never resumed from) and the job starts
    again from the beginning."""
    jobs = Jobs()
    _, store = runner(tmp_path, jobs, max_jobs=1, max_queue=2)
    checkpoint = tmp_path / "torn.ckpt"
    checkpoint.write_bytes(b"not a checkpoint")
    add(store, "torn")
    store.update("torn", status="running", checkpoint=str(checkpoint))
    r2, _ = runner(tmp_path, jobs, max_jobs=1, max_queue=2)
    r2.recover()
    wait_for(lambda: "torn" in jobs.started)
    assert not checkpoint.exists()
    torn = store.get("torn")
    assert torn is not None and "beginning" in torn.trace[-1]["detail"]
    jobs.release.setdefault("torn", threading.Event()).set()
    wait_for(lambda: store.get("torn").status == "done")  # type: ignore[union-attr]


def test_finished_jobs_expire(tmp_path: Path) -> None:
    """A final job older than expire_s is forgotten; a running one never is."""
    jobs = Jobs()
    r, store = runner(tmp_path, jobs, max_jobs=2, max_queue=2, expire_s=60.0)
    r.submit(add(store, "old"))
    r.submit(add(store, "busy"))
    jobs.release.setdefault("old", threading.Event()).set()
    wait_for(lambda: store.get("old").status == "done")  # type: ignore[union-attr]
    assert r.expire(time.time()) == 0
    assert r.expire(time.time() + 61) == 1
    assert store.get("old") is None and store.get("busy") is not None
    jobs.release.setdefault("busy", threading.Event()).set()
    wait_for(lambda: store.get("busy").status == "done")  # type: ignore[union-attr]


def test_drain_lets_jobs_finish_within_grace_and_checkpoints_the_rest(tmp_path: Path) -> None:
    """Drain: no new jobs; one ending within the grace is done; the one still running is put off."""
    jobs = Jobs()
    r, store = runner(tmp_path, jobs, max_jobs=2, max_queue=2)
    for name in ("short", "long", "waiting"):
        r.submit(add(store, name))
    threading.Timer(0.3, jobs.release.setdefault("short", threading.Event()).set).start()
    r.drain(3.0)
    short, long, waiting = (store.get(n) for n in ("short", "long", "waiting"))
    assert short is not None and short.status == "done" and not short.trace
    assert long is not None and long.status == "queued" and long.trace[-1]["reason"] == "drained"
    assert waiting is not None and waiting.status == "queued" and "waiting" not in jobs.started
    assert r.would_refuse()
    with pytest.raises(Draining):
        r.submit(add(store, "late"))
