"""JSON-lines access logs with automatic or explicit key mapping (PURE).

Keys are JSONPath-like dotted names (``status``, ``http.response.status_code``).
``auto_mapping`` looks at a sample of decoded objects and picks, for each
field, the first well-known key present in at least half of them; an explicit
mapping from the configuration wins over it. A line that is not a JSON object
or has no usable status is malformed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from logagent.formats.base import PATH, STATUS

#: Well-known keys per field, most specific first.
KEY_CANDIDATES: dict[str, tuple[str, ...]] = {
    STATUS: (
        "status",
        "status_code",
        "statusCode",
        "http_status",
        "response_status",
        "http.response.status_code",
        "response.status",
        "http.status_code",
        "res.statusCode",  # pino / bunyan
        "response_code",  # envoy
        "DownstreamStatus",  # traefik
        "httpRequest.status",  # Google Cloud
        "http.response.status",
        "response.status_code",
        "EdgeResponseStatus",  # Cloudflare Logpush (what the client got)
        "properties.httpStatusCode",  # Azure Front Door (resource logs nest their fields)
        "properties.httpStatus",  # Azure Application Gateway
    ),
    PATH: (
        "path",
        "url",
        "uri",
        "request_uri",
        "request_path",
        "endpoint",
        "route",
        "url.path",
        "url.original",
        "http.request.path",
        "request.path",
        "request.uri",  # caddy
        "request.url",
        "req.url",  # pino / bunyan
        "RequestPath",  # traefik
        "httpRequest.requestUrl",  # Google Cloud
        "http.url",
        "http.target",
        "ClientRequestPath",  # Cloudflare Logpush
        "ClientRequestURI",
        "properties.requestUri",  # Azure Front Door, Application Gateway
        "request",
    ),
    "ts": (
        "time",
        "ts",
        "timestamp",
        "@timestamp",
        "datetime",
        "date",
        "EdgeStartTimestamp",
        "timeStamp",
    ),
    "level": ("level", "severity", "levelname", "log.level"),
    # -q top-clients (``--by client``): GitLab's production_json.log writes remote_ip, and
    # the question had been refused with that key in its own list of keys (probe N)
    "client": (
        "client",
        "client_ip",
        "clientip",
        "remote_ip",
        "remote_addr",
        "remoteAddr",
        "ClientHost",  # traefik
        "ClientIP",
        "httpRequest.remoteIp",  # Google Cloud
        "client.ip",  # ECS
        "source.ip",
        "ip",
    ),
    "latency": ("latency", "duration", "request_time", "response_time", "elapsed", "duration_ms"),
}


#: What a line must hold to be a record of a JSON layout (``record_needs``): an object at its
#: first character, or somewhere in it. Detection scores such a layout 0 without parsing a
#: sample that has no such line (``detect._ruled_out``).
OBJECT_FIRST, OBJECT_INSIDE = ("starts", "{"), ("holds", "{")
#: The blanks JSON allows around a value (and ``json.loads`` skips).
JSON_SPACE = " \t\n\r"
#: A JSON key of these characters is written ``"key"`` or with a ``\uXXXX`` escape: no other
#: escape (``\"``, ``\\``, ``\/``, the control ones) writes any of them.
PLAIN_KEY = re.compile(r"[A-Za-z0-9_@$.-]+")


@dataclass(frozen=True)
class JsonFormat:
    """JSON lines; ``mapping`` maps field name -> dotted key in the objects."""

    record_needs = OBJECT_INSIDE  # a JSONPath finds a key in an object only

    mapping: Mapping[str, str] = field(default_factory=lambda: {STATUS: "status", PATH: "path"})
    name: str = "jsonl"
    min_line_bytes: int = 16
    description: str = "JSON lines (one object per line), keys mapped automatically or by config"

    @property
    def error_prefilter(self) -> re.Pattern[bytes]:
        """Every 5xx record holds its status key followed by a 5xx value."""
        leaf = self.mapping[STATUS].rsplit(".", 1)[-1]
        return re.compile(rb'"' + re.escape(leaf.encode()) + rb'"\s*:\s*"?5\d\d(?![0-9])')

    def fields(self, line: pl.Expr) -> dict[str, pl.Expr]:
        """The mapped keys of each object; a non-object gets a null status."""
        path = line.str.json_path_match(jsonpath(self.mapping[PATH]))
        if self.mapping[PATH].rsplit(".", 1)[-1] == "request":  # "GET /x HTTP/1.1"
            path = path.str.extract(r"^[A-Za-z]+ (\S+)", 1).fill_null(path)
        status = line.str.json_path_match(jsonpath(self.mapping[STATUS]))
        return {
            PATH: path,
            STATUS: status.cast(pl.Float64, strict=False).cast(pl.Int32, strict=False),
        }


def jsonpath(key: str, *, nested: bool = True) -> str:
    """The JSONPath of ``key``: each dotted part a member (``nested``), else the key as
    written. A part holding a ``'`` is quoted with ``"`` (Polars' JSONPath refuses ``\\'``
    pairs and ``''``); one that cannot be named (both quotes, or a backslash: Polars' JSONPath
    matches no such key, and a trailing one fails to compile) is ``ValueError``."""
    parts = key.split(".") if nested else [key]
    return "$" + "".join(_member(part) for part in parts)


def _member(part: str) -> str:
    if "\\" in part or ("'" in part and '"' in part):
        raise ValueError(f"the JSON key {part!r} cannot be read (a backslash, or both quotes)")
    return f'["{part}"]' if "'" in part else f"['{part}']"


def readable_key(key: str) -> str:
    """``key`` if ``jsonpath`` can name it, for a setting's check (else ``ValueError``)."""
    jsonpath(key)
    return key


