"""Faults while a run reads: the file changes, signals, a kill and a resume."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.faults.conftest import ENV, clean, cli, result, top, truth_top

SLOW = {"LOGAGENT_READER__BATCH_BYTES": "256KiB"}  # many batches: room to act mid-read
# A read of everything in file order is prescanned at memory speed (~0.1 s for the 120 MB
# fixture): too fast to signal or kill by timing. Units in random order are read one by one,
# seconds for the fixture, and the signal, kill and resume code is the same for both orders.
SLOWER = {"LOGAGENT_READER__ORDER": "random"}


def _start(
    *args: str, env: dict[str, str] | None = None, nohup: bool = False
) -> subprocess.Popen[bytes]:
    """``nohup``: started with SIGHUP ignored, as ``nohup`` starts a command."""
    return subprocess.Popen(
        [sys.executable, "-m", "logagent", "analyze", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**ENV, **SLOW, **(env or {})},
        # a terminal's SIGHUP disposition (the test runner's may be nohup's), or nohup's
        preexec_fn=lambda: signal.signal(
            signal.SIGHUP, signal.SIG_IGN if nohup else signal.SIG_DFL
        ),
    )


def _wait_reading(proc: subprocess.Popen[bytes], path: Path, seconds: float = 90) -> None:
    """Until the process holds ``path`` open (its signal handlers are in place by then), then a
    little longer so that it is well into the read."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            fds = os.listdir(f"/proc/{proc.pid}/fd")
            if any(_target(proc.pid, fd) == str(path) for fd in fds):
                time.sleep(0.3)
                return
        except OSError:
            pass
        time.sleep(0.01)
    pytest.fail(f"the run never opened {path}")


def _target(pid: int, fd: str) -> str:
    try:
        return os.readlink(f"/proc/{pid}/fd/{fd}")
    except OSError:
        return ""


def _finish(proc: subprocess.Popen[bytes]) -> tuple[int, bytes, str]:
    out, err = proc.communicate(timeout=180)
    text = err.decode("utf-8", "replace")
    assert "Traceback" not in text, text
    return proc.returncode, out, text


@pytest.mark.parametrize("processes", [1, 2])
def test_a_file_truncated_while_read_is_partial_not_exact(
    tmp_path: Path, big: tuple[Path, dict[str, Any]], processes: int
) -> None:
    """``truncate -s 0`` mid-run: status partial, the warning says the input shrank, whether
    this process or its prescanning children read the rest. The file is cut right after the
    first batch is counted (a read of everything is too fast to hit by timing)."""
    from dataclasses import replace

    from logagent import Question, analyze, load_settings
    from logagent.result import Status
    from logagent.testing import fake_env

    src, _ = big
    path = tmp_path / "t.log"
    shutil.copy(src, path)
    settings = load_settings(
        analysis={"full": True},
        reader={"batch_bytes": "256KiB", "scan_processes": processes, "scan_parallel_from": 1},
    )
    cut: list[int] = []

    def truncate_once(event: object) -> None:
        if not cut:
            cut.append(os.path.getsize(path))
            os.truncate(path, 0)

    env = replace(fake_env(), on_progress=truncate_once)
    r = analyze([str(path)], Question(), settings, env)
    assert cut, "no batch was counted"
    assert r.status is Status.PARTIAL
    assert any("shrank" in w for w in r.warnings)
    assert r.decisions[-1].reason == "input_changed"
    assert 0 < r.progress.lines_read < big[1]["lines"]


@pytest.mark.parametrize(
    ("full", "processes"), [(True, 1), (True, 2), (False, 1)], ids=["full", "full-2", "sampled"]
)
def test_a_copytruncate_rotation_while_read_is_partial_not_exact(
    tmp_path: Path, big: tuple[Path, dict[str, Any]], full: bool, processes: int
) -> None:
    """logrotate's ``copytruncate`` mid-run, the writer going on at its old offset: the file
    is emptied and at once as long as before, its start a run of zero bytes, so no read ends
    short. The answer is partial (input_changed), not "exact" on the lines the holes left (a
    review: 557,278 of 4,731,130 lines, top count 22,507 of 192,130)."""
    from dataclasses import replace

    from logagent import Question, analyze, load_settings
    from logagent.result import Status
    from logagent.testing import fake_env

    src, _ = big
    path = tmp_path / "t.log"
    shutil.copy(src, path)
    settings = load_settings(
        analysis={"full": full, "seed": 4},
        reader={"batch_bytes": "256KiB", "scan_processes": processes, "scan_parallel_from": 1},
    )
    rotated: list[int] = []

    def copytruncate_once(event: object) -> None:
        if not rotated:
            size = os.path.getsize(path)
            rotated.append(size)
            shutil.copy(path, tmp_path / "t.log.1")
            os.truncate(path, 0)
            with open(path, "r+b") as f:  # the writer's next line, at its old offset
                f.seek(size)
                f.write(b'1.2.3.4 - - [28/Nov/2026:13:55:36 +0000] "GET /x HTTP/1.1" 200 1\n')

    from logagent.testing import MemorySink

    sink = MemorySink()
    env = replace(fake_env(), on_progress=copytruncate_once, checkpoint=sink)
    r = analyze([str(path)], Question(), settings, env)
    assert rotated, "no batch was counted"
    assert r.status is Status.PARTIAL, r.status
    assert r.decisions[-1].reason == "input_changed"
    assert any("its first bytes are not those it held" in w for w in r.warnings), r.warnings
    # resume refuses an input that changed: no hint that it goes on (a review)
    assert not any("logagent resume" in w for w in r.warnings), r.warnings


