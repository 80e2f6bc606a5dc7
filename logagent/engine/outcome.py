"""Building the result of a run from what it read (the engine's last step).

Pure given the run's state: counts, evidence and decisions in, a ``Result``
with its template report out. A run that cannot answer is recused
(``recusal``); the input, progress and report every result carries are
``resultparts``.
"""

from __future__ import annotations

from logagent.counters import Tally
from logagent.engine.answers import (
    answer,
    rate_answer,
    sampled_answer,
    sketch_note,
    unread_widened,
)
from logagent.engine.healthy import negligible_alpha
from logagent.engine.recusal import no_such_key, recused
from logagent.engine.resultparts import input_info, progress_of, with_report
from logagent.engine.run import Run
from logagent.formats.adapter import metric_for
from logagent.formats.catalog import FORMAT_NOTES, NO_LEVEL
from logagent.formats.detect import Detection
from logagent.questions import (
    APP_KINDS,
    app_answer,
    candidates_text,
    level_distribution,
    selected_answer,
    selection_metric,
)
from logagent.result import (
    Negligible,
    Progress,
    QuestionKind,
    RecuseCode,
    Result,
    Saving,
    Status,
)
from logagent.sources.permute import Order, Ordering, unit_order
from logagent.timeline import MAX_DRAWN_BUCKETS, timeline_answer

#: A format that reads this share of the sample is not refused for a prefilter's candidates
#: that are all malformed (``finish``): they are counted as malformed lines.
READS_THE_SAMPLE = 0.5
#: ... as long as they are this few (40 malformed "5xx lines" of 100 are refused: a review).
FEW_MALFORMED = 3
#: A full read of a detected format that explains under this share of the lines it parsed
#: (records and the lines inside them) answers nothing, however many records it found: the
#: rest are lines of a layout it does not read, which may hold what was asked. Probe Q: an
#: Asterisk log read as syslog (2 of 48 lines) was "exact" ERROR 1, WARN 1 where it holds
#: NOTICE 33, SECURITY 9, WARNING 5; a Heroku Postgres log, generic (1 of 36), ERROR 1 of 10
#: records. Correct reads of 40 real logs explained 84 % of their lines at least.
EXPLAINS_THE_INPUT = 0.5
#: Layouts whose file holds other output by design (README: "its app output lines are no
#: records"), counted as malformed and said, never refused for it.
SHARES_ITS_FILE = frozenset({"uwsgi"})


