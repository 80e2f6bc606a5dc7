"""Zeek's answers from its real samples, read apart from logagent: the json module (JSON
lines) or plain str splitting by the ``#fields`` header (TSV). Split from ``real_reference``,
which re-exports these names."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any


def zeek_tsv_rows(text: str) -> list[dict[str, str]]:
    """A Zeek TSV log's records as dicts, named by the ``#fields`` line above them; the
    unset value (``#unset_field``, ``-``) leaves the key out (plain str splitting)."""
    rows: list[dict[str, str]] = []
    names: list[str] = []
    unset = "-"
    for line in text.split("\n"):
        line = line.removesuffix("\r")
        if line.startswith("#fields\t"):
            names = line.split("\t")[1:]
        elif line.startswith("#unset_field\t"):
            unset = line.split("\t")[1]
        elif line and not line.startswith("#"):
            values = line.split("\t")
            assert len(values) == len(names), line  # a real sample has no broken line
            rows.append({k: v for k, v in zip(names, values, strict=True) if v != unset})
    return rows


def zeek_reference(text: str, tsv: bool = False) -> dict[str, dict[str, int]]:
    """A Zeek log's answers: records per ``rcode_name``, NXDOMAIN per query (json module,
    or ``zeek_tsv_rows`` for the TSV layout)."""
    rows: list[dict[str, Any]]
    if tsv:
        rows = list(zeek_tsv_rows(text))
    else:
        rows = [json.loads(line) for line in text.split("\n") if line.strip()]
    nxdomain = [r for r in rows if r.get("rcode_name") == "NXDOMAIN" and "query" in r]
    return {
        "rcode_name": dict(Counter(r["rcode_name"] for r in rows if "rcode_name" in r)),
        "nxdomain_by_query": dict(Counter(r["query"] for r in nxdomain)),
        "by_orig_h": dict(Counter(r["id.orig_h"] for r in rows if "id.orig_h" in r)),
    }
