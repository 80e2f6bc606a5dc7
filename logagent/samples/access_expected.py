"""PURE module: the expected answers of an access-log sample, by an independent parse.

:func:`expected_for` reads a sample's lines with a simple regex (``combined``,
``common``) or ``json.loads`` (``jsonl``) per line, independently of the
format layer, and counts lines, malformed lines, statuses and 5xx per route.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

# A request that is not "METHOD TARGET HTTP/x" (TLS junk, "-") is still a record
# with a status: it counts under the route "(invalid request)", not as malformed.
_REQUEST = r'"(?:([A-Z]+) (\S+) HTTP/\d(?:\.\d)?|[^"]*)"'
INVALID_REQUEST = "(invalid request)"
LINE_RES = {
    "combined": re.compile(
        r"^\S+ \S+ \S+ \[[^\]]+\] "
        + _REQUEST
        + r' (\d{3}) (?:\d+|-) "[^"]*" "[^"]*"(?: \d+(?:\.\d+)?)?$'
    ),
    "common": re.compile(r"^\S+ \S+ \S+ \[[^\]]+\] " + _REQUEST + r" (\d{3}) (?:\d+|-)$"),
}
JSON_KEYS = {
    "time",
    "remote_addr",
    "method",
    "path",
    "status",
    "bytes",
    "request_time",
    "user_agent",
}
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_HEXSEG = re.compile(r"^[0-9a-fA-F]{16,}$")


def normalize(path: str) -> str:
    """Route of a raw path: drop the query, then {id}/{uuid}/{hex} segments."""
    segments = path.split("?", 1)[0].split("/")
    out = []
    for seg in segments:
        if seg.isdigit() and seg.isascii():
            out.append("{id}")
        elif _UUID.match(seg):
            out.append("{uuid}")
        elif _HEXSEG.match(seg):
            out.append("{hex}")
        else:
            out.append(seg)
    return "/".join(out)


def parse_line(line: str, fmt: str) -> tuple[str | None, int] | None:
    """(raw path or None for an invalid request, status) of a valid record of ``fmt``, else None."""
    if fmt != "jsonl":
        m = LINE_RES[fmt].match(line)
        return (m.group(2), int(m.group(3))) if m else None
    try:
        obj = json.loads(line)
    except ValueError:
        return None
    if not isinstance(obj, dict) or set(obj) != JSON_KEYS or type(obj["status"]) is not int:
        return None
    return (obj["path"], obj["status"]) if isinstance(obj["path"], str) else None


def expected_for(lines: Iterable[str], fmt: str) -> dict[str, Any]:
    """The expected answers of a sample file, from a simple line-by-line parse."""
    total = malformed = 0
    status: Counter[int] = Counter()
    errors: Counter[str] = Counter()
    for line in lines:
        total += 1
        parsed = parse_line(line, fmt)
        if parsed is None:
            malformed += 1
            continue
        status[parsed[1]] += 1
        if 500 <= parsed[1] <= 599:
            errors[INVALID_REQUEST if parsed[0] is None else normalize(parsed[0])] += 1
    top = sorted(errors.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
    return {
        "format": fmt,
        "lines": total,
        "malformed_lines": malformed,
        "top_errors": [[k, v] for k, v in top],
        "status": {str(k): status[k] for k in sorted(status)},
        "routes_5xx_total": sum(errors.values()),
    }
