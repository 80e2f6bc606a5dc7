"""Exit codes of the CLI (EDGE): the one table from failures and statuses to codes.

Imports nothing heavy, so every command module can use it at import time.
"""

from __future__ import annotations

from logagent.errors import (
    ConfigError,
    FormatError,
    InputError,
    LLMUnavailable,
    LogagentError,
    OutputError,
    ReadStopped,
)

EXIT_OK, EXIT_INTERNAL, EXIT_USAGE, EXIT_RECUSED, EXIT_PARTIAL = 0, 1, 2, 3, 4
EXIT_INTERRUPTED = 130  # a second interrupt, or one before any data: stop at once, no result

#: The one table from failures to exit codes.
ERROR_EXIT: tuple[tuple[type[LogagentError], int], ...] = (
    (InputError, EXIT_USAGE),
    (ConfigError, EXIT_USAGE),
    (FormatError, EXIT_USAGE),
    (OutputError, EXIT_USAGE),
    (LLMUnavailable, EXIT_USAGE),  # only with --llm on; otherwise the template is used
)
#: A result's status (``result.Status`` values) -> exit code.
STATUS_EXIT = {
    "exact": EXIT_OK,
    "settled": EXIT_OK,
    "recused": EXIT_RECUSED,
    "partial": EXIT_PARTIAL,
}


def exit_code_for(exc: LogagentError) -> int:
    """Exit code of a failure."""
    if isinstance(exc, ReadStopped) and exc.interrupted:  # a signal before a whole line came
        return EXIT_INTERRUPTED
    return next((code for kind, code in ERROR_EXIT if isinstance(exc, kind)), EXIT_INTERNAL)
