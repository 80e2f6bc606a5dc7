"""The template report: Markdown rendered from a result alone (PURE)."""

from __future__ import annotations

from logagent.report.document import Document, Section, Table
from logagent.report.sections import build
from logagent.result import Result


def render(result: Result) -> str:
    """A short Markdown report of ``result``."""
    return to_markdown(build(result))


def to_markdown(doc: Document) -> str:
    """Markdown of a document."""
    parts = [f"# {doc.title}", "", doc.headline, ""]
    for section in doc.sections:
        parts += _section(section)
    parts += [doc.footer]
    return "\n".join(parts).rstrip() + "\n"


def _section(section: Section) -> list[str]:
    lines = [f"## {section.title}", ""]
    for paragraph in section.paragraphs:
        lines += [paragraph, ""]
    if section.bullets:
        lines += [*(f"- {b}" for b in section.bullets), ""]
    if section.table:
        lines += [*_table(section.table), ""]
    return lines


def _table(table: Table) -> list[str]:
    rule = ["---:" if a == "r" else "---" for a in table.align]
    return [_row(table.header), _row(rule), *(_row(r) for r in table.rows)]


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"
