"""A forward proxy's log through the CLI: its 5xx are ranked by site and path (``squid``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.unit.test_access_layouts import SQUID_LINES

ROOT = Path(__file__).resolve().parents[2]


def top(path: Path, *extra: str) -> dict[str, int]:
    proc = subprocess.run(
        [sys.executable, "-m", "logagent", "analyze", str(path), "--json", "--llm", "off", *extra],
        capture_output=True,
        timeout=120,
        check=True,
        cwd=ROOT,
    )
    out = json.loads(proc.stdout)
    assert out["input"]["format"] == "squid" and out["status"] == "exact"
    return {e["key"]: e["count"] for e in out["answer"]["top"]}


def test_squid_5xx_are_ranked_by_site(tmp_path: Path) -> None:
    other = (
        "1580740556.100     40 192.168.5.3 TCP_MISS/504 0 GET http://api.example.org/v1/items/42"
        "?x=1 - HIER_DIRECT/10.0.0.9 -"
    )
    log = tmp_path / "access.log"
    log.write_text("\n".join([*SQUID_LINES * 3, other, other]) + "\n")
    assert top(log) == {
        "/wiki.ipfire.org/": 3,  # 503
        "/garfield.com/comic/2015-03-14": 3,  # 502, through syslog
        "/api.example.org/v1/items/{id}": 2,
    }
    raw = top(log, "--no-normalize")
    assert raw["/api.example.org/v1/items/42"] == 2
