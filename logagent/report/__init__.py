"""Reports rendered from a result.

PURE: ``sections`` (what the report says), ``markdown`` and ``html`` (how it
looks), ``charts`` (inline SVG), ``prompt`` and ``mask`` (what an LLM is
shown), ``check`` (whether its prose matches the result) and ``write`` (the
report step: checked LLM prose, else the template). EDGE: ``llm``, the Ollama
adapter.
"""

from logagent.report.html import render_html
from logagent.report.markdown import render
from logagent.report.write import ChatClient, write_report

__all__ = ["ChatClient", "render", "render_html", "write_report"]
