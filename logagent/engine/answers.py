"""Exact answers from a tally (PURE).

``answer`` ranks routes (``top-errors`` by 5xx count, ``error-rate`` by 5xx
per request among routes with enough requests) or statuses (``status``).
Ties in the ranking are broken by key name. When everything in scope was read
the full-input total equals the count, so ``estimate == low == high == count``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from logagent.counters.sketch import REST_KEY
from logagent.counters.tally import ROUTE, N, Tally
from logagent.evidence.race import Estimate
from logagent.evidence.rates import RateEntry
from logagent.formats.base import STATUS
from logagent.formats.routes import INVALID_REQUEST
from logagent.result import MAX_TIE_PAIRS, Answer, QuestionKind, TopEntry

IS_5XX = pl.col(STATUS).is_between(500, 599)


def answer(
    tally: Tally, kind: QuestionKind, *, top: int, min_requests: int, epsilon: float = 0.0
) -> Answer:
    """The exact answer to ``kind`` over everything tallied (ties within ``epsilon`` named)."""
    if kind is QuestionKind.STATUS:
        return _status_answer(tally.counts)
    if kind is QuestionKind.TIMELINE:  # the events per bucket alone: the totals, no ranking
        whole = answer(tally, QuestionKind.TOP_ERRORS, top=top, min_requests=min_requests)
        return whole.model_copy(update={"top": [], "ties": []})
    per_route = ranked_routes(tally.counts)
    total = int(per_route["errors"].sum()) + tally.dropped_errors
    if kind is QuestionKind.ERROR_RATE:
        ranked = (
            per_route.filter(pl.col("requests") >= min_requests)
            .with_columns((pl.col("errors") / pl.col("requests")).alias("rate"))
            .sort(["rate", "errors", ROUTE], descending=[True, True, False])
        )
        metric = "5xx per request"
    else:
        ranked = per_route.filter(pl.col("errors") > 0).sort(
            ["errors", ROUTE], descending=[True, False]
        )
        metric = "5xx lines"
    head = ranked.head(top)
    breakdowns = status_breakdowns(tally.counts, head[ROUTE].to_list())
    entries = [
        _entry(row, total, breakdowns.get(row[ROUTE], {}), kind)
        for row in head.iter_rows(named=True)
    ]
    if tally.count_error:
        entries = [_widen(e, tally.count_error, total) for e in entries]
        if kind is QuestionKind.ERROR_RATE:
            entries = [_widen_rate(e, tally.count_error) for e in entries]
    return Answer(
        top=entries,
        keyless=keyless_events(tally.counts, kind),
        ties=exact_ties(ranked["errors"].to_list(), ranked[ROUTE].to_list(), top, epsilon)
        if kind is not QuestionKind.ERROR_RATE
        else [],
        total=total,
        distinct_keys=ranked.height,
        metric=metric,
        count_error=tally.count_error,
    )


def exact_ties(counts: list[int], keys: list[str], top: int, epsilon: float) -> list[list[str]]:
    """Pairs across the top-``top`` boundary (in, out) whose counts lie within ``epsilon``.

    The same definition the evidence settles a tie by: ``T_in <= (1 + epsilon) * T_out``;
    so an exact answer names the ties a sampled one would have stopped on. With ``epsilon``
    0 these are equal counts: which of them made the top is arbitrary, so it is said.
    """
    if len(counts) <= top:
        return []
    pairs: list[list[str]] = []
    for i in range(top):
        for j in range(top, len(counts)):
            if counts[i] > (1 + epsilon) * counts[j] or len(pairs) >= MAX_TIE_PAIRS:
                break  # sorted: later keys are further away
            pairs.append([keys[i], keys[j]])
    return pairs


def _widen(entry: TopEntry, error: int, total: int) -> TopEntry:
    """A count from the bounded summary: the truth lies in [count, count + E]."""
    high = entry.count + error
    return entry.model_copy(update={"high": high, "share_high": high / total if total else 0.0})


def _widen_rate(entry: TopEntry, error: int) -> TopEntry:
    """Both the 5xx and the requests of a summarized route may be low by E: bound the rate."""
    errors, requests = entry.count, entry.requests or 0
    low = errors / (requests + error) if requests + error else 0.0
    high = min(1.0, (errors + error) / requests) if requests else 1.0
    return entry.model_copy(update={"rate_low": low, "rate_high": high})


def sketch_note(tally: Tally, ans: Answer) -> str | None:
    """What the bounded summary means for this answer (None when counts are exact).

    The top is certain when the k-th count beats the next kept count and any
    dropped route (each at most E higher than kept) by more than E.
    """
    e = tally.count_error
    if not e or not ans.top:
        return None
    if ans.metric == "5xx per request":
        return (
            f"counts come from a bounded summary: each route's 5xx and requests may be low by "
            f"at most {e} (answer.count_error), so each rate lies in [rate_low, rate_high]; "
            f"distinct_keys counts the routes kept. Rerun with a larger --memory-budget for "
            "exact rates"
        )
    kth = ans.top[-1].count
    per_route = ranked_routes(tally.counts)
    others = per_route.filter(~pl.col(ROUTE).is_in([t.key for t in ans.top]))["errors"]
    rival = int(others.max() or 0) if others.len() else 0  # type: ignore[arg-type]
    if kth > max(rival, 0) + e:
        return (
            f"counts come from a bounded summary: each may be low by at most {e} "
            f"(answer.count_error); the top {len(ans.top)} is certain (the last of it, {kth}, "
            f"beats every other route's {rival} + {e})"
        )
    return (
        f"counts come from a bounded summary: each may be low by at most {e} "
        f"(answer.count_error); routes within {e} of the last of the top ({kth}) may belong "
        "in it instead: rerun with a larger --memory-budget for exact counts"
    )


def ranked_routes(counts: pl.DataFrame) -> pl.DataFrame:
    """``route_totals`` of the keys that can be ranked: not the summary's REST row, and not
    records without a usable key (a request with no path is not an endpoint)."""
    return route_totals(counts).filter(~pl.col(ROUTE).is_in([REST_KEY, INVALID_REQUEST]))


def keyless_events(counts: pl.DataFrame, kind: QuestionKind) -> int:
    """5xx (or, for app questions, events) of records without a usable key: counted apart."""
    if kind is QuestionKind.STATUS:
        return 0
    rows = counts.filter((pl.col(ROUTE) == INVALID_REQUEST) & pl.col(STATUS).is_between(500, 599))
    return int(rows[N].sum())


def route_totals(counts: pl.DataFrame) -> pl.DataFrame:
    """Per route: requests (valid records), 4xx and 5xx counts."""
    return counts.group_by(ROUTE).agg(
        pl.col(N).sum().alias("requests"),
        pl.col(N).filter(pl.col(STATUS).is_between(400, 499)).sum().alias("client_errors"),
        pl.col(N).filter(IS_5XX).sum().alias("errors"),
    )


def status_breakdowns(counts: pl.DataFrame, routes: list[str]) -> dict[str, dict[str, float]]:
    """Share of each 5xx status within each route's 5xx lines, most frequent first.

    One sorted query for every route (a query per route cost a cron run with
    ``--top 1000`` half of its time).
    """
    rows = (
        counts.filter(pl.col(ROUTE).is_in(routes) & IS_5XX)
        .with_columns(pl.col(N).sum().over(ROUTE).alias("_total"))
        .sort([ROUTE, N, STATUS], descending=[False, True, False])
    )
    out: dict[str, dict[str, float]] = {}
    columns = (rows[c].to_list() for c in (ROUTE, STATUS, N, "_total"))
    for route, status, n, total in zip(*columns, strict=True):
        out.setdefault(str(route), {})[str(status)] = round(n / total, 6)
    return out


def unread_widened(ans: Answer, unread: float) -> Answer:
    """A partial read's counts as what they are of the whole input: each key has its count
    and up to ``unread`` more events in what was not read, so its interval is [count, count
    + unread]. A read in file order stopped by a budget had shown "about 56 (56-56) in the
    whole input" for a key with 141."""
    whole = ans.total + unread

    def widened(e: TopEntry) -> TopEntry:
        high = e.count + ans.count_error + unread  # a summary's count may be low
        shares = (e.count / whole, min(1.0, high / whole)) if whole > 0 else (0.0, 1.0)
        update = {"estimate": float(e.count), "low": float(e.count), "high": high}
        return e.model_copy(update={**update, "share_low": shares[0], "share_high": shares[1]})

    return ans.model_copy(update={"top": [widened(e) for e in ans.top]})


