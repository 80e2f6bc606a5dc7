"""Route normalization: raw request paths -> route templates (PURE).

``/users/83473/orders/550e8400-e29b-41d4-a716-446655440000?x=1`` becomes
``/users/{id}/orders/{uuid}``: the query string and fragment are dropped, an
absolute URI (``http://host/x``, as proxies log it) keeps only its path, and
each path segment is replaced by the first rule whose regex matches the whole
segment. Rules come from the configuration (``[routes]``) and can be extended.
The work is done once per *distinct* path of a batch, vectorized.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

INVALID_REQUEST = "(invalid request)"


@dataclass(frozen=True)
class RouteRule:
    """Replace a path segment that fully matches ``pattern`` with ``replacement``."""

    name: str
    pattern: str
    replacement: str


DEFAULT_RULES: tuple[RouteRule, ...] = (
    RouteRule("id", r"\d+", "{id}"),
    RouteRule(
        "uuid",
        r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",
        "{uuid}",
    ),
    RouteRule("hex", r"[0-9a-fA-F]{16,}", "{hex}"),
    # a JSON Web Token (base64url header.payload.signature; its header starts {"…: eyJ), sent
    # in the path: each request's own segment had been a route of its own (probe J)
    RouteRule("jwt", r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*", "{jwt}"),
)


def strip_query(paths: pl.Expr, *, keep_host: bool = False) -> pl.Expr:
    """Drop query string and fragment, and (unless ``keep_host``) an absolute URI's scheme and
    host; ``--no-normalize`` keeps the host: raw means raw, only cut at ``?``.

    Only a request target is an endpoint (RFC 9112 §3.2): a path starting with ``/``, an
    absolute URI, ``*`` (``OPTIONS *``) or ``host:port`` (``CONNECT``). Anything else a request
    line can hold (``GET HTTP/1.1`` has no target, ``../../etc/passwd``) is counted apart as
    ``(invalid request)``, never ranked.
    """
    cut = paths.str.replace(r"[?#].*$", "")
    absolute = cut.str.contains(r"^[A-Za-z][A-Za-z0-9+.-]*://")
    authority = cut.str.contains(r"^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]):[0-9]{1,5}$")
    usable = cut.str.starts_with("/") | absolute | (cut == "*") | authority
    if not keep_host:
        bare = cut.str.replace(r"^[A-Za-z][A-Za-z0-9+.-]*://[^/]*", "")
        cut = pl.when(absolute & (bare == "")).then(pl.lit("/")).otherwise(bare)
    return pl.when(usable).then(cut).otherwise(pl.lit(INVALID_REQUEST))


def normalize_paths(paths: pl.Series, rules: Sequence[RouteRule] | None) -> pl.Series:
    """Map raw paths to routes with ``rules`` (``None``: only drop the query string)."""
    frame = pl.LazyFrame({"path": paths})
    return with_routes(frame, "path", rules).collect()["route"]


def with_routes(
    frame: pl.LazyFrame, column: str, rules: Sequence[RouteRule] | None
) -> pl.LazyFrame:
    """Add a ``route`` column for the raw paths in ``column``, normalized once per distinct path."""
    stripped = frame.with_columns(
        strip_query(pl.col(column), keep_host=rules is None).alias("route")
    )
    if rules is None:
        return stripped
    distinct = stripped.select("route").unique()
    mapped = distinct.with_columns(apply_rules(pl.col("route"), rules).alias("_normalized"))
    return (
        stripped.join(mapped, on="route", how="left", maintain_order="left")
        .drop("route")
        .rename({"_normalized": "route"})
    )


def apply_rules(route: pl.Expr, rules: Sequence[RouteRule]) -> pl.Expr:
    """Replace each path segment by the first rule whose pattern matches all of it."""
    if not rules:
        return route
    segment = pl.element()
    expr: pl.Expr = segment
    for rule in reversed(rules):
        expr = (
            pl.when(segment.str.contains(f"^(?:{rule.pattern})$"))
            .then(pl.lit(rule.replacement))
            .otherwise(expr)
        )
    normalized = route.str.split("/").list.eval(expr).list.join("/")
    return pl.when(route == INVALID_REQUEST).then(route).otherwise(normalized)
