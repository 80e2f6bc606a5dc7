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
from logagent.formats.access import COMBINED, COMMON, AccessFormat
from logagent.formats.app import MESSAGE, AppRegexFormat
from logagent.formats.apptimes import YearOf
from logagent.formats.base import STATUS, Format, RegexFormat
from logagent.formats.catalog import (
    ACCESS_NAMES,
    APP_NAMES,
    NESTED,
    AnyFormat,
    build_any_format,
    is_app,
)
from logagent.formats.custom import CustomFormat
from logagent.formats.extract import CONTINUATION
from logagent.formats.generic import GENERIC_DISCOUNT
from logagent.formats.generic import NAME as GENERIC
from logagent.formats.jsonaccess import JSON_ACCESS_LAYOUTS
from logagent.formats.jsonl import OBJECT_FIRST, OBJECT_INSIDE, PLAIN_KEY, JsonFormat, auto_mapping
from logagent.formats.jsonlayouts import JsonLayout
from logagent.formats.needs import (
    AllOf,
    Need,
    OneOf,
    any_of,
    holds,
    joined,
    pattern_needs,
    searcher,
)
from logagent.formats.proxies import GENERIC_ACCESS, PROXY_LAYOUTS
from logagent.formats.records import continuation_like, start_expr
from logagent.formats.w3c import W3C_LAYOUTS

FORMAT_NAMES = ("combined", "common", "jsonl")
#: Access layouts of proxies, balancers and servers with their own fixed fields.
FIXED_ACCESS: dict[str, Format] = {f.name: f for f in (*PROXY_LAYOUTS, *JSON_ACCESS_LAYOUTS)}
AMBIGUOUS_MARGIN = 0.05
LOW_CONFIDENCE = 0.5
#: The layouts that read what no named layout does (discounted, never ambiguous with one).
LAST_RESORT = frozenset({GENERIC, GENERIC_ACCESS.name})


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
        """Whether the runner-up is as good (within the margin, of the best's own share: 1.9 %
        against 0 % was "ambiguous" with an absolute one) and not nested in the best."""
        if len(self.scores) < 2 or self.confidence == 0:
            return False
        (best, top), (second, score) = self.scores[0], self.scores[1]
        nested = (best, second) in NESTED or (second, best) in NESTED
        nested = nested or bool(LAST_RESORT & {best, second})
        return top - score <= AMBIGUOUS_MARGIN * top and not nested

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
    if name in FIXED_ACCESS:
        return FIXED_ACCESS[name]
    for layout in W3C_LAYOUTS:  # the #Fields: lists of the sample
        if layout.name == name:
            return layout.fit(sample)
    known = ", ".join(("auto", *FORMAT_NAMES, *FIXED_ACCESS, *(f.name for f in W3C_LAYOUTS)))
    raise FormatError(f"unknown format {name!r} (known: {known})", format=name)


def valid_share(fmt: Format, lines: pl.Series) -> float:
    """Share of non-blank lines that ``fmt`` parses into a valid record."""
    return _shares({"f": fmt}, lines)["f"]


def detect(sample: Sequence[str], json_keys: Mapping[str, str] | None = None) -> Detection:
    """Score every built-in format on ``sample`` (lines without newlines)."""
    lines = pl.Series("line", list(sample), dtype=pl.String)
    fmts = {n: build_format(n, sample, json_keys) for n in FORMAT_NAMES}
    shares = _shares(fmts, lines)
    ranked = sorted(shares.items(), key=lambda s: -s[1])  # stable: earlier formats win ties
    return Detection(tuple(ranked), int(lines.len()))


def app_share(fmt: AnyFormat, lines: pl.Series) -> float:
    """Share of the lines ``fmt`` must explain that start a valid record (see module doc)."""
    return _shares({"f": fmt}, lines)["f"]


