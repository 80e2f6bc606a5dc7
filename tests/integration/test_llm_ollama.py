"""The LLM report through the real ``ollama`` client against a scripted server process."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from logagent.config import LLMSettings
from logagent.report.llm import OllamaChat
from logagent.report.write import write_report
from logagent.result import Result
from logagent.testing import settled_result

FAKE = Path(__file__).resolve().parents[1] / "fake_ollama.py"
ROOT = Path(__file__).resolve().parents[2]
MODEL = "qwen2.5:0.5b"
GOOD = (
    "With 99 % confidence `/api/v1/pay/{id}` has the most 5xx: 61 % (58-64 %) of all 5xx, "
    "mostly 503 (71 %). Read 2.1 % of 10.4 GB in 0.84 s."
)
WRONG = GOOD.replace("61 %", "97.3 %")


@dataclass
class FakeOllama:
    """A running fake server: its URL and the requests it received."""

    url: str
    log: Path

    def requests(self) -> list[dict[str, Any]]:
        """Every request so far, in order."""
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def chats(self) -> list[dict[str, Any]]:
        """The bodies of the /api/chat requests."""
        return [r["body"] for r in self.requests() if r["path"] == "/api/chat"]


@pytest.fixture
def fake_ollama(tmp_path: Path) -> Iterator[Callable[..., FakeOllama]]:
    """Start tests/fake_ollama.py on a free 127.0.0.1 port with scripted replies; stop it after."""
    procs: list[subprocess.Popen[str]] = []

    def start(chat: list[dict[str, Any]], models: list[str] | None = None) -> FakeOllama:
        log = tmp_path / f"requests{len(procs)}.jsonl"
        script = tmp_path / f"script{len(procs)}.json"
        script.write_text(json.dumps({"models": models or [MODEL], "chat": chat, "log": str(log)}))
        proc = subprocess.Popen(
            [sys.executable, str(FAKE), str(script)], stdout=subprocess.PIPE, text=True
        )
        procs.append(proc)
        assert proc.stdout is not None
        first = proc.stdout.readline().split()
        assert first and first[0] == "PORT", "the fake server did not start"
        return FakeOllama(url=f"http://127.0.0.1:{first[1]}", log=log)

    yield start
    for proc in procs:
        proc.terminate()
        proc.wait(timeout=10)
        if proc.stdout:
            proc.stdout.close()


def closed_port_url() -> str:
    """The URL of a 127.0.0.1 port nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def report_via(url: str, result: Result | None = None, timeout_s: float = 30) -> Result:
    settings = LLMSettings(host=url, model=MODEL, timeout_s=timeout_s)
    return write_report(result or settled_result(), OllamaChat(settings))


def test_good_answer_is_accepted(fake_ollama: Callable[..., FakeOllama]) -> None:
    """A grounded reply becomes the report, with the model named and one chat call."""
    server = fake_ollama([{"content": GOOD}])
    r = report_via(server.url)
    assert (r.report.source, r.report.model, r.report.fallback_reason) == ("llm", MODEL, None)
    assert GOOD in r.report.markdown and "every number" in r.report.markdown
    assert len(server.chats()) == 1
    assert server.chats()[0]["options"]["temperature"] == 0.0


def test_prompt_holds_the_result_masked(fake_ollama: Callable[..., FakeOllama]) -> None:
    """The prompt carries the result's numbers and keys; IP and e-mail addresses are masked."""
    server = fake_ollama([{"content": GOOD}])
    warning = "3 lines from 203.0.113.7 (admin@example.com) were cut"
    report_via(server.url, settled_result(warnings=[warning]))
    sent = json.dumps(server.chats()[0]["messages"])
    assert "/api/v1/pay/{id}" in sent and "1834" in sent
    assert "203.0.113.7" not in sent and "admin@example.com" not in sent
    assert "<ip>" in sent and "<email>" in sent


def test_wrong_number_is_retried_then_accepted(fake_ollama: Callable[..., FakeOllama]) -> None:
    """A reply with a number not in the result is retried once, quoting it; a good retry wins."""
    server = fake_ollama([{"content": WRONG}, {"content": GOOD}])
    r = report_via(server.url)
    assert r.report.source == "llm" and GOOD in r.report.markdown
    chats = server.chats()
    assert len(chats) == 2
    assert "97.3" in chats[1]["messages"][-1]["content"]
    assert chats[1]["messages"][-2] == {"role": "assistant", "content": WRONG}


def test_wrong_twice_falls_back_to_the_template(fake_ollama: Callable[..., FakeOllama]) -> None:
    """Two replies with a wrong number: the template report, llm_rejected, and the reason."""
    server = fake_ollama([{"content": WRONG}])
    r = report_via(server.url)
    assert (r.report.source, r.report.fallback_reason) == ("template", "llm_rejected")
    assert "97.3" in (r.report.fallback_detail or "")
    assert "## Top routes" in r.report.markdown and WRONG not in r.report.markdown
    assert len(server.chats()) == 2


