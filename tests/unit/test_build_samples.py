"""Committed access-log samples: the sample builder still writes them byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from logagent.samples.build_samples import SAMPLES, write_sample

COMMITTED = Path(__file__).resolve().parents[2] / "sample_logs"


def _first_difference(built: bytes, committed: bytes) -> str:
    """Where two files part: the first differing line (1-based), or which one is longer."""
    for number, (a, b) in enumerate(zip(built.split(b"\n"), committed.split(b"\n"), strict=False)):
        if a != b:
            return f"line {number + 1}: built {a[:120]!r} vs committed {b[:120]!r}"
    return f"lengths differ: built {len(built)} bytes, committed {len(committed)} bytes"


@pytest.mark.parametrize("name", list(SAMPLES))
def test_builder_rewrites_the_committed_sample(tmp_path: Path, name: str) -> None:
    """Rebuilding a sample gives the committed log and .expected.json, byte-identical."""
    write_sample(tmp_path, name)
    for file in (name, f"{name}.expected.json"):
        built, committed = (tmp_path / file).read_bytes(), (COMMITTED / file).read_bytes()
        # a bool, not `built == committed`: pytest would diff megabytes on a failure
        same = built == committed
        assert same, (
            f"{file} drifted from sample_logs/ ({_first_difference(built, committed)}); rerun "
            "`python -m logagent.samples.build_samples` and commit it if the change is meant"
        )