def exact_entry(key: str, count: int, total: int, **extra: Any) -> TopEntry:
    """An entry whose full-input total is known: the interval is the count itself."""
    share = count / total if total else 0.0
    return TopEntry(
        key=key,
        count=count,
        estimate=count,
        low=count,
        high=count,
        share=share,
        share_low=share,
        share_high=share,
        **extra,
    )


def _entry(
    row: dict[str, Any], total: int, breakdown: dict[str, float], kind: QuestionKind
) -> TopEntry:
    count, requests = int(row["errors"]), int(row["requests"])
    rate = count / requests if requests else 0.0
    return exact_entry(
        str(row[ROUTE]),
        count,
        total,
        breakdown=breakdown,
        requests=requests,
        rate=rate if kind is QuestionKind.ERROR_RATE else None,
    )


def _status_answer(counts: pl.DataFrame) -> Answer:
    """Every status (a distribution hides nothing: a rare 501 matters), and the class totals."""
    per_status = (
        counts.group_by(STATUS).agg(pl.col(N).sum()).sort([N, STATUS], descending=[True, False])
    )
    total = int(per_status[N].sum())
    entries = [exact_entry(str(s), n, total) for s, n in per_status.iter_rows()]
    classes: dict[str, int] = {}
    for status, n in per_status.sort(STATUS).iter_rows():
        name = f"{status // 100}xx" if status is not None and 100 <= status < 600 else "other"
        classes[name] = classes.get(name, 0) + int(n)
    return Answer(
        top=entries,
        classes=classes,
        total=total,
        distinct_keys=per_status.height,
        metric="lines",
    )


