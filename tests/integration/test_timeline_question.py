"""``-q timeline``: the matching events per bucket alone, via the real CLI, against the truth."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(scope="module")
def late(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int]]:
    """A 20 MB ``late_incident`` log and its true 5xx total per hour."""
    path = tmp_path_factory.mktemp("timeline_q") / "late.log"
    subprocess.run(
        [sys.executable, "-m", "logagent.samples", "--scenario", "late_incident",
         "--size-mb", "20", "--seed", "3", "-o", str(path)],
        check=True, capture_output=True,
    )  # fmt: skip
    truth = json.loads(Path(f"{path}.truth.json").read_text())["timeline_5xx_1h"]
    return path, {start: sum(v.values()) for start, v in truth.items()}


def _cli(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "logagent", "analyze", *args, "--llm", "off"],
        capture_output=True,
        check=False,
    )


def _json(proc: subprocess.CompletedProcess[bytes]) -> Any:
    assert b"Traceback" not in proc.stderr, proc.stderr.decode()
    return json.loads(proc.stdout)


def test_full_timeline_equals_the_truth_per_bucket(late: tuple[Path, dict[str, int]]) -> None:
    """`-q timeline --full --json --bucket 1h`: exit 0, exact, no ranking, every hour's total
    equal to the generator's truth, and the answer's total their sum."""
    path, hours = late
    proc = _cli(str(path), "-q", "timeline", "--full", "--bucket", "1h", "--json")
    assert proc.returncode == 0, proc.stderr.decode()
    r = _json(proc)
    assert r["schema_version"] == 1 and r["question"]["kind"] == "timeline"
    assert r["status"] == "exact" and r["answer"]["top"] == []
    timeline = r["answer"]["timeline"]
    assert timeline["basis"] == "exact" and timeline["bucket_s"] == 3600
    assert timeline["interval"] is None
    assert {b["start"]: b["total"] for b in timeline["buckets"]} == hours
    assert all(b["counts"] == {} for b in timeline["buckets"])
    assert r["answer"]["total"] == sum(hours.values())


def test_sampled_timeline_intervals_cover_the_truth(late: tuple[Path, dict[str, int]]) -> None:
    """`-q timeline --max-fraction 0.2` in 5 seeded orders: a random sample (exit 4, partial),
    its bucket counts at most the truth, and every hour's interval covering the true total."""
    path, hours = late
    for seed in range(5):
        proc = _cli(str(path), "-q", "timeline", "--bucket", "1h", "--max-fraction", "0.2",
                    "--unit-size", "1KiB", "--seed", str(seed), "--json")  # fmt: skip
        assert proc.returncode == 4, proc.stderr.decode()
        r = _json(proc)
        assert r["input"]["reading"] == "random_units" and r["progress"]["fraction_read"] < 1
        timeline = r["answer"]["timeline"]
        assert timeline["basis"] == "seen" and "anytime-valid" in timeline["interval"]
        assert {b["start"] for b in timeline["buckets"]} == set(hours)
        for b in timeline["buckets"]:
            truth = hours[b["start"]]
            assert b["total"] <= truth
            assert b["low"] <= truth <= b["high"], (seed, b, truth)


def test_markdown_report_shows_the_total_s_sparkline(late: tuple[Path, dict[str, int]]) -> None:
    """The Markdown report of `-q timeline`: the title, a headline with the bucket count, and
    the sparkline of all events per bucket."""
    path, hours = late
    proc = _cli(str(path), "-q", "timeline", "--full", "--bucket", "1h")
    assert proc.returncode == 0, proc.stderr.decode()
    text = proc.stdout.decode()
    assert text.startswith("# logagent: 5xx errors over time")
    assert f"{sum(hours.values()):,} 5xx lines in {len(hours)} buckets of 1 h" in text
    assert "- all: `" in text


def test_timeline_question_needs_buckets_and_an_access_log() -> None:
    """`-q timeline --bucket off` is a usage error (exit 2), as is asking it of an app log."""
    off = _cli("sample_logs/nginx_access.log", "-q", "timeline", "--bucket", "off")
    assert off.returncode == 2 and b"--bucket" in off.stderr and b"Traceback" not in off.stderr
    app = _cli("sample_logs/app_python.log", "-q", "timeline")
    assert app.returncode == 2 and b"access log" in app.stderr, app.stderr.decode()