def finish(run: Run, detection: Detection, unit_size: int, units_total: int | None) -> Result:
    tally = run.acc.snapshot()
    q = run.question
    ans = answer(tally, q.kind, top=q.top, min_requests=q.min_requests, epsilon=q.epsilon)
    if run.estimates:
        ans = sampled_answer(tally, run.estimates, run.ties)
    elif run.rate_entries:
        bound = run.rate_bound
        ans = rate_answer(
            tally, run.rate_entries, population=units_total or 0, read=tally.units, bound=bound
        )
    if q.kind in APP_KINDS:
        ans = app_answer(ans, q.level)
        _warn_layout(run, detection)
    elif run.selection is not None:
        sel = run.selection
        ans = selected_answer(ans, sel.breakdown_label, selection_metric(sel.by, q.where))
        if run.app_log and "level" in (sel.by, *(c.field for c in sel.conds)):
            _warn_layout(run, detection)
    elif q.kind is QuestionKind.STATUS and run.app_log:
        ans = level_distribution(ans)
        _warn_layout(run, detection)  # a level distribution of inferred levels says so
    elif q.kind is QuestionKind.STATUS:
        gone = sum(e.count for e in ans.top if e.key == "0")
        if gone:
            run.warnings.append(
                f"{gone:,} requests carry no status (`-`, or `000`: the client left before a "
                "response was sent): they are listed as status 0"
            )
    info = input_info(run, detection, unit_size)
    progress = progress_of(run, tally, units_total)
    _warn_counts(run, tally, detection.best if detection else "")
    if run.partial and not tally.units and _stopped_by_memory(run):
        detail = "the memory budget was exhausted before any unit was counted"
        return recused(
            run, detection, RecuseCode.MEMORY_EXHAUSTED, detail, progress=progress, info=info
        )
    unknown = q.key is not None and q.key not in run.known_keys
    if q.kind is QuestionKind.ERROR_TYPES and unknown and not ans.total and not run.partial:
        return no_such_key(run, detection, run.known_keys)  # said before the router's "no event"
    if run.recused_by:
        code, detail = run.recused_by
        return recused(run, detection, RecuseCode(code), detail, progress=progress, info=info)
    records = tally.parsed - tally.malformed - tally.continuation
    # Never "exact" from no record; but a prefilter's candidates may all be continuation lines
    # (a stack trace's "ERROR" in a log with no ERROR record), which says nothing of the format,
    # nor do a few malformed ones where the format reads most of the sample: the fragment of a
    # line cut by a rotation, at the head of a cron slice of 200s, is no 5xx record, and the
    # slice was refused on every run until a 5xx came (judged by its malformed lines instead).
    sampled = detection.confidence if detection is not None else 0.0
    few = tally.malformed <= FEW_MALFORMED and sampled >= READS_THE_SAMPLE
    judged = not run.prefiltered or (tally.malformed > 0 and not few)
    # nor does a time window's byte range that holds only lines before a record (a glog
    # header, probe R: "none of the 4 lines parsed is a record of golog" for an empty window)
    judged = judged and not ((q.since or q.until) and tally.malformed == 0)
    fmt = detection.best if detection else "the format"
    if not run.partial and tally.parsed > 0 and records <= 0 and judged:
        detail = f"none of the {tally.parsed:,} lines parsed is a record of {fmt}"
        return recused(
            run, detection, RecuseCode.UNRECOGNIZED_FORMAT, detail, progress=progress, info=info
        )
    # Every line parsed and its records under the threshold the sampled read's format check
    # proves: no answer either (a Suricata eve.json was "exact" on generic's 3 of 751 lines,
    # its detection sample 4 % records, over the threshold, so read in full).
    floor = max(run.settings.analysis.min_format_confidence, EXPLAINS_THE_INPUT)
    # a stream (stdin, .gz) is read to its end unless a race settled it or the read was cut
    # short (partial); a sampled read has its own check
    streamed = any(not s.seekable for s in run.sources) and not run.settled
    read_all = streamed or (units_total is not None and tally.units >= units_total)
    named = run.settings.analysis.format != "auto"  # a format named is the user's
    # not a prefilter's candidates: their share depends on what the prefilter lets through
    # (a TCP line's byte count "503" is a 5xx candidate of HAProxy's, a review), nor a layout
    # whose file holds other output by design (uWSGI's: the app's tracebacks, its banner)
    weighed = not run.prefiltered and fmt not in SHARES_ITS_FILE
    if read_all and not named and not run.partial and weighed and tally.parsed > 0:
        # Lines folded into a record that look like no part of one are not judged here: a
        # review found them in correct reads (Hibernate's "Hibernate: select ..." lines in a
        # Spring Boot log, flush-left SQL and JSON payloads); a warning counts them.
        explained = tally.parsed - tally.malformed
        if explained < floor * tally.parsed and tally.malformed > FEW_MALFORMED:
            detail = (
                f"only {explained:,} of the {tally.parsed:,} lines parsed are {fmt} records "
                f"or lines inside them, under the {floor:.0%} a detected format must read; to "
                f"count its records anyway, name it: --format {fmt}"
            )
            return recused(
                run, detection, RecuseCode.UNRECOGNIZED_FORMAT, detail, progress=progress, info=info
            )
    negligible = _negligible(run, tally, ans.total + ans.keyless)
    if negligible is not None:
        ans = ans.model_copy(update={"negligible": negligible})
    # nothing to count is said, never "exact": also a distribution whose window holds nothing
    in_window = q.kind is not QuestionKind.STATUS or bool(q.since or q.until)
    if not run.partial and in_window and ans.total == 0 and not negligible:
        events = metric_for(q.level)[: -len("s")] if q.kind in APP_KINDS else "5xx line"
        if q.kind is QuestionKind.STATUS:  # a distribution counts every record, not events
            events = "record"
        if run.selection is not None:
            events = selection_metric(run.selection.by, q.where).replace("records", "record", 1)
        if q.kind is QuestionKind.ERROR_TYPES and q.key is not None:  # that component's only
            events = f"{events} of component `{q.key}`"
        windowed = bool(q.since or q.until)
        scope = "the time window" if windowed else "the whole input"
        empty = "no line lies in the time window" if windowed else "no line was read"
        detail = f"no {events} in {scope}" if tally.lines else empty
        if ans.keyless:  # events exist, none on a key that can be ranked: never deny them
            unit = "5xx" if events == "5xx line" else "matching records"
            detail = (
                f"{ans.keyless:,} {unit} in {scope}, all on records without a usable key "
                "(a request with no path, binary junk): counted, but nothing to rank"
            )
        hint = None
        if (windowed and not tally.lines) or q.kind is QuestionKind.STATUS:
            hint = "check --since/--until against the log's dates, or leave the window out"
        unseen, sampled = run.levelless() if run.levelless is not None else (0, 0)
        fmt = detection.best if detection else "the format"
        cannot_see = sampled and unseen * 2 >= sampled and fmt not in NO_LEVEL  # (said there)
        if q.kind in APP_KINDS and cannot_see:
            detail += (
                f"; but {unseen:,} of {sampled:,} sampled records carry no level {fmt} reads, "
                "so their errors cannot be seen"
            )
            hint = (
                "name where the level is (a JSON or logfmt key: [formats.json_keys] level = "
                "KEY; a layout: a custom format in configs/formats/), or rank those records "
                "by another field (--by FIELD)"
            )
        return recused(
            run,
            detection,
            RecuseCode.NO_MATCHING_EVENTS,
            detail,
            progress=progress,
            info=info,
            suggestion=hint,
        )
    counted = not run.estimates and not run.rate_entries  # counts, not estimates
    unread = _unread_events(run, tally, units_total)
    if run.partial and counted and unread is not None:  # the rest may hold more of any key
        ans = unread_widened(ans, unread)
    note = sketch_note(tally, ans) if counted else None
    if note:
        run.warnings.append(note)
    exact = not run.settled and not note
    status = Status.PARTIAL if run.partial else Status.EXACT if exact else Status.SETTLED
    if run.bucket_s is not None:
        keys = [e.key for e in ans.top] if q.kind is not QuestionKind.STATUS else []
        line = timeline_answer(
            tally,
            keys,
            run.bucket_s,
            exact=status is Status.EXACT,
            population=units_total,
            order=_reading_order(run, units_total),
            span=run.bucket_span,
            delta=q.delta,
            bound=run.event_bound,
        )
        ans = ans.model_copy(update={"timeline": line})
        asked = run.settings.analysis.bucket != "auto"  # an automatic width is no promise
        if asked and line is not None and line.bucket_s != run.bucket_s:  # said: --bucket 1m
            run.warnings.append(  # had been drawn in 15 min buckets without a word
                f"the timeline is drawn in buckets of {line.bucket_s:,} s, not {run.bucket_s:,} s: "
                f"its range holds more than {MAX_DRAWN_BUCKETS:,} of those (ask a window, "
                "--since/--until, for finer buckets)"
            )
    elif q.kind is QuestionKind.TIMELINE:
        run.warnings.append(
            "no timeline: the records read carry no time stamp the format can read, so only "
            "the total of matching events is answered"
        )
    return with_report(
        Result(
            question=q,
            input=info,
            status=status,
            answer=ans,
            progress=progress,
            decisions=run.decisions,
            warnings=run.warnings,
            seed=run.seed if run.reading == "random_units" else None,
            saving=_saving(run, progress),
        )
    )


