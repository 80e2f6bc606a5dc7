"""Reference reader of the PHP Monolog sample (Laravel): str methods and Monolog's documented
level names, nothing of logagent's. Self-contained, like ``real_json_reference``, so that
``real_reference`` can merge ``PHP_READERS`` and ``PHP_SAMPLES`` into its tables."""

from __future__ import annotations

import re
from collections.abc import Callable

Reading = tuple[str | None, str] | None

#: Monolog's levels (RFC 5424's names) in the vocabulary of ``logagent.formats.levels``.
MONOLOG_LEVELS = {
    "DEBUG": "DEBUG", "INFO": "INFO", "NOTICE": "INFO", "WARNING": "WARN", "ERROR": "ERROR",
    "CRITICAL": "FATAL", "ALERT": "FATAL", "EMERGENCY": "FATAL",
}  # fmt: skip
_STAMP = re.compile(r"\[\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d[^\]]*\] ")


def monolog(line: str) -> Reading:
    """``[stamp] channel.LEVEL: message context extra``: component = the channel; any other
    line (Laravel's ``[stacktrace]``, ``#0 /path(12): ...``, ``"}``) continues a record."""
    stamp = _STAMP.match(line)
    if stamp is None:
        return None
    head = line[stamp.end() :].split(": ", 1)[0].split(" ", 1)[0]
    channel, _, word = head.rpartition(".")
    return MONOLOG_LEVELS.get(word.rstrip(":")), channel


PHP_READERS: dict[str, Callable[[str], Reading]] = {"monolog": monolog}
PHP_SAMPLES = {"laravel.log": "monolog"}
