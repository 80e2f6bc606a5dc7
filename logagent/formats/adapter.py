"""An application format seen through the access ``Format`` protocol (PURE).

The engine counts records keyed by ``route`` with an HTTP ``status`` and
calls statuses 500-599 "events". ``AppAsAccess`` lets it answer questions
about application logs unchanged: ``path`` is the record's component and
``status`` encodes its level, an event code (``LEVEL_CODES``) when the level
is at or above the question's threshold, else ``OTHER_CODE``; null when the
line is not a record. For ``error-types``, ``path`` is the template of the
record's message and only ``component``'s records are events. Encoding the
level keeps the per-key breakdowns meaningful; ``level_of_code`` turns them
back into level names.

Continuation lines of multi-line records (stack traces) are no records:
the first line of a record carries its level and component and lies in the
unit where the record starts, so counts stay exact without folding. They are
flagged in the optional ``continuation`` column so that they are counted as
such, not as malformed lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import polars as pl

from logagent.formats.app import COMPONENT, LEVEL, MESSAGE, AppFormat, AppRegexFormat
from logagent.formats.base import PATH, STATUS, Stages, staged_fields
from logagent.formats.extract import CONTINUATION, UNLIKE
from logagent.formats.levels import DEBUG, ERROR, FATAL, INFO, TRACE, WARN
from logagent.formats.records import continuation_like, start_expr
from logagent.formats.structured import KeyedFields

if TYPE_CHECKING:  # templates are mined only for error types: imported there (start-up time)
    from logagent.templates import TemplateSet

#: Event codes: one per level, all within 500-599 so the engine counts them as events.
LEVEL_CODES: dict[str, int] = {FATAL: 500, ERROR: 501, WARN: 502}
#: Status of a record below the question's level.
OTHER_CODE = 200
#: Codes of every level, for a level distribution (``-q status`` on an app log).
EVERY_LEVEL_CODES: dict[str, int] = {
    **LEVEL_CODES,
    INFO: 200,
    DEBUG: 201,
    TRACE: 202,
}
#: A record without a (known) level, in a level distribution.
NO_LEVEL_CODE, NO_LEVEL = 299, "(no level)"
#: Levels counted for each ``--level``.
THRESHOLDS: dict[str, tuple[str, ...]] = {"error": (FATAL, ERROR), "warn": (FATAL, ERROR, WARN)}


def level_of_code(code: str) -> str:
    """The level name of an event code as written in a breakdown ("501" -> "ERROR")."""
    names = {str(v): k for k, v in LEVEL_CODES.items()}
    return names.get(code, code)


def level_of_any_code(code: str) -> str:
    """The level name of a code of ``EVERY_LEVEL_CODES`` ("200" -> "INFO")."""
    names = {str(v): k for k, v in EVERY_LEVEL_CODES.items()} | {str(NO_LEVEL_CODE): NO_LEVEL}
    return names.get(code, code)


def metric_for(level: str) -> str:
    """What an app question counts, in words ("ERROR+ records")."""
    return f"{THRESHOLDS[level][-1]}+ records"


def template_text(templates: TemplateSet, message: pl.Expr) -> pl.Expr:
    """The text of the frozen template each message matches (``OTHER`` when none)."""
    from logagent.templates import OTHER, match_expr

    names = {t.id: t.text for t in templates.templates}
    if not names:
        return pl.lit(OTHER, dtype=pl.String)
    return match_expr(templates, message).replace_strict(
        names, default=pl.lit(OTHER), return_dtype=pl.String
    )


def _escapable(text: str) -> bool:
    """Holds a character a JSON writer may escape (``"``, ``\\``, ``/``, a control character,
    DEL or anything beyond ASCII): such a component may not appear verbatim.
    (A plain test: the equivalent character-class regex costs 9 ms to compile at start-up.)"""
    return not text.isascii() or any(c in '"\\/\x7f' or c < " " for c in text)


def literal_prefilter(component: str) -> re.Pattern[bytes] | None:
    """A byte prefilter for one component's records: its name as written in the line.

    Every format here takes the component verbatim from the line (logger,
    program, class), so a record of ``component`` contains its bytes; names a
    JSON writer could escape, and the placeholder for "no component", get none.
    """
    if not component or component == "-" or _escapable(component):
        return None
    return re.compile(re.escape(component.encode()))


@dataclass(frozen=True)
class AppAsAccess:
    """``fmt`` as an access ``Format``: path = component, status = level code (see module doc)."""

    app: AppFormat
    level: str = "error"
    error_prefilter: re.Pattern[bytes] | None = None
    component: str | None = None  # error-types: only this component's records are events
    templates: TemplateSet | None = None  # error-types: path = the message's template text
    every_level: bool = False  # a level distribution: each level its own code (no threshold)

    def __post_init__(self) -> None:
        if self.level not in THRESHOLDS:
            raise ValueError(f"unknown level {self.level!r} (known: {', '.join(THRESHOLDS)})")

    @property
    def name(self) -> str:
        """The application format's name."""
        return self.app.name

    @property
    def min_line_bytes(self) -> int:
        """l_min of the application format."""
        return self.app.min_line_bytes

    @property
    def raw_keys(self) -> bool:
        """Keys (components, levels, templates) are names, kept as written: no path rules."""
        return True

    def fields(self, line: pl.Expr) -> dict[str, pl.Expr]:
        """``path``/``status`` as above, and ``continuation`` for a multi-line format."""
        return self.over(self.app.fields(line), line)

    def staged_fields(self, line: pl.Expr) -> tuple[Stages, dict[str, pl.Expr]]:
        """``fields`` over the application format's stages (``app_stages``)."""
        stages, cols = self.app_stages(line)
        return stages, self.over(cols, line)

    def app_stages(self, line: pl.Expr) -> tuple[Stages, dict[str, pl.Expr]]:
        """The application format's stages and columns as this view parses them (the
        timeline's time reads the same: ``windowed.time_of``). Ranking components by a
        level threshold needs no message text, only whether a record has one: a keyed
        format then reads the message only where a line has no level, and a regex format
        copies no message out of its line."""
        if (
            isinstance(self.app, KeyedFields | AppRegexFormat)
            and self.templates is None
            and not self.every_level
        ):
            return self.app.staged_fields(line, message_text=False)
        return staged_fields(self.app, line)

    def fast_variant(self) -> tuple[AppAsAccess, pl.Expr] | None:
        """This view of the layout's ``fast_only`` variant (``base.fast_variant``)."""
        fast = self.app.fast_only() if isinstance(self.app, AppRegexFormat) else None
        return None if fast is None else (replace(self, app=fast), fast.fast_read())

    def over(self, cols: dict[str, pl.Expr], line: pl.Expr) -> dict[str, pl.Expr]:
        """``fields`` from the application format's columns ``cols`` (staged or not)."""
        record = cols[MESSAGE].is_not_null()
        code: pl.Expr = pl.lit(OTHER_CODE, dtype=pl.Int32)
        for level in reversed(THRESHOLDS[self.level]):
            code = pl.when(cols[LEVEL] == level).then(pl.lit(LEVEL_CODES[level])).otherwise(code)
        if self.every_level:
            code = (
                cols[LEVEL]
                .cast(pl.String)
                .replace_strict(EVERY_LEVEL_CODES, default=NO_LEVEL_CODE, return_dtype=pl.Int32)
            )
        key = cols[COMPONENT]
        if self.component is not None:
            code = pl.when(cols[COMPONENT] == self.component).then(code).otherwise(OTHER_CODE)
        if self.templates is not None:
            key = template_text(self.templates, cols[MESSAGE])
        out = {
            PATH: pl.when(record).then(key),
            STATUS: pl.when(record).then(code).cast(pl.Int32),
        }
        if self.app.record_start is not None:
            cont = ~start_expr(self.app, line)
            out[CONTINUATION] = cont
            # tested on the continuation lines alone (the others are null): the lines that
            # look like no part of a record, as detection judges them (a warning counts them)
            like = pl.when(cont).then(line).str.contains(continuation_like(self.app))
            out[UNLIKE] = like.not_().fill_null(False)
        return out