def choose_keys(
    objects: Sequence[dict[str, Any]],
    candidates: Mapping[str, Sequence[str]],
    has: Callable[[dict[str, Any], str], bool] | None = None,
) -> dict[str, str]:
    """For each field, the first candidate key (dotted: nested) present in half the objects."""
    present = has or has_key
    mapping: dict[str, str] = {}
    half = (len(objects) + 1) // 2  # hits * 2 >= len(objects)
    for name, keys in candidates.items():
        for key in keys:
            if objects and _in_at_least(objects, key, present, half):
                mapping[name] = key
                break
    return mapping


def _in_at_least(
    objects: Sequence[dict[str, Any]],
    key: str,
    present: Callable[[dict[str, Any], str], bool],
    least: int,
) -> bool:
    """Whether ``least`` of ``objects`` hold ``key``, looking no further than it takes to know
    (a key no object holds is told after half of them: every run fits the JSON layouts on a
    sample of ~2,500 lines, ~80 k key tests where each test cost ~0.4 us)."""
    hits, left = 0, len(objects)
    for obj in objects:
        left -= 1
        if present(obj, key):
            hits += 1
            if hits >= least:
                return True
        elif hits + left < least:
            return False
    return hits >= least


def auto_mapping(
    sample: Iterable[str], explicit: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Choose keys for each field from decoded sample lines; explicit keys win."""
    objects = [obj for obj in map(object_of, sample) if obj is not None]
    mapping = choose_keys(objects, KEY_CANDIDATES)
    mapping.setdefault(STATUS, KEY_CANDIDATES[STATUS][0])
    mapping.setdefault(PATH, KEY_CANDIDATES[PATH][0])
    mapping.update({k: v for k, v in (explicit or {}).items() if v})
    return mapping


def object_of(line: str) -> dict[str, Any] | None:
    """The JSON object ``line`` holds, or None (not JSON, or JSON but no object)."""
    if not line.lstrip(JSON_SPACE).startswith("{"):  # no object: json.loads is ~10x dearer
        return None
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):  # deeply nested junk ("[[[[…") is not a record either
        return None
    return obj if isinstance(obj, dict) else None


def has_key(obj: dict[str, Any], key: str, *, literal_dots: bool = False) -> bool:
    """Whether ``obj`` holds a non-null value at dotted ``key`` (nested objects).

    ``literal_dots``: a key that itself holds dots (logfmt's ``http.status=…``) counts too.
    """
    if literal_dots and key in obj:
        return obj[key] is not None
    node: Any = obj
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return node is not None
