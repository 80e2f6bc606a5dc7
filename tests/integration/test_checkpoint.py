"""Checkpoint and resume: a stopped run goes on to the very result an uninterrupted run reaches."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from logagent import Question, analyze, load_settings
from logagent.engine.checkpoint import CheckpointError, load, save
from logagent.result import QuestionKind, Result, Status
from logagent.samples import generate
from logagent.testing import MemorySink, fake_env


@pytest.fixture(scope="module")
def close_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("ckpt") / "close.log"
    generate(path, scenario="close", size_mb=6, seed=3)
    return path


def _settings(
    seed: int, *, full: bool = False, kind: QuestionKind = QuestionKind.TOP_ERRORS
) -> Any:
    return load_settings(
        analysis={"seed": seed, "full": full, "question": kind, "degrade_above": 1.0},
        reader={"unit_size": "1KiB", "batch_bytes": "32KiB"},
        checkpoint={"every": 3},
    )


def _trace(r: Result) -> list[tuple[int, str, str]]:
    return [(d.units_read, d.action, d.reason) for d in r.decisions]


def _same(a: Result, b: Result) -> None:
    assert (a.status, a.answer) == (b.status, b.answer)
    pa, pb = a.progress, b.progress
    assert (pa.units_read, pa.bytes_read, pa.lines_read) == (
        pb.units_read,
        pb.bytes_read,
        pb.lines_read,
    )
    assert _trace(a) == _trace(b)


CASES = [
    pytest.param(False, QuestionKind.TOP_ERRORS, id="sampled-top-errors"),
    pytest.param(False, QuestionKind.ERROR_RATE, id="sampled-error-rate"),
    pytest.param(True, QuestionKind.TOP_ERRORS, id="full-random-order"),
]


@pytest.mark.parametrize(("full", "kind"), CASES)
def test_interrupted_then_resumed_equals_uninterrupted(
    close_log: Path, full: bool, kind: QuestionKind
) -> None:
    """Stopped after a random batch (seeded), resumed from the checkpoint: same result and trace."""
    rng = random.Random(7)
    q = Question(kind=kind, top=3)
    for seed in range(6):
        settings = _settings(seed, full=full, kind=kind)
        if full:
            settings = settings.model_copy(
                update={"reader": settings.reader.model_copy(update={"order": "random"})}
            )
        whole = analyze([str(close_log)], q, settings, fake_env())
        batches = len(whole.decisions) if not full else 40
        sink = MemorySink()
        env = fake_env(interrupt_after=rng.randint(1, max(1, batches - 1)))
        stopped = analyze([str(close_log)], q, settings, replace(env, checkpoint=sink))
        if stopped.status is not Status.PARTIAL:  # finished before the stop came: nothing to resume
            assert sink.last is None
            continue
        assert sink.last is not None and any("logagent resume" in w for w in stopped.warnings)
        resumed = analyze([str(close_log)], q, settings, fake_env(), resume=sink.last)
        _same(resumed, whole)


def test_checkpoint_file_round_trip(close_log: Path, tmp_path: Path) -> None:
    """What is saved is what is loaded: counts, batches, trace, seed, settings."""
    sink = MemorySink()
    env = fake_env(interrupt_after=4)
    settings = _settings(11)
    analyze([str(close_log)], Question(top=3), settings, replace(env, checkpoint=sink))
    assert sink.last is not None
    file = tmp_path / "run.ckpt"
    save(str(file), sink.last)
    back = load(str(file))
    assert back.tally.counts.equals(sink.last.tally.counts)
    assert back.tally.unit_errors.equals(sink.last.tally.unit_errors)
    assert back.tally.scalars() == sink.last.tally.scalars()
    assert [b.tolist() for b in back.batches] == [b.tolist() for b in sink.last.batches]
    assert (back.seed, back.phase, back.decisions, back.settings) == (
        sink.last.seed,
        sink.last.phase,
        sink.last.decisions,
        sink.last.settings,
    )


def _cli(
    *args: str, env: dict[str, str] | None = None, **kw: Any
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "logagent", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        check=False,
        **kw,
    )


def test_bad_checkpoints_are_clear_errors(close_log: Path, tmp_path: Path) -> None:
    """Missing, truncated, corrupt, foreign, or for a changed input: one line, exit 2."""
    sink = MemorySink()
    env = fake_env(interrupt_after=3)
    analyze([str(close_log)], Question(), _settings(2), replace(env, checkpoint=sink))
    assert sink.last is not None
    good = tmp_path / "good.ckpt"
    save(str(good), sink.last)
    data = good.read_bytes()
    (tmp_path / "truncated.ckpt").write_bytes(data[: len(data) // 2])
    (tmp_path / "garbage.ckpt").write_bytes(b"\x00\x01 not arrow" * 100)
    (tmp_path / "empty.ckpt").write_bytes(b"")
    changed = tmp_path / "changed.log"
    changed.write_bytes(close_log.read_bytes()[:-100])
    moved = replace(sink.last, paths=(str(changed),))
    save(str(tmp_path / "moved.ckpt"), moved)
    for name in ("missing", "truncated", "garbage", "empty", "moved"):
        r = _cli("resume", str(tmp_path / f"{name}.ckpt"))
        assert r.returncode == 2, (name, r.stderr)
        assert r.stderr.startswith("logagent: error:") and "Traceback" not in r.stderr, r.stderr
    with pytest.raises(CheckpointError):
        load(str(tmp_path / "truncated.ckpt"))


def test_a_checkpoint_that_could_not_be_written_is_not_said_to_go_on_from_here(
    close_log: Path,
) -> None:
    """The disk filled after the first checkpoint: the stopped run says it could not write
    the checkpoint and that resume goes on from an earlier point; it had said both "cannot
    write the checkpoint" and "goes on from here" (a review)."""
    import errno

    class FillsUp(MemorySink):
        def save(self, cp: Any) -> None:
            if self.saved:
                raise OSError(errno.ENOSPC, "No space left on device")
            super().save(cp)

    sink = FillsUp()
    env = replace(fake_env(interrupt_after=5), checkpoint=sink)
    r = analyze([str(close_log)], Question(), _settings(2), env)
    assert r.status is Status.PARTIAL and len(sink.saved) == 1
    said = [w for w in r.warnings if "logagent resume" in w or "cannot write" in w]
    assert any("cannot write the checkpoint (No space left on device)" in w for w in said)
    assert any("goes on from an earlier point" in w for w in said), said
    assert not any("goes on from here" in w for w in said), said


