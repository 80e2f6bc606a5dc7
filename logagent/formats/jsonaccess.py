"""JSON access logs of Caddy, Traefik, Cloudflare and Kubernetes' audit, with their own fixed
keys (PURE).

``jsonl`` finds status and path keys by itself; these layouts are named by
keys only they write, so ``logagent detect`` names the server:

* ``caddy``: the ``http.log.access`` logger's lines (``status``, ``request.uri``,
  ``request.client_ip`` or ``request.remote_ip``, ``request.headers.User-Agent[0]``).
  Caddy's other log lines (start-up, TLS, ...) in the same stream have no
  ``request`` and are no records.
* ``traefik``: the JSON access log (``DownstreamStatus``, ``RequestPath``,
  ``ClientHost``, ``RequestMethod``, and ``request_User-Agent`` when headers are kept).
* ``cloudflare``: Logpush's HTTP requests dataset (``EdgeResponseStatus``, the status the
  client got; ``ClientRequestURI``, ``ClientIP``, ``ClientRequestMethod``,
  ``ClientRequestUserAgent``; ``EdgeStartTimestamp`` as RFC 3339 or Unix nanoseconds).
* ``k8s_audit``: the Kubernetes API server's audit log (``responseStatus.code``,
  ``requestURI``, ``sourceIPs[0]``, ``verb``, ``userAgent``). An event of a stage before the
  response (``RequestReceived``, ``ResponseStarted``) has no status yet: it is no record, and
  flagged so (not malformed), as the response's own event counts the request.

A line is a record when it is an object holding the status and the path key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import polars as pl

from logagent.formats.base import PATH, STATUS
from logagent.formats.extract import CONTINUATION
from logagent.formats.jsonl import OBJECT_FIRST
from logagent.formats.proxies import CLIENT, METHOD, USER_AGENT
from logagent.timewindow.columns import stamp_expr


@dataclass(frozen=True)
class JsonAccessLayout:
    """JSON lines with fixed JSONPaths per column; a record holds the status and path keys."""

    name: str
    paths: tuple[tuple[str, tuple[str, ...]], ...]
    status_key: str
    description: str
    time_paths: tuple[str, ...] = ()
    min_line_bytes: int = 30
    #: Lines of the layout that are no HTTP record (flagged ``continuation``: not malformed).
    skip: str | None = None
    record_needs = OBJECT_FIRST

    def time_expr(self, line: pl.Expr, tz: str = "UTC") -> pl.Expr:
        """Each record's UTC time: an ISO 8601 string or an epoch number (Caddy's ``ts``)."""
        value = pl.coalesce([line.str.json_path_match(p) for p in self.time_paths])
        return pl.coalesce(stamp_expr(value, "iso8601", tz=tz), stamp_expr(value, "epoch", tz=tz))

    @property
    def error_prefilter(self) -> re.Pattern[bytes]:
        """Every 5xx record holds ``"<status key>":5xx``."""
        return re.compile(rb'"' + self.status_key.encode() + rb'"\s*:\s*"?5[0-9][0-9](?![0-9])')

    def _get(self, line: pl.Expr, name: str) -> pl.Expr:
        found = [line.str.json_path_match(p) for p in dict(self.paths)[name]]
        return pl.coalesce(found) if len(found) > 1 else found[0]

    def fields(self, line: pl.Expr) -> dict[str, pl.Expr]:
        """``path`` and ``status``; null status unless the line is an object with a path."""
        path = self._get(line, PATH)
        status = self._get(line, STATUS).cast(pl.Float64, strict=False).cast(pl.Int32, strict=False)
        record = line.str.starts_with("{") & path.is_not_null()
        cols = {PATH: path, STATUS: pl.when(record).then(status)}
        if self.skip is None:
            return cols
        return {**cols, CONTINUATION: line.str.contains(self.skip)}

    def extra_fields(self, line: pl.Expr) -> dict[str, pl.Expr]:
        """``client``, ``method`` and ``user_agent`` (null where not logged)."""
        return {n: self._get(line, n) for n in (CLIENT, METHOD, USER_AGENT)}


CADDY = JsonAccessLayout(
    name="caddy",
    paths=(
        (STATUS, ("$.status",)),
        (PATH, ("$.request.uri",)),
        (CLIENT, ("$.request.client_ip", "$.request.remote_ip")),
        (METHOD, ("$.request.method",)),
        (USER_AGENT, ("$.request.headers['User-Agent'][0]",)),
    ),
    status_key="status",
    time_paths=("$.ts",),
    description="Caddy JSON access log (logger http.log.access)",
)
TRAEFIK = JsonAccessLayout(
    name="traefik",
    paths=(
        (STATUS, ("$.DownstreamStatus",)),
        (PATH, ("$.RequestPath",)),
        (CLIENT, ("$.ClientHost",)),
        (METHOD, ("$.RequestMethod",)),
        (USER_AGENT, ("$['request_User-Agent']",)),
    ),
    status_key="DownstreamStatus",
    time_paths=("$.time", "$.StartUTC"),
    description="Traefik JSON access log",
)
CLOUDFLARE = JsonAccessLayout(
    name="cloudflare",
    paths=(
        (STATUS, ("$.EdgeResponseStatus",)),
        (PATH, ("$.ClientRequestURI",)),
        (CLIENT, ("$.ClientIP",)),
        (METHOD, ("$.ClientRequestMethod",)),
        (USER_AGENT, ("$.ClientRequestUserAgent",)),
    ),
    status_key="EdgeResponseStatus",
    time_paths=("$.EdgeStartTimestamp",),
    description="Cloudflare Logpush HTTP requests (JSON): status = EdgeResponseStatus",
)
K8S_AUDIT = JsonAccessLayout(
    name="k8s_audit",
    paths=(
        (STATUS, ("$.responseStatus.code",)),
        (PATH, ("$.requestURI",)),
        (CLIENT, ("$.sourceIPs[0]",)),
        (METHOD, ("$.verb",)),
        (USER_AGENT, ("$.userAgent",)),
    ),
    status_key="code",
    time_paths=("$.requestReceivedTimestamp", "$.stageTimestamp"),
    skip=r'"stage" *: *"(?:RequestReceived|ResponseStarted)"',
    description="Kubernetes API server audit log: status = responseStatus.code, path = requestURI",
)
JSON_ACCESS_LAYOUTS = (CADDY, TRAEFIK, CLOUDFLARE, K8S_AUDIT)
