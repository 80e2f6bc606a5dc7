"""The prompt for the LLM writer: the result's numbers and keys, never bulk log text (PURE).

The facts are a compact JSON object built from the result alone. Percentages
are given ready-made (rounded to one decimal) so a small model has nothing to
compute; every number in the facts is one the checker accepts. Free text
(details, warnings, the example lines a recusal quotes) is masked and cut.
"""

from __future__ import annotations

import json
from typing import Any

from logagent.report.mask import mask
from logagent.result import Result, TopEntry

MAX_TEXT = 300  # characters of one free-text field
MAX_ENTRIES = 10  # ranked keys shown to the model
MAX_WARNINGS = 5

SYSTEM = """\
You write the prose of a short report about a finished log analysis. The user \
message is its result as JSON. Rules:
1. Use only numbers that appear in the JSON, written as they appear there \
(percentages are already in percent). Never compute, add, round differently or \
invent a number.
2. Name only routes that appear in the JSON, in backticks, exactly as written.
3. Say how confident the answer is, which route leads, its share of all 5xx \
with the interval, its main status codes, then how much of the log was read \
and how long it took.
4. If "status" is "recused", say in two or three sentences why there is no \
answer, what was tried and what to do.
5. At most 150 words of Markdown prose: no headings, no tables."""


def facts(result: Result) -> dict[str, Any]:
    """What the model may say, as plain data."""
    p = result.progress
    out: dict[str, Any] = {
        "question": result.question.kind.value,
        "status": result.status.value,
        "confidence_percent": _pct(1 - result.question.delta),
        "ranked": [_entry(e) for e in result.answer.top[:MAX_ENTRIES]],
        "total_5xx_seen": result.answer.total,
        "ties": [[mask(k) for k in group] for group in result.answer.ties],
        "time_window": {"since": result.question.since, "until": result.question.until},
        "read": {
            "percent_of_input": _pct(p.fraction_read),
            "megabytes_read": round(p.bytes_read / 1e6, 1),
            "megabytes_total": _mb(result.input.bytes_total),
            "lines_read": p.lines_read,
            "seconds": round(p.elapsed_s, 2),
        },
        "warnings": [_text(w) for w in result.warnings[:MAX_WARNINGS]],
        "decision_checks": len(result.decisions),
    }
    if result.decisions:
        last = result.decisions[-1]
        out["last_decision"] = f"{last.action} ({last.reason}): {_text(last.detail)}"
    if result.saving and result.saving.bytes:
        out["megabytes_not_read"] = round(result.saving.bytes / 1e6, 1)
    if result.recuse:
        r = result.recuse
        out["recuse"] = {
            "reason_code": r.reason_code.value,
            "detail": _text(r.detail),
            "attempted": _text(r.attempted),
            "suggestion": _text(r.suggestion),
        }
    return out


def messages(result: Result) -> list[dict[str, str]]:
    """The chat messages of the first attempt."""
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": json.dumps(facts(result), ensure_ascii=False)},
    ]


def retry_messages(
    first: list[dict[str, str]], reply: str, problems: list[str]
) -> list[dict[str, str]]:
    """The chat messages of the one retry: the first attempt, its reply, and what was wrong."""
    listed = "\n".join(f"- {p}" for p in problems)
    ask = (
        "Your text does not match the result:\n"
        f"{listed}\n"
        "Write it again using only numbers and routes from the JSON result, exactly as given."
    )
    return [*first, {"role": "assistant", "content": reply}, {"role": "user", "content": ask}]


def _entry(e: TopEntry) -> dict[str, Any]:
    out: dict[str, Any] = {
        "key": mask(e.key),
        "count_seen": e.count,
        "share_percent": _pct(e.share),
        "share_percent_interval": [_pct(e.share_low), _pct(e.share_high)],
        "statuses_percent": {s: _pct(v) for s, v in e.breakdown.items()},
    }
    if e.low != e.high:
        out["estimated_total"] = round(e.estimate)
        out["estimated_total_interval"] = [round(e.low), round(e.high)]
    if e.rate is not None:
        out["rate_percent"] = _pct(e.rate)
        out["requests"] = e.requests
    return out


def _pct(fraction: float) -> float:
    return round(fraction * 100, 1)


def _mb(n_bytes: int | None) -> float | None:
    return None if n_bytes is None else round(n_bytes / 1e6, 1)


def _text(text: str) -> str:
    masked = mask(text)
    return masked if len(masked) <= MAX_TEXT else masked[: MAX_TEXT - 1] + "…"
