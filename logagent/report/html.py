"""The report as one self-contained HTML page with inline SVG charts (PURE).

Same sections as the Markdown report; the prose of an LLM report takes the
headline's place as preformatted text (it was checked, but it is not trusted
as HTML).
"""

from __future__ import annotations

import re
from html import escape

from logagent.report.charts import errors_over_time, reading_trace, share_intervals
from logagent.report.document import Section, Table
from logagent.report.sections import build
from logagent.result import QuestionKind, Result

_STYLE = """
body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;
color:#111827;line-height:1.5}
table{border-collapse:collapse}td,th{border:1px solid #d1d5db;padding:.25rem .5rem}
td.r,th.r{text-align:right}code{background:#f3f4f6;padding:0 .2rem}
.headline{font-size:1.15rem}.footer{color:#6b7280}figure{margin:1rem 0}
pre{white-space:pre-wrap;background:#f9fafb;padding:1rem}
"""


def render_html(result: Result) -> str:
    """A whole HTML page for ``result``; it loads nothing from elsewhere."""
    doc = build(result)
    body = [f"<h1>{escape(doc.title)}</h1>"]
    if result.report.source == "llm":
        body.append(f'<pre class="headline">{escape(llm_prose(result.report.markdown))}</pre>')
    else:
        body.append(f'<p class="headline">{_inline(doc.headline)}</p>')
    body += _charts(result)
    body += [_section(s) for s in doc.sections]
    body.append(f'<p class="footer">{_inline(doc.footer)}</p>')
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(doc.title)}</title><style>{_STYLE}</style></head>"
        f"<body>\n{chr(10).join(body)}\n</body></html>\n"
    )


def llm_prose(markdown: str) -> str:
    """The model's prose of an LLM report: what stands between the title and the sections."""
    lines = markdown.splitlines()[1:]
    end = next((i for i, line in enumerate(lines) if line.startswith("## ")), len(lines))
    return "\n".join(lines[:end]).strip()


def _charts(result: Result) -> list[str]:
    shares = None
    if result.question.kind is QuestionKind.TOP_ERRORS:
        shares = share_intervals(result.answer.top)
    charts = [
        ("Share of all 5xx per route (bar) and its interval (line)", shares),
        ("Matching events per time bucket: all (grey) and each top key", errors_over_time(result)),
        (
            "Fraction of the input read at each decision (hover a point for the decision; "
            "the interval width at each decision is not recorded in the result yet)",
            reading_trace(result.decisions),
        ),
    ]
    return [
        f"<figure>{svg}<figcaption>{escape(caption)}</figcaption></figure>"
        for caption, svg in charts
        if svg is not None
    ]


def _section(section: Section) -> str:
    parts = [f"<h2>{escape(section.title)}</h2>"]
    parts += [f"<p>{_inline(p)}</p>" for p in section.paragraphs]
    if section.bullets:
        items = "".join(f"<li>{_inline(b)}</li>" for b in section.bullets)
        parts.append(f"<ul>{items}</ul>")
    if section.table:
        parts.append(_table(section.table))
    return "\n".join(parts)


def _table(table: Table) -> str:
    head = "".join(
        f'<th class="{a}">{_inline(h)}</th>' for h, a in zip(table.header, table.align, strict=True)
    )
    rows = "".join(
        "<tr>"
        + "".join(f'<td class="{a}">{_inline(c)}</td>' for c, a in zip(r, table.align, strict=True))
        + "</tr>"
        for r in table.rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def _inline(text: str) -> str:
    """Escape, then turn the two inline marks (`code`, **bold**, _italic_ lines) into tags."""
    html = escape(text)
    html = re.sub(r"`([^`]*)`", r"<code>\1</code>", html)
    html = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", html)
    return re.sub(r"^_(.*)_$", r"<em>\1</em>", html)
