"""Shared fixtures: small log files written from known lines."""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from logagent.testing import combined_line

ROUTES = [
    "/api/v1/users/{}",
    "/api/v1/pay/{}",
    "/health",
    "/static/app.js",
    "/api/v2/orders/{}/items",
]


def random_log_lines(seed: int, n: int) -> list[str]:
    """Combined lines over a few routes with a known mix of statuses."""
    rng = random.Random(seed)
    lines = []
    for _ in range(n):
        path = rng.choice(ROUTES).format(rng.randint(1, 10**6))
        if rng.random() < 0.3:
            path += f"?page={rng.randint(1, 9)}"
        status = rng.choices([200, 304, 404, 500, 502, 503], [80, 5, 5, 3, 2, 5])[0]
        lines.append(combined_line(path, status))
    return lines


@pytest.fixture
def write_log(tmp_path: Path) -> Callable[..., Path]:
    """Write lines (or raw bytes) to a file under tmp_path and return its path."""

    def write(content: list[str] | bytes, name: str = "access.log", newline: str = "\n") -> Path:
        path = tmp_path / name
        data = (
            content
            if isinstance(content, bytes)
            else "".join(x + newline for x in content).encode()
        )
        path.write_bytes(data)
        return path

    return write


# The suite never talks to an Ollama that may run on the developer's machine:
# tests that want an LLM start tests/fake_ollama.py and name it explicitly.
os.environ.setdefault("LOGAGENT_LLM__MODE", "off")
