"""One incremental run: plan the slices, count them, commit, answer the window (EDGE).

Thin over the engine: each slice is counted by ``engine.count_exactly`` (the
same loop as ``analyze --full``), its records kept by their own time bucket
(``tallies.BucketTap``) and stored in the state, and the window's answer is
``engine.answer_tally`` over the stored buckets merged — nothing is read
again. The state is locked for the whole run.

The window and its anchor (the run's clock, ``--now``) are in ``cron.window``.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from logagent.cron.counting import (
    CronRecused,
    count_slice,
    file_state,
    state_at_end,
)
from logagent.cron.reads import FINAL_ROLES, Reads, byte_order, check_paths, malformed_rest
from logagent.cron.rotation import Identity, Plan, identify, known_head, plan_path
from logagent.cron.state import FileState, RunRecord, State, open_state
from logagent.cron.tallies import UNTIMED, BucketTap, bucket_of
from logagent.cron.window import (
    DEFAULT_BUCKET,
    GAP_HEAD_BYTES,
    GAPS,
    prune,
    store_bucket_s,
    window_result,
)
from logagent.errors import ConfigError

if TYPE_CHECKING:
    from logagent.config import Settings
    from logagent.counters import Tally
    from logagent.engine.run import RunEnv
    from logagent.result import Question, Result

#: ``meta`` key (+ the watched path) of the codec its files' byte-order mark named: a UTF-16
#: log cut by ``copytruncate`` goes on without a mark, read by that codec.
TEXT_KEY = "text:"


@dataclass(frozen=True)
class CronJob:
    """What one run is asked: the paths, where the state is, the window, how to start."""

    paths: list[str]
    state_path: str
    window_s: int | None = None
    start_at_end: bool = False
    now_s: float | None = None
    default_state: bool = False  # the state is at its default place: its folder may be made
    notes: list[str] = field(default_factory=list)  # warnings of the run's own (paths named twice)
    named: list[str] | None = None  # the paths as given (``paths`` names each file once)


@dataclass
class FileReport:
    """What one run read of one watched path."""

    path: str
    bytes_new: int = 0
    lines_new: int = 0
    rotation: str | None = None
    rotated_from: str | None = None
    slices: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: The warnings that say lines are counted twice (a known file read again from 0): the
    #: window's answer is then partial while it holds this run's records (``window``).
    gaps: list[str] = field(default_factory=list)
    heads: list[Identity] = field(default_factory=list)  # of the files read (state.known)
    #: The codec of the path's text when a file read had a byte-order mark (``TEXT_KEY``).
    text: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The ``incremental.files`` entry."""
        return {k: v for k, v in self.__dict__.items() if k not in ("heads", "text", "gaps")}


@dataclass(frozen=True)
class CronOutcome:
    """The window's result, the run's ``incremental`` section, and the previous run's top keys."""

    result: Result
    incremental: dict[str, Any]
    previous_top: list[str] | None


def bucket_setting(settings: Settings) -> Settings:
    """The settings with a fixed timeline bucket (``auto`` -> ``DEFAULT_BUCKET``)."""
    a = settings.analysis
    if a.bucket not in (None, "auto"):
        return settings
    return settings.model_copy(update={"analysis": a.model_copy(update={"bucket": DEFAULT_BUCKET})})


def job_of(job: CronJob, question: Question, settings: Settings) -> dict[str, Any]:
    """What a state is made for: a later run asking otherwise is refused."""
    return {  # only what decides what is counted: --top and the like may change between runs
        "paths": job.named if job.named is not None else job.paths,
        "question": question.kind.value,
        "level": question.level,
        "key": question.key,
        "bucket": settings.analysis.bucket,
        "format": settings.analysis.format,
        "normalize": settings.analysis.normalize,
    }


def check_job(state: State, wanted: dict[str, Any]) -> dict[str, Any] | None:
    """The job a new state takes, recorded with the run's commit (None for an old state,
    which must have been made for the same one). A run refused before it commits (a
    question the log does not fit) pins no job: the next run may ask another."""
    had = state.job()
    if had is None:
        return wanted
    diff = sorted(k for k in wanted if had.get(k) != wanted[k])
    if diff:
        raise ConfigError(
            f"this state was made for another job (its {', '.join(diff)} "
            f"{'differs' if len(diff) == 1 else 'differ'}: it had "
            f"{', '.join(f'{k}={had.get(k)!r}' for k in diff)}); use --reset to start over "
            "or name another --state",
            path=state.path,
        )
    return None


