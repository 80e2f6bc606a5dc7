"""``--where`` conditions: their grammar and their Polars expressions (PURE).

A condition is ``FIELD OP VALUE`` with OP one of ``= != >= <= > < ~ !~``:

* ``status=5xx`` / ``status!=2xx`` - an HTTP status class; ``status=404`` or
  ``status=500,502`` - codes; ``status>=400`` - a numeric comparison;
* ``level>=warn`` - levels compare by severity (TRACE < DEBUG < INFO < WARN <
  ERROR < FATAL); ``level=error`` is that level alone;
* ``message~timeout`` - a regular expression (Rust syntax, as Polars runs it;
  ``(?i)`` for case-insensitive); ``!~`` its negation;
* anything else compares as text (``rcode_name=NXDOMAIN``, ``method!=GET``;
  commas list alternatives), or as a number when both sides are numbers
  (``bytes>10000``).

A record matches a condition only when the field is present: a missing value
never matches (``!=`` included), so ``--where user!=bob`` means "records that
name a user other than bob".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import polars as pl

from logagent.errors import ConfigError
from logagent.formats.levels import DEBUG, ERROR, FATAL, INFO, TRACE, WARN

#: Levels from the least to the most severe.
SEVERITY = (TRACE, DEBUG, INFO, WARN, ERROR, FATAL)
_LEVEL_WORDS = {
    "trace": TRACE,
    "debug": DEBUG,
    "info": INFO,
    "notice": INFO,
    "warn": WARN,
    "warning": WARN,
    "error": ERROR,
    "err": ERROR,
    "fatal": FATAL,
    "critical": FATAL,
    "crit": FATAL,
    "emerg": FATAL,
    "alert": FATAL,
}
_COND = re.compile(r"^\s*([A-Za-z_@][A-Za-z0-9_.@\-]*)\s*(!=|>=|<=|!~|=|>|<|~)\s*(.*?)\s*$")
_CLASS = re.compile(r"^([1-5])xx$", re.IGNORECASE)
_NUMBER = re.compile(r"^-?[0-9]+(?:\.[0-9]+)?$")
GRAMMAR = (
    "FIELD OP VALUE with OP one of = != >= <= > < ~ !~ (e.g. status=5xx, status>=400, "
    "level>=warn, rcode_name=NXDOMAIN, message~timeout)"
)


@dataclass(frozen=True)
class Cond:
    """One parsed condition."""

    field: str
    op: str
    value: str

    @property
    def text(self) -> str:
        """The condition as the user would write it."""
        return f"{self.field}{self.op}{self.value}"


def parse_cond(text: str) -> Cond:
    """``text`` as a condition; a malformed one is a usage error naming the grammar."""
    m = _COND.match(text)
    if m is None or not m.group(3):
        raise ConfigError(f"--where {text!r} is not a condition: write {GRAMMAR}")
    field, op, value = m.group(1), m.group(2), m.group(3)
    cond = Cond(field, op, value)
    if field == "level" and op not in ("~", "!~"):
        for word in value.split(","):
            if word.strip().lower() not in _LEVEL_WORDS:
                raise ConfigError(
                    f"--where {text!r}: {word!r} is no level (known: "
                    f"{', '.join(w.lower() for w in SEVERITY)})"
                )
    if field == "status" and op in ("=", "!="):
        for word in (w.strip() for w in value.split(",")):
            if not (_CLASS.match(word) or _NUMBER.match(word)):
                raise ConfigError(
                    f"--where {text!r}: a status is a code (404) or a class (5xx), not {word!r}"
                )
    if op in ("~", "!~"):
        _check_regex(value, text)
    elif op in (">", "<", ">=", "<=") and field != "level" and not _NUMBER.match(value):
        raise ConfigError(f"--where {text!r}: {op} compares numbers, and {value!r} is none")
    return cond


def _check_regex(pattern: str, text: str) -> None:
    try:
        pl.Series([""], dtype=pl.String).str.contains(pattern)
    except pl.exceptions.ComputeError as exc:  # Rust's message, without Polars' expression
        why = str(exc).split("\n\nThis error occurred", 1)[0].strip()
        why = why.removeprefix("regex error: ").replace("\n", " ")
        why = " ".join(why.split())
        raise ConfigError(f"--where {text!r}: not a valid regular expression ({why})") from exc


def level_rank(value: str) -> int:
    """The severity rank of a level word (``warn`` -> 3)."""
    return SEVERITY.index(_LEVEL_WORDS[value.strip().lower()])


def cond_expr(cond: Cond, value: pl.Expr) -> pl.Expr:
    """Whether each record's ``value`` of ``cond.field`` meets ``cond`` (null: never)."""
    if cond.op in ("~", "!~"):
        found = value.cast(pl.String).str.contains(cond.value)
        out = found if cond.op == "~" else ~found
    elif cond.field == "level":
        out = _level_expr(cond, value)
    elif cond.field == "status" and cond.op in ("=", "!="):
        out = _status_expr(cond, value)
    elif cond.op in ("=", "!="):
        words = [w.strip() for w in cond.value.split(",")]
        if all(_NUMBER.match(w) for w in words):
            number = value.cast(pl.String).cast(pl.Float64, strict=False)
            hit = number.is_in([float(w) for w in words]) | value.cast(pl.String).is_in(words)
        else:
            hit = value.cast(pl.String).is_in(words)
        out = hit if cond.op == "=" else ~hit
    else:
        out = _compare(value.cast(pl.String).cast(pl.Float64, strict=False), cond.op, cond.value)
    return (value.is_not_null() & out).fill_null(False)


