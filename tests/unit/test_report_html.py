"""The self-contained HTML report."""

from __future__ import annotations

import re
import xml.dom.minidom

from logagent.report.html import render_html
from logagent.report.write import write_report
from logagent.result import RecuseCode
from logagent.testing import StubLLM, recused_result, settled_result


def test_page_loads_nothing_from_elsewhere() -> None:
    """No script, no external stylesheet, image or font: the page works offline."""
    page = render_html(settled_result())
    assert "<script" not in page
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)


def test_charts_are_valid_svg_of_the_result() -> None:
    """Two inline SVG charts: the shares with intervals, and the reading trace."""
    page = render_html(settled_result())
    svgs = re.findall(r"<svg.*?</svg>", page, re.S)
    assert len(svgs) == 2
    for svg in svgs:
        xml.dom.minidom.parseString(svg)
    assert "/api/v1/pay/{id}" in svgs[0] and "61.0 %" in svgs[0]
    assert svgs[1].count("<circle") == 2


def test_text_of_the_result_is_escaped() -> None:
    """A hostile route key is shown as text, never as markup."""
    result = settled_result()
    entry = result.answer.top[0].model_copy(update={"key": "/<script>alert(1)</script>"})
    answer = result.answer.model_copy(update={"top": [entry]})
    page = render_html(result.model_copy(update={"answer": answer}))
    assert "<script>" not in page and "&lt;script&gt;" in page


def test_sections_match_the_markdown_report() -> None:
    """The HTML page has the same sections as the Markdown report."""
    page = render_html(settled_result())
    for title in ("Top routes", "Error types", "Time window", "How it decided"):
        assert f"<h2>{title}" in page
    assert "<code>/api/v1/pay/{id}</code>" in page


def test_recusal_page_has_no_charts() -> None:
    """A recusal renders its message; there is no answer to chart."""
    page = render_html(recused_result(RecuseCode.EMPTY_INPUT))
    assert "Cannot answer" in page and "What to do" in page
    assert "Share of all 5xx" not in page


def test_llm_prose_takes_the_headline_place() -> None:
    """An LLM report shows its prose once, escaped, above the template's sections."""
    prose = "`/api/v1/pay/{id}` has 61 % of all 5xx <b>now</b>."
    result = write_report(settled_result(), StubLLM([prose]))
    page = render_html(result)
    assert page.count("61 % of all 5xx") == 1 and "&lt;b&gt;now&lt;/b&gt;" in page
    assert page.index("61 % of all 5xx") < page.index("<h2>Top routes")
    assert "With 99 % confidence" not in page and "Written by the LLM stub" in page
