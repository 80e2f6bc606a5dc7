"""``make demo``'s second part (benchmarks/demo.py) on small generated logs."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "benchmarks" / "demo.py"


def _demo() -> ModuleType:
    spec = importlib.util.spec_from_file_location("logagent_demo", DEMO)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _run(cache: Path) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, str(DEMO), "--size-mb", "4", "--cache", str(cache)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.slow
def test_demo_answers_both_logs_alike_early_and_full(tmp_path: Path) -> None:
    """Both cases print an early and a full answer that agree; the logs are made once."""
    first = _run(tmp_path)
    assert first.returncode == 0, first.stderr
    out = first.stdout
    assert out.count("generating ") == 2
    assert "nginx access log" in out and "JSON app log" in out
    assert out.count("same answer: yes") == 2
    assert out.count("early stop : ") == 2 and out.count("full read  : ") == 2
    assert "svc." in out  # the app log's components are named
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(".json")) == [
        "app_4mb.jsonl",
        "dominant_4mb.log",
    ]
    again = _run(tmp_path)
    assert again.returncode == 0, again.stderr
    assert "generating " not in again.stdout


def test_verdict_says_why_everything_was_read_or_what_was_saved() -> None:
    """The verdict quotes a DEGRADE, else the time saved, else that none was."""
    demo = _demo()
    degrade = {"decisions": [{"action": "DEGRADE", "detail": "cheaper to read it all"}]}
    assert demo.verdict(degrade, 1.0, 2.0).endswith("cheaper to read it all")
    early = {"decisions": [{"action": "STOP_SETTLED", "detail": "settled"}]}
    assert demo.verdict(early, 1.0, 3.0) == "time saved 2.0 s (3.0x faster)"
    assert demo.verdict(early, 2.0, 1.5).startswith("no time saved: the early stop read less")


def test_answer_shows_estimates_only_for_a_sampled_answer() -> None:
    """A settled answer shows each key's estimated total; an exact one only its count."""
    demo = _demo()
    entry = {"key": "svc.a", "count": 12, "estimate": 240.0}
    settled = {"status": "settled", "answer": {"top": [entry]}}
    exact = {"status": "exact", "answer": {"top": [dict(entry, estimate=12.0)]}}
    assert demo.answer(settled, "errors") == "svc.a (12 errors seen, ~240 in all)"
    assert demo.answer(exact, "errors") == "svc.a (12 errors seen)"
    assert demo.answer({"status": "recused", "answer": {"top": []}}, "x") == "recused"
