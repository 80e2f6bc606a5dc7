"""Regressions found by review: each once returned a wrong status, a crash or a wrong count."""

from __future__ import annotations

import bz2
import gzip
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import zstandard

from logagent.samples import generate
from logagent.testing import combined_line
from tests.conftest import random_log_lines


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "logagent", "analyze", *args],
        input=stdin,
        capture_output=True,
        timeout=120,
        check=False,
    )


def as_json(proc: subprocess.CompletedProcess[bytes]) -> Any:
    return json.loads(proc.stdout)


def test_forced_format_on_mostly_junk_is_never_a_false_exact(tmp_path: Path) -> None:
    """--format on a file that is 99.5 % other text reads it as asked: exact means everything."""
    junk = [
        f"Nov 28 13:55:{i % 60:02d} host sshd[{i}]: Accepted key for user" for i in range(60000)
    ]
    good = [combined_line(f"/r/{i % 7}", 503) for i in range(300)]
    lines = junk[:30000] + good + junk[30000:]
    path = tmp_path / "mostly_junk.log"
    path.write_text("".join(x + "\n" for x in lines))
    proc = run(str(path), "--format", "combined", "--json", "--top", "10")
    r = as_json(proc)
    assert r["status"] in ("exact", "settled", "recused")
    if r["status"] == "exact":
        assert r["progress"]["fraction_read"] == 1.0 and r["answer"]["total"] == 300


def test_truncated_zstd_is_partial_not_exact(tmp_path: Path) -> None:
    """A .zst cut in a frame reports the damage and a partial answer (exit 4)."""
    data = "".join(x + "\n" for x in random_log_lines(20, 20000)).encode()
    packed = zstandard.ZstdCompressor().compress(data)
    path = tmp_path / "cut.log.zst"
    path.write_bytes(packed[: len(packed) // 2])
    proc = run(str(path), "--json")
    assert proc.returncode == 4, proc.stderr
    r = as_json(proc)
    assert r["status"] == "partial" and any("truncated" in w for w in r["warnings"])


@pytest.mark.parametrize("kind", ["gz", "bz2"])
def test_compressed_file_damaged_before_any_line_is_unreadable_not_empty(
    tmp_path: Path, kind: str
) -> None:
    """A compressed file cut before its first line says it is damaged (INPUT_UNREADABLE)."""
    data = "".join(x + "\n" for x in random_log_lines(21, 20000)).encode()
    packed = gzip.compress(data) if kind == "gz" else bz2.compress(data)
    path = tmp_path / f"cut.log.{kind}"
    path.write_bytes(packed[: 9000 if kind == "bz2" else 5])
    proc = run(str(path), "--json")
    assert proc.returncode == 3
    assert as_json(proc)["recuse"]["reason_code"] == "INPUT_UNREADABLE"


def test_stream_race_that_cannot_settle_reads_on_instead_of_crashing(tmp_path: Path) -> None:
    """--assume-exchangeable on a stream never restarts the stream: it reads on to an answer."""
    path = tmp_path / "x.log"
    truth = generate(path, scenario="close", size_mb=3, seed=2)
    gz = tmp_path / "x.log.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    proc = run(str(gz), "--json", "--top", "2", "--assume-exchangeable")
    assert proc.returncode in (0, 4), proc.stderr
    r = as_json(proc)
    assert [e["key"] for e in r["answer"]["top"]][:1] == [truth["top_errors"][0][0]]


def test_json_lines_with_a_byte_order_mark_keep_their_first_record(tmp_path: Path) -> None:
    """A BOM before the first JSON object does not make that record malformed."""
    rows = [json.dumps({"status": 500, "path": f"/bom/{i}"}) for i in range(50)]
    path = tmp_path / "j.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + "".join(x + "\n" for x in rows).encode())
    r = as_json(run(str(path), "--json", "--full", "-q", "status"))
    assert r["answer"]["total"] == 50 and r["progress"]["malformed_lines"] == 0


def test_deeply_nested_junk_line_is_not_a_crash(tmp_path: Path) -> None:
    """A line of 1,500 '[' is a malformed line, not a RecursionError."""
    lines = [*random_log_lines(22, 200), "[" * 1500]
    path = tmp_path / "deep.log"
    path.write_text("".join(x + "\n" for x in lines))
    proc = run(str(path), "--json")
    assert proc.returncode == 0, proc.stderr


def test_unknown_format_and_bad_route_regex_are_usage_errors(tmp_path: Path) -> None:
    """--format xml and a route rule that is not a regex exit 2 with one line, no traceback."""
    path = tmp_path / "a.log"
    path.write_text("".join(x + "\n" for x in random_log_lines(23, 50)))
    proc = run(str(path), "--format", "xml")
    assert proc.returncode == 2 and b"Traceback" not in proc.stderr
    cfg = tmp_path / "c.toml"
    cfg.write_text('[[routes.rules]]\nname = "bad"\npattern = "("\nreplacement = "{x}"\n')
    proc = run(str(path), "--config", str(cfg))
    assert proc.returncode == 2 and b"regex" in proc.stderr and b"Traceback" not in proc.stderr


def test_compressed_stdin_and_duplicate_paths(tmp_path: Path) -> None:
    """gzip on stdin is detected; a file named twice (or by two globs) is read once."""
    lines = random_log_lines(24, 2000)
    raw = "".join(x + "\n" for x in lines).encode()
    plain = tmp_path / "a.log"
    plain.write_bytes(raw)
    once = as_json(run(str(plain), "--json"))
    piped = as_json(run("-", "--json", stdin=gzip.compress(raw)))
    twice = as_json(run(str(plain), str(tmp_path / "*.log"), "--json"))
    assert piped["answer"] == once["answer"] == twice["answer"]
    assert piped["input"]["compression"] == ["gzip"] and twice["input"]["paths"] == [str(plain)]