def test_unknown_route_is_rejected(fake_ollama: Callable[..., FakeOllama]) -> None:
    """A reply naming a route that is not in the result never reaches the user."""
    bad = "`/api/v9/admin` has the most 5xx."
    server = fake_ollama([{"content": bad}])
    r = report_via(server.url)
    assert r.report.fallback_reason == "llm_rejected"
    assert "/api/v9/admin" in (r.report.fallback_detail or "")


def test_server_down_gives_the_template() -> None:
    """Nothing listening: the template report with llm_unavailable."""
    r = report_via(closed_port_url())
    assert (r.report.source, r.report.fallback_reason) == ("template", "llm_unavailable")
    assert "no LLM server answered" in r.report.markdown


def test_reply_slower_than_the_timeout(fake_ollama: Callable[..., FakeOllama]) -> None:
    """A chat reply that outlasts the client timeout gives the template, llm_unavailable."""
    server = fake_ollama([{"content": GOOD, "sleep_s": 5}])
    r = report_via(server.url, timeout_s=0.5)
    assert r.report.fallback_reason == "llm_unavailable"
    assert "timeout" in (r.report.fallback_detail or "")


def test_model_not_pulled(fake_ollama: Callable[..., FakeOllama]) -> None:
    """The server lists other models only: llm_unavailable, with the pull command to run."""
    server = fake_ollama([{"content": GOOD}], models=["llama3.2:1b"])
    r = report_via(server.url)
    assert r.report.fallback_reason == "llm_unavailable"
    assert f"ollama pull {MODEL}" in (r.report.fallback_detail or "")
    assert server.chats() == []


def test_chat_says_model_not_found(fake_ollama: Callable[..., FakeOllama]) -> None:
    """/api/chat answering 404 "model not found", as Ollama does: llm_unavailable."""
    server = fake_ollama([{"status": 404, "error": f"model '{MODEL}' not found"}])
    r = report_via(server.url)
    assert r.report.fallback_reason == "llm_unavailable"
    assert "has no model" in (r.report.fallback_detail or "")


def cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    sample = str(ROOT / "sample_logs" / "nginx_access.log")
    return subprocess.run(
        [sys.executable, "-m", "logagent", "analyze", sample, *args],
        capture_output=True,
        text=True,
        env={**os.environ, "LOGAGENT_LOG_LEVEL": "warning", **env},
        timeout=120,
        check=False,
    )


def test_cli_uses_ollama_host(fake_ollama: Callable[..., FakeOllama]) -> None:
    """--llm auto finds the server through OLLAMA_HOST; the checked prose is printed."""
    prose = "The route `/api/v1/orders/{id}/payment` has the most 5xx errors, mostly 502."
    server = fake_ollama([{"content": prose}])
    proc = cli("--llm", "auto", env={"OLLAMA_HOST": server.url})
    assert proc.returncode == 0, proc.stderr
    assert prose in proc.stdout and f"Written by the LLM {MODEL}" in proc.stdout


def test_cli_without_a_server_says_so() -> None:
    """No server (as in make demo): exit 0, the template report, and a note on stderr."""
    proc = cli("--llm", "auto", "--json", env={"LOGAGENT_LLM__HOST": closed_port_url()})
    assert proc.returncode == 0, proc.stderr
    assert "no LLM server answered" in proc.stderr and "template" in proc.stderr
    report = json.loads(proc.stdout)["report"]
    assert (report["source"], report["fallback_reason"]) == ("template", "llm_unavailable")


def test_cli_llm_on_requires_a_server() -> None:
    """--llm on without a server: the template report is still printed, then exit 2."""
    proc = cli("--llm", "on", env={"LOGAGENT_LLM__HOST": closed_port_url()})
    assert proc.returncode == 2
    assert "## Top routes" in proc.stdout and "--llm on" in proc.stderr


def test_ctrl_c_while_the_model_writes_keeps_the_answer(
    fake_ollama: Callable[..., FakeOllama],
) -> None:
    """SIGINT during a slow chat: the template report is printed, the run's exit code stays."""
    server = fake_ollama([{"content": "late", "sleep_s": 60}])
    sample = str(ROOT / "sample_logs" / "nginx_access.log")
    proc = subprocess.Popen(
        [sys.executable, "-m", "logagent", "analyze", sample, "--llm", "auto"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "LOGAGENT_LLM__HOST": server.url, "LOGAGENT_LLM__TIMEOUT_S": "120"},
    )
    deadline = time.monotonic() + 60  # a guard against hanging, not a speed check
    while not server.chats():  # wait until the model is "writing"
        assert proc.poll() is None and time.monotonic() < deadline, "no chat request arrived"
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert "## Top routes" in out and "interrupted while the LLM was writing" in err
    assert proc.returncode == 0
