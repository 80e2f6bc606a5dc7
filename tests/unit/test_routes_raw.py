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
    assert normalize_paths(paths, list(DEFAULT_RULES)).to_list() == ["/x", "/users/{id}", ""]
