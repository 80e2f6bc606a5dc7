"""Reference readers of the PHP Monolog (Laravel) and ``docker compose logs`` samples: str
methods and each system's documented level names, nothing of logagent's. Self-contained, like
``real_json_reference``, so that ``real_reference`` can merge ``MORE_READERS`` and
``MORE_SAMPLES`` into its tables."""

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


#: A container's level words (upper or lower case): what cri and compose read in a message.
WORDS = {
    "TRACE": "TRACE", "DEBUG": "DEBUG", "INFO": "INFO", "NOTICE": "INFO", "WARN": "WARN",
    "WARNING": "WARN", "ERROR": "ERROR", "FATAL": "FATAL", "CRITICAL": "FATAL", "PANIC": "FATAL",
}  # fmt: skip
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def inner_level(message: str) -> str | None:
    """klog's letter and MMDD, else a level word among the first four words: after ``[``,
    ``level=``/``lvl=``, a JSON ``{"level":"`` (or severity, lvl) and a quote, colour codes
    dropped; a word in one case only (``Error`` is none)."""
    if len(message) > 5 and message[0] in "IWEF" and message[1:5].isdigit() and message[5] == " ":
        return {"I": "INFO", "W": "WARN", "E": "ERROR", "F": "FATAL"}[message[0]]
    for word in message.split(" ")[:4]:
        for prefix in ("[", "level=", "lvl=", "{"):
            word = word.removeprefix(prefix)
        for key in ("level", "severity", "lvl"):
            word = word.removeprefix(f'"{key}":')
        word = _ANSI.sub("", word.removeprefix('"'))
        head = ""
        for c in word:
            if not (c.isascii() and (c.isalnum() or c == "_")):
                break
            head += c
        if head in WORDS or (head.islower() and head.upper() in WORDS):
            return WORDS[head.upper()]
    return None


def compose(line: str) -> Reading:
    """``service  | [RFC 3339 stamp ]message``: component = the service (colour codes off)."""
    plain = _ANSI.sub("", line)
    service, sep, message = plain.partition(" | ")
    if not sep or not service.strip() or " " in service.strip():
        return None
    first = message.split(" ", 1)
    if len(first) == 2 and first[0][:4].isdigit() and "T" in first[0] and first[0][-1] == "Z":
        message = first[1]
    return inner_level(message), service.strip()


MORE_READERS: dict[str, Callable[[str], Reading]] = {"monolog": monolog, "compose": compose}
MORE_SAMPLES = {"laravel.log": "monolog", "docker_compose.log": "compose"}
