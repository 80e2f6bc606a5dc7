"""Mine error templates from a pilot sample and freeze them (PURE).

Drain (the ``drain3`` package) generalizes masked messages into templates such
as ``Timeout after <DUR> calling <*>``. Drain's clusters depend on the order
messages arrive in, so it is never fed the log in reading order: ``mine`` takes
the pilot's *distinct masked strings, sorted*, so the same set of messages gives
the same templates however the units were read. The result is a frozen
``TemplateSet`` whose ids are short hashes of the template text (not Drain's
insertion counters), ranked by a canonical order; matching the whole log
against it (``matching.match``) never changes it.

Memory is bounded twice: Drain keeps at most ``4 * max_templates`` clusters
while mining, and the frozen set keeps the ``max_templates`` most frequent.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from .masking import mask_expr, redact_expr

OTHER = "OTHER"
WILDCARD = "<*>"
#: Drain keeps this many candidate clusters per template finally kept.
CANDIDATES_PER_TEMPLATE = 4

# drain3 logs every start at INFO through the root machinery; it is not ours to print.
logging.getLogger("drain3").setLevel(logging.WARNING)


@dataclass(frozen=True, slots=True)
class MiningConfig:
    """Drain's knobs. ``sim_th``: share of equal tokens for a message to join a cluster."""

    max_templates: int = 200
    sim_th: float = 0.6
    depth: int = 4
    max_children: int = 100
    max_examples: int = 3


@dataclass(frozen=True, slots=True)
class Template:
    """One frozen template: stable id, text, anchored regex over masked strings, examples."""

    id: str
    text: str
    pattern: str
    pilot_count: int
    examples: tuple[str, ...]

    @property
    def wildcards(self) -> int:
        """How many ``<*>`` tokens the template has (fewer is more specific)."""
        return self.text.split(" ").count(WILDCARD)


@dataclass(frozen=True, slots=True)
class TemplateSet:
    """Templates in matching order (most specific first); immutable once mined."""

    templates: tuple[Template, ...]
    pilot_messages: int
    pilot_other: int

    @property
    def ids(self) -> tuple[str, ...]:
        """Template ids in matching order."""
        return tuple(t.id for t in self.templates)

    def get(self, template_id: str) -> Template:
        """The template with this id (KeyError when unknown)."""
        for t in self.templates:
            if t.id == template_id:
                return t
        raise KeyError(template_id)

    def text(self, template_id: str) -> str:
        """Template text of an id; ``OTHER`` names the rest."""
        return OTHER if template_id == OTHER else self.get(template_id).text

    def examples(self, template_id: str) -> tuple[str, ...]:
        """A few pilot messages of this template, e-mails and IPs masked."""
        return () if template_id == OTHER else self.get(template_id).examples


def template_id(text: str) -> str:
    """Stable id of a template text: ``T`` + 10 hex digits of its BLAKE2b hash."""
    return "T" + hashlib.blake2b(text.encode(), digest_size=5).hexdigest()


def template_pattern(text: str) -> str:
    """Anchored regex matching the masked strings this template covers."""
    parts = (r"\S+" if tok == WILDCARD else re.escape(tok) for tok in text.split(" "))
    return "^" + " ".join(parts) + "$"


def specificity_key(text: str) -> tuple[int, int, str]:
    """Matching order: fewest wildcards, then most literal characters, then text."""
    toks = text.split(" ")
    literal = sum(len(t) for t in toks if t != WILDCARD)
    return (toks.count(WILDCARD), -literal, text)


def mine(messages: Sequence[str] | pl.Series, config: MiningConfig | None = None) -> TemplateSet:
    """Mine templates from pilot ``messages``; the result does not depend on their order."""
    cfg = config or MiningConfig()
    if cfg.max_templates < 1:
        raise ValueError(f"max_templates must be >= 1, got {cfg.max_templates}")
    series = pl.Series("m", messages, dtype=pl.String).drop_nulls()
    distinct = _distinct_masked(series, cfg.max_examples)
    texts = drain_templates(distinct["masked"].to_list(), cfg)
    return _freeze(texts, distinct, len(series), cfg)


def _distinct_masked(series: pl.Series, max_examples: int) -> pl.DataFrame:
    """Distinct masked strings (sorted) with their count and a few redacted examples."""
    frame = pl.DataFrame({"raw": series}).with_columns(masked=mask_expr(pl.col("raw")))
    return (
        frame.filter(pl.col("masked") != "")
        .group_by("masked")
        .agg(
            n=pl.len(),
            examples=redact_expr(pl.col("raw")).unique().sort().head(max_examples),
        )
        .sort("masked")
    )


def drain_templates(sorted_masked: Sequence[str], cfg: MiningConfig) -> list[str]:
    """Drain's templates for distinct masked strings given in canonical (sorted) order."""
    # drain3 is imported here, only when templates are mined (it costs start-up otherwise)
    from drain3 import TemplateMiner  # type: ignore[import-untyped]  # drain3 ships no type hints
    from drain3.template_miner_config import (  # type: ignore[import-untyped]  # as above
        TemplateMinerConfig,
    )

    conf = TemplateMinerConfig()
    conf.drain_sim_th = cfg.sim_th
    conf.drain_depth = cfg.depth
    conf.drain_max_children = cfg.max_children
    conf.drain_max_clusters = cfg.max_templates * CANDIDATES_PER_TEMPLATE
    miner = TemplateMiner(config=conf)
    for text in sorted_masked:
        miner.add_log_message(text)
    return sorted({c.get_template() for c in miner.drain.clusters})


def _freeze(
    texts: list[str], distinct: pl.DataFrame, n_messages: int, cfg: MiningConfig
) -> TemplateSet:
    """Keep the ``max_templates`` most frequent candidates in the pilot; order them for matching."""
    ordered = sorted(texts, key=specificity_key)
    first = _first_match(ordered, distinct["masked"])
    hits = distinct.with_columns(t=first).filter(pl.col("t").is_not_null())
    sums = hits.group_by("t").agg(pl.col("n").sum())
    quotes = (
        hits.explode("examples", empty_as_null=True)
        .group_by("t")
        .agg(pl.col("examples").unique().sort())
    )
    stats = sums.join(quotes, on="t", how="left")
    counts = {row[0]: (row[1], row[2] or []) for row in stats.iter_rows()}
    kept = sorted(counts, key=lambda t: (-counts[t][0], t))[: cfg.max_templates]
    templates = tuple(
        Template(
            template_id(t),
            t,
            template_pattern(t),
            counts[t][0],
            tuple(counts[t][1][: cfg.max_examples]),
        )
        for t in sorted(kept, key=specificity_key)
    )
    matched = sum(t.pilot_count for t in templates)
    return TemplateSet(templates, n_messages, n_messages - matched)


def _first_match(texts: Sequence[str], masked: pl.Series) -> pl.Series:
    """Text of the first template (in ``texts`` order) matching each masked string, else null."""
    expr: pl.Expr = pl.lit(None, dtype=pl.String)
    for text in reversed(texts):
        expr = (
            pl.when(pl.col("m").str.contains(template_pattern(text)))
            .then(pl.lit(text))
            .otherwise(expr)
        )
    return pl.DataFrame({"m": masked}).with_columns(t=expr)["t"]
