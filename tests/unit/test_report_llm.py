"""Where the Ollama adapter finds its server, and the [llm] settings."""

from __future__ import annotations

import pytest

from logagent.config import LLMSettings, load_settings
from logagent.report.llm import DEFAULT_HOST, resolve_host


@pytest.mark.parametrize(
    ("configured", "environ", "host"),
    [
        ("http://gpu:11434", {"OLLAMA_HOST": "http://other:1"}, "http://gpu:11434"),
        ("", {"OLLAMA_HOST": "http://other:1"}, "http://other:1"),
        ("", {}, DEFAULT_HOST),
    ],
)
def test_host_precedence(configured: str, environ: dict[str, str], host: str) -> None:
    """[llm] host beats the standard OLLAMA_HOST, which beats Ollama's default address."""
    assert resolve_host(LLMSettings(host=configured), environ) == host


def test_llm_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """LOGAGENT_LLM__* set the model, timeout, temperature and mode; a flag beats them."""
    monkeypatch.setenv("LOGAGENT_LLM__MODEL", "llama3.2:1b")
    monkeypatch.setenv("LOGAGENT_LLM__TIMEOUT_S", "5")
    monkeypatch.setenv("LOGAGENT_LLM__TEMPERATURE", "0.2")
    monkeypatch.setenv("LOGAGENT_LLM__MODE", "on")
    llm = load_settings(llm={"mode": "off"}).llm
    assert (llm.model, llm.timeout_s, llm.temperature, llm.mode) == ("llama3.2:1b", 5, 0.2, "off")
