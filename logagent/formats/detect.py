"""Format detection from sample lines (PURE).

Every known format parses the same sample; the one with the largest share of
valid records wins (ties go to the earlier, more specific format). That share
is the ``format_confidence`` reported in the result.

``detect`` scores the access formats (what the engine answers today);
``detect_all`` scores every format, access, application and custom. An
application format that folds multi-line records is scored on the lines it
must explain: lines that look like a stack trace or continuation (indented,
``Caused by:``, ``... N more``, ``Traceback``, ``FooError: …``) are left out
of its denominator, since they belong to the record before them. A result is
``ambiguous`` when the runner-up scores within ``AMBIGUOUS_MARGIN`` of the
best and is not a format nested in it (``catalog.NESTED``), and
``low_confidence`` below ``LOW_CONFIDENCE``: the caller warns, or recuses
with UNRECOGNIZED_FORMAT when nothing parses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import polars as pl

from logagent.errors import FormatError
from logagent.formats.access import COMBINED, COMMON
from logagent.formats.app import MESSAGE
from logagent.formats.base import STATUS, Format, parse
from logagent.formats.catalog import (
    ACCESS_NAMES,
    APP_NAMES,
    NESTED,
    AnyFormat,
    build_any_format,
    is_app,
)
from logagent.formats.custom import CustomFormat
from logagent.formats.generic import GENERIC_DISCOUNT
from logagent.formats.generic import NAME as GENERIC
from logagent.formats.jsonl import JsonFormat, auto_mapping
from logagent.formats.records import start_expr

FORMAT_NAMES = ("combined", "common", "jsonl")
AMBIGUOUS_MARGIN = 0.05
LOW_CONFIDENCE = 0.5
#: Lines that continue a record (stack traces, tracebacks, goroutine dumps).
CONTINUATION_LIKE = (
    r"^(?:[ \t]|at |Caused by:|Suppressed:|\.\.\. [0-9]+ (?:more|common frames)|Traceback |"
    r"During handling|The above exception|[A-Za-z_][A-Za-z0-9_.$]*(?:Error|Exception|Exit)\b|"
    r"goroutine |panic: |$)"
)


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

    @property
    def ambiguous(self) -> bool:
        """Whether the runner-up is as good (within the margin) and not nested in the best."""
        if len(self.scores) < 2 or self.confidence == 0:
            return False
        (best, top), (second, score) = self.scores[0], self.scores[1]
        nested = (best, second) in NESTED or (second, best) in NESTED or GENERIC in (best, second)
        return top - score <= AMBIGUOUS_MARGIN and not nested

    @property
    def low_confidence(self) -> bool:
        """Whether the best format explains too few sampled lines to be trusted."""
        return self.confidence < LOW_CONFIDENCE


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


def app_share(fmt: AnyFormat, lines: pl.Series) -> float:
    """Share of the lines ``fmt`` must explain that start a valid record (see module doc)."""
    lines = lines.filter(lines.str.strip_chars().str.len_bytes() > 0)
    if not is_app(fmt):
        return valid_share(fmt, lines)  # type: ignore[arg-type]  # not app: an access Format
    line = pl.col("line")
    app = fmt  # an AppFormat
    frame = pl.DataFrame({"line": lines}).select(
        start=start_expr(app, line),  # type: ignore[arg-type]
        ok=app.fields(line)[MESSAGE].is_not_null() & (line.str.len_bytes() >= app.min_line_bytes),
        cont=line.str.contains(_continuation_like(app)),
    )
    valid = int((frame["start"] & frame["ok"]).sum())
    folds = app.record_start is not None  # type: ignore[union-attr]
    excused = int((~frame["start"] & frame["cont"]).sum()) if folds else 0
    need = lines.len() - excused
    return min(1.0, valid / need) if need > 0 else 0.0


def _continuation_like(fmt: object) -> str:
    """``CONTINUATION_LIKE``, widened by what the layout itself writes inside a record."""
    own = getattr(fmt, "continuation", None)
    return CONTINUATION_LIKE if own is None else f"{CONTINUATION_LIKE}|^(?:{own})"


def detect_all(
    sample: Sequence[str],
    *,
    json_keys: Mapping[str, str] | None = None,
    year: int | None = None,
    custom: Mapping[str, CustomFormat] = {},
) -> Detection:
    """Score every format, access, application and custom, on ``sample``; best first.

    Custom formats come first in the tie-break (a user's format is the most specific).
    """
    lines = pl.Series("line", list(sample), dtype=pl.String)
    names = (*custom, *ACCESS_NAMES, *APP_NAMES)
    scores = []
    for n in names:
        fmt = build_any_format(n, sample, json_keys=json_keys, year=year, custom=custom)
        discount = GENERIC_DISCOUNT if n == GENERIC and n not in custom else 1.0
        scores.append((n, app_share(fmt, lines) * discount))
    ranked = sorted(scores, key=lambda s: -s[1])  # stable: earlier formats win ties
    return Detection(tuple(ranked), int(lines.len()))
