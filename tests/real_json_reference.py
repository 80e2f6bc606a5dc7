"""Reference readers of the Nextcloud, MongoDB and Rust tracing samples: the json module and
each system's documented level words, nothing of logagent's. Split from ``real_reference``
(which merges ``JSON_READERS`` and ``JSON_SAMPLES`` into its tables) to keep it under ~400
lines; self-contained, so that module can import this one before it builds its tables."""

from __future__ import annotations

import json
from collections.abc import Callable

Reading = tuple[str | None, str] | None

#: Nextcloud's levels are its ILogger constants, not syslog's numbers (its 1 is INFO).
NEXTCLOUD_LEVELS = {0: "DEBUG", 1: "INFO", 2: "WARN", 3: "ERROR", 4: "FATAL"}
#: MongoDB's severities (4.4+): F, E, W, I, and D1..D5 for the debug verbosities.
MONGODB_LEVELS = {"F": "FATAL", "E": "ERROR", "W": "WARN", "I": "INFO", "D1": "DEBUG",
                  "D2": "DEBUG", "D3": "DEBUG", "D4": "DEBUG", "D5": "DEBUG"}  # fmt: skip
#: tracing's Level as its JSON formatter writes it (upper-case words).
TRACING_LEVELS = {w: w for w in ("TRACE", "DEBUG", "INFO", "WARN", "ERROR")}


def nextcloud(line: str) -> Reading:
    """Nextcloud's nextcloud.log: level a number 0-4, component the top-level ``app``."""
    obj = json.loads(line)
    return NEXTCLOUD_LEVELS.get(obj["level"]), obj["app"]


def mongodb_json(line: str) -> Reading:
    """MongoDB's structured log: level ``s``, component ``c``."""
    obj = json.loads(line)
    return MONGODB_LEVELS.get(obj["s"]), obj["c"]


def tracing_json(line: str) -> Reading:
    """Rust tracing-subscriber's JSON: level word ``level``, component ``target``."""
    obj = json.loads(line)
    return TRACING_LEVELS.get(obj["level"]), obj["target"]


JSON_READERS: dict[str, Callable[[str], Reading]] = {
    "nextcloud": nextcloud,
    "mongodb_json": mongodb_json,
    "tracing_json": tracing_json,
}
#: Sample file -> its layout.
JSON_SAMPLES = {
    "nextcloud.jsonl": "nextcloud",
    "mongodb_lnav.jsonl": "mongodb_json",
    "mongodb_beats.jsonl": "mongodb_json",
    "rust_tracing.jsonl": "tracing_json",
}
