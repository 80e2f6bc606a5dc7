"""``--by FIELD --where COND``: any field ranked among the records that match (PURE).

The engine counts records keyed by ``path`` and calls statuses 500-599
"events" (``base.py``). ``Selected`` lets it rank any field unchanged: a
record's key is its value of FIELD, and its status is an event code when
it meets every condition, else ``OTHER`` (200). The event code carries the
per-key breakdown: ``500 + b`` where ``b`` is the HTTP status within its
class when the conditions pin one class (``status=4xx``: 404 -> 504, said
back as "404"), the status class otherwise (``5`` -> "5xx"), or the level's
rank on an application log (``ERROR``). ``breakdown_label`` turns codes back
into words.

A record without a value of FIELD (a JSON key it does not hold, a request
without a path) has no usable key: its events are counted apart, never
ranked (``routes.INVALID_REQUEST`` marks them, as for a request with no
path). The byte prefilter is kept only where it is a proven superset of the
matching records: statuses pinned within 500-599 on an access format, a
least level on a JSON app format (``levelfilter``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import polars as pl

from logagent.formats.adapter import NO_LEVEL, AppAsAccess
from logagent.formats.app import LEVEL
from logagent.formats.base import PATH, STATUS, Format, Stages, Wrapped, staged_fields
from logagent.formats.fieldsets import ROUTE, getter
from logagent.formats.where import SEVERITY, Cond, cond_expr, status_range

OTHER = 200
#: Where a breakdown code starts: every event code lies in 500-599.
EVENT = 500


@dataclass(frozen=True)
class Selected:
    """``view`` (the access view of the detected format) with key = ``by``, events = ``conds``."""

    view: Format
    source: Any  # the detected format (access Format or AppFormat), read by ``getter``
    by: str
    conds: tuple[Cond, ...]
    app: bool = False
    prefilter: re.Pattern[bytes] | None = None

    @property
    def name(self) -> str:
        """The format's name."""
        return self.view.name

    @property
    def min_line_bytes(self) -> int:
        """The format's l_min."""
        return self.view.min_line_bytes

    @property
    def error_prefilter(self) -> re.Pattern[bytes] | None:
        """A bytes regex every matching record's line matches (see module doc), or None."""
        return self.prefilter

    @property
    def raw_keys(self) -> bool:
        """Keys are values as written: only a path is cut at ``?`` (and a route folded)."""
        return self.by not in (ROUTE, PATH)

    @property
    def pinned_class(self) -> int | None:
        """The one HTTP status class the conditions admit (4 for ``status=4xx``), if one."""
        span = status_range(self.conds) if not self.app else None
        if span is None or span[0] // 100 != span[1] // 100:
            return None
        return span[0] // 100

    def fields(self, line: pl.Expr) -> dict[str, pl.Expr]:
        """The view's columns with ``path`` = the value of ``by``, ``status`` = event or not."""
        own = self.view.fields(line)
        base = self.source.fields(line) if self.app else own
        return self._selected(own, base, line)

    def staged_fields(self, line: pl.Expr) -> tuple[Stages, dict[str, pl.Expr]]:
        """``fields`` over the view's stages (``base.staged_fields``): an access format's match
        test and split, an application format's raw keys, each once a line."""
        view = self.view
        if self._own_app and isinstance(view, AppAsAccess):
            stages, base = staged_fields(self.source, line)
            return stages, self._selected(view.over(base, line), base, line)
        stages, own = staged_fields(self.view, line)
        return stages, self._selected(own, self.source.fields(line) if self.app else own, line)

    def app_stages(self, line: pl.Expr) -> tuple[Stages, dict[str, pl.Expr]]:
        """The application format's stages and columns as ``staged_fields`` parses them (the
        timeline's time reads the same: ``windowed.time_of``); only for an ``AppAsAccess``
        view."""
        if self._own_app:
            return staged_fields(self.source, line)  # every field may be selected: all of them
        assert isinstance(self.view, AppAsAccess)
        return self.view.app_stages(line)

    @property
    def _own_app(self) -> bool:
        """Whether the selection parses the application format itself, not through its view."""
        return self.app and isinstance(self.view, AppAsAccess) and self.view.app is self.source

    def _selected(
        self, own: dict[str, pl.Expr], base: dict[str, pl.Expr], line: pl.Expr
    ) -> dict[str, pl.Expr]:
        record = own[STATUS].is_not_null()
        values = {n: getter(self.source, n, base, line) for n in {self.by, *self._cond_fields()}}
        hits = [cond_expr(c, values[c.field]) for c in self.conds]
        match = pl.all_horizontal(hits) if hits else pl.lit(True)
        key = values[self.by].cast(pl.String)
        code = pl.when(match).then(self._code(base)).otherwise(pl.lit(OTHER))
        return {
            **own,
            PATH: pl.when(record).then(key),
            STATUS: pl.when(record).then(code).cast(pl.Int32),
        }

    def _cond_fields(self) -> set[str]:
        return {c.field for c in self.conds}

    def _code(self, base: dict[str, pl.Expr]) -> pl.Expr:
        """The event code of a matching record (its breakdown, see module doc)."""
        if self.app:
            ranks = {name: i for i, name in enumerate(SEVERITY)}
            rank = base[LEVEL].cast(pl.String).replace_strict(ranks, default=len(SEVERITY))
            return pl.lit(EVENT) + rank.cast(pl.Int32)
        status = base[STATUS].cast(pl.Int32)
        cls = self.pinned_class
        if cls is not None:
            return pl.lit(EVENT) + (status - cls * 100)
        return pl.lit(EVENT) + (status // 100)

    def breakdown_label(self, code: str) -> str:
        """The words of an event code as a breakdown holds it ("504" -> "404")."""
        try:
            b = int(code) - EVENT
        except ValueError:
            return code
        if self.app:
            return SEVERITY[b] if 0 <= b < len(SEVERITY) else NO_LEVEL
        cls = self.pinned_class
        return str(cls * 100 + b) if cls is not None else f"{b}xx"


def selection_of(fmt: object) -> Selected | None:
    """The ``Selected`` inside ``fmt`` (through window and bucket wrappers), if any."""
    while isinstance(fmt, Wrapped):
        fmt = fmt.inner
    return fmt if isinstance(fmt, Selected) else None
