"""Independent reference readers of the real-system access samples (issue 13 part 2): plain
Python, one record per line, as (status, raw path, extras). Split from ``real_reference``, which
re-exports these names."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

Access = dict[str, Any]
ACCESS_KEYS = ("status", "path", "client", "method", "user_agent")


def _request(text: str) -> tuple[str | None, str | None]:
    """(method, path) of a ``METHOD URI PROTOCOL`` request, else (None, None)."""
    parts = text.split(" ")
    if len(parts) in (2, 3) and parts[0].isalpha() and parts[1]:
        return parts[0], parts[1]
    return None, None


def _quoted(text: str) -> list[str]:
    """The double-quoted values of a line, in order (no escapes in these layouts)."""
    return text.split('"')[1::2]


def _record(status: str, path: str | None, **extras: Any) -> Access | None:
    code = status.strip().lstrip("+")
    if not code.lstrip("-").isdigit():
        return None
    return {"status": int(code), "path": path, **extras}


def haproxy_access(line: str) -> Access | None:
    head, sep, _ = line.partition(" [")
    if not sep or '"' not in line:
        return None
    client = head.split(" ")[-1].rsplit(":", 1)[0]
    after = line.split("] ", 1)[1].split(" ")
    timers = next((i for i, w in enumerate(after) if w.count("/") == 4), None)
    if timers is None:
        return None
    method, path = _request(line[line.index('"') + 1 : line.rindex('"')])
    accepted = line.split(" [", 1)[1].split("]", 1)[0]  # local time: the tests read it as UTC
    when = datetime.strptime(accepted, "%d/%b/%Y:%H:%M:%S.%f").replace(tzinfo=UTC)
    return _record(after[timers + 1], path, client=client, method=method, time=when)


def envoy_access(line: str) -> Access | None:
    if not line.startswith("[") or '"' not in line:
        return None
    quoted = _quoted(line)
    method, path = _request(quoted[0])
    status = line.split('" ', 1)[1].split(" ")[0]
    # after the request: [failure reason], xff, agent, request id, authority, upstream host
    xff, agent = quoted[-5], quoted[-4]
    when = datetime.fromisoformat(line[1 : line.index("]")])
    return _record(status, path, client=xff, method=method, user_agent=agent, time=when)


def alb_access(line: str) -> Access | None:
    words = line.split(" ")
    if len(words) < 12 or words[0] not in ("http", "https", "h2", "ws", "wss", "grpc", "grpcs"):
        return None
    quoted = _quoted(line)
    method, path = _request(quoted[0])
    client, when = words[3].rsplit(":", 1)[0], datetime.fromisoformat(words[1])
    return _record(words[8], path, client=client, method=method, user_agent=quoted[1], time=when)


def elb_access(line: str) -> Access | None:
    words = line.split(" ")
    if len(words) < 12 or not words[0].endswith("Z") or words[7] == "-":
        return None  # a TCP/SSL listener's entry: no HTTP status
    quoted = _quoted(line)
    method, path = _request(quoted[0])
    agent = quoted[1] if len(quoted) > 1 else None
    client, when = words[2].rsplit(":", 1)[0], datetime.fromisoformat(words[0])
    return _record(words[7], path, client=client, method=method, user_agent=agent, time=when)


def caddy_access(line: str) -> Access | None:
    obj = json.loads(line)
    req = obj.get("request")
    if not isinstance(req, dict) or "uri" not in req or "status" not in obj:
        return None
    agent = (req.get("headers") or {}).get("User-Agent") or [None]
    client = req.get("client_ip") or req.get("remote_ip")
    when = datetime.fromtimestamp(float(obj["ts"]), UTC)
    extras = {"client": client, "method": req.get("method"), "user_agent": agent[0], "time": when}
    return _record(str(obj["status"]), req["uri"], **extras)


def traefik_access(line: str) -> Access | None:
    obj = json.loads(line)
    if "RequestPath" not in obj or "DownstreamStatus" not in obj:
        return None
    extras = {
        "client": obj.get("ClientHost"),
        "method": obj.get("RequestMethod"),
        "user_agent": obj.get("request_User-Agent"),
        # the line's own stamp (whole seconds); the request's start when it is absent
        "time": datetime.fromisoformat(obj.get("time") or obj["StartUTC"]),
    }
    return _record(str(obj["DownstreamStatus"]), obj["RequestPath"], **extras)


def cloudflare_access(line: str) -> Access | None:
    """Cloudflare Logpush: the status the client got, the URI it asked for; the start stamp
    is RFC 3339 or Unix nanoseconds (Logpush's ``timestamp_format``)."""
    obj = json.loads(line)
    if "ClientRequestURI" not in obj or "EdgeResponseStatus" not in obj:
        return None
    start = obj.get("EdgeStartTimestamp")
    if isinstance(start, int):
        when = datetime.fromtimestamp(start // 10**9, UTC).replace(
            microsecond=start // 1000 % 10**6
        )
    else:
        when = datetime.fromisoformat(start)
    extras = {
        "client": obj.get("ClientIP"),
        "method": obj.get("ClientRequestMethod"),
        "user_agent": obj.get("ClientRequestUserAgent"),
        "time": when,
    }
    return _record(str(obj["EdgeResponseStatus"]), obj["ClientRequestURI"], **extras)


def uwsgi_access(line: str) -> Access | None:
    """uWSGI's request line: ``[pid: ..] addr (user) {..} [ctime] METHOD URI => generated ..
    (PROTO STATUS) ..``; the app's own output between them is no record."""
    if not line.startswith("[pid: ") or " => generated " not in line:
        return None
    head, tail = line.split(" => generated ", 1)
    client = head.split("] ", 1)[1].split(" ", 1)[0]
    stamp = head[head.index("} [") + 3 : head.index("] ", head.index("} ["))]
    method, path = head[head.index("] ", head.index("} [")) + 2 :].split(" ", 1)
    status = tail.split(" (", 1)[1].split(")", 1)[0].split(" ")[-1]  # after "via sendfile()"
    when = datetime.strptime(" ".join(stamp.split()), "%a %b %d %H:%M:%S %Y").replace(tzinfo=UTC)
    return _record(status, path, client=client, method=method, time=when)


def combined_access(line: str) -> Access | None:
    """nginx/apache ``combined``: fields, ``[stamp]``, ``"request"``, status, size, ``"referrer"``
    ``"agent"`` (more after). The first field may be an X-Forwarded-For list, bare or quoted: a
    word ending in a comma is joined to the next. Of three fields the client is the first (a
    list's first address), of four the second (the first leads, as a vhost does)."""
    head, sep, rest = line.partition(" [")
    stamp, sep2, rest = rest.partition('] "')
    request, sep3, rest = rest.partition('" ')
    words = rest.split(" ")
    if not (sep and sep2 and sep3) or len(words) < 2 or not words[0].isdigit():
        return None
    fields: list[str] = []
    for word in head.split(" "):
        if fields and fields[-1].endswith(","):
            fields[-1] += " " + word
        else:
            fields.append(word)
    if len(fields) not in (3, 4):
        return None
    client = fields[1] if len(fields) == 4 else fields[0].strip('"').split(", ")[0]
    method, path = _request(request)
    quoted = _quoted(rest)
    agent = quoted[1] if len(quoted) > 1 else None
    when = datetime.strptime(stamp, "%d/%b/%Y:%H:%M:%S %z")
    return _record(words[0], path, client=client, method=method, user_agent=agent, time=when)


def w3c_records(text: str, sep: str) -> list[Access | None]:
    """One entry per line: the record under the latest ``#Fields:`` directive, or None."""
    names: list[str] = []
    out: list[Access | None] = []
    for raw in text.split("\n"):
        line = raw.removesuffix("\r")
        if line.startswith("#Fields:"):
            names = line[len("#Fields:") :].split()
        if not line.strip() or line.startswith("#"):
            out.append(None)
            continue
        values = line.rstrip(sep).split(sep)
        row = dict(zip(names, values, strict=False)) if len(values) == len(names) else {}
        found = _record(row["sc-status"], row.get("cs-uri-stem")) if "sc-status" in row else None
        if found is not None:
            found["client"] = row.get("c-ip")
            found["method"] = row.get("cs-method")
            found["user_agent"] = row.get("cs(User-Agent)")
            stamp = f"{row['date']}T{row['time']}"
            found["time"] = datetime.fromisoformat(stamp).replace(tzinfo=UTC)
        out.append(found)
    return out


ACCESS_READERS: dict[str, Callable[[str], Access | None]] = {
    "haproxy": haproxy_access,
    "envoy": envoy_access,
    "alb": alb_access,
    "elb": elb_access,
    "caddy": caddy_access,
    "traefik": traefik_access,
    "cloudflare": cloudflare_access,
    "uwsgi": uwsgi_access,
    "combined": combined_access,
}
#: Sample file -> its access layout.
ACCESS_SAMPLES = {
    "haproxy.log": "haproxy",
    "envoy.log": "envoy",
    "aws_alb.log": "alb",
    "aws_elb.log": "elb",
    "cloudfront.log": "cloudfront",
    "iis_w3c.log": "w3c",
    "caddy_access.jsonl": "caddy",
    "traefik_access.jsonl": "traefik",
    "cloudflare.jsonl": "cloudflare",
    "uwsgi.log": "uwsgi",
    "nginx_access_beats.log": "combined",
}


def access_records(text: str, fmt: str) -> list[Access]:
    """Every record of ``text`` read by the layout's reference reader."""
    if fmt in ("w3c", "cloudfront"):
        found = w3c_records(text, " " if fmt == "w3c" else "\t")
    else:
        lines = [line.removesuffix("\r") for line in text.split("\n")]
        found = [ACCESS_READERS[fmt](line) if line.strip() else None for line in lines]
    return [r for r in found if r is not None]


def raw_route(path: str | None) -> str:
    """``--no-normalize``'s key: the path cut at ``?`` or ``#`` (a request without one: apart)."""
    if path is None:
        return "(invalid request)"
    return path.split("?", 1)[0].split("#", 1)[0]


def route(path: str | None) -> str:
    """The default key: scheme and host dropped, numeric/uuid/long-hex/JWT segments templated."""
    raw = raw_route(path)
    if path is None:
        return raw
    if re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", raw):  # an absolute URI: its path only
        rest = raw.split("://", 1)[1]
        raw = "/" + rest.split("/", 1)[1] if "/" in rest else ""
    out = []
    for seg in raw.split("/"):
        if seg.isdigit() and seg.isascii():
            seg = "{id}"
        elif re.fullmatch(r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}", seg):
            seg = "{uuid}"
        elif re.fullmatch(r"[0-9a-fA-F]{16,}", seg):
            seg = "{hex}"
        elif re.fullmatch(r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*", seg):
            seg = "{jwt}"
        out.append(seg)
    return "/".join(out)


def access_reference(text: str, fmt: str) -> dict[str, object]:
    """The sidecar of an access sample: status counts and 5xx per raw path and per route."""
    records = access_records(text, fmt)
    errors = [r for r in records if 500 <= int(r["status"] or 0) <= 599]
    return {
        "format": fmt,
        "records": len(records),
        "status": dict(Counter(str(r["status"]) for r in records)),
        "errors_by_path": dict(Counter(raw_route(r["path"]) for r in errors)),
        "errors_by_route": dict(Counter(route(r["path"]) for r in errors)),
    }
