"""What every result of a run says besides its answer: input, progress, template report.

EDGE through the run: its clocks and peak RSS are read through ``RunEnv``
(tests replace them); the rest is computed from the run's state. Shared by a
finished run (``outcome``) and a recused one (``recusal``).
"""

from __future__ import annotations

from logagent.counters import Tally
from logagent.engine.run import Run
from logagent.formats.detect import Detection
from logagent.report.markdown import render
from logagent.result import DecisionRecord, InputInfo, Progress, Report, Result, Status


def input_info(run: Run, detection: Detection | None, unit_size: int | None) -> InputInfo:
    """What the result says of its inputs: paths, bytes, format, reading order and window."""
    seekable = all(s.seekable for s in run.sources)
    # a format no sampled line parses in is no guess (the first tried), unless it was named
    named = run.settings.analysis.format != "auto"
    guessed = detection is not None and (detection.confidence > 0 or named)
    return InputInfo(
        paths=[s.path for s in run.sources],
        bytes_total=sum(s.size or 0 for s in run.sources) if seekable else None,
        format=detection.best if detection and guessed else None,
        format_confidence=round(detection.confidence, 6) if detection else None,
        format_scores={n: round(v, 6) for n, v in detection.scores} if detection else {},
        seekable=seekable,
        unit_size=unit_size,
        compression=[s.compression for s in run.sources],
        reading=run.reading,
        window=run.window,
    )


def progress_of(run: Run, tally: Tally, units_total: int | None) -> Progress:
    """How far the run got: units, bytes and lines read, malformed lines, time, CPU, peak RSS."""
    total = sum(s.size or 0 for s in run.sources)
    seekable = all(s.seekable for s in run.sources)
    if seekable:
        # at most 1: a main phase after a unit-size pilot may read some bytes twice
        fraction = min(1.0, tally.bytes_read / total) if total else 1.0
    else:
        fraction = 0.0 if run.partial or run.settled else 1.0  # a stream's total is unknown
    return Progress(
        units_read=tally.units,
        units_total=units_total,
        fraction_read=round(fraction, 6),
        bytes_read=tally.bytes_read,
        lines_read=tally.lines,
        lines_parsed=tally.parsed,
        malformed_lines=tally.malformed,
        malformed_scope="prefiltered_lines" if run.prefiltered else "all_lines",
        invalid_utf8_lines=tally.invalid_utf8,
        truncated_lines=tally.truncated,
        elapsed_s=round(run.env.clock() - run.started, 4),
        cpu_s=round(run.env.cpu_clock() - run.cpu_started, 4),
        peak_rss_bytes=run.env.peak_rss(),
    )


def with_report(result: Result) -> Result:
    """The result with its template report (Markdown rendered from the result alone)."""
    return result.model_copy(update={"report": Report(source="template", markdown=render(result))})


def made_partial(result: Result, reason: str, detail: str, warnings: list[str]) -> Result:
    """``result`` said partial (a STOP_PARTIAL of ``reason`` and ``detail`` in its trace,
    ``warnings`` first) by what a front door knows and its run did not: a cron window whose
    counts miss lines or hold some twice, an upload decoded only up to its damage. A recused
    result stays recused, the warnings added. The report is rendered again."""
    if result.recuse is not None:
        return with_report(result.model_copy(update={"warnings": [*warnings, *result.warnings]}))
    stop = DecisionRecord(
        units_read=result.progress.units_read,
        fraction_read=result.progress.fraction_read,
        action="STOP_PARTIAL",
        reason=reason,
        detail=detail,
    )
    update = {
        "status": Status.PARTIAL,
        "decisions": [*result.decisions, stop],
        "warnings": [*warnings, *result.warnings],
    }
    return with_report(result.model_copy(update=update))
