"""Raw paths (--no-normalize) are raw: only the query is cut, an absolute URI keeps its host."""

from __future__ import annotations

import polars as pl

from logagent.formats.routes import DEFAULT_RULES, normalize_paths


def test_raw_paths_keep_an_absolute_uris_host() -> None:
    """``http://host/x?q`` stays ``http://host/x`` raw, and becomes ``/x`` when normalized."""
    paths = pl.Series(["http://evil.example/x?q=1", "/users/42?page=2", "http://h"])
    assert normalize_paths(paths, None).to_list() == [
        "http://evil.example/x",
        "/users/42",
        "http://h",
    ]
    # an absolute URI without a path asks for its root
    assert normalize_paths(paths, list(DEFAULT_RULES)).to_list() == ["/x", "/users/{id}", "/"]


def test_what_is_no_path_is_no_endpoint() -> None:
    """``GET HTTP/1.1`` (no target) and a relative path are counted apart as
    ``(invalid request)``, raw or normalized, never ranked as routes (issue 13's review); the
    other request targets HTTP allows, ``*`` (``OPTIONS *``) and ``host:port`` (``CONNECT``),
    are endpoints."""
    paths = pl.Series(["HTTP/1.1", "../../etc/passwd", "x:y", "*", "host:443", "[::1]:8080", "/ok"])
    apart = ["(invalid request)"] * 3
    targets = ["*", "host:443", "[::1]:8080", "/ok"]
    assert normalize_paths(paths, None).to_list() == [*apart, *targets]
    assert normalize_paths(paths, list(DEFAULT_RULES)).to_list() == [*apart, *targets]