def sampled_answer(tally: Tally, estimates: Sequence[Estimate], ties: list[list[str]]) -> Answer:
    """The answer of an early-stopped run: counts seen, full-input estimates and intervals."""
    per_route = ranked_routes(tally.counts)
    breakdowns = status_breakdowns(tally.counts, [e.key for e in estimates])
    entries = [
        TopEntry(
            key=e.key,
            count=e.count,
            estimate=round(e.estimate, 2),
            low=round(e.low, 2),
            high=round(e.high, 2),
            share=round(e.share, 6),
            share_low=round(e.share_low, 6),
            share_high=round(e.share_high, 6),
            breakdown=breakdowns.get(e.key, {}),
        )
        for e in estimates
    ]
    errors = per_route.filter(pl.col("errors") > 0)
    return Answer(
        top=entries,
        ties=ties,
        keyless=keyless_events(tally.counts, QuestionKind.TOP_ERRORS),
        total=int(errors["errors"].sum()),
        distinct_keys=errors.height,
        metric="5xx lines",
    )


def rate_answer(
    tally: Tally, entries: Sequence[RateEntry], *, population: int, read: int, bound: float
) -> Answer:
    """The answer of an early-stopped error-rate run: observed rates with their intervals.

    The 5xx total of a route is estimated as ``count * B / t`` within the only
    bounds known for it here, ``[count, count + (B - t) M]``.
    """
    per_route = ranked_routes(tally.counts)
    total = int(per_route["errors"].sum())
    breakdowns = status_breakdowns(tally.counts, [e.key for e in entries])
    scale, left = population / max(read, 1), (population - read) * bound
    top = []
    for e in entries:
        share = e.errors / total if total else 0.0
        top.append(
            TopEntry(
                key=e.key,
                count=e.errors,
                estimate=round(e.errors * scale, 2),
                low=e.errors,
                high=e.errors + left,
                share=share,
                share_low=0.0,
                share_high=1.0,
                breakdown=breakdowns.get(e.key, {}),
                requests=e.requests,
                rate=e.rate,
                rate_low=e.rate_low,
                rate_high=e.rate_high,
            )
        )
    eligible = per_route.filter(pl.col("requests") > 0)
    return Answer(top=top, total=total, distinct_keys=eligible.height, metric="5xx per request")
