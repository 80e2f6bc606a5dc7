"""Turn a batch's bytes into counted records placed in their units (PURE).

Two paths, one parser:
* errors only (the question needs only 5xx lines and the format has a byte
  prefilter): one compiled bytes regex over the whole batch finds candidate
  lines; only those are parsed. Lines that fail the prefilter cannot hold a
  5xx record, so they are counted as lines but never parsed.
* all lines: every line is parsed.

Lines become an Arrow string array over the batch buffer without copying
(``formats.batchlines``); Polars parses them.
``malformed`` and ``invalid_utf8`` count among the *parsed* lines
(``parsed``): with the prefilter that is the candidates, not every line.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import polars as pl

from logagent.formats import quick
from logagent.formats.base import (
    BUCKET,
    PATH,
    STATUS,
    Format,
    Stages,
    fast_variant,
    staged_fields,
)
from logagent.formats.batchlines import (
    all_lines,
    candidate_lines,
    coloured,
    coloured_candidates,
    decode_lines,
    decolour,
    line_ends,
)
from logagent.formats.parallel import collect, slices
from logagent.formats.routes import INVALID_REQUEST, RouteRule, normalize_paths, with_routes
from logagent.formats.stagedtime import representable_epoch
from logagent.sources.batches import I64, Batch
from logagent.sources.locate import int64_series

UNIT, ROUTE, N = "unit", "route", "n"
#: Optional columns of ``Format.fields`` (see formats/adapter.py) and what ``valid`` counts.
CONTINUATION, IN_WINDOW, OUTSIDE = "continuation", "in_window", "outside_window"
#: Continuation lines that look like no part of a record (``records.continuation_like``).
UNLIKE = "unlike_continuation"
#: Blank lines (nothing but blanks) among those parsed: no record, no continuation, not
#: malformed, and not counted as parsed (``counters.tally``).
BLANK = "blank"
_LINE = "_line"  # the parsed line itself, kept beside its fields (a view: no copy)
#: The route of every record when the question has no key (``extract_scanned(keyed=False)``).
ANY_ROUTE = "*"


@dataclass(frozen=True)
class Extracted:
    """A batch's records as lazy queries, plus line counters known without parsing.

    ``records`` has columns unit (Int64; -1 where the unit is not tracked: only
    5xx lines keep theirs), route (str), status (Int32) and n (Int64), for the
    valid records the question needs; ``valid`` is a one-row query counting the
    valid records among the ``parsed`` lines (column ``valid``), the lines that
    continue a multi-line record (``continuation``) and the valid records
    outside the time window (``outside_window``). Running ``valid`` is the
    tally's job; ``records`` is already computed (a frame behind a lazy face).
    """

    records: pl.LazyFrame
    valid: pl.LazyFrame
    lines: int
    parsed: int
    invalid_utf8: int
    all_units: bool = False


@dataclass(frozen=True)
class Scanned:
    """The lines of one batch that need parsing, each with its unit, and the batch's line count.

    ``counted``: the status counts of the batch's lines already counted unparsed
    (``count_quick``), which are then no longer in ``text``; ``in_buffer``: whether ``text``
    is views into the batch's buffer (which it then keeps from being read into again).
    """

    text: pl.Series
    units: I64
    lines: int
    invalid_utf8: int
    counted: pl.DataFrame | None = None
    in_buffer: bool = True

    @property
    def weight(self) -> int:
        """The lines a pool counts this scan for (``ParsePool.due``): those it holds, or,
        while they hold the batch's buffer, every line of the batch (a pool then parses
        as soon as it did when it held every line: a buffer per few batches)."""
        return self.lines if self.in_buffer and self.counted is not None else len(self.text)


def count_quick(scanned: Scanned, pattern: str, min_line_bytes: int) -> Scanned:
    """``scanned`` with the lines ``pattern`` takes (``quick.split``) counted, not kept: a pool
    of status questions keeps only the few lines left to parse, batch after batch, and parses
    them once (``ParsePool``), where every batch of ~40,000 lines had paid for a parse call
    and a tally of its ~200 leftovers. The lines left are copied out of the batch's buffer;
    too many to copy (``quick.OWN_BYTES``), they stay in it, and the pool parses them as soon
    as it would have parsed every line (``Scanned.weight``)."""
    if scanned.counted is not None:
        return scanned
    part = quick.split(scanned.text, scanned.units, pattern, min_line_bytes)
    rest = quick.owned(part.rest)
    text, in_buffer = (part.rest, True) if rest is None else (rest, False)
    return replace(
        scanned, text=text, units=part.rest_units, counted=part.counts, in_buffer=in_buffer
    )


def scan(batch: Batch, fmt: Format, *, errors_only: bool, ends: I64 | None = None) -> Scanned:
    """Find the lines of ``batch`` the question needs (all, or 5xx candidates) and their units.

    ``ends``: the batch's newline positions, found by the caller (``line_ends``), for a
    question that needs every line (``ValueError`` for one that needs candidates only)."""
    prefilter = fmt.error_prefilter if errors_only else None
    if ends is not None and (prefilter is not None or batch.found is not None):
        raise ValueError("newline positions are given for a scan of every line only")
    if batch.found is not None:  # prescanned by the reader: only its candidate lines are left
        if prefilter is None:
            raise ValueError("a prescanned batch holds only the lines of an errors-only question")
        raw, starts = batch.found
        lines, count = decolour(decode_lines(raw, starts)), batch.lines
    elif prefilter is None:
        ends = line_ends(batch.data, batch.size) if ends is None else ends
        batch.know_lines(len(ends))
        lines, count = all_lines(batch, ends), len(ends)
        lines = decolour(lines) if coloured(batch) else lines
    elif coloured(batch):
        lines, count = coloured_candidates(batch, prefilter)
    else:
        lines, count = candidate_lines(batch, prefilter)
    return Scanned(lines.text, batch.units_of(lines.starts), count, lines.invalid_utf8)


def extract(
    batch: Batch,
    fmt: Format,
    *,
    errors_only: bool,
    rules: Sequence[RouteRule] | None,
) -> Extracted:
    """Plan the parse of the lines ``batch`` needs; ``rules=None`` keeps raw paths."""
    return extract_scanned(
        [scan(batch, fmt, errors_only=errors_only)], fmt, errors_only=errors_only, rules=rules
    )


def extract_scanned(
    scans: Sequence[Scanned],
    fmt: Format,
    *,
    errors_only: bool,
    rules: Sequence[RouteRule] | None,
    all_units: bool = False,
    track_units: bool = True,
    keyed: bool = True,
) -> Extracted:
    """Plan one parse over the lines of several scanned batches (Polars' cost is per call).

    Records keep their unit only for 5xx lines, unless ``all_units`` (the
    error-rate evidence needs every unit's requests per route). A read of
    everything needs no per-unit counts at all (``track_units=False``: every
    unit is -1), which keeps its memory flat however long the input.
    ``keyed=False`` (a status distribution): no path is parsed or grouped;
    every record counts under the one route ``ANY_ROUTE``.
    """
    text = pl.concat([s.text for s in scans]) if len(scans) > 1 else scans[0].text
    units = np.concatenate([s.units for s in scans]) if len(scans) > 1 else scans[0].units
    # A line whose record holds its status alone is counted by it unparsed (formats/quick.py),
    # here or already by the pool (``count_quick``).
    counts = [s.counted for s in scans if s.counted is not None]
    pattern = None if keyed or all_units or errors_only else quick.quick_pattern(fmt)
    if counts and pattern is None:
        raise ValueError("lines were counted unparsed for a question that needs them parsed")
    if pattern is not None and len(counts) < len(scans):
        part = quick.split(text, units, pattern, fmt.min_line_bytes)
        text, units = part.rest, part.rest_units
        counts.append(part.counts)
    counted = pl.concat(counts) if counts else None  # summed with the records (``_with_counted``)
    unparsed = int(counted[quick.N].sum()) if counted is not None else 0
    parsed = len(text) + unparsed  # every line is counted unparsed or parsed below
    stages, fields = _staged(fmt)
    split = _split(fmt)
    if not keyed:  # nothing reads the path: Polars then never computes it
        fields = {**fields, PATH: pl.lit(ANY_ROUTE, dtype=pl.String)}
        if split is not None:
            split = replace(split, fields={**split.fields, PATH: fields[PATH]})
    lines = pl.LazyFrame({"line": text, UNIT: int64_series(units, UNIT)})
    base = _parse(lines, len(text), fields, stages, split).lazy()
    ok = pl.col(STATUS).is_not_null() & (pl.col("nbytes") >= fmt.min_line_bytes)
    # Optional columns (formats/adapter.py): a continuation line is neither a record nor
    # malformed; a record outside the time window is valid but not counted.
    cont = pl.col(CONTINUATION).fill_null(False) if CONTINUATION in fields else pl.lit(False)
    ok = ok & ~cont
    inside = pl.col(IN_WINDOW).fill_null(False) if IN_WINDOW in fields else pl.lit(True)
    is_5xx = pl.col(STATUS).is_between(500, 599)
    keys = [UNIT, PATH, STATUS, *([BUCKET] if BUCKET in fields else [])]  # the timeline's bucket
    # a bucket the report cannot write (year 0000) is no time (a column here: checked once)
    bucket = [representable_epoch(pl.col(BUCKET)).alias(BUCKET)] if BUCKET in fields else []
    unit = pl.when((is_5xx | all_units) & track_units).then(pl.col(UNIT)).otherwise(-1)
    records = (
        base.filter(ok & inside & is_5xx if errors_only else ok & inside)
        .with_columns(unit.alias(UNIT), *bucket)
        .group_by(keys)
        .agg(pl.len().cast(pl.Int64).alias(N))
    )
    if getattr(fmt, "raw_keys", False):  # --by a field that is no path: keys as written
        routed = records.with_columns(pl.col(PATH).fill_null(INVALID_REQUEST).alias(ROUTE))
    else:
        routed = with_routes(records, PATH, rules)
    # Computed here, once: the tally runs five queries over the records (seven with a
    # timeline) and cron keeps them too; left lazy, Polars folded the routes again for each
    # (1 GB --full with the timeline: 1.26 s against 1.07 s without; now 1.10 against 1.07).
    out_keys = [ROUTE if k == PATH else k for k in keys]
    done = routed.group_by(out_keys).agg(pl.col(N).sum()).collect()
    if counted is not None and len(counted):
        raw = getattr(fmt, "raw_keys", False)
        route = ANY_ROUTE if raw else _route_of_any(tuple(rules) if rules is not None else None)
        done = _with_counted(done, counted, out_keys, route)
    # a blank line is no record and not malformed: an apache error log's 13 blank lines of 14
    # were "35.9 % malformed", a log4j log's trailing one "a line continuing a record" (tested
    # on the lines that are no record only: stripping every line cost ~30 ns a line)
    blank = pl.col(_LINE).filter(~ok).str.strip_chars().str.len_bytes() == 0
    return Extracted(
        records=done.lazy(),
        valid=base.select(
            (ok.sum() + unparsed).alias("valid"),
            (cont.sum() - (blank & cont.filter(~ok)).sum()).alias(CONTINUATION),
            *([(pl.col(UNLIKE) & cont & ~ok).sum().alias(UNLIKE)] if UNLIKE in fields else []),
            (ok & ~inside).sum().alias(OUTSIDE),
            blank.sum().alias(BLANK),
        ),
        lines=sum(s.lines for s in scans),
        parsed=parsed,
        invalid_utf8=sum(s.invalid_utf8 for s in scans),
        all_units=all_units,
    )


def _with_counted(
    done: pl.DataFrame, counts: pl.DataFrame, keys: list[str], route: str
) -> pl.DataFrame:
    """The parsed records plus the quick lines' status counts (``quick.split``): records of
    no unit (-1), ``route`` and no bucket."""
    fill = {UNIT: pl.lit(-1), ROUTE: pl.lit(route), BUCKET: pl.lit(None)}
    extra = counts.select(
        *(pl.col(c) if c in counts.columns else fill[c].alias(c) for c in done.columns)
    )
    both = pl.concat([done, extra.cast(done.schema)])
    return both.group_by(keys).agg(pl.col(N).sum())


def _staged(fmt: Format) -> tuple[Stages, dict[str, pl.Expr]]:
    """``staged_fields(fmt, pl.col("line"))``, built once per format where it is hashable
    (a read of everything parses ~40 pools a GB, and log4j's expressions took 2.6 ms to
    build); equal formats build equal expressions."""
    try:
        return _staged_once(fmt)  # type: ignore[arg-type]  # unhashable: TypeError
    except TypeError:  # a field of the format is a dict or a list
        return staged_fields(fmt, pl.col("line"))


@functools.lru_cache(maxsize=8)
def _staged_once(fmt: Format) -> tuple[Stages, dict[str, pl.Expr]]:
    return staged_fields(fmt, pl.col("line"))


@dataclass(frozen=True)
class FastSplit:
    """The lines a layout's fast patterns read (``read``, over the first stage's columns),
    parsed by its fast variant's later ``stages`` into ``fields`` (``base.fast_variant``)."""

    read: pl.Expr
    stages: Stages
    fields: dict[str, pl.Expr]


def _split(fmt: Format) -> FastSplit | None:
    """``fmt``'s ``FastSplit``, built once per format where it is hashable (as ``_staged``)."""
    try:
        return _split_once(fmt)  # type: ignore[arg-type]  # unhashable: TypeError
    except TypeError:
        return _split_of(fmt)


@functools.lru_cache(maxsize=8)
def _split_once(fmt: Format) -> FastSplit | None:
    return _split_of(fmt)


def _split_of(fmt: Format) -> FastSplit | None:
    found = fast_variant(fmt)
    if found is None:
        return None
    variant, read = found
    stages, _ = _staged(fmt)
    fast_stages, fields = staged_fields(variant, pl.col("line"))
    if not stages or not fast_stages or list(stages[0]) != list(fast_stages[0]):
        return None  # the two parses do not open alike: no split
    return FastSplit(read, fast_stages[1:], fields)


@functools.lru_cache(maxsize=8)
def _route_of_any(rules: tuple[RouteRule, ...] | None) -> str:
    """The route ``ANY_ROUTE`` folds to by ``rules``, as a parsed record's does (a rule of
    the configuration may match ``*``)."""
    return str(normalize_paths(pl.Series([ANY_ROUTE]), rules)[0])


def _parse(
    lines: pl.LazyFrame,
    n: int,
    fields: dict[str, pl.Expr],
    stages: Stages = (),
    split: FastSplit | None = None,
) -> pl.DataFrame:
    """Parse every line once, in slices on Polars' threads (one regex call is one thread),
    each slice's helper columns first (``base.staged_fields``).

    With a ``split`` the first stage (a layout's fast captures) is computed first; the
    lines it read then go on through the fast variant's stages, the others through the
    whole layout's (their rows come after: the callers only group and sum them).
    Materialized: the tally runs several queries over it, and Polars would
    otherwise parse the lines again for each of them.
    """
    parts = [lines.slice(lo, hi - lo) for lo, hi in slices(n)]
    plans: list[tuple[pl.LazyFrame, Stages, dict[str, pl.Expr]]] = []
    if split is None or not stages:
        plans = [(part, stages, fields) for part in parts]
    else:
        for opened in collect([part.with_columns(**stages[0]) for part in parts]):
            read = opened.select(split.read).to_series()
            # each half in one chunk: a filtered frame's two chunks made Polars 1.44 panic
            # in a when/then over its struct column (an assertion on the chunk counts)
            plans.append((opened.filter(read).rechunk().lazy(), split.stages, split.fields))
            plans.append((opened.filter(~read).rechunk().lazy(), stages[1:], fields))
    out = []
    for plan, steps, cols in plans:
        for stage in steps:
            plan = plan.with_columns(**stage)
        out.append(
            plan.select(UNIT, **cols, nbytes=pl.col("line").str.len_bytes(), **{_LINE: "line"})
        )
    return pl.concat(collect(out))