def _shares(
    fmts: Mapping[str, AnyFormat], lines: pl.Series, *, prune: bool = True
) -> dict[str, float]:
    """Each format's share (``app_share``) of ``lines``, all in one Polars query.

    One query with every format's expressions costs a fraction of one query per
    format (detection scores ~40 layouts on every run: a start-up cost). A layout
    that needs what no line holds (``_ruled_out``) scores 0 without its expressions:
    on an access log the JSON layouts' (``prune=False`` scores them all, for tests).
    """
    lines = lines.filter(lines.str.strip_chars().str.len_bytes() > 0)
    if lines.len() == 0:
        return dict.fromkeys(fmts, 0.0)
    out = dict.fromkeys(_ruled_out(fmts, lines) if prune else (), 0.0)
    out.update(dict.fromkeys(_ruled_out_by_lines(fmts, lines), 0.0))
    line = pl.col("line")
    exprs: list[pl.Expr] = []
    scored = [(i, name, fmt) for i, (name, fmt) in enumerate(fmts.items()) if name not in out]
    for i, _, fmt in scored:
        valid, need = _score_exprs(fmt, line, lines.len())
        exprs += [valid.alias(f"v{i}"), need.alias(f"n{i}")]
    row = pl.DataFrame({"line": lines}).select(exprs).row(0, named=True) if exprs else {}
    for i, name, _ in scored:
        explained, needed = int(row[f"v{i}"] or 0), int(row[f"n{i}"] or 0)
        out[name] = min(1.0, explained / needed) if needed > 0 else 0.0
    return {name: out[name] for name in fmts}


def _ruled_out(fmts: Mapping[str, AnyFormat], lines: pl.Series) -> list[str]:
    """The formats no line of ``lines`` can be a record of: each needs what no line holds
    (``record_needs``, e.g. a JSON object at the start, or a literal every match of its
    regexes or a JSON layout's signature keys hold: ``literal_needs``), so each scores 0
    unparsed."""
    literal = {n: literal_needs(f) for n, f in fmts.items()}
    has = searcher(joined(lines.to_list()) if any(v is not None for v in literal.values()) else "")
    lacking = [n for n, need in literal.items() if need is not None and not holds(need, has)]
    needs = {n: getattr(f, "record_needs", None) for n, f in fmts.items() if n not in lacking}
    kinds = {need for need in needs.values() if need is not None}
    if not kinds:
        return lacking
    found = {
        (how, text): bool(
            (
                lines.str.starts_with(text)
                if how == "starts"
                else lines.str.contains(text, literal=True)
            ).any()
        )
        for how, text in kinds
    }
    return [*lacking, *(n for n, need in needs.items() if need is not None and not found[need])]


def _ruled_out_by_lines(fmts: Mapping[str, AnyFormat], lines: pl.Series) -> list[str]:
    """The layouts a sampled line rules out (``AppRegexFormat.ruled_out_by``: supervisord's
    head followed by ``ERROR``, a word it never writes, is a Python app's log)."""
    ruled = {n: getattr(f, "ruled_out_by", None) for n, f in fmts.items()}
    return [n for n, r in ruled.items() if r is not None and lines.str.contains(f"^(?:{r})").any()]


def literal_needs(fmt: object) -> Need | None:
    """What every record line of ``fmt`` holds: by the regexes that find its records
    (``needs.pattern_needs``), or a JSON layout's signature keys (``_signed_keys``); None
    for a format read otherwise (JSON fitted to the sample, W3C, logfmt, ...)."""
    if isinstance(fmt, JsonLayout):
        return _signed_keys(fmt.signature)
    if isinstance(fmt, AccessFormat):  # the pattern's records, and the greedy's it refuses
        extra = [fmt.greedy] if fmt.greedy is not None else []
        return any_of([pattern_needs(p) for p in (fmt.pattern, *extra)])
    if isinstance(fmt, RegexFormat):  # a proxy's layout: one pattern
        return pattern_needs(fmt.pattern)
    if isinstance(fmt, AppRegexFormat):  # the first pattern that matches gives the fields
        return any_of([pattern_needs(p) for p in fmt.patterns])
    return None


