"""A scripted stand-in for an Ollama server, run as its own process by the tests.

Usage: ``python tests/fake_ollama.py SCRIPT.json``. It listens on 127.0.0.1 on
a free port, prints ``PORT <n>`` on stdout once it accepts connections, and
answers:

* ``GET /api/tags`` with the script's ``models``;
* ``POST /api/chat`` with the script's ``chat`` replies in order (the last
  one repeats). A reply is ``{"content": "..."}``, optionally with
  ``"sleep_s"`` (wait before answering, to outlast a client timeout), or
  ``{"status": 404, "error": "model 'x' not found"}`` as Ollama does.

Every request body is appended as one JSON line to the script's ``log`` file.
"""

from __future__ import annotations

import contextlib
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar


class Handler(BaseHTTPRequestHandler):
    """Answers /api/tags and /api/chat from the script."""

    script: ClassVar[dict[str, Any]] = {}
    chats: ClassVar[int] = 0
    lock: ClassVar[threading.Lock] = threading.Lock()

    def do_GET(self) -> None:
        """The model list."""
        if self.path != "/api/tags":
            return self._send(404, {"error": "not found"})
        models = [
            {"name": m, "model": m, "modified_at": "2026-11-01T00:00:00Z", "size": 1, "digest": "0"}
            for m in self.script.get("models", [])
        ]
        self._log({"path": self.path})
        self._send(200, {"models": models})

    def do_POST(self) -> None:
        """One scripted chat reply."""
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        self._log({"path": self.path, "body": body})
        if self.path != "/api/chat":
            return self._send(404, {"error": "not found"})
        with self.lock:
            replies = self.script["chat"]
            reply = replies[min(Handler.chats, len(replies) - 1)]
            Handler.chats += 1
        time.sleep(reply.get("sleep_s", 0))
        if "status" in reply:
            return self._send(reply["status"], {"error": reply["error"]})
        self._send(
            200,
            {
                "model": body.get("model"),
                "created_at": "2026-11-29T12:00:00Z",
                "message": {"role": "assistant", "content": reply["content"]},
                "done": True,
                "done_reason": "stop",
            },
        )

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the request log goes to the script's log file."""

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        # The client may have given up already (the timeout test).
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(data)

    def _log(self, entry: dict[str, Any]) -> None:
        if "log" in self.script:
            with self.lock, open(self.script["log"], "a", encoding="utf-8") as f:
                f.write(json.dumps(entry) + "\n")


def main() -> None:
    """Serve the script given on the command line until killed."""
    with open(sys.argv[1], encoding="utf-8") as f:
        Handler.script = json.load(f)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
