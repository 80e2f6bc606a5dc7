"""Reports rendered from a result.

PURE: ``sections`` (what the report says), ``markdown`` and ``html`` (how it
looks), ``charts`` (inline SVG), ``prompt`` and ``mask`` (what an LLM is
shown), ``check`` (whether its prose matches the result) and ``write`` (the
report step: checked LLM prose, else the template). EDGE: ``llm``, the Ollama
adapter.
"""

from importlib import import_module
from typing import Any

#: Imported on first use: a run that writes Markdown never loads the HTML, chart,
#: prompt and check modules (start-up time).
_HOMES = {
    "ChatClient": "logagent.report.write",
    "render": "logagent.report.markdown",
    "render_html": "logagent.report.html",
    "write_report": "logagent.report.write",
}

__all__ = ["ChatClient", "render", "render_html", "write_report"]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(_HOMES[name]), name)
