"""Fault cases driven through the real CLI: helpers every fault test shares.

Each case asserts the exit code, that no traceback is printed, and that the
answer is honest (against the generator's truth where there is one).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ENV = {**os.environ, "LOGAGENT_LOG_LEVEL": "error", "LOGAGENT_LLM__MODE": "off"}
Proc = subprocess.CompletedProcess[bytes]


def cli(*args: str, env: dict[str, str] | None = None, timeout: float = 120, **kw: Any) -> Proc:
    """``logagent ARGS`` as a subprocess (stdin empty unless given)."""
    if "input" not in kw:
        kw.setdefault("stdin", subprocess.DEVNULL)
    return subprocess.run(  # type: ignore[call-overload, no-any-return]
        [sys.executable, "-m", "logagent", *args],
        capture_output=True,
        env={**ENV, **(env or {})},
        timeout=timeout,
        check=False,
        **kw,
    )


def clean(proc: Proc) -> str:
    """Standard error, asserted free of tracebacks (the one rule of every fault case)."""
    err = proc.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err and "panicked" not in err, err
    return err


def result(proc: Proc) -> dict[str, Any]:
    """The ``--json`` result printed on standard output."""
    parsed: dict[str, Any] = json.loads(proc.stdout)
    return parsed


def top(r: dict[str, Any]) -> list[tuple[str, int]]:
    """The answer's (key, count) pairs."""
    return [(e["key"], e["count"]) for e in r["answer"]["top"]]


def truth_top(truth: dict[str, Any], k: int = 5) -> list[tuple[str, int]]:
    """The generator's top-k (route, 5xx) pairs."""
    return [(route, n) for route, n in truth["top_errors"][:k]]


def generate(
    path: Path, scenario: str = "dominant", size_mb: float = 4, seed: int = 1
) -> dict[str, Any]:
    """A generated log at ``path`` and its truth sidecar."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "logagent.samples",
            "--scenario",
            scenario,
            "--size-mb",
            str(size_mb),
            "--seed",
            str(seed),
            "-o",
            str(path),
        ],
        check=True,
        capture_output=True,
    )
    truth: dict[str, Any] = json.loads(Path(f"{path}.truth.json").read_text())
    return truth


@pytest.fixture(scope="session")
def dominant(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A 4 MB ``dominant`` combined log with its truth."""
    path = tmp_path_factory.mktemp("faults") / "dominant.log"
    return path, generate(path)


@pytest.fixture(scope="session")
def big(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A 120 MB ``dominant`` log: long enough to be interrupted while it is read."""
    path = tmp_path_factory.mktemp("faults_big") / "big.log"
    return path, generate(path, size_mb=120, seed=2)


def snapshot(folder: Path) -> dict[str, tuple[int, int, int]]:
    """Every entry under ``folder``: (type bits, size, mtime) by name, without following links."""
    out = {}
    for entry in sorted(folder.rglob("*")):
        st = entry.lstat()
        out[str(entry.relative_to(folder))] = (st.st_mode & 0o170000, st.st_size, st.st_mtime_ns)
    return out


Check = Callable[[Proc], None]
