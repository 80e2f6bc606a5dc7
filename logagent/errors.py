"""Errors raised by logagent (PURE).

Every failure logagent raises derives from one root, so a front door can map
it to an exit code (cli.py) or an HTTP status (service) in one table::

    LogagentError                 root; carries ``context`` (path, offset, format, ...)
    ├── ConfigError               bad configuration file, value or flag combination
    ├── InputError                the input cannot be read as asked
    │   ├── InputNotFound         path or glob matches nothing
    │   ├── InputIsDirectory      a directory where a file was expected
    │   ├── InputPermissionError  no permission to read
    │   └── InputCorrupt          a compressed stream is truncated or damaged
    ├── FormatError               a format name or definition is unusable
    ├── OutputError               the result could not be written (full disk, ...)
    └── LLMUnavailable            no LLM answered (down, too slow, model missing):
                                  the report falls back to the template

A stop, a degrade or a recusal is *not* an error: those are ``Decision`` and
``Recuse`` values. Bugs are never caught and re-labelled.
"""

from __future__ import annotations

from typing import Any


class LogagentError(Exception):
    """Root of every logagent failure; ``context`` says where it happened."""

    def __init__(self, message: str, **context: Any) -> None:
        super().__init__(message)
        self.message = message
        self.context: dict[str, Any] = context

    def __str__(self) -> str:
        path = self.context.get("path")
        return f"{path}: {self.message}" if path else self.message


class ConfigError(LogagentError):
    """The configuration (file, environment or flags) is invalid."""


class InputError(LogagentError):
    """The input cannot be read as asked."""


class InputNotFound(InputError):
    """A path or glob matched no file."""


class InputIsDirectory(InputError):
    """A directory was given where a log file was expected."""


class InputPermissionError(InputError):
    """The process may not read the input."""


class InputCorrupt(InputError):
    """A compressed stream is truncated or damaged."""


class ReadStopped(InputError):
    """A read was cut short by a signal or a time budget; ``reason`` is Router-Mem's word for it.
    The engine stops with a partial answer; one before any whole line came (a FIFO without its
    writer, a quiet pipe) reaches the front door: no result (130 for a signal, 2 for a budget)."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason

    @property
    def interrupted(self) -> bool:
        """Stopped by a signal (``Reason.INTERRUPTED``), not by a budget."""
        return self.reason == "interrupted"


class FormatError(LogagentError):
    """A format name or custom format definition is unusable."""


class OutputError(LogagentError):
    """The result or report could not be written."""


class LLMUnavailable(LogagentError):
    """The LLM server did not answer, answered too slowly, or lacks the model."""
