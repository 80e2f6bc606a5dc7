"""Match messages against a frozen template set, vectorized (PURE).

Each message is masked (``masking.mask_expr``); the batch's *distinct* masked
strings are tested against the templates' anchored regexes, most specific
template first, and the answer is joined back onto every message. A message no
template covers gets ``OTHER``: the caller counts it as the REST the stats note
bounds. Nothing here changes the template set, so the counts of a batch do not
depend on which batches came before it.
"""

from __future__ import annotations

import polars as pl

from .masking import mask_expr
from .mining import OTHER, TemplateSet


def classify_expr(template_set: TemplateSet, masked: pl.Expr) -> pl.Expr:
    """Template id of each *masked* string: first matching template in set order, else OTHER."""
    expr: pl.Expr = pl.lit(OTHER)
    for t in reversed(template_set.templates):
        expr = pl.when(masked.str.contains(t.pattern)).then(pl.lit(t.id)).otherwise(expr)
    return expr


def match_expr(template_set: TemplateSet, messages: pl.Expr) -> pl.Expr:
    """Template id of each raw message as an expression (null messages give OTHER)."""
    return classify_expr(template_set, mask_expr(messages)).fill_null(OTHER)


def match(template_set: TemplateSet, messages: pl.Series) -> pl.Series:
    """Template id (or ``OTHER``) of each message; same length and order as ``messages``.

    Tests each distinct masked string once, so a batch costs one masking pass
    plus (distinct strings x templates) regex tests.
    """
    frame = pl.DataFrame({"m": messages.cast(pl.String)}).with_columns(k=mask_expr(pl.col("m")))
    keys = frame.select(pl.col("k").unique()).filter(pl.col("k").is_not_null())
    lookup = keys.with_columns(t=classify_expr(template_set, pl.col("k")))
    joined = frame.join(lookup, on="k", how="left", maintain_order="left")
    return joined["t"].fill_null(OTHER).alias("template")


def count(template_set: TemplateSet, messages: pl.Series) -> dict[str, int]:
    """Messages per template id (``OTHER`` included when non-zero)."""
    ids = match(template_set, messages)
    return {str(k): int(n) for k, n in ids.value_counts().iter_rows()}
