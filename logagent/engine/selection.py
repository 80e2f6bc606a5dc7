"""``--by`` / ``--where`` against the detected format: check the fields, build ``Selected``.

A field the format does not yield is a usage error naming the fields it has;
for JSON and logfmt layouts any key is a field, but one that no sampled
record holds is refused too (a typo would otherwise rank nothing).
"""

from __future__ import annotations

import json
import re

import polars as pl

from logagent.errors import ConfigError
from logagent.formats.app import COMPONENT, LEVEL
from logagent.formats.base import STATUS, Format
from logagent.formats.catalog import NO_LEVEL, AnyFormat, is_app
from logagent.formats.fieldsets import ROUTE, fields_of_format, getter, is_named_key
from logagent.formats.levelfilter import level_prefilter
from logagent.formats.selected import Selected
from logagent.formats.where import SEVERITY, Cond, least_level, parse_cond, status_range
from logagent.result import Question


def select(question: Question, found: AnyFormat, view: Format, sample: list[str]) -> Selected:
    """The ``Selected`` format of a ``top`` question (see module doc)."""
    app = is_app(found)
    by = question.by or (COMPONENT if app else ROUTE)
    conds = tuple(parse_cond(w) for w in question.where)
    names, any_key = fields_of_format(found)
    if found.name in NO_LEVEL and LEVEL in (by, *(c.field for c in conds)):
        raise ConfigError(
            f"{found.name} records carry no level, so a level cannot be ranked or asked for: "
            f"its fields are {', '.join(n for n in names if n != LEVEL)}",
            format=found.name,
        )
    for name in (by, *(c.field for c in conds)):
        if name in names:
            continue
        if not (any_key and is_named_key(name)):
            raise ConfigError(
                f"{found.name} has no field {name!r}: its fields are {', '.join(names)}"
                + (", and any key its records hold" if any_key else ""),
                format=found.name,
            )
        if not _seen(found, view, name, sample):
            held = _keys_held(sample)
            raise ConfigError(
                f"no sampled record of {found.name} holds the key {name!r} "
                f"(its named fields: {', '.join(names)}"
                + (f"; keys its records hold: {', '.join(held)}" if held else "")
                + "); check the spelling",
                format=found.name,
            )
    return Selected(
        view=view,
        source=found,
        by=by,
        conds=conds,
        app=app,
        prefilter=_prefilter(found, view, conds, app=app),
    )


def _keys_held(sample: list[str], lines: int = 200, most: int = 30) -> list[str]:
    """The top-level keys of the sampled JSON objects (for a hint), first seen first."""
    keys: dict[str, None] = {}
    for text in sample[:lines]:
        try:
            obj = json.loads(text)
        except ValueError:
            continue
        if isinstance(obj, dict):
            keys.update(dict.fromkeys(str(k) for k in obj))
    return list(keys)[:most]


def _seen(found: AnyFormat, view: Format, name: str, sample: list[str]) -> bool:
    """Whether some sampled record holds a value of ``name``."""
    line = pl.col("line")
    own = view.fields(line)
    base = found.fields(line) if is_app(found) else own
    value = getter(found, name, base, line)
    frame = pl.DataFrame({"line": sample}, schema={"line": pl.String})
    hits = frame.select((own[STATUS].is_not_null() & value.is_not_null()).sum()).item()
    return bool(hits)


def _prefilter(
    found: AnyFormat, view: Format, conds: tuple[Cond, ...], *, app: bool
) -> re.Pattern[bytes] | None:
    """A prefilter proven to hold every matching line, where one is known (else None)."""
    if app:
        least = least_level(conds)
        if least is None:
            return None
        at_or_above = tuple(SEVERITY[SEVERITY.index(least) :])
        return level_prefilter(found, at_or_above)
    span = status_range(conds)
    if span is not None and span[0] >= 500 and span[1] <= 599:
        return view.error_prefilter  # every 5xx record's line matches it (base.py)
    return None
