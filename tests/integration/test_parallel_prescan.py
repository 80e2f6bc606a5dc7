"""A read of everything prescanned in child processes gives the answer of one process, exactly."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from logagent import Question, analyze, load_settings
from logagent.formats.access import ACCESS_5XX_PREFILTER
from logagent.result import QuestionKind, Status
from logagent.samples import generate
from logagent.sources import scanworkers
from logagent.testing import combined_line, fake_env
from tests.faults.test_midread import _long_line_log

ROOT = Path(__file__).resolve().parents[2]


def _run(path: Path, processes: int, kind: QuestionKind = QuestionKind.TOP_ERRORS) -> Any:
    """A read of everything in batches of 32 KiB (prescanned ones: 256 KiB); ``processes`` > 1
    prescans from 1 byte on."""
    settings = load_settings(
        analysis={"seed": 5, "full": True},
        reader={
            "batch_bytes": 32 << 10,
            "scan_processes": processes,
            "scan_parallel_from": 1,
            "order": "sequential",
        },
    )
    question = Question(kind=kind, top=1000)
    return analyze([str(path)], question, settings, fake_env())


@pytest.fixture
def submitted(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int, int]]:
    """The ranges handed to the children (the parallel path was really taken)."""
    calls: list[tuple[int, int, int]] = []
    original = scanworkers.ScanWorkers.submit

    def spy(self: scanworkers.ScanWorkers, source: int, start: int, stop: int) -> Any:
        calls.append((source, start, stop))
        return original(self, source, start, stop)

    monkeypatch.setattr(scanworkers.ScanWorkers, "submit", spy)
    return calls


def _same(a: Any, b: Any) -> None:
    assert a.status is b.status is Status.EXACT
    assert [[e.key, e.count, e.breakdown] for e in a.answer.top] == [
        [e.key, e.count, e.breakdown] for e in b.answer.top
    ]
    for field in (
        "lines_read",
        "lines_parsed",
        "bytes_read",
        "malformed_lines",
        "invalid_utf8_lines",
    ):
        assert getattr(a.progress, field) == getattr(b.progress, field), field


@pytest.mark.parametrize("fmt", ["combined", "common"])
def test_children_prescan_to_the_same_exact_answer(
    tmp_path: Path, submitted: list[tuple[int, int, int]], fmt: str
) -> None:
    """Two files, many batches: the same ranking, breakdowns and line counts as one process,
    and the generator's truth."""
    paths = []
    truths = []
    for i, scenario in enumerate(("dominant", "late_incident")):
        path = tmp_path / f"{scenario}.{fmt}.log"
        truths.append(generate(path, scenario=scenario, size_mb=3, seed=21 + i, fmt=fmt))
        paths.append(path)
    for path, truth in zip(paths, truths, strict=True):
        one = _run(path, 1)
        assert not submitted
        two = _run(path, 2)
        assert len(submitted) > 8  # 3 MB in prescanned batches of 256 KiB, each one a child's
        submitted.clear()
        _same(one, two)
        assert [[e.key, e.count] for e in two.answer.top] == truth["top_errors"]
        assert two.progress.lines_read == truth["lines"]


def test_dense_candidates_are_read_by_the_parent(
    tmp_path: Path, submitted: list[tuple[int, int, int]]
) -> None:
    """Every line a 5xx: the children give the ranges back and the parent counts them."""
    path = tmp_path / "all5xx.log"
    lines = [combined_line(f"/r/{i % 7}", 500 + i % 4) for i in range(30_000)]
    path.write_text("\n".join(lines) + "\n")
    one, two = _run(path, 1), _run(path, 2)
    assert submitted
    _same(one, two)
    assert sum(e.count for e in two.answer.top) == 30_000


