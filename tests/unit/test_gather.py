"""Gathered reads of many small units give the same lines as framing unit by unit."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from logagent.sources import open_source, plan_units
from logagent.sources.batches import iter_seekable_batches
from logagent.sources.gather import gathered_batch, iter_gathered_batches
from logagent.sources.permute import KeyedPermutation


def _lines(batch: object) -> list[tuple[int, bytes]]:
    """(unit, line) of every line of a batch, sorted."""
    data = bytes(batch.data[: batch.size])  # type: ignore[attr-defined]
    starts = np.concatenate([[0], np.flatnonzero(np.frombuffer(data, np.uint8) == 10)[:-1] + 1])
    if not data:
        return []
    units = batch.units_of(starts.astype(np.int64))  # type: ignore[attr-defined]
    ends = np.flatnonzero(np.frombuffer(data, np.uint8) == 10)
    return sorted((int(u), data[s : e + 1]) for u, s, e in zip(units, starts, ends, strict=True))


def _write(path: Path, seed: int, *, long_every: int = 0, tail_newline: bool = True) -> None:
    rng = np.random.default_rng(seed)
    lines = []
    for i in range(3000):
        n = int(rng.integers(1, 300))
        if long_every and i % long_every == 0:
            n = 5000
        lines.append(b"x" * n)
    body = b"\n".join(lines) + (b"\n" if tail_newline else b"")
    path.write_bytes(body)


@pytest.mark.parametrize("unit_size", [16, 64, 100, 256, 4096])
@pytest.mark.parametrize("variant", ["plain", "long", "no_tail_newline"])
def test_same_lines_as_unit_by_unit(tmp_path: Path, unit_size: int, variant: str) -> None:
    """Every sampled unit's lines, and only those, for awkward unit sizes and lines."""
    path = tmp_path / "log"
    _write(
        path,
        unit_size,
        long_every=97 if variant == "long" else 0,
        tail_newline=variant != "no_tail_newline",
    )
    src = open_source(str(path))
    plan = plan_units([os.path.getsize(path)], unit_size)
    perm = KeyedPermutation(plan.total_units, 3)
    cap = 1024
    for lo, hi in [(0, 7), (7, 300), (300, plan.total_units)]:
        units = perm[lo:hi]
        if len(units) == 0:
            continue
        ours = gathered_batch([src], plan, units, cap=cap)
        ref = next(
            iter_seekable_batches(
                [src], plan, units, batch_units=len(units), cap=cap, first=len(units)
            )
        )
        assert _lines(ours) == _lines(ref)
        assert ours.bytes_read == ref.bytes_read
        assert ours.lines_truncated == ref.lines_truncated
        assert list(ours.units) == list(units)
    src.close()


def test_several_sources_keep_their_numbering(tmp_path: Path) -> None:
    """Units of two files are read from the right file and numbered globally."""
    a, b = tmp_path / "a", tmp_path / "b"
    _write(a, 1)
    _write(b, 2)
    srcs = [open_source(str(a)), open_source(str(b))]
    plan = plan_units([os.path.getsize(a), os.path.getsize(b)], 128)
    order = KeyedPermutation(plan.total_units, 9)
    ours = [
        x
        for batch in iter_gathered_batches(srcs, plan, order, batch_units=500, cap=4096)
        for x in _lines(batch)
    ]
    ref = [
        x
        for batch in iter_seekable_batches(
            srcs, plan, order[0 : plan.total_units], batch_units=500, cap=4096
        )
        for x in _lines(batch)
    ]
    assert sorted(ours) == sorted(ref)
    assert len(ours) == 6000
    for s in srcs:
        s.close()
