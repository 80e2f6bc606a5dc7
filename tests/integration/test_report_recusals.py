"""Recusals as a user meets them: a short helpful report and exit 3."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from logagent.testing import combined_line


def run(path: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "logagent", "analyze", str(path), "--llm", "off", *flags],
        capture_output=True,
        text=True,
        env={**os.environ, "LOGAGENT_LOG_LEVEL": "warning"},
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(
    ("content", "code", "tried"),
    [
        (b"", "EMPTY_INPUT", "opened 1 input(s), 0 bytes in all; no line could be read"),
        (b"\n \n", "EMPTY_INPUT", "no line could be read"),
        (b"garbage\nmore garbage\n", "UNRECOGNIZED_FORMAT", "sampled 2 lines from 1 input(s)"),
        (
            (combined_line("/a", 200) + "\n").encode(),
            "NO_MATCHING_EVENTS",
            "read 100.0% of the input (1 lines)",
        ),
    ],
)
def test_recusal_report(
    write_log: Callable[..., Path], content: bytes, code: str, tried: str
) -> None:
    """Why, what was tried and what to do, then exit 3."""
    proc = run(write_log(content))
    assert proc.returncode == 3, proc.stderr
    assert "**Cannot answer**" in proc.stdout and f"({code})" in proc.stdout
    assert "- What was tried: " in proc.stdout and tried in proc.stdout
    assert "- What to do: " in proc.stdout


def test_truncated_gzip_is_unreadable(tmp_path: Path) -> None:
    """A .gz cut before its first line recuses as INPUT_UNREADABLE with a way to check it."""
    path = tmp_path / "cut.log.gz"
    path.write_bytes(gzip.compress((combined_line("/a", 500) + "\n").encode() * 50)[:30])
    proc = run(path)
    assert proc.returncode == 3 and "(INPUT_UNREADABLE)" in proc.stdout
    assert "gzip -t" in proc.stdout


def test_no_format_reading_a_line_is_no_guess(write_log: Callable[..., Path]) -> None:
    """When no format reads a sampled line, the result names none (the first one tried is no
    guess); a format the user named stays named."""
    path = write_log(b"garbage\nmore garbage\n")
    auto = run(path, "--json")
    out = json.loads(auto.stdout)
    assert auto.returncode == 3 and out["input"]["format"] is None
    assert "none of 2 sampled lines parses" in out["recuse"]["detail"]
    assert "best guess" not in out["recuse"]["detail"]
    named = json.loads(run(path, "--json", "--format", "combined").stdout)
    assert named["input"]["format"] == "combined"
