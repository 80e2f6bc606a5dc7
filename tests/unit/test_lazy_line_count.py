"""A batch read in file order counts its lines only when asked (``Batch.lines``), and a scan
that finds every newline anyway gives the count: the newlines of a JSON app log's batch were
counted twice, once by a SIMD count and once by the level prefilter's newline search."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logagent.engine.fullread import scanned_ahead
from logagent.engine.run import ParsePool
from logagent.formats.access import COMBINED
from logagent.formats.adapter import THRESHOLDS, AppAsAccess
from logagent.formats.batchlines import line_ends
from logagent.formats.catalog import build_any_format
from logagent.formats.extract import scan
from logagent.formats.levelfilter import level_prefilter
from logagent.sources import Order, iter_seekable_batches, open_source, plan_units, unit_order
from logagent.sources import batches as batches_module
from logagent.sources.batches import Batch
from logagent.testing import combined_line


def _batches(path: Path, unit_size: int = 4096, batch_units: int = 4) -> Iterator[Batch]:
    source = open_source(str(path))
    plan = plan_units([source.size or 0], unit_size)
    order = unit_order(plan.total_units, Order.SEQUENTIAL, 0)
    yield from iter_seekable_batches([source], plan, order, batch_units=batch_units, cap=1 << 16)


def _counts(monkeypatch: Any) -> list[int]:
    """The sizes the batches' own newline count is asked for, from now on."""
    asked: list[int] = []
    real = batches_module.count_newlines

    def counting(data: Any, size: int, **kwargs: Any) -> int:
        asked.append(size)
        return real(data, size, **kwargs)

    monkeypatch.setattr(batches_module, "count_newlines", counting)
    return asked


PIECE = st.sampled_from([b"a", b"\n", b"\r\n", b"\xff", b"\xef\xbb\xbf", b"x" * 300, b" "])


@settings(max_examples=60, deadline=None)
@given(parts=st.lists(PIECE, max_size=120), unit=st.sampled_from([64, 256, 4096]))
def test_a_batch_counts_its_newlines_when_asked(
    tmp_path_factory: pytest.TempPathFactory, parts: list[bytes], unit: int
) -> None:
    path = tmp_path_factory.mktemp("lazy") / "a.log"
    data = b"".join(parts)
    path.write_bytes(data)
    total = 0
    for batch in _batches(path, unit_size=unit, batch_units=2):
        assert batch.newlines is None  # counted when asked, framed or gathered
        assert batch.lines == bytes(batch.data[: batch.size]).count(b"\n")
        total += batch.lines
    assert total == len(data.split(b"\n")) - (not data or data.endswith(b"\n"))  # every line


def test_a_scan_of_every_line_gives_the_count(tmp_path: Path, monkeypatch: Any) -> None:
    path = tmp_path / "a.log"
    path.write_text("".join(combined_line(f"/p/{i}", 200) + "\n" for i in range(2000)))
    asked = _counts(monkeypatch)
    seen = 0
    for batch in _batches(path):
        scanned = scan(batch, COMBINED, errors_only=False)
        assert batch.lines == scanned.lines == bytes(batch.data[: batch.size]).count(b"\n")
        seen += batch.lines
    assert seen == 2000 and asked == []


def _json_log(path: Path, lines: int) -> Path:
    levels = ["INFO", "INFO", "ERROR", "WARN", "FATAL", "DEBUG"]
    rows = [
        json.dumps({"ts": "2026-12-04T10:00:00Z", "level": levels[i % 6], "logger": "a", "m": i})
        for i in range(lines)
    ]
    path.write_text("\n".join(rows) + "\n")
    return path


def test_a_selective_read_ahead_counts_by_its_newline_search(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """The ERROR lines of a JSON app log: the level prefilter is a regex with no literal, so
    its scan finds every newline, and the read ahead asks the scan for the count."""
    path = _json_log(tmp_path / "app.jsonl", 3000)
    fmt = build_any_format("jsonapp", [])
    view = AppAsAccess(
        fmt,  # type: ignore[arg-type]
        level="error",
        error_prefilter=level_prefilter(fmt, THRESHOLDS["error"]),
    )
    pool = ParsePool(view, errors_only=True, rules=None)
    assert pool.selective
    asked = _counts(monkeypatch)
    lines = kept = 0
    for batch, scanned in scanned_ahead(_batches(path), pool):
        assert batch.lines == scanned.lines
        assert scanned is not None
        lines += scanned.lines
        kept += len(scanned.text)
    assert lines == 3000 and kept == 1000  # ERROR and FATAL
    assert asked == []


def test_a_read_ahead_of_every_line_counts_no_batch_apart_from_its_scan(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """``-q status`` reads every line: the read ahead's short-line test is the scan's own
    newline search, handed on to the scan (the batches had been counted first)."""
    path = tmp_path / "a.log"
    path.write_text("".join(combined_line(f"/p/{i}", 200) + "\n" for i in range(2000)))
    pool = ParsePool(COMBINED, errors_only=False, rules=None)
    assert not pool.selective
    asked = _counts(monkeypatch)
    lines = 0
    for batch, scanned in scanned_ahead(_batches(path), pool):
        assert scanned is not None  # ~200-byte lines: every batch is scanned ahead
        assert batch.lines == scanned.lines == bytes(batch.data[: batch.size]).count(b"\n")
        assert len(scanned.text) == scanned.lines
        lines += scanned.lines
    assert lines == 2000 and asked == []


def test_newline_positions_are_taken_for_a_scan_of_every_line_only(tmp_path: Path) -> None:
    path = tmp_path / "a.log"
    path.write_text("".join(combined_line(f"/p/{i}", 503) + "\n" for i in range(50)))
    batch = next(_batches(path))
    ends = line_ends(batch.data, batch.size)
    with pytest.raises(ValueError, match="every line"):  # 5xx candidates: a prefilter's scan
        scan(batch, COMBINED, errors_only=True, ends=ends)
    assert scan(batch, COMBINED, errors_only=False, ends=ends).lines == len(ends)
    half = ends[: len(ends) // 2]  # the positions given are the ones used, not searched again
    assert len(scan(batch, COMBINED, errors_only=False, ends=half).text) == len(half) > 0
