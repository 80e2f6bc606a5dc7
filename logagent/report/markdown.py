"""The template report: Markdown rendered from a result alone (PURE)."""

from __future__ import annotations

from logagent.result import QuestionKind, Result, Status, TopEntry

_TITLES = {
    QuestionKind.TOP_ERRORS: "Routes with the most 5xx errors",
    QuestionKind.ERROR_RATE: "Routes with the highest 5xx rate",
    QuestionKind.STATUS: "Status distribution",
}


def render(result: Result) -> str:
    """A short Markdown report of ``result``."""
    parts = [f"# logagent: {_TITLES[result.question.kind]}", "", _headline(result), ""]
    if result.recuse:
        parts += _recuse_lines(result)
    elif result.answer.top:
        parts += _table(result)
    parts += _reading(result)
    if result.warnings:
        parts += ["", "## Warnings", *[f"- {w}" for w in result.warnings]]
    return "\n".join(parts).rstrip() + "\n"


def _headline(result: Result) -> str:
    if result.recuse:
        return f"**Cannot answer** ({result.recuse.reason_code.value}): {result.recuse.detail}"
    top = result.answer.top[0] if result.answer.top else None
    confidence = f"{1 - result.question.delta:.0%}"
    how = {
        Status.EXACT: "Exact answer (the whole input was read)",
        Status.PARTIAL: "Partial answer (time or budget ran out; here is what is known so far)",
        Status.SETTLED: f"With {confidence} confidence",
    }.get(result.status, "")
    if top is None:
        return f"{how}: nothing to rank."
    kind = result.question.kind
    if kind is QuestionKind.STATUS:
        share, total = f"{top.share:.1%}", result.answer.total
        return f"{how}: status {top.key} is the most common, {share} of {total} lines."
    if kind is QuestionKind.ERROR_RATE:
        seen = "" if result.status is Status.EXACT else " seen"
        return (
            f"{how}: `{top.key}` has the highest 5xx rate, {_rate(top)} of "
            f"{top.requests}{seen} requests ({_mostly(top)})."
        )
    if result.status is Status.EXACT:
        return (
            f"{how}: `{top.key}` has the most 5xx errors: {top.count} of {result.answer.total} "
            f"({top.share:.1%}), {_mostly(top)}."
        )
    return (
        f"{how}: `{top.key}` has the most 5xx errors: {top.share:.0%} "
        f"({top.share_low:.0%}-{top.share_high:.0%}) of all 5xx, {_mostly(top)}; "
        f"about {top.estimate:,.0f} ({top.low:,.0f}-{top.high:,.0f}) in the whole input."
    )


def _trace(result: Result) -> list[str]:
    """One line on how the run decided to stop."""
    if not result.decisions:
        return []
    last = result.decisions[-1]
    steps = len(result.decisions)
    return [
        f"Decisions: {steps} checks; the last, at {last.fraction_read:.1%} read, was "
        f"{last.action} ({last.reason}: {last.detail})."
    ]


def _mostly(entry: TopEntry) -> str:
    if not entry.breakdown:
        return "no 5xx"
    status, share = next(iter(entry.breakdown.items()))
    return f"mostly {status} ({share:.0%})"


def _table(result: Result) -> list[str]:
    kind = result.question.kind
    top = result.answer.top
    if kind is QuestionKind.STATUS:
        rows = [f"| {e.key} | {e.count:,} | {e.share:.2%} |" for e in top]
        return ["| status | lines | share |", "|---|---:|---:|", *rows, ""]
    if kind is QuestionKind.ERROR_RATE:
        head = [
            "| # | route | 5xx rate | 5xx | requests | statuses |",
            "|---|---|---:|---:|---:|---|",
        ]
        rows = [
            f"| {i} | `{e.key}` | {_rate(e)} | {e.count:,} | {e.requests or 0:,} | {_statuses(e)} |"
            for i, e in enumerate(top, 1)
        ]
        return [*head, *rows, ""]
    if result.status is Status.EXACT:
        head = ["| # | route | 5xx | share of 5xx | statuses |", "|---|---|---:|---:|---|"]
        rows = [
            f"| {i} | `{e.key}` | {e.count:,} | {e.share:.1%} | {_statuses(e)} |"
            for i, e in enumerate(top, 1)
        ]
        return [*head, *rows, ""]
    head = [
        "| # | route | 5xx seen | est. total (interval) | share of 5xx (interval) | statuses |",
        "|---|---|---:|---:|---:|---|",
    ]
    rows = [
        f"| {i} | `{e.key}` | {e.count:,} | {e.estimate:,.0f} ({e.low:,.0f}-{e.high:,.0f}) "
        f"| {e.share:.1%} ({e.share_low:.1%}-{e.share_high:.1%}) | {_statuses(e)} |"
        for i, e in enumerate(top, 1)
    ]
    ties = (
        [
            f"Tied within ε = {result.question.epsilon:g}: "
            + ", ".join(" = ".join(f"`{k}`" for k in pair) for pair in result.answer.ties)
        ]
        if result.answer.ties
        else []
    )
    return [*head, *rows, "", *ties]


def _rate(entry: TopEntry) -> str:
    """The rate, with its interval when the answer was settled from a sample."""
    rate = f"{entry.rate or 0:.2%}"
    if entry.rate_low is None or entry.rate_high is None:
        return rate
    return f"{rate} ({entry.rate_low:.2%}-{entry.rate_high:.2%})"


def _statuses(entry: TopEntry) -> str:
    return ", ".join(f"{s} {v:.0%}" for s, v in list(entry.breakdown.items())[:4])


def _recuse_lines(result: Result) -> list[str]:
    assert result.recuse is not None
    return [f"- Tried: {result.recuse.attempted}", f"- What to do: {result.recuse.suggestion}", ""]


def _reading(result: Result) -> list[str]:
    p = result.progress
    mb = p.bytes_read / 1e6
    line = (
        f"Read {p.fraction_read:.1%} of the input ({mb:,.1f} MB, {p.lines_read:,} lines) "
        f"in {p.elapsed_s:.2f} s; peak memory {p.peak_rss_bytes / 2**20:,.0f} MiB."
    )
    fmt = result.input.format
    conf = result.input.format_confidence
    detail = (
        f"Format: {fmt} ({conf:.1%} of sampled lines parse)." if fmt and conf is not None else ""
    )
    scope = (
        "among lines that could hold a 5xx (the rest were not parsed)"
        if p.malformed_scope == "prefiltered_lines"
        else "among all lines"
    )
    malformed = f"Malformed lines: {p.malformed_lines:,} {scope}."
    source = "_Report rendered from a template (no LLM was used)._"
    return [
        "## Reading",
        "",
        line,
        *([detail] if detail else []),
        malformed,
        *_trace(result),
        "",
        source,
    ]