def test_an_input_edited_in_place_is_not_resumed(close_log: Path, tmp_path: Path) -> None:
    """A file edited past its first 64 KiB, its size kept (200 lines rewritten to 503), is
    another input: its checkpoint is refused (exit 2). Size and head hash alone had let it
    resume "exact" over a mix of both files (a review)."""
    log = tmp_path / "edited.log"
    log.write_bytes(close_log.read_bytes())
    sink = MemorySink()
    env = replace(fake_env(interrupt_after=3), checkpoint=sink)
    analyze([str(log)], Question(), _settings(2), env)
    assert sink.last is not None
    ckpt = tmp_path / "edited.ckpt"
    save(str(ckpt), sink.last)
    data = bytearray(log.read_bytes())
    at = data.index(b'" 200 ', 1 << 17)
    data[at : at + 6] = b'" 503 '  # the same size, the same first bytes
    log.write_bytes(bytes(data))
    r = _cli("resume", str(ckpt))
    assert r.returncode == 2, r.stderr
    assert "the input changed since the checkpoint was written" in r.stderr, r.stderr


@pytest.fixture(scope="module")
def signal_logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("signals")
    out = {}
    for scenario in ("close", "dominant"):
        out[scenario] = base / f"{scenario}.log"
        generate(out[scenario], scenario=scenario, size_mb=4, seed=4)
    return out


