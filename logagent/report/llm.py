"""The Ollama adapter (EDGE): one chat call, its failures translated once, here.

``OllamaChat`` is the only code that talks to an LLM server. Every failure
of the server (refused connection, timeout, an HTTP error, a model that is
not pulled) becomes ``LLMUnavailable`` with the host and model as context;
the report step then falls back to the template.

``write_with_deadline`` is the whole LLM stage of a front door under one
deadline: the host is checked (a malformed one is a warning, not a crash),
a plain TCP connect tells a missing server at once, without importing the
``ollama`` package at all (it costs start-up, and fails at import on a bad
``OLLAMA_HOST``); the server must answer its model list within
``connect_timeout_s`` and the whole stage ends within ``timeout_s`` (a server
that trickles a byte every few seconds cannot hold it). A signal
(``KeyboardInterrupt`` from the front door's handler) ends it too. Each of
these gives the template report, with the reason.
"""

from __future__ import annotations

import os
import socket
import threading
import time
import urllib.parse
from collections.abc import Callable
from typing import Any, TypeVar

from logagent.config import LLMSettings
from logagent.errors import LLMUnavailable
from logagent.report.write import with_report, write_report
from logagent.result import Report, Result

DEFAULT_HOST = "http://127.0.0.1:11434"
DEFAULT_PORT = 11434
T = TypeVar("T")


def resolve_host(settings: LLMSettings, environ: dict[str, str] | None = None) -> str:
    """``[llm] host``, else the standard ``OLLAMA_HOST``, else Ollama's default address."""
    env = os.environ if environ is None else environ
    return settings.host or env.get("OLLAMA_HOST") or DEFAULT_HOST


def parse_host(host: str) -> tuple[str, str, int]:
    """``host`` as (URL, hostname, port), the way Ollama reads it; ``LLMUnavailable`` if bad."""
    text = host.strip()
    url = text if "://" in text else f"http://{text}"
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
    except ValueError:
        parts, port = None, None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise LLMUnavailable(f"the LLM host {host!r} is not a valid address (OLLAMA_HOST?)")
    port = port or (DEFAULT_PORT if "://" not in text else 443 if parts.scheme == "https" else 80)
    netloc = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{parts.scheme}://{netloc}:{port}{parts.path.rstrip('/')}", parts.hostname, port


def probe(hostname: str, port: int, timeout_s: float) -> None:
    """A TCP connect: a server that is not there is known at once (``LLMUnavailable``)."""
    try:
        with socket.create_connection((hostname, port), timeout=max(timeout_s, 0.01)):
            return
    except OSError as exc:
        what = (
            "no connection within the timeout"
            if isinstance(exc, TimeoutError)
            else "cannot connect"
        )
        raise LLMUnavailable(f"no LLM server answered at {hostname}:{port} ({what})") from exc


def write_with_deadline(
    result: Result, settings: LLMSettings, *, seconds_left: float | None = None
) -> Result:
    """The report stage under one deadline (see the module); the template when it fails."""
    if settings.mode == "off":
        return with_report(result, Report(source="template"))
    deadline = settings.timeout_s if seconds_left is None else min(settings.timeout_s, seconds_left)
    started = time.monotonic()
    try:
        if deadline <= 0:
            raise LLMUnavailable("no time left for the LLM within --max-seconds")
        url, hostname, port = parse_host(resolve_host(settings))
        probe(hostname, port, min(settings.connect_timeout_s, deadline))
        client = OllamaChat(settings, url, timeout_s=deadline)
        left = deadline - (time.monotonic() - started)  # the probe and the import count too
        return _bounded(result, client, connect_s=settings.connect_timeout_s, total_s=left)
    except LLMUnavailable as exc:
        return _fallback(result, exc.message)
    except KeyboardInterrupt:  # SIGINT/SIGTERM while the model writes: keep the answer
        return _fallback(result, "interrupted while the LLM was writing")


def _fallback(result: Result, detail: str) -> Result:
    return with_report(result, Report(fallback_reason="llm_unavailable", fallback_detail=detail))


class _Watched:
    """A client whose ``ready()`` reports back, so its own deadline can be kept."""

    def __init__(self, client: OllamaChat) -> None:
        self.client, self.model, self.answered = client, client.model, threading.Event()

    def ready(self) -> None:
        self.client.ready()
        self.answered.set()

    def chat(self, messages: list[dict[str, str]]) -> str:
        return self.client.chat(messages)


def _bounded(result: Result, client: OllamaChat, *, connect_s: float, total_s: float) -> Result:
    """``write_report`` in a worker thread; this thread waits (signals reach it) and gives up."""
    watched, out = _Watched(client), []
    worker = threading.Thread(
        target=lambda: out.append(_capture(lambda: write_report(result, watched))),
        name="logagent-llm",
        daemon=True,  # abandoned at the deadline: it must not hold the exit
    )
    start = time.monotonic()
    worker.start()
    while worker.is_alive():
        waited = time.monotonic() - start
        if waited >= total_s:
            raise LLMUnavailable(f"no complete reply from the LLM within {total_s:.1f} s")
        if waited >= connect_s and not watched.answered.is_set():
            raise LLMUnavailable(f"the LLM server did not answer within {connect_s:g} s")
        worker.join(0.05)
    value = out[0]
    if isinstance(value, BaseException):
        raise value
    return value


def _capture(call: Callable[[], Result]) -> Result | BaseException:
    try:
        return call()
    except BaseException as exc:  # handed to the waiting thread, which raises it there
        return exc


class OllamaChat:
    """A ``ChatClient`` (see ``report.write``) over the ``ollama`` package, imported here."""

    def __init__(
        self, settings: LLMSettings, host: str | None = None, *, timeout_s: float | None = None
    ) -> None:
        self.host = host or resolve_host(settings)
        self.model = settings.model
        self._temperature = settings.temperature
        self._ollama, self._httpx = _import_ollama()
        timeout = settings.timeout_s if timeout_s is None else timeout_s
        self._client = self._ollama.Client(host=self.host, timeout=timeout)

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
        return str(response.message.content or "")

    def _call(self, call: Callable[[], T]) -> T:
        ollama, httpx = self._ollama, self._httpx
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


def _import_ollama() -> tuple[Any, Any]:
    """``ollama`` and ``httpx``, imported now; a bad ``OLLAMA_HOST`` cannot break the import.

    (The package builds a default client from ``OLLAMA_HOST`` at import time and
    raises on a malformed one; our host was checked and is passed explicitly.)
    """
    saved = os.environ.pop("OLLAMA_HOST", None)
    try:
        import httpx
        import ollama
    finally:
        if saved is not None:
            os.environ["OLLAMA_HOST"] = saved
    return ollama, httpx
