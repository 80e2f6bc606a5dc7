"""The report stage against misbehaving LLM servers: one deadline, signals end it, the answer stays.

Each server is a real socket on 127.0.0.1 started by the test: down (nothing
listens), silent (accepts, never answers), a slow drip of one byte at a time,
and invalid JSON. Every run must end with the template report and exit 0.
"""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from tests.faults.conftest import ENV, clean, cli, result

SAMPLE = "sample_logs/nginx_access.log"
TAGS = json.dumps({"models": [{"name": "m", "model": "m", "modified_at": "2026-11-01T00:00:00Z",
                                "size": 1, "digest": "0"}]}).encode()  # fmt: skip
Behave = Callable[[socket.socket, bytes, threading.Event], None]


def _reply(conn: socket.socket, body: bytes, status: str = "200 OK") -> None:
    head = f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
    conn.sendall(head.encode() + b"Connection: close\r\n\r\n" + body)


def silent(conn: socket.socket, request: bytes, stop: threading.Event) -> None:
    """Accept and read, never answer."""
    stop.wait(60)


def drip(conn: socket.socket, request: bytes, stop: threading.Event) -> None:
    """List the model at once; answer a chat one byte every 2 s."""
    if request.startswith(b"GET /api/tags"):
        return _reply(conn, TAGS)
    body = json.dumps({"model": "m", "message": {"role": "assistant", "content": "x" * 50},
                       "done": True}).encode()  # fmt: skip
    conn.sendall(f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\n\r\n".encode())
    for byte in body:
        if stop.wait(2):
            return
        conn.sendall(bytes([byte]))


def garbage(conn: socket.socket, request: bytes, stop: threading.Event) -> None:
    """Answer everything with a body that is not JSON."""
    _reply(conn, b"<html>not ollama</html>")


@pytest.fixture
def server() -> Iterator[Callable[[Behave], tuple[str, list[bytes]]]]:
    """Start a socket server with a behaviour; yields its URL and the requests it saw."""
    stop = threading.Event()
    socks: list[socket.socket] = []

    def start(behave: Behave) -> tuple[str, list[bytes]]:
        sock = socket.create_server(("127.0.0.1", 0))
        socks.append(sock)
        seen: list[bytes] = []

        def serve() -> None:
            while not stop.is_set():
                try:
                    conn, _ = sock.accept()
                except OSError:
                    return
                request = conn.recv(65536)
                seen.append(request)
                threading.Thread(target=_handle, args=(behave, conn, request), daemon=True).start()

        def _handle(behave: Behave, conn: socket.socket, request: bytes) -> None:
            try:
                behave(conn, request, stop)
            except OSError:
                pass
            finally:
                conn.close()

        threading.Thread(target=serve, daemon=True).start()
        return f"http://127.0.0.1:{sock.getsockname()[1]}", seen

    yield start
    stop.set()
    for sock in socks:
        sock.close()


def _free_port() -> int:
    with socket.create_server(("127.0.0.1", 0)) as s:
        return int(s.getsockname()[1])


def _env(host: str, **more: str) -> dict[str, str]:
    return {"LOGAGENT_LLM__MODE": "auto", "LOGAGENT_LLM__HOST": host,
            "LOGAGENT_LLM__MODEL": "m", **more}  # fmt: skip


def _template_fallback(proc: subprocess.CompletedProcess[bytes]) -> str:
    err = clean(proc)
    assert proc.returncode == 0, err
    report = result(proc)["report"]
    assert report["source"] == "template" and report["fallback_reason"] == "llm_unavailable"
    return str(report["fallback_detail"])


def test_server_down_is_known_at_once() -> None:
    """Nothing listens: the template report, 'cannot connect'."""
    proc = cli("analyze", SAMPLE, "--json", env=_env(f"http://127.0.0.1:{_free_port()}"))
    assert "cannot connect" in _template_fallback(proc)


def test_a_silent_server_costs_the_connect_timeout_not_the_whole_timeout(
    server: Callable[[Behave], tuple[str, list[bytes]]],
) -> None:
    """Accepts, never answers: given up after connect_timeout_s (the subprocess timeout here
    only catches a hang; the run must not wait for timeout_s = 60)."""
    url, seen = server(silent)
    proc = cli("analyze", SAMPLE, "--json", env=_env(url, LOGAGENT_LLM__CONNECT_TIMEOUT_S="1"),
               timeout=30)  # fmt: skip
    assert "did not answer within 1 s" in _template_fallback(proc) and seen


def test_a_slow_drip_is_cut_by_the_whole_stage_deadline(
    server: Callable[[Behave], tuple[str, list[bytes]]],
) -> None:
    """A chat reply trickling a byte every 2 s: the stage ends at timeout_s, template used."""
    url, _ = server(drip)
    proc = cli("analyze", SAMPLE, "--json", env=_env(url, LOGAGENT_LLM__TIMEOUT_S="3"), timeout=40)
    detail = _template_fallback(proc)
    assert re.search(r"no complete reply from the LLM within \d+(\.\d)? s", detail), detail


def test_invalid_json_gives_the_template(
    server: Callable[[Behave], tuple[str, list[bytes]]],
) -> None:
    """A server that answers HTML: the template report, the reply called malformed."""
    url, _ = server(garbage)
    detail = _template_fallback(cli("analyze", SAMPLE, "--json", env=_env(url)))
    assert "no LLM server answered" in detail


def test_max_seconds_bounds_the_report_stage(
    server: Callable[[Behave], tuple[str, list[bytes]]],
) -> None:
    """--max-seconds counts the report stage too: a dripping server is cut when it runs out."""
    url, _ = server(drip)
    proc = cli("analyze", SAMPLE, "--json", "--max-seconds", "4", env=_env(url), timeout=40)
    _template_fallback(proc)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_while_the_llm_writes_keeps_the_answer(
    server: Callable[[Behave], tuple[str, list[bytes]]], sig: signal.Signals
) -> None:
    """SIGTERM or SIGINT during a slow chat: the template report at once, exit 0."""
    url, seen = server(drip)
    proc = subprocess.Popen(
        [sys.executable, "-m", "logagent", "analyze", SAMPLE, "--json"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**ENV, **_env(url)},
    )
    deadline = time.monotonic() + 60
    while not any(r.startswith(b"POST /api/chat") for r in seen) and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=30)
    assert b"Traceback" not in err and proc.returncode == 0, err
    report = json.loads(out)["report"]
    assert report["fallback_detail"] == "interrupted while the LLM was writing"
