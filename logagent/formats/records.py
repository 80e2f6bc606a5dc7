"""Fold multi-line records (stack traces) into the record they continue (PURE, vectorized).

A line starts a record when it matches the format's ``record_start``; every
other line (``\\tat …``, ``Caused by: …``, ``... 12 more``, a traceback, a
line that is no record start at all) continues the record before it. Record
ids are the running count of starts, so the whole fold is one cumulative sum
and one group-by per batch. Lines before the first start of the input have
no record: they come out as one row with ``start`` false (malformed lines).

The unit rule extends to records (stats note §2): a record belongs to the
unit where its *first* line starts; ``sources.records`` reads each unit so
that its lines are exactly its records.
"""

from __future__ import annotations

import polars as pl

from logagent.formats.app import MESSAGE, AppFormat

UNIT, LINES, START, VALID, CONTINUATION = "unit", "lines", "start", "valid", "continuation"

#: Lines that continue a record (stack traces, tracebacks, goroutine dumps).
#: Jenkins writes ``Caused: java.lang.X``; a Python traceback ends in the exception's dotted
#: name, a class whatever it is called (``psycopg2.errors.UniqueViolation: ...``; not
#: ``nginx.service: ...``, systemd's line of another program); a driver's error
#: text goes on with ``DETAIL:``/``HINT:``/``LINE 1:`` (a real-log probe found these lines
#: read as another program's: "only 50 % of sampled lines parse as python").
CONTINUATION_LIKE = (
    r"^(?:[ \t]|at |Caused by:|Caused: |Suppressed:|\.\.\. [0-9]+ (?:more|common frames)|"
    r"Traceback |During handling|The above exception|"
    r"[A-Za-z_][A-Za-z0-9_.$]*(?:Error|Exception|Exit)\b|"
    r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*\.[A-Z][A-Za-z0-9_$]*: |"
    r"(?:DETAIL|HINT|CONTEXT|QUERY|LINE [0-9]+):  ?|goroutine |panic: |$)"
)


def continuation_like(fmt: object) -> str:
    """``CONTINUATION_LIKE``, widened by what the layout itself writes inside a record."""
    own = getattr(fmt, "continuation", None)
    return CONTINUATION_LIKE if own is None else f"{CONTINUATION_LIKE}|^(?:{own})"


def start_expr(fmt: AppFormat, line: pl.Expr) -> pl.Expr:
    """Whether each line starts a record (always true for single-line formats)."""
    if fmt.record_start is None:
        return line.is_not_null() | line.is_null()  # per row (a literal would not cum_sum)
    return line.str.contains("^(?:" + fmt.record_start + ")")


def fold_query(frame: pl.LazyFrame, fmt: AppFormat) -> pl.LazyFrame:
    """One row per record from ``frame`` (columns ``line`` and ``unit``, in file order).

    Columns: unit (of the first line), the app columns of the first line with
    the continuation appended to ``message``, ``continuation`` (the folded
    lines, null when none), ``lines`` (line count), ``start`` (false for the
    lines before the first record) and ``valid`` (a record that parses and is
    at least ``min_line_bytes`` long).
    """
    line = pl.col("line")
    records = (
        frame.with_columns(rid=start_expr(fmt, line).cum_sum().fill_null(0))
        .group_by("rid", maintain_order=True)
        .agg(
            pl.col(UNIT).first(),
            line.first().alias("first"),
            line.slice(1).str.join("\n").alias(CONTINUATION),
            pl.len().cast(pl.Int64).alias(LINES),
        )
    )
    fields = fmt.fields(pl.col("first"))
    is_start = start_expr(fmt, pl.col("first"))
    long_enough = pl.col("first").str.len_bytes() >= fmt.min_line_bytes
    cont = pl.when(pl.col(LINES) > 1).then(pl.col(CONTINUATION))
    return records.select(
        UNIT,
        **{k: v for k, v in fields.items() if k != MESSAGE},
        message=pl.when(cont.is_null())
        .then(fields[MESSAGE])
        .otherwise(pl.concat_str([fields[MESSAGE], pl.lit("\n"), cont])),
        continuation=cont,
        lines=LINES,
        start=is_start,
        valid=is_start & fields[MESSAGE].is_not_null() & long_enough,
    )


def fold_records(lines: pl.Series, fmt: AppFormat, units: pl.Series | None = None) -> pl.DataFrame:
    """``fold_query`` over a column of lines (all in unit 0 unless ``units`` is given)."""
    unit = units if units is not None else pl.Series(UNIT, [0] * lines.len(), dtype=pl.Int64)
    frame = pl.LazyFrame({"line": lines, UNIT: unit})
    return fold_query(frame, fmt).collect()
