"""Recusing: the structured "cannot answer" result, with a reason code and a way on.

``recused`` builds the RECUSED result (and traces the decision) for any
reason; ``unrecognized`` says the sample parses in no known format,
``no_such_key`` that error-types was asked of a component no record names.
Each carries a detail, a suggestion of what to do next, and what the run
attempted. EDGE through the run: ``recused`` traces its decision in the run
(``run.decisions``) and logs it; the rest is computed from the run's state.
"""

from __future__ import annotations

from logagent.engine.resultparts import input_info, progress_of, with_report
from logagent.engine.run import Run
from logagent.formats.adapter import metric_for
from logagent.formats.catalog import NO_LEVEL
from logagent.formats.detect import Detection
from logagent.log import get_logger
from logagent.questions import APP_KINDS, SELECT_KINDS
from logagent.result import (
    Answer,
    DecisionRecord,
    InputInfo,
    Progress,
    Question,
    Recuse,
    RecuseCode,
    Result,
    Status,
)

log = get_logger("logagent.engine")


def unrecognized(
    run: Run, detection: Detection, sample: list[str], *, named: bool = False
) -> Result:
    """Recuse without reading the rest: the sample parses in no known format (``named``: in
    the format the user named, which read every line of a small input)."""
    examples = examples_of(sample)
    detail = (
        f"only {detection.confidence:.2%} of {detection.sample_lines} sampled lines parse in any "
        f"known format (best guess: {detection.best}); {examples}"
        if detection.confidence > 0
        else f"none of {detection.sample_lines} sampled lines parses in any known format; "
        f"{examples}"
    )
    if named:
        detail = (
            f"--format {detection.best} reads none of the {detection.sample_lines} lines of the "
            f"input; {examples}"
        )
    entries = [line for line in sample if not line.startswith("#")]
    if entries and _ftp_entries(sample) * 2 >= len(entries):
        detail = (
            f"a W3C log of an FTP service (IIS's FTP log): its {len(entries):,} sampled entries "
            "are FTP commands and replies (USER, PASS, sent; 226, 331, 530), no HTTP requests"
        )
    cap = run.settings.reader.line_cap
    cut = sum(len(line.encode("utf-8", "replace")) >= cap for line in sample)
    suggestion = cut_lines_advice(cut, len(sample), cap)
    return recused(run, detection, RecuseCode.UNRECOGNIZED_FORMAT, detail, suggestion=suggestion)


def _ftp_entries(sample: list[str]) -> int:
    """The FTP entries of a W3C log among the sample's lines (none unless it has #Fields)."""
    if not any(line.startswith("#Fields:") for line in sample):
        return 0
    from logagent.formats.w3c import ftp_entries

    return ftp_entries(sample)


#: What lines cut at the line cap can look like: no format reads them, or no event is in them.
_CUT_CAN_CAUSE = (RecuseCode.UNRECOGNIZED_FORMAT, RecuseCode.NO_MATCHING_EVENTS)


def cut_lines_advice(cut: int, lines: int, cap: int) -> str | None:
    """What to do when most lines were cut at the line cap (``--line-cap 20`` left a format
    nothing to read, and the run said only that no format reads the log); None otherwise."""
    if not lines or cut * 2 < lines:
        return None
    return (
        f"{cut:,} of {lines:,} lines were longer than --line-cap ({cap:,} bytes) and cut to it, "
        "so their fields were not read: raise --line-cap (the default is 64KiB)"
    )


def examples_of(sample: list[str]) -> str:
    """The first sampled lines an unrecognized input shows, and what UTF-16 text without its
    byte-order mark would need (with the mark it is read: ``sources.streams.Transcoded``)."""
    entries = [line for line in sample if not line.startswith("#")] or sample  # not directives
    examples = "examples: " + "; ".join(repr(line[:120]) for line in entries[:3])
    if _looks_utf16(sample):
        examples += (
            "; the text looks UTF-16 encoded without a byte-order mark: convert it first "
            "(iconv -f UTF-16LE -t UTF-8)"
        )
    return examples


def _looks_utf16(sample: list[str]) -> bool:
    """Many NULs between ASCII letters: what UTF-16 text decoded as UTF-8 looks like."""
    text = "".join(sample[:50])
    return len(text) > 20 and text.count("\x00") > len(text) // 4


_SUGGESTIONS = {
    RecuseCode.EMPTY_INPUT: "check the path, or wait until the log has content",
    RecuseCode.UNRECOGNIZED_FORMAT: (
        "see which format parses it with `logagent detect FILE`, then name it with --format "
        "(`logagent formats` lists them; a custom regex format goes in configs/formats/)"
    ),
    RecuseCode.NO_MATCHING_EVENTS: "nothing to rank: ask --question status for the status mix",
    RecuseCode.INPUT_UNREADABLE: (
        "check that the file is complete and readable (gzip -t / zstd -t for compressed "
        "files), or pass the uncompressed log"
    ),
    RecuseCode.MEMORY_EXHAUSTED: (
        "give the run more memory with --memory-budget, or lower --line-cap"
    ),
}