# Many small batches, and the race never cut short by a full read: room to stop mid-run.
SLOW = {"LOGAGENT_READER__BATCH_BYTES": "16KiB", "LOGAGENT_ANALYSIS__DEGRADE_ABOVE": "1.0"}


def _args(path: Path, seed: int, ckpt: Path, full: bool) -> list[str]:
    args = ["analyze", str(path), "--json", "--quiet", "--seed", str(seed), "--unit-size", "1KiB"]
    args += ["--top", "3", "--checkpoint", str(ckpt), "--checkpoint-every", "2"]
    return [*args, "--full", "--order", "random"] if full else args


def _uninterrupted(path: Path, seed: int, full: bool) -> tuple[Any, ...]:
    """The same run as the CLI's, in this process (no checkpoint)."""
    settings = load_settings(
        analysis={"seed": seed, "full": full, "top": 3, "degrade_above": 1.0},
        reader={"unit_size": "1KiB", "batch_bytes": SLOW["LOGAGENT_READER__BATCH_BYTES"]}
        | ({"order": "random"} if full else {}),
    )
    r = analyze([str(path)], Question(top=3), settings)
    return _answer(r.model_dump_json())


def _answer(text: str) -> tuple[Any, ...]:
    r = json.loads(text)
    return r["status"], r["answer"], r["progress"]["units_read"], r["progress"]["bytes_read"]