def _reading_order(run: Run, units_total: int | None) -> Ordering | None:
    """The seeded permutation a random-order read took its units from (its first ones read)."""
    if run.reading != "random_units" or not units_total or run.order_seed is None:
        return None
    if run.order is not None and len(run.order) == units_total:
        return run.order  # the very order read (not drawn again: 0.25 s for 2.4M units)
    return unit_order(units_total, Order.RANDOM, run.order_seed)


def _negligible(run: Run, tally: Tally, events: int) -> Negligible | None:
    """The "nothing worth reporting" claim, when Router-Mem stopped on it (its last decision)."""
    last = run.decisions[-1] if run.decisions else None
    if last is None or last.reason != "negligible" or not run.settled:
        return None
    return Negligible(
        rate=run.settings.analysis.negligible,
        confidence=1 - negligible_alpha(run.question.delta),
        events_seen=events,
        lines_seen=tally.lines,
    )


def _stopped_by_memory(run: Run) -> bool:
    last = run.decisions[-1] if run.decisions else None
    return last is not None and last.action == "STOP_PARTIAL" and last.reason == "memory_forecast"


def _saving(run: Run, progress: Progress) -> Saving:
    """Bytes not read, and CPU seconds a full read would have cost beyond this run (estimated)."""
    total = sum(s.size or 0 for s in run.sources)
    if not total or not all(s.seekable for s in run.sources):
        return Saving(bytes=0, cpu_s=0.0, evidence_share=0.0)
    fraction = max(progress.fraction_read, 1e-9)
    cpu_not_spent = progress.cpu_s * (1 / fraction - 1)
    share = run.evidence_s / progress.elapsed_s if progress.elapsed_s > 0 else 0.0
    return Saving(
        bytes=max(0, total - progress.bytes_read),
        cpu_s=round(cpu_not_spent, 3),
        evidence_share=round(share, 4),
    )


