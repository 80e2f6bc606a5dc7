"""Reports rendered from a result (PURE template; the LLM writer is an edge, later)."""

from logagent.report.markdown import render

__all__ = ["render"]