def recused(
    run: Run,
    detection: Detection | None,
    code: RecuseCode,
    detail: str,
    *,
    progress: Progress | None = None,
    info: InputInfo | None = None,
    suggestion: str | None = None,
) -> Result:
    """The RECUSED result for ``code``: the detail, a suggestion (``suggestion``, else one
    for the code), what the run attempted and its progress so far, the decision traced."""
    tally = run.acc.snapshot()
    progress = progress or progress_of(run, tally, None)
    attempted = _attempted(run, detection, progress)
    levelless = detection.best if detection and detection.best in NO_LEVEL else None
    if suggestion is None and levelless and run.question.kind in APP_KINDS:
        suggestion = (
            f"{levelless} records carry no level: rank one of their fields instead "
            "(--by FIELD --where COND; logagent detect names the layout)"
        )
    if suggestion is None and code in _CUT_CAN_CAUSE:
        cap = run.settings.reader.line_cap
        suggestion = cut_lines_advice(tally.truncated, tally.lines, cap)
    if suggestion is None and code is RecuseCode.NO_MATCHING_EVENTS and detection:
        suggestion = requests_advice(run.question, detection)
    if suggestion is None:
        suggestion = _suggestion(run.question, code)
    recuse = Recuse(reason_code=code, detail=detail, suggestion=suggestion, attempted=attempted)
    run.decisions.append(
        DecisionRecord(
            units_read=progress.units_read,
            fraction_read=progress.fraction_read,
            action="RECUSE",
            reason=code.value,
            detail=detail,
        )
    )
    log.info("recuse", reason_code=code.value, detail=detail)
    return with_report(
        Result(
            question=run.question,
            input=info or input_info(run, detection, None),
            status=Status.RECUSED,
            answer=Answer(),
            progress=progress,
            decisions=run.decisions,
            recuse=recuse,
            warnings=run.warnings,
        )
    )


def requests_advice(question: Question, detection: Detection) -> str | None:
    """An application question that found nothing in a log whose lines are partly requests
    (``docker logs`` of nginx's image: its [notice] lines and the requests, folded into them
    as their "stack traces"): the request question that reads them; None otherwise."""
    from logagent.engine.choose import ACCESS_ASKED, WRAPPERS
    from logagent.formats.catalog import ACCESS_NAMES

    if question.kind not in APP_KINDS:
        return None
    access = [(n, share) for n, share in detection.scores if n in ACCESS_NAMES]
    if not access or access[0][1] < ACCESS_ASKED:
        return None
    name, share = access[0]
    # a layout that wraps other programs' lines gives way to an access question by itself
    # (``choose._access_first``); another one must be named (probe R: the advice sent a Traefik
    # debug log read as zerolog to a question that then refused it)
    named = "" if detection.best in WRAPPERS else f"--format {name} "
    return (
        f"{share:.0%} of the sampled lines are requests ({name}), which an application log's "
        f"records do not count: {named}-q top-errors (or {named}-q status) ranks their 5xx"
    )


def _suggestion(question: Question, code: RecuseCode) -> str:
    """What to do next; an application log has no status mix to point at."""
    if code is RecuseCode.NO_MATCHING_EVENTS and question.kind in APP_KINDS:
        if question.level == "error":
            return "nothing at ERROR or above: ask --level warn to count WARN records too"
        return "nothing at WARN or above in scope: check the time window or the file"
    if code is RecuseCode.NO_MATCHING_EVENTS and question.kind in SELECT_KINDS:
        if not question.where:
            return (
                f"no record holds a value of {question.by or 'the field'}: check that the "
                "format is the one detected (logagent detect), or rank another field"
            )
        return (
            "no record meets every --where: check the conditions' fields and values, or ask "
            f"--by {question.by or 'FIELD'} alone to see the values every record holds"
        )
    return _SUGGESTIONS.get(code, "")


def no_such_key(run: Run, detection: Detection | None, known: list[str]) -> Result:
    """error-types --key K where no record names K: say so, with the closest names seen."""
    import difflib

    key = run.question.key or ""
    # a short name (RMContainerAllocator for org.apache...rm.RMContainerAllocator), then typos
    short = {k.rsplit(".", 1)[-1].rsplit("$", 1)[-1]: k for k in known}
    named = [k for s, k in short.items() if s == key]
    typos = [short[s] for s in difflib.get_close_matches(key, list(short), n=3, cutoff=0.6)]
    whole = difflib.get_close_matches(key, known, n=3, cutoff=0.5)
    close = list(dict.fromkeys([*named, *whole, *typos]))[:3]
    hint = f"did you mean {', '.join(f'`{c}`' for c in close)}? " if close else ""
    listing = ", ".join(f"`{k}`" for k in known[:10])
    seen = f"components in a sample of the log: {listing}" if known else "no component was seen"
    return recused(
        run,
        detection,
        RecuseCode.NO_MATCHING_EVENTS,
        f"no {metric_for(run.question.level)[:-1]} of component `{key}` in the input, and no "
        "record in a sample of the log names it",
        suggestion=f"{hint}{seen}; or leave out --key to break down the top component",
    )


def _attempted(run: Run, detection: Detection | None, progress: Progress) -> str:
    """What the run did before recusing, in words a user can check."""
    if progress.lines_read:
        done = f"read {progress.fraction_read:.1%} of the input ({progress.lines_read:,} lines)"
    elif detection:
        done = f"sampled {detection.sample_lines:,} lines from {len(run.sources)} input(s)"
    else:
        sizes = [s.size for s in run.sources if s.size is not None]
        known = f", {sum(sizes):,} bytes in all" if len(sizes) == len(run.sources) else ""
        done = f"opened {len(run.sources)} input(s){known}; no line could be read"
    if detection:  # those that read some of it by name, the rest counted (70 at 0.0 %: noise)
        tried = [f"{n} {s:.1%}" for n, s in detection.scores if s > 0]
        rest = len(detection.scores) - len(tried)
        tried += [f"{rest} that read none of it"] if rest else []
        done += "; formats tried: " + ", ".join(tried)
    return done