def test_a_child_that_fails_leaves_the_range_to_the_parent(
    tmp_path: Path, submitted: list[tuple[int, int, int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A child's read error is never a wrong count: the parent reads that range itself."""
    path = tmp_path / "a.log"
    generate(path, scenario="dominant", size_mb=2, seed=3, fmt="combined")
    one = _run(path, 1)

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise OSError("injected read error in a child")

    monkeypatch.setattr(scanworkers, "scan_range", broken)  # the children are forked after this
    two = _run(path, 2)
    assert submitted
    _same(one, two)


@pytest.mark.parametrize(
    ("group", "sig"),
    [(False, signal.SIGTERM), (True, signal.SIGTERM), (True, signal.SIGHUP)],
    ids=["parent", "group", "group-hangup"],
)
def test_sigterm_with_children_gives_a_partial_answer_and_leaves_no_child(
    tmp_path: Path, group: bool, sig: signal.Signals
) -> None:
    """SIGTERM while a read has its children: exit 4, a partial answer, and no child left.

    ``group``: the signal reaches the children too, as ``timeout``, ``kill -- -PGID`` and
    systemd's stop of a unit's cgroup send it. Children of ``multiprocessing.Pool`` waited
    for tasks holding its queue's lock; the one killed there kept it forever, and the
    parent's close of the pool waited for it forever. The file holds a 3 GiB line between
    its records: the parent skips it for seconds while its children wait (a read of records
    alone ends before a signal can be aimed at it).

    A hang-up (the terminal closed) comes to the whole group, often twice: the children
    inherited the parent's handler, which raises on a second signal, and printed its
    traceback; the parent took the second one as "stop at once" and printed nothing."""
    records = tmp_path / "records.log"
    truth = generate(records, scenario="dominant", size_mb=3, seed=9, fmt="combined")
    path = _long_line_log(tmp_path, records)
    proc = _start_with_children(path)
    try:
        kids = _children(proc.pid)
        time.sleep(0.3)  # into the long line: the children wait for their next task
        if group:
            os.killpg(proc.pid, sig)
            if sig == signal.SIGHUP:
                time.sleep(0.005)
                os.killpg(proc.pid, sig)
        else:
            proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:  # hung: the test fails, and leaves nothing behind
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 4, err
    assert "Traceback" not in err, err
    r = json.loads(out)
    assert r["status"] == "partial"
    assert r["decisions"][-1]["action"] == "STOP_PARTIAL"
    assert r["decisions"][-1]["reason"] == "interrupted"
    assert r["progress"]["lines_read"] < 2 * truth["lines"]  # counts so far, never called whole
    time.sleep(0.2)
    assert not [k for k in kids if _alive(k)], "a child outlived the run"


def _start_with_children(path: Path) -> subprocess.Popen[str]:
    """``analyze --full`` of ``path`` with two prescanning children, in a session of its own
    and with a terminal's SIGHUP disposition; returned once both children are up."""
    env = {
        **os.environ,
        "LOGAGENT_READER__SCAN_PROCESSES": "2",
        "LOGAGENT_READER__SCAN_PARALLEL_FROM": "1",
        "LOGAGENT_READER__BATCH_BYTES": "64KiB",
    }
    cmd = [sys.executable, "-m", "logagent", "analyze", str(path), "--full", "--json"]
    proc = subprocess.Popen(
        [*cmd, "--llm", "off", "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=ROOT,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 60
    while len(_children(proc.pid)) < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.02)
    if len(_children(proc.pid)) != 2:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail("the read never started its two children")
    return proc


def _children(pid: int) -> list[int]:
    """The Python processes ``pid`` forked (the pool's children; no helper a library ran)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            kids = [int(x) for x in f.read().split()]
    except OSError:
        return []
    return [k for k in kids if _comm(k).startswith("python")]


def _comm(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return ""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except OSError:
        return False


def test_two_reads_at_once_each_count_their_own_file(
    tmp_path: Path, submitted: list[tuple[int, int, int]]
) -> None:
    """Two runs in one process (as the service runs jobs), each with its children: each answer
    is its own file's, as one process gives it."""
    import threading

    paths = []
    for i, scenario in enumerate(("dominant", "close")):
        path = tmp_path / f"{scenario}.log"
        generate(path, scenario=scenario, size_mb=3, seed=40 + i, fmt="combined")
        paths.append(path)
    alone = [_run(p, 1) for p in paths]
    together: list[Any] = [None, None]

    def run(i: int) -> None:
        together[i] = _run(paths[i], 2)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    for a, b in zip(alone, together, strict=True):
        _same(a, b)
    assert len(submitted) > 16  # both reads had their children


def test_a_read_forking_beside_another_holds_none_of_its_pipes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two reads fork their children at once (the service's jobs): the second one's fork waits
    until the first has closed its children's ends (``_FORKING``). Forked in between, the
    second read's child held the first one's child end and sentinel, and the first read never
    saw its child die: its scan was never ready (measured: not in 5 s)."""
    import threading

    from logagent.sources import open_source
    from logagent.sources.prescan import prescan_for

    path = tmp_path / "a.log"
    generate(path, scenario="dominant", size_mb=2, seed=8, fmt="combined")
    src = open_source(str(path))
    find = prescan_for(ACCESS_5XX_PREFILTER)
    assert find is not None
    other: list[scanworkers.ScanWorkers] = []
    threads: list[threading.Thread] = []
    real_fork = os.fork

    def second_read() -> None:
        other.append(scanworkers.ScanWorkers([src], find, cap=1 << 16, processes=1))

    def fork() -> int:
        pid = real_fork()
        if pid > 0 and not threads:  # the first read has just forked its first child
            threads.append(threading.Thread(target=second_read))
            threads[0].start()
            threads[0].join(timeout=1.0)  # it forks now, unless forks are taken in turn
        return pid

    monkeypatch.setattr(os, "fork", fork)
    first = scanworkers.ScanWorkers([src], find, cap=1 << 16, processes=2)
    try:
        threads[0].join(timeout=30)
        monkeypatch.setattr(os, "fork", real_fork)
        child = first._children[0]
        os.kill(child.proc.pid or 0, signal.SIGSTOP)  # the task is still owed when it dies
        job = first.submit(0, 0, src.size or 0)
        assert job._child is child
        os.kill(child.proc.pid or 0, signal.SIGKILL)
        deadline = time.monotonic() + 5
        while not job.ready() and time.monotonic() < deadline:
            job.wait(0.05)
        assert job.ready(), "the first read never saw its child die"
        assert job.get() is None  # the parent reads that range itself
    finally:
        first.close()
        for workers in other:
            workers.close()
        src.close()


def test_a_child_killed_mid_read_leaves_its_ranges_to_the_parent(
    tmp_path: Path, submitted: list[tuple[int, int, int]]
) -> None:
    """SIGKILL to a child (the OOM killer's way) after the first batch: the run neither waits
    for it nor loses its ranges; the parent reads them and the answer is one process's."""
    import multiprocessing
    from dataclasses import replace

    path = tmp_path / "k.log"
    generate(path, scenario="dominant", size_mb=3, seed=12, fmt="combined")
    one = _run(path, 1)
    killed: list[int] = []

    def kill_one(event: object) -> None:
        kids = [p for p in multiprocessing.active_children() if p.name.startswith("logagent-scan")]
        if not killed and kids:
            killed.append(kids[0].pid or 0)
            os.kill(kids[0].pid or 0, signal.SIGKILL)

    settings = load_settings(
        analysis={"seed": 5, "full": True},
        reader={"batch_bytes": 32 << 10, "scan_processes": 2, "scan_parallel_from": 1},
    )
    two = analyze(
        [str(path)], Question(top=1000), settings, replace(fake_env(), on_progress=kill_one)
    )
    assert killed and len(submitted) > 8
    _same(one, two)


def test_the_children_leave_when_the_parent_is_killed(tmp_path: Path) -> None:
    """SIGKILL to the parent alone: its children notice (``ORPHAN_POLL``) and leave."""
    path = tmp_path / "big.log"
    generate(path, scenario="dominant", size_mb=40, seed=9, fmt="combined")
    proc = _start_with_children(path)
    try:
        kids = _children(proc.pid)
        proc.kill()
        proc.communicate(timeout=30)
        deadline = time.monotonic() + 10 * scanworkers.ORPHAN_POLL
        while any(_alive(k) for k in kids) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [k for k in kids if _alive(k)], "a child outlived its parent"
    finally:
        os.killpg(proc.pid, signal.SIGKILL) if _group_alive(proc.pid) else None


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except OSError:
        return False
    return True


def test_no_children_inside_a_daemonic_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a daemonic process (a ``multiprocessing`` Pool or Celery worker) a fork raised an
    AssertionError and the read failed: there, one process reads it all."""
    import multiprocessing
    from types import SimpleNamespace

    from logagent.sources import open_source
    from logagent.sources.prescan import prescan_for

    path = tmp_path / "d.log"
    path.write_text(combined_line("/a", 503) + "\n")
    src = open_source(str(path))
    find = prescan_for(ACCESS_5XX_PREFILTER)
    assert find is not None
    kwargs = {"cap": 1 << 16, "nbytes": 1 << 30, "processes": 2, "parallel_from": 1}
    try:
        workers = scanworkers.workers_for([src], find, **kwargs)
        assert workers is not None  # not daemonic: children
        workers.close()
        monkeypatch.setattr(
            multiprocessing, "current_process", lambda: SimpleNamespace(daemon=True)
        )
        assert scanworkers.workers_for([src], find, **kwargs) is None
    finally:
        src.close()