def _kill_and_resume(
    path: Path, seed: int, full: bool, ckpt: Path, sig: signal.Signals, wait: float
) -> tuple[Any, ...] | None:
    """Run the CLI, send ``sig`` once its first checkpoint exists, resume; None if it finished."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "logagent", *_args(path, seed, ckpt, full)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **SLOW},
    )
    deadline = time.monotonic() + 60
    while not ckpt.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    time.sleep(wait)
    if proc.poll() is None:
        proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    if proc.returncode == 0 or not ckpt.exists():  # finished (checkpoint removed) before the
        assert not ckpt.exists()  # signal came: nothing to resume (SIGKILL may still hit the
        return None  # exit; SIGTERM then is ignored: exit 0)
    expected = -signal.SIGKILL if sig is signal.SIGKILL else 4
    assert proc.returncode == expected, err
    assert ckpt.exists(), err
    resumed = _cli("resume", str(ckpt), "--json", "--quiet", env=SLOW)
    assert resumed.returncode == 0, resumed.stderr
    assert not ckpt.exists()  # finished: nothing left to resume
    return _answer(resumed.stdout)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_killed_runs_resume_to_the_uninterrupted_result(
    signal_logs: dict[str, Path], tmp_path: Path, sig: signal.Signals
) -> None:
    """20 seeded runs killed at random points and resumed equal uninterrupted runs.

    SIGTERM stops after the current batch with a checkpoint (exit 4); SIGKILL
    leaves the last periodic checkpoint. Either way `logagent resume` finishes
    the run with the answer the uninterrupted run gives. Half the runs sample
    (the early-stop race), half read everything in random order.
    """
    rng = random.Random(sig.value)
    runs = []
    for i in range(20):
        scenario, full = ("close", False) if i % 2 else ("dominant", True)
        runs.append(
            (signal_logs[scenario], 100 + i, full, tmp_path / f"run{i}.ckpt", rng.uniform(0, 0.05))
        )
    with ThreadPoolExecutor(max_workers=2) as pool:  # two runs at a time: processes wait on I/O
        resumed = list(pool.map(lambda r: _kill_and_resume(*r[:4], sig, r[4]), runs))
    interrupted = 0
    for (path, seed, full, _, _), got in zip(runs, resumed, strict=True):
        if got is not None:
            interrupted += 1
            assert got == _uninterrupted(path, seed, full), (path.name, seed)
    assert interrupted >= 15  # the signals really came mid-run


def test_a_resumed_full_read_counts_its_budget_over_the_whole_run(close_log: Path) -> None:
    """--max-fraction on resume is of the whole input, earlier sessions included."""
    sink = MemorySink()
    first = load_settings(
        analysis={"seed": 5, "full": True},
        reader={"unit_size": "1KiB", "batch_bytes": "32KiB", "order": "random"},
        budget={"max_fraction": 0.2},
    )
    stopped = analyze([str(close_log)], Question(), first, replace(fake_env(), checkpoint=sink))
    assert stopped.status is Status.PARTIAL and sink.last is not None
    more = first.model_copy(
        update={"budget": first.budget.model_copy(update={"max_fraction": 0.5})}
    )
    again = analyze([str(close_log)], Question(), more, fake_env(), resume=sink.last)
    assert again.status is Status.PARTIAL
    batch = 32 / (close_log.stat().st_size / 1024)  # one batch's share of the input
    assert 0.5 <= again.progress.fraction_read <= 0.5 + 2 * batch
    assert again.decisions[-1].detail.startswith(f"{again.progress.fraction_read:.0%}"[:2])


def test_a_checkpoint_that_cannot_be_removed_keeps_the_finished_answer(
    tmp_path: Path,
) -> None:
    """The run finished, and removing its checkpoint fails (a read-only folder): the answer
    is given all the same, with a warning (it was exit 1, "internal error", and no answer)."""

    class Stuck(MemorySink):
        def discard(self) -> None:
            raise PermissionError(1, "Operation not permitted")

    log = tmp_path / "small.log"
    generate(log, scenario="close", size_mb=0.3, seed=5)
    plain = analyze([str(log)], Question(), _settings(4, full=True), fake_env())
    sink = Stuck()
    r = analyze(
        [str(log)], Question(), _settings(4, full=True), replace(fake_env(), checkpoint=sink)
    )
    assert r.status == Status.EXACT and r.answer == plain.answer
    assert r.warnings[-1] == (
        "the run finished, but its checkpoint could not be removed (Operation not permitted)"
    )
    assert sink.saved  # it was written, and stays


def test_one_checkpoint_file_serves_one_run_at_a_time(tmp_path: Path) -> None:
    """Two runs on one --checkpoint file had both saved there and both said "progress
    saved": the second is refused while the first holds it (exit 2 from the CLI), and the
    file is free again once the first ends. Its lock file goes with it."""
    from logagent.engine.checkpoint import held
    from logagent.errors import ConfigError

    ckpt = tmp_path / "run.ckpt"
    with held(str(ckpt)):
        assert (tmp_path / "run.ckpt.lock").exists()
        with (
            pytest.raises(ConfigError, match="another run is using this checkpoint"),
            held(str(ckpt)),
        ):
            pass
        log = tmp_path / "small.log"
        generate(log, scenario="close", size_mb=0.2, seed=5)
        r = _cli("analyze", str(log), "--json", "--checkpoint", str(ckpt), "--llm", "off")
        assert r.returncode == 2 and "another run is using this checkpoint" in r.stderr
    assert not (tmp_path / "run.ckpt.lock").exists()
    with held(str(ckpt)):  # free again; and one lock for the file and a link to it
        link = tmp_path / "link.ckpt"
        link.symlink_to(ckpt)
        with pytest.raises(ConfigError, match="another run"), held(str(link)):
            pass


def test_a_file_named_like_the_lock_is_kept(tmp_path: Path) -> None:
    """A lock file is never written: a file of that name holding bytes is someone else's,
    and the run that locked it leaves it as it was (it had been removed at the end)."""
    from logagent.engine.checkpoint import held

    ckpt = tmp_path / "run.ckpt"
    theirs = tmp_path / "run.ckpt.lock"
    theirs.write_text("notes kept beside the checkpoint\n")
    with held(str(ckpt)):
        pass
    assert theirs.read_text() == "notes kept beside the checkpoint\n"