def _signed_keys(keys: Sequence[str]) -> Need | None:
    """A JSON layout's record holds each of ``keys`` at its top level (``JsonLayout.raw``), so
    its line writes each as ``"key"``, or spells it with a ``\\u`` escape; None when a key
    could be written another way, or is a JSONPath (``$…``: ``JsonLayout`` reads it as one)."""
    if not keys or not all(PLAIN_KEY.fullmatch(k) and not k.startswith("$") for k in keys):
        return None
    return AllOf(tuple(OneOf((f'"{k}"', "\\u")) for k in keys))


def _score_exprs(fmt: AnyFormat, line: pl.Expr, n: int) -> tuple[pl.Expr, pl.Expr]:
    """Scalar expressions: the lines ``fmt`` explains, and the lines it must explain."""
    if not is_app(fmt):  # an access Format: every non-blank line must be a record
        access: Format = fmt  # type: ignore[assignment]
        cols = access.fields(line)
        ok = cols[STATUS].is_not_null() & (line.str.len_bytes() >= access.min_line_bytes)
        if CONTINUATION not in cols:
            return ok.sum(), pl.lit(n, dtype=pl.Int64)
        # Lines the layout itself marks as no record (W3C's # directives) need no explaining.
        skipped = cols[CONTINUATION].fill_null(False)
        return (ok & ~skipped).sum(), pl.lit(n, dtype=pl.Int64) - skipped.sum()
    app = fmt  # an AppFormat
    start = start_expr(app, line)  # type: ignore[arg-type]
    ok = _message(app, line).is_not_null() & (line.str.len_bytes() >= app.min_line_bytes)
    valid = (start & ok).sum()
    if app.record_start is None:  # type: ignore[union-attr]  # no folding: nothing excused
        return valid, pl.lit(n, dtype=pl.Int64)
    excused = (~start & line.str.contains(continuation_like(app))).sum()
    return valid, pl.lit(n, dtype=pl.Int64) - excused


def _message(fmt: object, line: pl.Expr) -> pl.Expr:
    """An application format's message column: its own ``message_expr`` where it has one
    (the same expression, without building the other fields), else from ``fields``."""
    own = getattr(fmt, "message_expr", None)
    if callable(own):
        expr: pl.Expr = own(line)
        return expr
    return fmt.fields(line)[MESSAGE]  # type: ignore[attr-defined, no-any-return]


def detect_all(
    sample: Sequence[str],
    *,
    json_keys: Mapping[str, str] | None = None,
    year: YearOf = None,
    custom: Mapping[str, CustomFormat] = {},
    specific_first: bool = True,
) -> Detection:
    """Score every format, access, application and custom, on ``sample``; best first.

    Custom formats come first in the tie-break (a user's format is the most specific).
    ``specific_first``: a layout written through syslog goes before syslog3164 where it
    reads enough (``PREFERRED``); not for a question only an application log answers (a
    syslog file with 55 % HAProxy lines is still a syslog to top-error-components).
    """
    lines = pl.Series("line", list(sample), dtype=pl.String)
    names = (*custom, *ACCESS_NAMES, *APP_NAMES)
    fmts = every_format(sample, json_keys=json_keys, year=year, custom=custom)
    shares = _shares(fmts, lines)
    scores = []
    for n in names:
        last_resort = n in LAST_RESORT and n not in custom
        last_resort = last_resort or bool(getattr(fmts[n], "bare", False))
        discount = GENERIC_DISCOUNT if last_resort else 1.0
        scores.append((n, shares[n] * discount))
    ranked = sorted(scores, key=lambda s: -s[1])  # stable: earlier formats win ties
    preferred = (PREFERRED if specific_first else frozenset()) | PREFERRED_ALWAYS
    if ranked and getattr(fmts[ranked[0][0]], "bare", False):  # any JSON object with a stamp
        preferred = preferred | {(n, ranked[0][0]) for n in fmts if _json_layout(fmts[n])}
    return Detection(tuple(_specific_first(ranked, preferred)), len(lines))


