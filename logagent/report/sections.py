"""What the report says, as a ``Document`` built from a result alone (PURE).

Every renderer (Markdown, HTML) shows the same sections; to add one (time
windows, error templates), write a function ``Result -> Section | None`` and
list it in ``SECTIONS``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from logagent.formats.adapter import NO_LEVEL
from logagent.formats.levels import LEVELS
from logagent.questions import LEVEL_METRIC, candidates_text
from logagent.report.document import Document, Section, Table
from logagent.report.overtime import over_time, timeline_claim
from logagent.report.partials import damaged, partial_why, whole_read
from logagent.report.words import (
    DASH,
    RECUSE_WHY,
    bisected,
    confidence,
    mostly,
    pct,
    pct_range,
    rate,
    reading,
    size,
    status_mix,
    transcoded,
)
from logagent.result import MAX_TIE_PAIRS, QuestionKind, Result, Status, TopEntry

_TITLES = {
    QuestionKind.TOP_ERRORS: "Routes with the most 5xx errors",
    QuestionKind.ERROR_RATE: "Routes with the highest 5xx rate",
    QuestionKind.STATUS: "Status distribution",
    QuestionKind.TOP_ERROR_COMPONENTS: "Components with the most error records",
    QuestionKind.ERROR_TYPES: "Most frequent error types",
    QuestionKind.TIMELINE: "5xx errors over time",
    QuestionKind.TOP_4XX: "Routes with the most 4xx errors",
    QuestionKind.TOP_CLIENTS: "Clients with the most requests",
}


def _by_level(result: Result) -> bool:
    """A status question asked of an application log: a distribution of levels."""
    return result.question.kind is QuestionKind.STATUS and result.answer.metric == LEVEL_METRIC


def build(result: Result) -> Document:
    """The report of ``result`` as a document."""
    name = "Level distribution" if _by_level(result) else _title(result)
    title = f"logagent: {name}"
    if result.recuse:
        return Document(title, _recuse_headline(result), _recuse_sections(result), footer(result))
    sections = [s for make in SECTIONS if (s := make(result)) is not None]
    return Document(title, headline(result), sections, footer(result))


def _title(result: Result) -> str:
    q = result.question
    if q.kind is QuestionKind.TOP:
        key, ev = nouns(result)
        return f"{key} values with the most {ev}"
    return _TITLES[q.kind]


def _selection_note(result: Result) -> list[str]:
    """What a --by/--where question counted, in its own words."""
    q = result.question
    if q.kind is not QuestionKind.TOP:
        return []
    scope = " and ".join(f"`{w}`" for w in q.where) if q.where else "every record"
    return [f"Ranked: the values of `{q.by}` among {'records where ' if q.where else ''}{scope}."]


def headline(result: Result) -> str:
    """The answer in plain words, then how much was read."""
    top = result.answer.top[0] if result.answer.top else None
    read = "every line of the time window" if bisected(result)[0] else "the whole input"
    how = {
        Status.EXACT: f"Exact answer ({read} was read)",
        Status.PARTIAL: f"Partial answer ({partial_why(result)}; what is known so far)",
        Status.SETTLED: f"With {confidence(result)} confidence",
    }.get(result.status, "")
    if result.answer.negligible is not None:
        return f"{negligible_claim(result)} {reading(result)}"
    kind = result.question.kind
    if kind is QuestionKind.TIMELINE:
        return f"{how}: {timeline_claim(result, nouns(result)[1] + ' lines')}. {reading(result)}"
    if top is None:
        return f"{how}: nothing to rank. {reading(result)}"
    ev = nouns(result)[1]
    if kind is QuestionKind.STATUS:
        total = result.answer.total
        what, noun = ("level", "records") if _by_level(result) else ("status", "lines")
        claim = f"{what} {top.key} is the most common, {pct(top.share)} of {total:,} {noun}"
        if result.status is Status.PARTIAL and top.estimate == top.count and not whole_read(result):
            claim += " in the part read"  # a prefix's counts
    elif kind is QuestionKind.ERROR_RATE:
        seen = "" if result.status is Status.EXACT else " seen"
        claim = (
            f"`{top.key}` has the highest 5xx rate, {rate(top)} of "
            f"{top.requests or 0:,}{seen} requests, {mostly(top)}"
        )
    elif result.status is Status.EXACT:
        claim = (
            f"`{top.key}` has the most {ev}: {top.count:,} of {result.answer.total:,} "
            f"({pct(top.share)}){_tail(top)}"
        )
    elif result.status is Status.PARTIAL and whole_read(result):  # a cron window's, all read
        claim = (
            f"`{top.key}` has the most {ev} in the window's counts: {top.count:,} of "
            f"{result.answer.total:,} ({pct(top.share)}){_tail(top)}"
        )
    elif result.status is Status.PARTIAL and top.estimate == top.count == top.low:  # counted
        rest = "the rest was not read"
        if top.high > top.count:
            rest += f": the whole input holds {top.count:,} to {top.high:,.0f}"
        claim = (
            f"`{top.key}` has the most {ev} in the part read: {top.count:,} of "
            f"{result.answer.total:,} ({pct(top.share)}){_tail(top)}; {rest}"
        )
    else:
        claim = (
            f"`{top.key}` has the most {ev}: {pct(top.share, 0)} "
            f"({pct_range(top.share_low, top.share_high)}) of all {ev}{_tail(top)}; "
            f"about {top.estimate:,.0f} ({top.low:,.0f}{DASH}{top.high:,.0f}) in the whole input"
        )
    return f"{how}: {claim}. {reading(result)}"


def negligible_claim(result: Result) -> str:
    """``No route has a meaningful number of 5xx: with 99 % confidence 5xx are under ...``."""
    neg = result.answer.negligible
    assert neg is not None
    key, ev = nouns(result)
    seen = f"{neg.events_seen:,} {ev} seen in {neg.lines_seen:,} lines read"
    return (
        f"No {key} has a meaningful number of {ev}: with {confidence(result)} confidence {ev} "
        f"are under {pct(neg.rate, 2)} of the log's lines (1 in {1 / neg.rate:,.0f}); {seen}. "
        'That is not "none at all": only a full read can say that.'
    )


def top_table(result: Result) -> Section | None:
    """The ranked keys with their counts, intervals and status mix."""
    top = result.answer.top
    if not top:
        return None
    kind = result.question.kind
    if kind is QuestionKind.STATUS:
        rows = [[e.key, f"{e.count:,}", pct(e.share, 2)] for e in top]
        total = result.answer.total
        classes = ", ".join(
            f"{name} {n:,} ({pct(n / total if total else 0.0, 1)})"
            for name, n in result.answer.classes.items()
        )
        if _by_level(result):
            return Section(
                "Levels", [], table=Table(["level", "records", "share"], rows, ["l", "r", "r"])
            )
        return Section(
            "Statuses",
            [f"By class: {classes}."] if classes else [],
            table=Table(["status", "lines", "share"], rows, ["l", "r", "r"]),
        )
    if kind is QuestionKind.ERROR_RATE:
        header = ["#", "route", "5xx rate", "5xx", "requests", "statuses"]
        rows = [
            [
                str(i),
                f"`{e.key}`",
                rate(e),
                f"{e.count:,}",
                f"{e.requests or 0:,}",
                status_mix(e, 4),
            ]
            for i, e in enumerate(top, 1)
        ]
        return Section("Top routes", table=Table(header, rows, ["r", "l", "r", "r", "r", "l"]))
    key, ev = nouns(result)
    apart = _selection_note(result) + _keyless(result, key, ev)
    if result.status is Status.EXACT:
        header = ["#", key, ev, f"share of {ev}"]
        rows = [[str(i), f"`{e.key}`", f"{e.count:,}", pct(e.share)] for i, e in enumerate(top, 1)]
        return Section(
            f"Top {_plural(key)}", apart, table=Table(header, rows, ["r", "l", "r", "r"])
        )
    header = ["#", key, f"{ev} seen", "est. total (interval)", f"share of {ev} (interval)"]
    rows = [
        [
            str(i),
            f"`{e.key}`",
            f"{e.count:,}",
            f"{e.estimate:,.0f} ({e.low:,.0f}{DASH}{e.high:,.0f})",
            f"{pct(e.share)} ({pct_range(e.share_low, e.share_high, 1)})",
        ]
        for i, e in enumerate(top, 1)
    ]
    return Section(
        f"Top {_plural(key)}", apart, table=Table(header, rows, ["r", "l", "r", "r", "r"])
    )


def _keyless(result: Result, key: str, ev: str) -> list[str]:
    """The events of records without a usable key, said apart from the ranking."""
    n = result.answer.keyless
    if not n:
        return []
    seen = "" if result.status is Status.EXACT else " seen"
    why = "a request with no path, binary junk" if key == "route" else f"no `{key}` value"
    if key != "route":  # "56 records on records without ..." read twice
        return [f"{n:,} {ev}{seen} have no `{key}` value: counted, but not ranked."]
    return [
        f"{n:,} {ev}{seen} on records without a usable {key} ({why}): counted, but not "
        f"a {key}, so not ranked."
    ]


def nouns(result: Result) -> tuple[str, str]:
    """What the ranked keys and the counted events are called: route/5xx or component/levels."""
    q = result.question
    if q.kind in (QuestionKind.TOP_ERROR_COMPONENTS, QuestionKind.ERROR_TYPES):
        events = result.answer.metric.removesuffix(" records") or "ERROR+"
        return ("error type" if q.kind is QuestionKind.ERROR_TYPES else "component"), events
    if q.kind is QuestionKind.TOP_4XX:
        return "route", "4xx"
    if q.kind is QuestionKind.TOP_CLIENTS:
        return "client", "requests"
    if q.kind is QuestionKind.TOP:
        return q.by or "value", "matching records" if q.where else "records"
    return "route", "5xx"


def error_types(result: Result) -> Section | None:
    """The status mix of each ranked route (error templates will join it here)."""
    entries = [e for e in result.answer.top if e.breakdown]
    if result.question.kind is QuestionKind.STATUS or not entries:
        return None
    bullets = [f"`{e.key}`: {status_mix(e)}" for e in entries]
    key, ev = nouns(result)
    if result.question.kind in (QuestionKind.TOP, QuestionKind.TOP_CLIENTS):
        labels = {k for e in entries for k in e.breakdown}
        what = "level" if labels <= {*LEVELS, NO_LEVEL} else "status"
        return Section(f"Breakdown by {what} (share of each {key}'s {ev})", bullets=bullets)
    return Section(f"Error types (share of each {key}'s {ev})", bullets=bullets)


def time_window(result: Result) -> Section:
    """The time window asked about, or that the whole input was in scope."""
    q = result.question
    if q.since is None and q.until is None:
        return Section("Time window", ["The whole input (no time window was asked)."])
    return Section("Time window", [f"From {q.since or 'the start'} until {q.until or 'the end'}."])


def ties(result: Result) -> Section | None:
    """Keys whose totals are provably within epsilon of each other."""
    if not result.answer.ties:
        return None
    eps = result.question.epsilon
    bullets = [" = ".join(f"`{k}`" for k in group) for group in result.answer.ties]
    more = (
        [f"The first {MAX_TIE_PAIRS} pairs; more keys share these counts."]
        if len(bullets) >= MAX_TIE_PAIRS
        else []
    )
    if eps <= 0:  # equal counts across the cut: which of them is ranked in is arbitrary
        lines = ["Equal counts across the top-k cut: the ranked one could as well be the other."]
        return Section("Ties (equal counts)", [*lines, *more], bullets=bullets)
    return Section(f"Ties (within ε = {eps:g})", more, bullets=bullets)


def warnings(result: Result) -> Section | None:
    """Everything the run warned about."""
    return Section("Warnings", bullets=list(result.warnings)) if result.warnings else None


def decisions(result: Result) -> Section | None:
    """A short summary of the decision trace and of the format found."""
    paragraphs = []
    fmt, conf = result.input.format, result.input.format_confidence
    if fmt and conf is not None:
        paragraphs.append(f"Format: {fmt} ({pct(conf)} of sampled lines parse).")
    if result.decisions:
        actions = Counter(d.action for d in result.decisions)
        mix = ", ".join(f"{n}x {a}" for a, n in actions.items())
        last = result.decisions[-1]
        at = (
            f"at {pct(last.fraction_read)} read"
            if result.input.seekable
            else f"after {last.units_read:,} units of a stream"
        )
        paragraphs.append(
            f"{len(result.decisions)} checks ({mix}); the last, {at}, was {last.action} "
            f"({last.reason}: {last.detail})."
        )
    return Section("How it decided", paragraphs) if paragraphs else None


def saving(result: Result) -> Section:
    """What was read, what it cost, and what stopping early saved."""
    p = result.progress
    what = f"{size(p.bytes_read)}, {p.lines_read:,} lines"
    of = "the time window's part of the input" if bisected(result)[0] else "the input"
    read = (
        f"Read {pct(p.fraction_read)} of {of} ({what})"
        if result.input.bytes_total is not None
        else f"Read {text} text as {p.bytes_read:,} bytes of UTF-8 ({what})"
        if (text := transcoded(result))
        else f"Read {p.bytes_read:,} bytes of decompressed data or stream ({what}; whole size "
        "unknown)"
    )
    read += f" in {p.elapsed_s:.2f} s; peak memory {p.peak_rss_bytes / 2**20:,.0f} MiB."
    if damaged(result):
        read += " The input ended early (truncated or damaged): the answer is partial."
    q = result.question
    scope = (
        f"among {candidates_text(q.kind, q.level)} (the rest were not parsed)"
        if p.malformed_scope == "prefiltered_lines"
        else "among all lines"
    )
    paragraphs = [read, f"Malformed lines: {p.malformed_lines:,} {scope}."]
    s = result.saving
    if s and s.bytes:
        paragraphs.append(
            f"Not read: {size(s.bytes)}; a full read would have cost about {s.cpu_s:.2f} CPU-s "
            f"more. Evidence and Router-Mem took {pct(s.evidence_share)} of the wall time."
        )
    return Section("Reading and saving", paragraphs)


SECTIONS: list[Callable[[Result], Section | None]] = [
    top_table,
    over_time,
    error_types,
    time_window,
    ties,
    warnings,
    decisions,
    saving,
]


def _recuse_headline(result: Result) -> str:
    assert result.recuse is not None
    why = RECUSE_WHY[result.recuse.reason_code]
    return f"**Cannot answer**: {why} ({result.recuse.reason_code.value})."


def _recuse_sections(result: Result) -> list[Section]:
    assert result.recuse is not None
    r = result.recuse
    bullets = [f"Why: {r.detail}", f"What was tried: {r.attempted}"]
    if r.suggestion:
        bullets.append(f"What to do: {r.suggestion}")
    extra = [s for s in (warnings(result),) if s is not None]
    return [Section("What happened", bullets=bullets), *extra]


def footer(result: Result) -> str:
    """Where the prose came from, and why the template was used when it was."""
    rep = result.report
    if rep.source == "llm":
        return (
            f"_Written by the LLM {rep.model} from the result alone; every number and route "
            "in it was checked against the result._"
        )
    if rep.fallback_reason == "llm_unavailable":
        return f"_Report rendered from a template: {rep.fallback_detail}._"
    if rep.fallback_reason == "llm_rejected":
        return (
            "_Report rendered from a template: the LLM's text failed the check against "
            f"the result twice ({rep.fallback_detail})._"
        )
    return "_Report rendered from a template (no LLM was used)._"


def _plural(noun: str) -> str:
    """``route`` -> ``routes``, ``status`` -> ``statuses``, ``query`` -> ``queries``."""
    if len(noun) > 1 and noun.endswith("y") and noun[-2] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + ("es" if noun.endswith(("s", "x", "sh", "ch")) else "s")


def _tail(entry: TopEntry) -> str:
    """``, mostly 503 (71 %)``, or nothing for an entry without a breakdown."""
    return f", {mostly(entry)}" if entry.breakdown else ""
