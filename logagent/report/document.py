"""A tiny document model that every report renderer shares (PURE).

``sections.build`` turns a result into a ``Document``; ``markdown`` and
``html`` render one. A new part of the report (time windows, error
templates) is a new ``Section``, and every renderer shows it.

Inline text uses two Markdown marks only: ``code`` in backticks and
``**bold**``; each renderer translates them.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Table:
    """A table: ``align`` holds ``"l"`` or ``"r"`` per column."""

    header: list[str]
    rows: list[list[str]]
    align: list[str]


@dataclass(frozen=True)
class Section:
    """A titled part of the report: paragraphs, then bullets, then a table."""

    title: str
    paragraphs: list[str] = field(default_factory=list)
    bullets: list[str] = field(default_factory=list)
    table: Table | None = None


@dataclass(frozen=True)
class Document:
    """A whole report."""

    title: str
    headline: str
    sections: list[Section]
    footer: str