MALFORMED_WARN_SHARE = 0.01  # more malformed lines than this is always said, with the share


def _warn_layout(run: Run, detection: Detection) -> None:
    """Say what the layout could only infer (levels from words, components from kinds)."""
    note = FORMAT_NOTES.get(detection.best) or run.layout_note
    if note and note not in run.warnings:
        run.warnings.append(note)


#: What an access layout's lines that are no request are (``skip``, W3C's ``#`` lines), by
#: layout: the one text for all had named W3C and IIS on a Kubernetes audit log (probe N).
_NOT_REQUESTS = {
    "w3c": "#directives, IIS FTP entries",
    "cloudfront": "#directives",
    "elb": "TCP listener entries",
    "s3": "operations without an HTTP request",
    "k8s_audit": "events of a request's earlier stages, RequestReceived and ResponseStarted: "
    "its ResponseComplete event counts it",
}


def _warn_counts(run: Run, tally: Tally, layout: str = "") -> None:
    cap = run.settings.reader.line_cap
    q = run.question  # the lines parsed: a prefilter's candidates, or all of them
    candidates = candidates_text(q.kind, q.level) if run.prefiltered else None
    if tally.parsed and tally.malformed > MALFORMED_WARN_SHARE * tally.parsed:
        run.warnings.append(
            f"{tally.malformed / tally.parsed:.1%} of the {candidates or 'lines'} parsed "
            f"({tally.malformed:,} of {tally.parsed:,}) are malformed (no format of this run "
            "reads them): the counts cover only the records that parse"
        )
    if tally.truncated:
        run.warnings.append(
            f"{tally.truncated} lines longer than {cap} bytes were cut to {cap} bytes "
            "(truncated_lines): each is parsed from its first bytes, a record if its fields "
            "lie there, else malformed (a cut JSON line always: its object no longer closes); "
            "--line-cap above the longest line reads them whole"
        )
    if tally.invalid_utf8:
        run.warnings.append(f"{tally.invalid_utf8} parsed lines held invalid UTF-8 (replaced)")
    if tally.outside_window:
        run.warnings.append(
            f"{tally.outside_window} records read lay outside the time window and were not counted"
        )
    if tally.continuation and not run.app_log:  # an access layout's own non-request lines
        what = _NOT_REQUESTS.get(layout, "the layout's lines that record no HTTP request")
        run.warnings.append(
            f"{tally.continuation} lines are no request of the layout ({what}); they are "
            "neither counted nor malformed"
        )
    elif tally.continuation and layout in NO_LEVEL:  # Zeek TSV's # lines
        run.warnings.append(
            f"{tally.continuation} lines are the log's # directives (#fields, #close...); "
            "they are neither counted nor malformed"
        )
    elif tally.continuation:
        lines = f"lines among the {candidates}" if candidates else "lines"
        unlike = tally.unlike_continuation
        run.warnings.append(
            f"{tally.continuation} {lines} continue multi-line records (stack traces); they "
            "belong to the record they follow and are not counted on their own"
            + (
                f"; {unlike} of them look like no stack trace (a program's own output, or "
                "another layout's records, such as requests, which are not counted: "
                "logagent detect shows what else reads them)"
                if unlike
                else ""
            )
        )


def _unread_events(run: Run, tally: Tally, units_total: int | None) -> float | None:
    """The most events the units a partial read left can hold: M (``event_bound``) each;
    None when the input's size is unknown (a stream: its counts are of what came, and the
    report says so)."""
    if units_total is None or any(not s.seekable for s in run.sources):
        return None
    return max(0, units_total - tally.units) * run.event_bound