def test_a_file_rotated_by_rename_mid_read_is_read_whole(
    tmp_path: Path, big: tuple[Path, dict[str, Any]]
) -> None:
    """``mv access.log access.log.1`` and a new file mid-run: the open file is read to its end;
    the answer is the old file's exact one."""
    import json

    src, truth = big
    path = tmp_path / "access.log"
    shutil.copy(src, path)
    proc = _start(str(path), "--full", "--json")
    _wait_reading(proc, path)
    path.rename(tmp_path / "access.log.1")
    path.write_text("new file\n")
    code, out, _ = _finish(proc)
    r = json.loads(out)
    assert code == 0 and r["status"] == "exact" and top(r) == truth_top(truth)


def test_a_file_growing_while_read_counts_what_it_held_at_the_start(
    tmp_path: Path, big: tuple[Path, dict[str, Any]]
) -> None:
    """Lines appended mid-run are not counted: the answer is exact for the file as it was."""
    import json

    src, truth = big
    path = tmp_path / "grow.log"
    shutil.copy(src, path)
    proc = _start(str(path), "--full", "--json")
    _wait_reading(proc, path)
    with path.open("ab") as f:
        f.write(src.read_bytes()[:2_000_000])
    code, out, _ = _finish(proc)
    r = json.loads(out)
    assert code == 0 and top(r) == truth_top(truth)
    assert r["progress"]["lines_read"] == truth["lines"]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_signal_mid_read_gives_a_partial_answer(
    big: tuple[Path, dict[str, Any]], sig: signal.Signals
) -> None:
    """SIGTERM, SIGINT or SIGHUP (a closed terminal) while reading: exit 4 with the counts so
    far, said to be partial."""
    import json

    path, truth = big
    proc = _start(str(path), "--full", "--json", env=SLOWER)
    _wait_reading(proc, path)
    proc.send_signal(sig)
    code, out, _ = _finish(proc)
    r = json.loads(out)
    assert code == 4 and r["status"] == "partial"
    assert 0 < r["progress"]["lines_read"] < truth["lines"]


def test_sighup_under_nohup_is_left_ignored(big: tuple[Path, dict[str, Any]]) -> None:
    """Started as ``nohup`` starts it (SIGHUP ignored), a run goes on through a SIGHUP to its
    exact answer: only a SIGHUP with its default action is taken as a stop."""
    import json

    path, truth = big
    proc = _start(str(path), "--full", "--json", env=SLOWER, nohup=True)
    _wait_reading(proc, path)
    proc.send_signal(signal.SIGHUP)
    code, out, _ = _finish(proc)
    r = json.loads(out)
    assert code == 0 and r["status"] == "exact" and top(r) == truth_top(truth)


def test_sigkill_then_resume_reaches_the_exact_answer(
    tmp_path: Path, big: tuple[Path, dict[str, Any]]
) -> None:
    """SIGKILL mid-run with a checkpoint: ``logagent resume`` finishes with the exact answer."""
    path, truth = big
    ckpt = tmp_path / "run.ckpt"
    proc = _start(
        str(path),
        "--full",
        "--json",
        "--checkpoint",
        str(ckpt),
        "--checkpoint-every",
        "2",
        env=SLOWER,
    )
    deadline = time.monotonic() + 60
    while not ckpt.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.02)
    proc.kill()
    proc.communicate(timeout=60)
    if not ckpt.exists():
        pytest.fail("no checkpoint was written before the kill")
    resumed = cli("resume", str(ckpt), "--json", timeout=300)
    clean(resumed)
    assert resumed.returncode == 0
    r = result(resumed)
    assert r["status"] == "exact" and top(r) == truth_top(truth)
    assert r["progress"]["lines_read"] == truth["lines"]


def _long_line_log(tmp_path: Path, src: Path) -> Path:
    """Records, then one 3 GiB line, then records: a batch that takes seconds to skip."""
    path = tmp_path / "longline.log"
    data = src.read_bytes()[:3_000_000]
    data = data[: data.rindex(b"\n") + 1]
    with path.open("wb") as f:
        f.write(data)
        f.truncate(len(data) + (3 << 30))  # a sparse run of NULs: one line of 3 GiB
        f.seek(0, os.SEEK_END)
        f.write(b"\n" + data)
    return path


def test_time_budget_and_signals_act_inside_a_long_line(
    tmp_path: Path, big: tuple[Path, dict[str, Any]]
) -> None:
    """--max-seconds inside a 3 GiB line stops there (time_budget), and a SIGTERM stops the
    skip of that line too: neither waits for the line to end."""
    import json

    path = _long_line_log(tmp_path, big[0])
    timed = cli("analyze", str(path), "--full", "--json", "--max-seconds", "1", timeout=120)
    clean(timed)
    r = result(timed)
    assert timed.returncode == 4 and r["decisions"][-1]["reason"] == "time_budget"
    proc = _start(str(path), "--full", "--json", "--unit-size", "1MiB")
    _wait_reading(proc, path)
    time.sleep(1.5)
    proc.send_signal(signal.SIGTERM)
    code, out, _ = _finish(proc)
    r = json.loads(out)
    assert code == 4 and r["decisions"][-1]["reason"] == "interrupted"
    assert r["progress"]["bytes_read"] < path.stat().st_size