def _json_layout(fmt: object) -> bool:
    """Whether ``fmt`` reads JSON objects by keys of its own (a named JSON layout, jsonl): a
    bare ``jsonapp`` reads all its lines and more, so it yields to one that reads
    ``PREFER_SPECIFIC`` of the sample (a review: a Zeek JSON log whose 12 of 112 lines hold
    no uid had become jsonapp)."""
    return getattr(fmt, "record_needs", None) in (OBJECT_FIRST, OBJECT_INSIDE) and not getattr(
        fmt, "bare", False
    )


#: The share of the sample from which a layout written through syslog wins over
#: ``syslog3164``, which reads its lines too (``PREFERRED``).
PREFER_SPECIFIC = 0.5
#: (specific, general): the general layout reads every line of the specific one and more
#: (``catalog.NESTED``); the specific one, when it reads ``PREFER_SPECIFIC`` of the sample,
#: is the log's layout even if the general one reads more of it. HAProxy's own lines
#: (``Proxy web started.``, ``SSL handshake failure``) are syslog lines but no requests:
#: syslog3164 had won a real HAProxy log (13 requests of 17 lines) and the 5xx question
#: was refused.
PREFERRED = frozenset(
    (specific, "syslog3164")
    for specific in ("haproxy", "squid", "elb", "log4j", "hadoop", "zerolog", "haproxy_tcp")
)
#: The pairs preferred for every question, an application one too: zerolog's lines are no
#: syslog lines at all ("stamp LVL caller" read as "stamp host program"), where a log4j or
#: Hadoop layout may be what a syslog daemon wrote (a review: a Traefik log was zerolog to
#: --by level and syslog3164 to top-error-components, its levels guessed from words).
PREFERRED_ALWAYS = frozenset(
    {
        ("zerolog", "syslog3164"),
        # HAProxy's TCP connections beside its own syslog lines (``Proxy fe started.``,
        # ``Server be/db1 is DOWN``): syslog3164 read them all, INFO every one (a review)
        ("haproxy_tcp", "syslog3164"),
        # CloudNativePG's PostgreSQL records are zap lines too, their severity inside; the
        # operator's own lines without a pod (a few at start-up) are its malformed ones
        ("cloudnative_pg", "zap_json"),
    }
)


def _specific_first(
    ranked: list[tuple[str, float]], preferred: frozenset[tuple[str, str]]
) -> list[tuple[str, float]]:
    """``ranked`` with the best-scoring specific layout first where it reads enough of the
    sample and the best one is its general layout (``preferred``)."""
    best = ranked[0][0] if ranked else None
    for i, (n, share) in enumerate(ranked[1:], start=1):
        if (n, best) in preferred and share >= PREFER_SPECIFIC:
            return [ranked[i], *ranked[:i], *ranked[i + 1 :]]
    return ranked


def every_format(
    sample: Sequence[str],
    *,
    json_keys: Mapping[str, str] | None = None,
    year: YearOf = None,
    custom: Mapping[str, CustomFormat] = {},
) -> dict[str, AnyFormat]:
    """Every format by name, custom first, fitted to ``sample`` where it needs to be."""
    names = (*custom, *ACCESS_NAMES, *APP_NAMES)
    return {
        n: build_any_format(n, sample, json_keys=json_keys, year=year, custom=custom) for n in names
    }


def any_record(fmts: Mapping[str, AnyFormat], line: pl.Expr) -> pl.Expr:
    """Whether some format reads the line as (the first line of) a record of its own."""
    oks = []
    for fmt in fmts.values():
        if is_app(fmt):
            ok = start_expr(fmt, line) & _message(fmt, line).is_not_null()  # type: ignore[arg-type]
        else:
            ok = fmt.fields(line)[STATUS].is_not_null()
        oks.append(ok & (line.str.len_bytes() >= fmt.min_line_bytes))
    return pl.any_horizontal(oks).fill_null(False)
