"""Structured logging at no start-up cost (EDGE: the one place that configures structlog).

``structlog`` costs ~0.15 s to import (its ``dev`` module pulls in a console
renderer and more), and most runs log nothing at the default level
(warning). ``get_logger`` returns a proxy that drops events below the level
without importing anything; the first event at or above it configures
structlog (JSON lines on stderr off a terminal, a console renderer on one)
and is logged through it.

The level comes from ``LOGAGENT_LOG_LEVEL`` (debug, info, warning, error).
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Any

_LEVELS = {"debug": 10, "info": 20, "warning": 30, "error": 40, "critical": 50}
_state: dict[str, Any] = {"level": None, "configured": False}


def set_level(name: str | None = None) -> None:
    """Set the threshold (default: ``LOGAGENT_LOG_LEVEL``, else warning); reconfigures lazily."""
    text = (name or os.environ.get("LOGAGENT_LOG_LEVEL", "warning")).lower()
    _state["level"] = _LEVELS.get(text, logging.WARNING)
    _state["configured"] = False


def _threshold() -> int:
    if _state["level"] is None:
        set_level()
    level: int = _state["level"]
    return level


def _configure() -> None:
    import structlog

    tty = sys.stderr is not None and sys.stderr.isatty()
    renderer: Any = structlog.dev.ConsoleRenderer() if tty else structlog.processors.JSONRenderer()
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso"),
            *([] if tty else [structlog.processors.format_exc_info]),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(_threshold()),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        cache_logger_on_first_use=False,
    )
    _state["configured"] = True


class Logger:
    """A structlog-like logger that imports structlog only for an event it will emit."""

    def __init__(self, name: str) -> None:
        self.name = name

    def _emit(self, level: int, method: str, event: str, kw: dict[str, Any]) -> None:
        if level < _threshold():
            return
        if not _state["configured"]:
            _configure()
        import structlog

        getattr(structlog.get_logger(self.name), method)(event, **kw)

    def debug(self, event: str, **kw: Any) -> None:
        """Log at debug level."""
        self._emit(10, "debug", event, kw)

    def info(self, event: str, **kw: Any) -> None:
        """Log at info level."""
        self._emit(20, "info", event, kw)

    def warning(self, event: str, **kw: Any) -> None:
        """Log at warning level."""
        self._emit(30, "warning", event, kw)

    def error(self, event: str, **kw: Any) -> None:
        """Log at error level."""
        self._emit(40, "error", event, kw)


def get_logger(name: str) -> Logger:
    """The logger called ``name``."""
    return Logger(name)
