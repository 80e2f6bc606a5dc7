"""Truncated compressed inputs: as much as the stock CLIs recover, said to be partial and why."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import shutil
import subprocess
import sys
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import zstandard

from logagent.samples import generate

CUT = 0.7
BLOCK = 1 << 20  # slack: one decoder block (bzip2's is 900 kB; zstd's and gzip's far less)


def _zstd_ref(packed: bytes) -> bytes:
    """What a zstd decoder fed in small chunks yields before the cut."""
    obj, out = zstandard.ZstdDecompressor().decompressobj(), []
    for i in range(0, len(packed), 4096):
        out.append(obj.decompress(packed[i : i + 4096]))
    return b"".join(out)


def _gzip_ref(packed: bytes) -> bytes:
    obj = zlib.decompressobj(wbits=31)
    return obj.decompress(packed)


def _bz2_ref(packed: bytes) -> bytes:
    return bz2.BZ2Decompressor().decompress(packed)


def _xz_ref(packed: bytes) -> bytes:
    return lzma.LZMADecompressor().decompress(packed)


CODECS: dict[str, tuple[Callable[[bytes], bytes], Callable[[bytes], bytes], str]] = {
    "zst": (lambda d: zstandard.ZstdCompressor().compress(d), _zstd_ref, "zstd"),
    "gz": (gzip.compress, _gzip_ref, "gzip"),
    "bz2": (bz2.compress, _bz2_ref, "bzip2"),
    "xz": (lzma.compress, _xz_ref, "xz"),
}


@pytest.fixture(scope="module")
def log_bytes(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A ~5 MB generated access log."""
    path = tmp_path_factory.mktemp("trunc") / "big.log"
    generate(path, scenario="dominant", size_mb=5, seed=3)
    return path.read_bytes()


def _analyze(path: Path, *extra: str) -> tuple[int, Any, str]:
    proc = subprocess.run(
        [sys.executable, "-m", "logagent", "analyze", str(path), "--quiet", *extra],
        capture_output=True,
        timeout=180,
        check=False,
    )
    out = json.loads(proc.stdout) if "--json" in extra else proc.stdout.decode()
    return proc.returncode, out, proc.stderr.decode()


def _cut(tmp_path: Path, data: bytes, ext: str) -> tuple[Path, bytes]:
    compress, reference, _ = CODECS[ext]
    packed = compress(data)
    path = tmp_path / f"cut.log.{ext}"
    path.write_bytes(packed[: int(len(packed) * CUT)])
    return path, reference(path.read_bytes())


@pytest.mark.parametrize("ext", sorted(CODECS))
def test_truncated_input_yields_what_a_decoder_recovers(
    tmp_path: Path, log_bytes: bytes, ext: str
) -> None:
    """A file cut at 70 % is partial (exit 4) and counts every line decodable before the cut."""
    path, recovered = _cut(tmp_path, log_bytes, ext)
    code, r, err = _analyze(path, "--full", "--json")
    assert code == 4, err
    assert r["status"] == "partial"
    got = r["progress"]["bytes_read"]
    assert len(recovered) - BLOCK < got <= len(recovered) + BLOCK
    assert got >= 0.5 * len(log_bytes)  # far more than one 256 KiB buffer
    lines = recovered.count(b"\n")
    assert lines <= r["progress"]["lines_read"] <= lines + 1  # + the cut last line
    assert any("input truncated or damaged after" in w for w in r["warnings"])
    assert r["decisions"][-1]["reason"] == "input_damaged"


@pytest.mark.parametrize("ext", sorted(CODECS))
def test_truncated_input_matches_the_stock_cli(tmp_path: Path, log_bytes: bytes, ext: str) -> None:
    """As many decompressed bytes as `zstd -dc` / `gzip -dc` / `bzip2 -dc` give, at least."""
    tool = CODECS[ext][2]
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed")
    path, _ = _cut(tmp_path, log_bytes, ext)
    cli = subprocess.run([tool, "-dc", str(path)], capture_output=True, check=False).stdout
    code, r, _ = _analyze(path, "--full", "--json")
    assert code == 4
    assert r["progress"]["bytes_read"] >= len(cli)
    assert r["progress"]["bytes_read"] - len(cli) < BLOCK


def test_truncated_gzip_report_says_truncated_not_budget(tmp_path: Path, log_bytes: bytes) -> None:
    """The report of a cut .gz names the damage and the bytes read, not a budget or '0.0 %'."""
    path, recovered = _cut(tmp_path, log_bytes, "gz")
    code, text, _ = _analyze(path, "--full")
    assert code == 4
    assert "budget" not in text and "Read 0.0 %" not in text and "at 0.0 %" not in text
    assert f"input truncated or damaged after {len(recovered)} bytes" in text
    assert f"Read {len(recovered):,} bytes of decompressed data" in text
    assert "the answer is partial" in text


def test_zstd_damage_inside_a_frame_keeps_the_bytes_before_it(
    tmp_path: Path, log_bytes: bytes
) -> None:
    """A flipped byte at 80 % of a .zst ends the read there: the bytes before it are counted."""
    packed = bytearray(zstandard.ZstdCompressor(write_checksum=True).compress(log_bytes))
    packed[int(len(packed) * 0.8)] ^= 0xFF
    path = tmp_path / "bad.log.zst"
    path.write_bytes(bytes(packed))
    code, r, err = _analyze(path, "--full", "--json")
    assert code == 4, err
    assert r["status"] == "partial" and r["decisions"][-1]["reason"] == "input_damaged"
    assert r["progress"]["bytes_read"] > 0.7 * len(log_bytes)
    assert any("input truncated or damaged after" in w for w in r["warnings"])
