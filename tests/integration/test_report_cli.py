"""The report options of the CLI: --html and --llm off."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = str(ROOT / "sample_logs" / "nginx_access.log")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "logagent", "analyze", SAMPLE, *args],
        capture_output=True,
        text=True,
        env={**os.environ, "LOGAGENT_LOG_LEVEL": "warning"},
        timeout=120,
        check=False,
    )


def test_html_report_is_written(tmp_path: Path) -> None:
    """--html FILE writes one HTML page with the answer and charts; stdout keeps the Markdown."""
    page = tmp_path / "report.html"
    proc = run("--llm", "off", "--html", str(page))
    assert proc.returncode == 0, proc.stderr
    html = page.read_text()
    assert html.startswith("<!DOCTYPE html>") and "<svg" in html
    assert "<code>/api/v1/orders/{id}/payment</code>" in html
    assert proc.stdout.startswith("# logagent")


def test_llm_off_asks_no_server_and_says_nothing(tmp_path: Path) -> None:
    """--llm off: the template report, no fallback reason, nothing on stderr."""
    proc = run("--llm", "off", "--json")
    assert proc.returncode == 0 and proc.stderr == ""
    report = json.loads(proc.stdout)["report"]
    assert (report["source"], report["fallback_reason"]) == ("template", None)


def test_unwritable_html_path_is_an_output_error(tmp_path: Path) -> None:
    """An HTML path in a missing directory is refused before reading; one that fails when
    written (a full device): the Markdown is printed, then exit 2."""
    proc = run("--llm", "off", "--html", str(tmp_path / "no" / "such" / "r.html"))
    assert proc.returncode == 2 and "--html: the folder" in proc.stderr and proc.stdout == ""
    proc = run("--llm", "off", "--html", "/dev/full")
    assert proc.returncode == 2 and "HTML report" in proc.stderr
    assert proc.stdout.startswith("# logagent")
