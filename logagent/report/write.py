"""The report step: LLM prose when it is grounded, else the template (PURE given a client).

The LLM decides nothing and is trusted with no number: its text is checked
against the result (``check.problems``); one retry quotes the problems; a
second failure, or no answer at all, gives the template report with the
reason in ``report.fallback_reason``. The engine knows nothing of this: the
front door calls ``analyze``, then ``write_report``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from logagent.errors import LLMUnavailable
from logagent.report.check import problems
from logagent.report.markdown import render, to_markdown
from logagent.report.prompt import messages, retry_messages
from logagent.report.sections import build
from logagent.result import Report, Result


class ChatClient(Protocol):
    """What the report step needs of an LLM (``llm.OllamaChat``, ``testing.StubLLM``)."""

    model: str

    def ready(self) -> None:
        """Raise ``LLMUnavailable`` unless the server answers and has the model."""

    def chat(self, messages: list[dict[str, str]]) -> str:
        """The model's reply to ``messages``; ``LLMUnavailable`` when there is none."""


def write_report(result: Result, client: ChatClient | None) -> Result:
    """``result`` with its report written by ``client`` (checked), or by the template."""
    if client is None:
        return with_report(result, Report(source="template"))
    try:
        client.ready()
        prose, found = _attempt(result, client)
    except LLMUnavailable as exc:
        return with_report(
            result, Report(fallback_reason="llm_unavailable", fallback_detail=exc.message)
        )
    if found:
        detail = "; ".join(found)
        return with_report(result, Report(fallback_reason="llm_rejected", fallback_detail=detail))
    return with_report(result, Report(source="llm", model=client.model), prose=prose)


def with_report(result: Result, report: Report, *, prose: str | None = None) -> Result:
    """``result`` with ``report``, its Markdown rendered (the template, or the checked prose)."""
    updated = result.model_copy(update={"report": report})
    markdown = render(updated) if prose is None else _llm_markdown(updated, prose)
    return updated.model_copy(update={"report": report.model_copy(update={"markdown": markdown})})


def _attempt(result: Result, client: ChatClient) -> tuple[str, list[str]]:
    """The prose and its problems after at most one retry."""
    first = messages(result)
    prose = client.chat(first)
    found = problems(prose, result)
    if found:
        prose = client.chat(retry_messages(first, prose, found))
        found = problems(prose, result)
    return prose, found


def _llm_markdown(result: Result, prose: str) -> str:
    """The model's prose in place of the headline; the tables stay the template's."""
    doc = build(result)
    return to_markdown(replace(doc, headline=prose.strip()))