def run_cron(job: CronJob, question: Question, settings: Settings, env: RunEnv) -> CronOutcome:
    """One run (see the module); ``StateLocked`` if another run holds the state."""
    settings = bucket_setting(settings)
    if question.since or question.until:
        raise ConfigError("cron answers over --window; --since/--until do not apply")
    with open_state(job.state_path, make_folder=job.default_state) as state:
        new_job = check_job(state, job_of(job, question, settings))
        pinned = state.meta("format")
        read_settings = settings
        if pinned and settings.analysis.format == "auto":  # every slice read alike
            analysis = settings.analysis.model_copy(update={"format": pinned})
            read_settings = settings.model_copy(update={"analysis": analysis})
        now_s = job.now_s if job.now_s is not None else time.time()
        stored = state.files()
        check_paths(job.paths, stored)
        known = state.known()
        tap = BucketTap()  # every slice's records, by their own time bucket
        env = replace(env, on_records=tap)
        reports: list[FileReport] = []
        tallies: list[Tally] = []
        files: list[FileState] = []
        warnings: list[str] = list(job.notes)
        found = pinned
        texts = {}  # each path's codec, where a file read had a mark it did not keep
        reads = Reads(stored, ends=state.ends())
        for watched in job.paths:
            text = state.meta(TEXT_KEY + watched)
            report, got, new_state, fmt = _read_path(
                watched, reads, known, job, question, read_settings, env, text
            )
            if report.text is not None and report.text != text:
                texts[TEXT_KEY + watched] = report.text
            reports.append(report)
            tallies.extend(got)
            files.extend(new_state)
            warnings.extend(report.warnings)
            found = found or fmt
        previous = state.last_run()
        bucket_s = store_bucket_s(settings)
        rows, untimed = tap.rows(bucket_of(now_s, bucket_s))
        record = _record(now_s, reports, tallies, rows, untimed)
        detected = found if not pinned else None
        run_id = _commit(state, record, reports, files, detected, new_job, texts, reads)
        if not prune(state, now_s, job.window_s, bucket_s) and job.window_s is not None:
            warnings.append(
                "this state keeps every count (a run without --window asked for all): nothing "
                "is pruned, and it grows with the log; --reset starts it over"
            )
        result, merged, window = window_result(
            state, question, settings, now_s, window_s=job.window_s, paths=job.paths
        )
        if window["untimed_records"] and settings.analysis.bucket != "off":  # off: said
            warnings.append(
                f"{window['untimed_records']:,} record(s) in the window have no time (the format "
                "has no timestamp, or it did not parse): they are counted at the time of the "
                "run that read them"
            )
        if warnings:
            result = result.model_copy(update={"warnings": [*warnings, *result.warnings]})
        state.db.execute(
            "UPDATE runs SET result = json_set(result, '$.window_top', json(?)) WHERE id = ?",
            (json.dumps([e.key for e in result.answer.top]), run_id),
        )
        state.db.commit()
        incremental = {
            "state": job.state_path,
            "run": run_id,
            "runs_merged": merged,
            "window_s": job.window_s,
            "window": window,
            "rotations": sum(1 for r in reports if r.rotation),
            "files": [r.as_dict() for r in reports],
        }
        prev_top = previous[2].get("window_top") if previous else None
        return CronOutcome(result, incremental, prev_top)


def _record(
    now_s: float,
    reports: list[FileReport],
    tallies: list[Tally],
    rows: list[tuple[int, str, int, int]],
    untimed: int,
) -> RunRecord:
    from logagent.counters import merge

    scalars = merge(tallies).scalars()
    return RunRecord(
        time_s=now_s,
        slices=[s for r in reports for s in r.slices],
        result={
            "bytes_new": sum(r.bytes_new for r in reports),
            "lines_new": sum(r.lines_new for r in reports),
            "rotations": [r.rotation for r in reports if r.rotation],
            **({GAPS: _gaps(reports, rows)} if any(r.gaps for r in reports) else {}),
        },
        buckets=rows,
        scalars={**scalars, UNTIMED: untimed},
    )


def _gaps(reports: list[FileReport], rows: list[tuple[int, str, int, int]]) -> dict[str, Any]:
    """The run's warnings of lines counted twice, and the record time its records span (the
    window holds them by their own time, which may lie after the run's)."""
    buckets = [row[0] for row in rows]
    return {
        "warnings": [g for r in reports for g in r.gaps],
        "records_from": min(buckets, default=None),
        "records_to": max(buckets, default=None),
    }


