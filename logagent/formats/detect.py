"""Format detection from sample lines (PURE).

Every known format parses the same sample; the one with the largest share of
valid records wins (ties go to the earlier, more specific format). That share
is the ``format_confidence`` reported in the result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import polars as pl

from logagent.errors import FormatError
from logagent.formats.access import COMBINED, COMMON
from logagent.formats.base import STATUS, Format, parse
from logagent.formats.jsonl import JsonFormat, auto_mapping

FORMAT_NAMES = ("combined", "common", "jsonl")


@dataclass(frozen=True)
class Detection:
    """Scores of every format on a sample, best first."""

    scores: tuple[tuple[str, float], ...]
    sample_lines: int

    @property
    def best(self) -> str:
        """Name of the best-scoring format."""
        return self.scores[0][0]

    @property
    def confidence(self) -> float:
        """Share of sample lines the best format parses."""
        return self.scores[0][1]


def build_format(
    name: str, sample: Sequence[str], json_keys: Mapping[str, str] | None = None
) -> Format:
    """The format called ``name``, fitted to the sample where it needs to be (JSON keys)."""
    if name == "combined":
        return COMBINED
    if name == "common":
        return COMMON
    if name == "jsonl":
        return JsonFormat(mapping=auto_mapping(sample, json_keys))
    known = ", ".join(("auto", *FORMAT_NAMES))
    raise FormatError(f"unknown format {name!r} (known: {known})", format=name)


def valid_share(fmt: Format, lines: pl.Series) -> float:
    """Share of non-blank lines that ``fmt`` parses into a valid record."""
    lines = lines.filter(lines.str.strip_chars().str.len_bytes() > 0)
    if lines.len() == 0:
        return 0.0
    parsed = parse(fmt, lines)
    ok = parsed[STATUS].is_not_null() & (lines.str.len_bytes() >= fmt.min_line_bytes)
    return float(ok.sum()) / lines.len()


def detect(sample: Sequence[str], json_keys: Mapping[str, str] | None = None) -> Detection:
    """Score every built-in format on ``sample`` (lines without newlines)."""
    lines = pl.Series("line", list(sample), dtype=pl.String)
    scores = [(n, valid_share(build_format(n, sample, json_keys), lines)) for n in FORMAT_NAMES]
    ranked = sorted(scores, key=lambda s: -s[1])  # stable: earlier formats win ties
    return Detection(tuple(ranked), int(lines.len()))
