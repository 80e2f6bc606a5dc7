"""Where the result goes: nothing but the intended file changes, and the result is never lost."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.faults.conftest import ENV, clean, cli, result, snapshot

SAMPLE = "sample_logs/nginx_access.log"


def test_out_to_a_character_device_writes_it_in_place(tmp_path: Path) -> None:
    """--out to a device node (a /dev/null twin made here): written in place, still a device."""
    if os.geteuid() != 0:
        pytest.skip("mknod of a character device needs root")
    dev = tmp_path / "null"
    os.mknod(dev, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    proc = cli("analyze", SAMPLE, "--json", "--out", str(dev), "--html", str(dev))
    clean(proc)
    assert proc.returncode == 0
    assert stat.S_ISCHR(dev.lstat().st_mode) and os.listdir(tmp_path) == ["null"]


def test_out_to_dev_full_prints_the_result_and_exits_2(tmp_path: Path) -> None:
    """A full device: the device stays, the result goes to stdout, one clear line, exit 2."""
    proc = cli("analyze", SAMPLE, "--json", "--out", "/dev/full")
    err = clean(proc)
    assert proc.returncode == 2 and "printed instead" in err
    assert result(proc)["status"] == "exact"
    assert stat.S_ISCHR(os.lstat("/dev/full").st_mode)


def test_out_through_a_symlink_writes_its_target(tmp_path: Path) -> None:
    """A symlink is followed: its target gets the result, the link stays a link."""
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "r.json"
    target.write_text("old")
    target.chmod(0o640)
    link = tmp_path / "link.json"
    link.symlink_to(target)
    proc = cli("analyze", SAMPLE, "--json", "--out", str(link))
    clean(proc)
    assert proc.returncode == 0 and link.is_symlink()
    assert '"schema_version": 1' in target.read_text()
    assert stat.S_IMODE(target.stat().st_mode) == 0o640  # the file keeps its mode
    assert sorted(os.listdir(tmp_path / "real")) == ["r.json"]  # no temp file left


def test_out_to_a_fifo_with_a_reader_streams_the_result(tmp_path: Path) -> None:
    """A FIFO with a reader receives the result; the FIFO stays a FIFO."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    proc = cli("analyze", SAMPLE, "--json", "--out", str(fifo))
    reader.join(timeout=60)
    clean(proc)
    assert proc.returncode == 0 and b'"schema_version": 1' in got[0]
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


def test_out_to_a_fifo_without_a_reader_does_not_hang(tmp_path: Path) -> None:
    """A FIFO no one reads: a clear error (the result printed instead), exit 2, no hang."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    proc = cli("analyze", SAMPLE, "--json", "--out", str(fifo), timeout=60)
    err = clean(proc)
    assert proc.returncode == 2 and "FIFO" in err and result(proc)["status"] == "exact"


@pytest.mark.parametrize("kind", ["directory", "socket", "missing-folder"])
def test_unusable_output_paths_are_refused_before_reading(tmp_path: Path, kind: str) -> None:
    """A directory, a socket or a missing folder as --out: exit 2 at once, nothing changed."""
    target = tmp_path / "out"
    keep: Any = None
    if kind == "directory":
        target.mkdir()
    elif kind == "socket":
        keep = socket.socket(socket.AF_UNIX)
        keep.bind(str(target))
    else:
        target = tmp_path / "no" / "r.json"
    before = snapshot(tmp_path)
    proc = cli("analyze", SAMPLE, "--out", str(target))
    err = clean(proc)
    assert proc.returncode == 2 and proc.stdout == b""
    assert {"directory": "is a directory", "socket": "is a socket"}.get(
        kind, "does not exist"
    ) in err
    assert snapshot(tmp_path) == before
    if keep is not None:
        keep.close()


def test_a_checkpoint_on_a_full_disk_is_a_warning_and_the_answer_stands(tmp_path: Path) -> None:
    """Checkpoints to a full file system (a 64 KiB tmpfs mounted here): the run still answers,
    exactly, and says the checkpoint could not be written."""
    mnt = tmp_path / "small"
    mnt.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mnt)],
        capture_output=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        (mnt / "filler").write_bytes(b"x" * 60_000)
        proc = cli("analyze", SAMPLE, "--json", "--full", "--checkpoint", str(mnt / "c.ckpt"))
        clean(proc)
        r = result(proc)
        assert proc.returncode == 0 and r["status"] == "exact"
    finally:
        subprocess.run(["umount", str(mnt)], check=False)


def test_a_reader_that_goes_away_is_not_an_error() -> None:
    """``logagent analyze … | head -c 10``: exit 0, no traceback, no noise."""
    head = subprocess.Popen(["head", "-c", "10"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    proc = subprocess.run(
        [sys.executable, "-m", "logagent", "analyze", SAMPLE, "--json"],
        stdout=head.stdin,
        stderr=subprocess.PIPE,
        env=ENV,
        timeout=120,
        check=False,
    )
    assert head.stdin is not None
    head.stdin.close()
    head.wait(timeout=30)
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr


def test_a_closed_stdout_is_one_line_and_exit_2() -> None:
    """Started with stdout closed (``>&-``): one line on stderr, exit 2."""
    proc = subprocess.run(
        [sys.executable, "-m", "logagent", "analyze", SAMPLE],
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: os.close(1),
        env=ENV,
        timeout=120,
        check=False,
    )
    err = proc.stderr.decode()
    assert proc.returncode == 2 and "standard output" in err and "Traceback" not in err


@pytest.mark.parametrize("kind", ["device", "symlink"])
def test_a_checkpoint_path_is_never_replaced_by_a_node(tmp_path: Path, kind: str) -> None:
    """--checkpoint /dev/null: refused (exit 2), the device untouched; through a symlink: the
    target is written and the link stays."""
    if kind == "device":
        proc = cli("analyze", SAMPLE, "--checkpoint", "/dev/null")
        err = clean(proc)
        assert proc.returncode == 2 and "regular file" in err
        assert stat.S_ISCHR(os.lstat("/dev/null").st_mode)
        return
    target = tmp_path / "real.ckpt"
    link = tmp_path / "link.ckpt"
    link.symlink_to(target)
    proc = cli("analyze", SAMPLE, "--checkpoint", str(link), "--max-fraction", "0.01", "--json",
               "--unit-size", "4KiB")  # fmt: skip
    clean(proc)
    assert proc.returncode == 4 and link.is_symlink() and target.is_file()