def _commit(
    state: State,
    record: RunRecord,
    reports: list[FileReport],
    files: list[FileState],
    detected: str | None,
    new_job: dict[str, Any] | None,
    texts: dict[str, str],
    reads: Reads,
) -> int:
    extra = [("format", detected)] if detected else []
    extra.extend(texts.items())
    if new_job is not None:  # a new state's job, pinned by its first committed run
        extra.append(("job", json.dumps(new_job, sort_keys=True)))
    now_ns = time.time_ns()
    heads = [(h.head_hash, h.head_size, now_ns) for r in reports for h in r.heads if h.head_size]
    ends = [(h, n, end, now_ns) for h, n, end in reads.finished]
    return state.commit_run(record, files, meta=extra, known=heads, ends=ends)


def _read_path(
    watched: str,
    reads: Reads,
    known: list[tuple[str, int]],
    job: CronJob,
    question: Question,
    settings: Settings,
    env: RunEnv,
    text: str | None = None,
) -> tuple[FileReport, list[Tally], list[FileState], str | None]:
    """Read one watched path's slices; its report, tallies, new state and detected format.

    The heads of the files read go in ``report.heads`` (the state's ``known``); a file
    without a byte-order mark is read by ``text``, the codec the last mark named (the state's,
    or one read before it in this run: ``report.text``).
    """
    report = FileReport(watched)
    stored = reads.stored.get(watched)
    if stored is None and job.start_at_end and os.path.isfile(watched):
        report.text = byte_order(watched)
        at_end, fmt = state_at_end(watched, question, settings, env)
        return report, [], [at_end], fmt
    plan: Plan = plan_path(watched, stored, known, reads.ends)
    report.rotation, report.rotated_from = plan.rotation, plan.old_found
    report.warnings.extend(plan.warnings)
    tallies, fmt, ends = [], None, {}
    newest: FileState | None = None
    for piece in plan.slices:
        report.text = byte_order(piece.path) or report.text or text
        start, key = reads.start(piece, watched)
        head = known_head(piece.path, known) if piece.role == "new" and start == 0 else 0
        if head:
            twice = (
                f"{piece.path}: the file now at this path was read before (its head is known: "
                "a symlink switched back, a file moved back); it is read again from its start, "
                "so its lines read before are counted twice in the window"
            )
            if head < GAP_HEAD_BYTES:  # a banner line: a new file may well begin alike
                twice += (
                    f" (if it is that file: the {head:,} bytes known of its head, a line or "
                    "two, may begin a new file too)"
                )
            else:
                report.gaps.append(twice)
            report.warnings.append(twice)
        piece = replace(piece, start=start)
        try:
            tally, end, found = count_slice(piece, question, settings, env, report.text)
        except CronRecused:
            if piece.role not in FINAL_ROLES:  # a live file: its next lines may read (exit 3)
                raise
            # a finished file never grows: refusing its rest would refuse every run after
            tally, end = malformed_rest(piece, report.text)
            report.warnings.append(
                f"{piece.path}: the rest of this finished file ({tally.lines:,} line(s), "
                f"{end - piece.start:,} bytes from byte {piece.start:,}) is no record of the "
                "log's format (a line cut by the rotation?): counted as malformed"
            )
            found = None
        if key is not None:
            reads.done[key] = max(reads.done.get(key, 0), end)
        reads.finish(piece, end)
        tallies.append(tally)
        fmt = fmt or found
        ends[piece.role] = end
        report.bytes_new += end - piece.start
        report.lines_new += tally.lines
        report.slices.append(
            {"path": piece.path, "role": piece.role, "start": piece.start, "end": end}
        )
        if piece.role == "unseen":
            report.heads.append(identify(piece.path))
            newest = file_state(watched, identify(piece.path), end, reads.started_ns)
            ends["unseen"] = end
    new_state = _followed(watched, stored, ends, newest, reads.started_ns)
    if new_state is not None:
        report.heads.append(Identity(0, 0, new_state.head_hash, new_state.head_size))
    return report, tallies, [new_state] if new_state else [], fmt


def _followed(
    watched: str,
    stored: FileState | None,
    ends: dict[str, int],
    newest: FileState | None,
    seen_ns: int,
) -> FileState | None:
    """The state to keep: the file now at ``watched`` read to its end, else the last one read."""
    if os.path.isfile(watched) and ("new" in ends or "appended" in ends):
        end = ends.get("new", ends.get("appended", 0))
        return file_state(watched, identify(watched), end, seen_ns)
    if newest is not None:  # the path is gone; the newest file read is what it was last
        return newest
    if stored is not None:  # the path is gone: its rotated file was finished (if found)
        return replace(stored, offset=ends.get("rotated", stored.offset), seen_ns=seen_ns)
    return None
