"""The report step with a stub LLM: accept, retry, reject, unavailable."""

from __future__ import annotations

import subprocess
import sys

from logagent.report.write import write_report
from logagent.result import RecuseCode
from logagent.testing import StubLLM, recused_result, settled_result

GOOD = "`/api/v1/pay/{id}` has 61 % of all 5xx (58-64 %), mostly 503."
BAD = "`/api/v1/pay/{id}` has 66.6 % of all 5xx."


def test_no_client_gives_the_template() -> None:
    """--llm off: the template report, no fallback reason."""
    r = write_report(settled_result(), None)
    assert (r.report.source, r.report.fallback_reason) == ("template", None)
    assert "## Top routes" in r.report.markdown


def test_grounded_prose_is_used() -> None:
    """A reply that passes the check is the report, with its model named."""
    llm = StubLLM([GOOD])
    r = write_report(settled_result(), llm)
    assert (r.report.source, r.report.model) == ("llm", "stub")
    assert GOOD in r.report.markdown and len(llm.seen) == 1


def test_one_retry_quotes_the_problems() -> None:
    """A bad first reply is retried once with its problems; a good retry is used."""
    llm = StubLLM([BAD, GOOD])
    r = write_report(settled_result(), llm)
    assert r.report.source == "llm" and len(llm.seen) == 2
    assert "the number 66.6 is not in the result" in llm.seen[1][-1]["content"]


def test_two_bad_replies_give_the_template() -> None:
    """Two bad replies: the template report with llm_rejected and the problems."""
    llm = StubLLM([BAD])
    r = write_report(settled_result(), llm)
    assert (r.report.source, r.report.fallback_reason) == ("template", "llm_rejected")
    assert "66.6" in (r.report.fallback_detail or "") and len(llm.seen) == 2
    assert BAD not in r.report.markdown


def test_unavailable_llm_gives_the_template() -> None:
    """A server that does not answer: the template report with llm_unavailable."""
    r = write_report(settled_result(), StubLLM([GOOD], down=True))
    assert (r.report.source, r.report.fallback_reason) == ("template", "llm_unavailable")


def test_recusal_prompt_carries_the_reason() -> None:
    """A recusal is explained by the LLM from the recuse signal, masked."""
    llm = StubLLM(["The log is empty, so there is nothing to rank."])
    result = recused_result(RecuseCode.EMPTY_INPUT, detail="line from 10.0.0.1 was blank")
    r = write_report(result, llm)
    sent = llm.seen[0][1]["content"]
    assert "EMPTY_INPUT" in sent and "<ip>" in sent and "10.0.0.1" not in sent
    assert r.report.source == "llm"


def test_llm_report_keeps_the_template_tables() -> None:
    """The model's prose replaces the headline only; the tables come from the template."""
    r = write_report(settled_result(), StubLLM([GOOD]))
    md = r.report.markdown
    assert md.index(GOOD) < md.index("## Top routes")
    assert "With 99 % confidence" not in md


def test_empty_reply_is_rejected() -> None:
    """An empty reply is not a report: retried, then the template."""
    r = write_report(settled_result(), StubLLM(["  "]))
    assert r.report.fallback_reason == "llm_rejected"
    assert r.report.fallback_detail == "the text is empty"


def test_engine_does_not_know_the_llm() -> None:
    """Importing the engine and the report step loads no LLM client (only the CLI edge does)."""
    code = (
        "import sys, logagent.engine, logagent.report; "
        "sys.exit('ollama' in sys.modules or 'httpx' in sys.modules)"
    )
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0
