"""uvicorn with the service's drain on SIGTERM (EDGE: signals, threads, uvicorn).

uvicorn's own shutdown stops listening first and only then runs the app's
shutdown, so a client during the grace period would find the port closed.
Here the first SIGTERM (or SIGINT, or SIGHUP unless ignored: a terminal or
ssh session closed) starts the drain while the server still answers: new
analyses get ``503`` + ``Retry-After`` and ``/healthz`` says
``draining`` (503), running jobs get ``--grace`` seconds to finish, those
still running then checkpoint and stop (resumed at the next start), and
only then does uvicorn shut down. A second signal checkpoints at once.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType
from typing import TYPE_CHECKING

import uvicorn

from logagent.log import get_logger

if TYPE_CHECKING:
    from logagent.service.state import Service

log = get_logger("logagent.service")
#: after the drain, the seconds open connections (event streams, ?wait) get to close
SHUTDOWN_AFTER_DRAIN_S = 5


class DrainingServer(uvicorn.Server):
    """A uvicorn server whose first exit signal drains the service before shutting down."""

    def __init__(self, config: uvicorn.Config, service: Service) -> None:
        super().__init__(config)
        self._service = service
        self._drain: threading.Thread | None = None

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        """uvicorn's (SIGINT, SIGTERM), and SIGHUP like SIGTERM: a terminal or ssh session
        closed drains the service rather than killing it mid-job. Under ``nohup`` (SIGHUP
        ignored) it stays ignored."""
        with super().capture_signals():
            hup = None
            main = threading.current_thread() is threading.main_thread()
            if main and signal.getsignal(signal.SIGHUP) is not signal.SIG_IGN:
                hup = signal.signal(signal.SIGHUP, self.handle_exit)
            try:
                yield
            finally:
                if hup is not None:
                    signal.signal(signal.SIGHUP, hup)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        """First signal: drain in a thread (the loop keeps serving); again: stop now (a
        hang-up's repeated SIGHUP is not "again")."""
        if sig == signal.SIGHUP and (self._drain is not None or self.should_exit):
            return
        if self._drain is None and not self.should_exit:
            log.info("draining", signal=sig, grace_s=self._service.cfg.grace_s)
            self._drain = threading.Thread(target=self._drain_then_exit, name="drain", daemon=True)
            self._drain.start()
            return
        self._service.runner.checkpoint_all()  # no more grace: every running job stops now
        super().handle_exit(sig, frame)

    def _drain_then_exit(self) -> None:
        try:
            self._service.stop()
        finally:
            self.should_exit = True


def serve(app: object, service: Service, *, host: str, port: int) -> None:
    """Run ``app`` until a signal has drained it."""
    config = uvicorn.Config(
        app,  # type: ignore[arg-type]  # an ASGI app (FastAPI)
        host=host,
        port=port,
        log_level="warning",
        timeout_graceful_shutdown=SHUTDOWN_AFTER_DRAIN_S,
    )
    DrainingServer(config, service).run()
