"""Checkpoint integrity: no damaged, cut or foreign checkpoint file is ever read as a run."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.ipc as ipc
import pytest

from logagent.counters.tally import COUNTS_SCHEMA, UNITS_SCHEMA, Tally
from logagent.engine.checkpoint import (
    _META,
    Checkpoint,
    CheckpointError,
    Fingerprint,
    encode,
    load,
    save,
    seal,
)
from logagent.result import Question


def _checkpoint() -> Checkpoint:
    counts = pl.DataFrame(
        {"route": ["/a", "/b", "/c"], "status": [200, 503, 500], "n": [40, 7, 3]}
    ).cast(COUNTS_SCHEMA)  # type: ignore[arg-type]  # a dict of dtypes is fine
    errors = pl.DataFrame({"unit": [0, 1, 2], "route": ["/b", "/b", "/c"], "n": [3, 4, 3]}).cast(
        UNITS_SCHEMA  # type: ignore[arg-type]
    )
    return Checkpoint(
        question=Question().model_dump(mode="json"),
        settings={},
        paths=("/nonexistent/access.log",),
        inputs=(Fingerprint("/nonexistent/access.log", 12345, "ab" * 32),),
        seed=7,
        phase="sampled",
        order="random",
        unit_size=1024,
        tally=Tally(counts=counts, unit_errors=errors, units=3, bytes_read=3072, lines=50),
        batches=(np.array([2, 0], np.int64), np.array([1], np.int64)),
        decisions=({"units_read": 3, "action": "CONTINUE", "reason": "not_settled"},),
        warnings=("w",),
    )


@pytest.fixture
def good(tmp_path: Path) -> Path:
    """A small valid checkpoint file."""
    path = tmp_path / "good.ckpt"
    save(str(path), _checkpoint())
    return path


def _same(a: Checkpoint, b: Checkpoint) -> bool:
    return (
        a.tally.counts.equals(b.tally.counts)
        and a.tally.unit_errors.equals(b.tally.unit_errors)
        and a.tally.scalars() == b.tally.scalars()
        and [x.tolist() for x in a.batches] == [x.tolist() for x in b.batches]
        and (a.question, a.inputs, a.seed, a.decisions)
        == (b.question, b.inputs, b.seed, b.decisions)
    )


def _flipped(data: bytes, bit: int) -> bytes:
    out = bytearray(data)
    out[bit // 8] ^= 1 << (bit % 8)
    return bytes(out)


def _resume(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "logagent", "resume", str(path), "--quiet"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _assert_clean_exit_2(proc: subprocess.CompletedProcess[str], *, usage: bool = False) -> None:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    if usage:  # click refuses the argument itself (a directory, a missing file): its usage text
        assert lines[-1].startswith("Error: Invalid value for 'CHECKPOINT_FILE'"), proc.stderr
        return
    assert len(lines) == 1 and lines[0].startswith("logagent: error:"), proc.stderr


def test_round_trip_keeps_the_content(good: Path) -> None:
    """A saved checkpoint loads back to the same counts, positions and state."""
    assert _same(load(str(good)), _checkpoint())


def test_every_byte_flipped_is_refused(good: Path, tmp_path: Path) -> None:
    """One bit flipped in any byte of the file: CheckpointError, never a run from wrong counts."""
    data = good.read_bytes()
    bad = tmp_path / "bad.ckpt"
    for i in range(len(data)):
        bad.write_bytes(_flipped(data, i * 8 + i % 8))
        with pytest.raises(CheckpointError):
            load(str(bad))


def test_seeded_random_flips_are_refused_or_harmless(good: Path, tmp_path: Path) -> None:
    """600 seeded flips of 1-3 bits: CheckpointError, or (never with SHA-256) the same content."""
    data = good.read_bytes()
    rng = random.Random(10)
    bad = tmp_path / "bad.ckpt"
    for _ in range(600):
        damaged = data
        for _ in range(rng.randint(1, 3)):
            damaged = _flipped(damaged, rng.randrange(len(data) * 8))
        bad.write_bytes(damaged)
        try:
            back = load(str(bad))
        except CheckpointError:
            continue
        assert damaged == data or _same(back, _checkpoint())


def test_flipped_checkpoints_through_the_cli(good: Path, tmp_path: Path) -> None:
    """`logagent resume` of a flipped checkpoint: exit 2, one line on stderr, no traceback."""
    data = good.read_bytes()
    rng = random.Random(11)
    for k in range(4):
        bad = tmp_path / f"flip{k}.ckpt"
        bad.write_bytes(_flipped(data, rng.randrange(len(data) * 8)))
        _assert_clean_exit_2(_resume(bad))


def _garbage_metadata(tmp_path: Path, meta: bytes) -> Path:
    """A checkpoint with a valid checksum whose JSON metadata is ``meta``."""
    table = encode(_checkpoint()).replace_schema_metadata({_META: meta})
    sink = pa.BufferOutputStream()
    with ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    path = tmp_path / "crafted.ckpt"
    path.write_bytes(seal(sink.getvalue().to_pybytes()))
    return path


def _valid_meta(**changes: object) -> bytes:
    table = encode(_checkpoint())
    meta = json.loads(table.schema.metadata[_META])
    meta.update(changes)
    return json.dumps(meta).encode()


CRAFTED = {
    "not-json": b"{not json at all",
    "a-list": b"[1, 2, 3]",
    "wrong-types": _valid_meta(scalars=["x"], inputs="nope"),
    "bad-question": _valid_meta(question={"kind": "no-such-question"}),
    "unknown-phase": _valid_meta(phase="elsewhere"),
    "old-version": _valid_meta(version=1),
    "missing-key": json.dumps({"magic": "logagent-checkpoint", "version": 2}).encode(),
}


@pytest.mark.parametrize("name", sorted(CRAFTED))
def test_valid_checksum_with_bad_metadata_is_refused(tmp_path: Path, name: str) -> None:
    """A checksum that matches does not vouch for the content: bad metadata is CheckpointError."""
    with pytest.raises(CheckpointError):
        load(str(_garbage_metadata(tmp_path, CRAFTED[name])))


def test_old_format_is_refused_with_advice(tmp_path: Path) -> None:
    """A version-1 checkpoint (bare Arrow IPC, no checksum) is refused: start a new run."""
    table = encode(_checkpoint())
    path = tmp_path / "v1.ckpt"
    with open(path, "wb") as f, ipc.new_file(f, table.schema) as writer:
        writer.write_table(table)
    with pytest.raises(CheckpointError, match="start a new run"):
        load(str(path))
    _assert_clean_exit_2(_resume(path))


def _bad_files(good: Path, tmp_path: Path) -> dict[str, Path]:
    data = good.read_bytes()
    files = {
        "truncated": data[: len(data) // 2],
        "header-only": data[:20],
        "trailing-bytes": data + b"\0",
        "empty": b"",
        "random": random.Random(12).randbytes(4096),
        "crafted": _garbage_metadata(tmp_path, b"{not json").read_bytes(),
    }
    out = {}
    for name, content in files.items():
        out[name] = tmp_path / f"{name}.ckpt"
        out[name].write_bytes(content)
    out["directory"] = tmp_path / "adir.ckpt"
    os.mkdir(out["directory"])
    out["missing"] = tmp_path / "missing.ckpt"
    return out


def test_broken_files_exit_2_cleanly(good: Path, tmp_path: Path) -> None:
    """Truncated, empty, random, crafted, a directory, missing: exit 2, no traceback."""
    for name, path in _bad_files(good, tmp_path).items():
        with pytest.raises(CheckpointError):
            load(str(path))
        proc = _resume(path)
        _assert_clean_exit_2(proc, usage=name == "directory")
        assert str(path) in proc.stderr, name
