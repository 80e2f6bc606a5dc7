"""The Ollama adapter (EDGE): one chat call, its failures translated once, here.

``OllamaChat`` is the only code that talks to an LLM server. Every failure
of the server (refused connection, timeout, an HTTP error, a model that is
not pulled) becomes ``LLMUnavailable`` with the host and model as context;
the report step then falls back to the template.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TypeVar

import httpx
import ollama

from logagent.config import LLMSettings
from logagent.errors import LLMUnavailable

DEFAULT_HOST = "http://127.0.0.1:11434"
T = TypeVar("T")


def resolve_host(settings: LLMSettings, environ: dict[str, str] | None = None) -> str:
    """``[llm] host``, else the standard ``OLLAMA_HOST``, else Ollama's default address."""
    env = os.environ if environ is None else environ
    return settings.host or env.get("OLLAMA_HOST") or DEFAULT_HOST


class OllamaChat:
    """A ``ChatClient`` (see ``report.write``) over the ``ollama`` package."""

    def __init__(self, settings: LLMSettings, host: str | None = None) -> None:
        self.host = host or resolve_host(settings)
        self.model = settings.model
        self._temperature = settings.temperature
        self._client = ollama.Client(host=self.host, timeout=settings.timeout_s)

    def ready(self) -> None:
        """Ask the server for its models (``/api/tags``); the configured one must be there."""
        listed = self._call(self._client.list)
        names = {m.model for m in listed.models if m.model}
        if not names & {self.model, f"{self.model}:latest"}:
            raise self._no_model()

    def chat(self, messages: list[dict[str, str]]) -> str:
        """One non-streaming ``/api/chat`` call."""
        response = self._call(
            lambda: self._client.chat(
                model=self.model,
                messages=messages,
                options={"temperature": self._temperature},
            )
        )
        return response.message.content or ""

    def _call(self, call: Callable[[], T]) -> T:
        try:
            return call()
        except ollama.ResponseError as exc:
            if exc.status_code == 404:
                raise self._no_model() from exc
            raise self._unavailable(f"HTTP {exc.status_code}: {exc.error}") from exc
        except ConnectionError as exc:  # the ollama client turns httpx.ConnectError into this
            raise self._unavailable("cannot connect") from exc
        except httpx.TimeoutException as exc:
            raise self._unavailable("no reply within the timeout") from exc
        except httpx.HTTPError as exc:
            raise self._unavailable(f"{type(exc).__name__}: {exc}") from exc
        except ValueError as exc:  # a reply that is not Ollama's JSON (wrong server on the port)
            raise self._unavailable(f"malformed reply: {exc}") from exc

    def _unavailable(self, what: str) -> LLMUnavailable:
        return LLMUnavailable(
            f"no LLM server answered at {self.host} ({what})", host=self.host, model=self.model
        )

    def _no_model(self) -> LLMUnavailable:
        return LLMUnavailable(
            f"the LLM server at {self.host} has no model {self.model!r} "
            f"(run: ollama pull {self.model})",
            host=self.host,
            model=self.model,
        )