def _compare(number: pl.Expr, op: str, value: str) -> pl.Expr:
    bound = float(value)
    if op == ">":
        return number > bound
    if op == "<":
        return number < bound
    if op == ">=":
        return number >= bound
    return number <= bound


def _status_expr(cond: Cond, value: pl.Expr) -> pl.Expr:
    status = value.cast(pl.String).cast(pl.Int32, strict=False)
    hits = []
    for word in (w.strip() for w in cond.value.split(",")):
        cls = _CLASS.match(word)
        if cls:
            low = int(cls.group(1)) * 100
            hits.append(status.is_between(low, low + 99))
        else:  # a number (parse_cond checked it)
            hits.append(status == int(float(word)))
    hit = pl.any_horizontal(hits)
    return hit if cond.op == "=" else ~hit


def _level_expr(cond: Cond, value: pl.Expr) -> pl.Expr:
    ranks = {name: i for i, name in enumerate(SEVERITY)}
    rank = value.cast(pl.String).replace_strict(ranks, default=None, return_dtype=pl.Int32)
    if cond.op in ("=", "!="):
        wanted = [level_rank(w) for w in cond.value.split(",")]
        hit = rank.is_in(wanted)
        return hit if cond.op == "=" else ~hit
    return _compare(rank.cast(pl.Float64), cond.op, str(level_rank(cond.value)))


def status_range(conds: tuple[Cond, ...]) -> tuple[int, int] | None:
    """The narrowest range [low, high] of HTTP statuses the conditions admit, when they pin one.

    Used for the byte prefilter (statuses within 500-599: only ``" 5xx`` lines
    need parsing) and for the per-key breakdown (one class: each code apart).
    """
    low, high = 0, 999
    pinned = False
    for c in conds:
        if c.field != "status":
            continue
        if c.op == "=":
            words = [w.strip() for w in c.value.split(",")]
            spans = []
            for w in words:
                cls = _CLASS.match(w)
                if cls:
                    spans.append((int(cls.group(1)) * 100, int(cls.group(1)) * 100 + 99))
                elif _NUMBER.match(w):
                    spans.append((int(float(w)), int(float(w))))
            if spans:
                low = max(low, min(s[0] for s in spans))
                high = min(high, max(s[1] for s in spans))
                pinned = True
        elif c.op in (">=", ">", "<=", "<") and _NUMBER.match(c.value):
            v = float(c.value)
            if c.op == ">=":
                low = max(low, int(-(-v // 1)))
            elif c.op == ">":
                low = max(low, int(v // 1) + 1)
            elif c.op == "<=":
                high = min(high, int(v // 1))
            else:
                high = min(high, int(-(-v // 1)) - 1)
            pinned = True
    return (low, high) if pinned else None


def least_level(conds: tuple[Cond, ...]) -> str | None:
    """The least level a record must have under the conditions (for a level prefilter)."""
    least: int | None = None
    for c in conds:
        if c.field != "level" or c.op in ("~", "!~", "!=", "<", "<="):
            continue
        if c.op == "=":
            rank = min(level_rank(w) for w in c.value.split(","))
        else:
            rank = level_rank(c.value) + (1 if c.op == ">" else 0)
        least = rank if least is None else max(least, rank)
    return None if least is None or least >= len(SEVERITY) else SEVERITY[least]
