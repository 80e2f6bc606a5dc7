"""Levels in a layout's own words, through the CLI: Nextcloud's 3 and 4 and MongoDB's E reach
the answers (the ERROR+ prefilter keeps them), counted apart with ``json.loads``.

The real samples hold no error record (Nextcloud's five are INFO, MongoDB's worst is a W), so
each case re-levels lines of its real sample here; ``mongodb_lnav.jsonl`` with its W made an E
is the sweep's ``mongodb_with_E.jsonl``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_logs"
#: Nextcloud's ILogger numbers and MongoDB's severities, as each documents them.
NEXTCLOUD = {0: "DEBUG", 1: "INFO", 2: "WARN", 3: "ERROR", 4: "FATAL"}
MONGODB = {"F": "FATAL", "E": "ERROR", "W": "WARN", "I": "INFO", "D2": "DEBUG"}


def cli(path: Path, *args: str) -> tuple[int, dict[str, Any]]:
    proc = subprocess.run(
        [sys.executable, "-m", "logagent", "analyze", str(path), "--json", "--llm", "off", *args],
        capture_output=True,
        timeout=180,
        check=False,
        cwd=ROOT,
    )
    return proc.returncode, json.loads(proc.stdout)


def top(out: dict[str, Any]) -> dict[str, int]:
    return {e["key"]: e["count"] for e in (out["answer"] or {}).get("top", [])}


def relevel(name: str, old: str, new: list[str]) -> list[str]:
    """The sample's lines, the i-th one's ``old`` (where it holds it) written as ``new[i]``."""
    lines = (SAMPLES / name).read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(new)
    return [line.replace(old, n, 1) for line, n in zip(lines, new, strict=True)]


def truth(lines: list[str], level_key: str, component_key: str, names: dict[Any, str]) -> Any:
    """Records per level, and ERROR+ records per component, by ``json.loads`` alone."""
    objs = [json.loads(line) for line in lines]
    levels = Counter(names[o[level_key]] for o in objs)
    errors = Counter(o[component_key] for o in objs if names[o[level_key]] in ("ERROR", "FATAL"))
    return dict(levels), dict(errors)


@pytest.fixture
def nextcloud_log(tmp_path: Path) -> list[str]:
    """The real Nextcloud sample with levels 4, 3, 1, 4, 2 (two FATAL, one ERROR, one WARN)."""
    new = ['"level":4,', '"level":3,', '"level":1,', '"level":4,', '"level":2,']
    lines = relevel("nextcloud.jsonl", '"level":1,', new)
    (tmp_path / "nextcloud.log").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return lines


def test_nextcloud_fatal_and_error_records_are_ranked(
    nextcloud_log: list[str], tmp_path: Path
) -> None:
    """top-error-components counts the 4s and the 3 (the 4s pass the prefilter: syslog would
    call them WARN), --full and early stop alike, and no INFO 1 is an error."""
    levels, errors = truth(nextcloud_log, "level", "app", NEXTCLOUD)
    assert errors == {"files_antivirus": 2, "memories": 1}  # the case is what it says
    for extra in (("--full",), ()):
        code, out = cli(tmp_path / "nextcloud.log", "-q", "top-error-components", *extra)
        assert code == 0 and out["input"]["format"] == "nextcloud"
        assert top(out) == errors
    code, out = cli(tmp_path / "nextcloud.log", "-q", "status", "--full")
    assert code == 0 and top(out) == levels == {"FATAL": 2, "ERROR": 1, "INFO": 1, "WARN": 1}


def test_nextcloud_warn_question_counts_its_2_too(nextcloud_log: list[str], tmp_path: Path) -> None:
    """--level warn adds the 2 record (Nextcloud's WARN) to the 4s and the 3."""
    objs = [json.loads(line) for line in nextcloud_log]
    want = Counter(o["app"] for o in objs if o["level"] >= 2)
    code, out = cli(
        tmp_path / "nextcloud.log", "-q", "top-error-components", "--full", "--level", "warn"
    )
    assert code == 0 and top(out) == dict(want)


def test_mongodb_error_record_ranks_storage(tmp_path: Path) -> None:
    """The sweep's case: the W of the real sample made an E is 1 ERROR in STORAGE (it was "no
    ERROR record", exit 3); a D2 record is DEBUG."""
    lines = relevel("mongodb_lnav.jsonl", '"s":"W"', ['"s":"I"', '"s":"I"', '"s":"E"'])
    lines.append(lines[0].replace('"s":"I"', '"s":"D2"'))
    path = tmp_path / "mongodb.log"
    path.write_text("\n".join(lines), encoding="utf-8")  # no final newline, as the sample
    levels, errors = truth(lines, "s", "c", MONGODB)
    assert errors == {"STORAGE": 1}
    for extra in (("--full",), ()):
        code, out = cli(path, "-q", "top-error-components", *extra)
        assert code == 0 and out["input"]["format"] == "mongodb_json"
        assert top(out) == errors
    code, out = cli(path, "-q", "status", "--full")
    assert code == 0 and top(out) == levels == {"INFO": 2, "ERROR": 1, "DEBUG": 1}
