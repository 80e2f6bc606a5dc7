"""One incremental run: plan the slices, count them, commit, answer the window (EDGE).

Thin over the engine: each slice is counted by ``engine.count_exactly`` (the
same loop as ``analyze --full``), its tally stored in the state, and the
window's answer is ``engine.answer_tally`` over the stored tallies merged —
nothing is read again. The state is locked for the whole run.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from logagent.cron.rotation import Identity, Plan, Slice, identify, plan_path
from logagent.cron.state import FileState, RunRecord, State, open_state
from logagent.cron.tallies import rows_of, tally_of
from logagent.errors import ConfigError, LogagentError

if TYPE_CHECKING:
    from logagent.config import Settings
    from logagent.counters import Tally
    from logagent.engine.run import RunEnv
    from logagent.result import Question, Result

DEFAULT_BUCKET = "1h"  # every run must cut the timeline alike: "auto" would vary by slice
UNREADABLE = ("UNRECOGNIZED_FORMAT", "INPUT_UNREADABLE")


class CronStopped(LogagentError):
    """A run stopped before its slices were counted (a signal, a budget): nothing was committed."""


class CronRecused(CronStopped):
    """A slice cannot be read as a log (unrecognized, unreadable): nothing was committed."""


@dataclass(frozen=True)
class CronJob:
    """What one run is asked: the paths, where the state is, the window, how to start."""

    paths: list[str]
    state_path: str
    window_s: int | None = None
    start_at_end: bool = False
    now_s: float | None = None
    default_state: bool = False  # the state is at its default place: its folder may be made


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
    heads: list[Identity] = field(default_factory=list)  # of the files read (state.known)

    def as_dict(self) -> dict[str, Any]:
        """The ``incremental.files`` entry."""
        return {k: v for k, v in self.__dict__.items() if k != "heads"}


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
        "paths": job.paths,
        "question": question.kind.value,
        "level": question.level,
        "key": question.key,
        "bucket": settings.analysis.bucket,
        "format": settings.analysis.format,
        "normalize": settings.analysis.normalize,
    }


def check_job(state: State, wanted: dict[str, Any]) -> None:
    """A new state takes the job; an old one must have been made for the same one."""
    had = state.job()
    if had is None:
        state.set_job(wanted)
        return
    diff = sorted(k for k in wanted if had.get(k) != wanted[k])
    if diff:
        raise ConfigError(
            f"this state was made for another job (its {', '.join(diff)} differ: it had "
            f"{', '.join(f'{k}={had.get(k)!r}' for k in diff)}); use --reset to start over "
            "or name another --state",
            path=state.path,
        )


def run_cron(job: CronJob, question: Question, settings: Settings, env: RunEnv) -> CronOutcome:
    """One run (see the module); ``StateLocked`` if another run holds the state."""
    settings = bucket_setting(settings)
    if question.since or question.until:
        raise ConfigError("cron answers over --window; --since/--until do not apply")
    with open_state(job.state_path, make_folder=job.default_state) as state:
        check_job(state, job_of(job, question, settings))
        pinned = state.meta("format")
        read_settings = settings
        if pinned and settings.analysis.format == "auto":  # every slice read alike
            analysis = settings.analysis.model_copy(update={"format": pinned})
            read_settings = settings.model_copy(update={"analysis": analysis})
        now_s = job.now_s if job.now_s is not None else time.time()
        stored = state.files()
        known = state.known()
        reports: list[FileReport] = []
        tallies: list[Tally] = []
        files: list[FileState] = []
        warnings: list[str] = []
        found = pinned
        for watched in job.paths:
            report, got, new_state, fmt = _read_path(
                watched, stored.get(watched), known, job, question, read_settings, env
            )
            reports.append(report)
            tallies.extend(got)
            files.extend(new_state)
            warnings.extend(report.warnings)
            found = found or fmt
        previous = state.last_run()
        run_id = _commit(state, now_s, reports, tallies, files, found if not pinned else None)
        if job.window_s is not None:
            state.prune(now_s - _keep_s(state, job.window_s))
        result, merged = window_result(state, question, settings, job, now_s)
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
            "rotations": sum(1 for r in reports if r.rotation),
            "files": [r.as_dict() for r in reports],
        }
        prev_top = previous[2].get("window_top") if previous else None
        return CronOutcome(result, incremental, prev_top)


def _keep_s(state: State, window_s: int) -> int:
    """The longest window any run of this state asked for (what pruning must keep)."""
    keep = max(int(state.meta("keep_s") or 0), window_s)
    with state.db:
        state.db.execute("INSERT OR REPLACE INTO meta VALUES ('keep_s', ?)", (str(keep),))
    return keep


def _commit(
    state: State,
    now_s: float,
    reports: list[FileReport],
    tallies: list[Tally],
    files: list[FileState],
    detected: str | None,
) -> int:
    from logagent.counters import merge

    counts, timeline, scalars = rows_of(merge(tallies))
    record = RunRecord(
        time_s=now_s,
        slices=[s for r in reports for s in r.slices],
        result={
            "bytes_new": sum(r.bytes_new for r in reports),
            "lines_new": sum(r.lines_new for r in reports),
            "rotations": [r.rotation for r in reports if r.rotation],
        },
        counts=counts,
        timeline=timeline,
        scalars=scalars,
    )
    extra = [("format", detected)] if detected else []
    now_ns = time.time_ns()
    heads = [(h.head_hash, h.head_size, now_ns) for r in reports for h in r.heads if h.head_size]
    return state.commit_run(record, files, meta=extra, known=heads)


def _read_path(
    watched: str,
    stored: FileState | None,
    known: list[tuple[str, int]],
    job: CronJob,
    question: Question,
    settings: Settings,
    env: RunEnv,
) -> tuple[FileReport, list[Tally], list[FileState], str | None]:
    """Read one watched path's slices; its report, tallies, new state and detected format.

    The heads of the files read go in ``report.heads`` (the state's ``known``).
    """
    report = FileReport(watched)
    if stored is None and job.start_at_end and os.path.isfile(watched):
        return report, [], [_state_at_end(watched)], None
    plan: Plan = plan_path(watched, stored, known)
    report.rotation, report.rotated_from = plan.rotation, plan.old_found
    report.warnings.extend(plan.warnings)
    tallies, fmt, ends = [], None, {}
    newest: FileState | None = None
    for piece in plan.slices:
        tally, end, found = _count_slice(piece, question, settings, env)
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
            newest = _file_state(watched, identify(piece.path), end)  # what the path was last
            ends["unseen"] = end
    new_state = _followed(watched, stored, ends, newest)
    if new_state is not None:
        report.heads.append(Identity(0, 0, new_state.head_hash, new_state.head_size))
    return report, tallies, [new_state] if new_state else [], fmt


def _followed(
    watched: str, stored: FileState | None, ends: dict[str, int], newest: FileState | None
) -> FileState | None:
    """The state to keep: the file now at ``watched`` read to its end, else the last one read."""
    if os.path.isfile(watched) and ("new" in ends or "appended" in ends):
        end = ends.get("new", ends.get("appended", 0))
        return _file_state(watched, identify(watched), end)
    if newest is not None:  # the path is gone; the newest file read is what it was last
        return newest
    if stored is not None:  # the path is gone: its rotated file was finished (if found)
        return replace(stored, offset=ends.get("rotated", stored.offset), seen_ns=time.time_ns())
    return None


def _state_at_end(watched: str) -> FileState:
    """``--start end``: follow the file from the end of its last complete line."""
    from logagent.sources.slices import open_slice

    source = open_slice(watched, 0)
    try:
        end = source.size or 0
    finally:
        source.close()
    return _file_state(watched, identify(watched), end)


def _file_state(watched: str, ident: Identity, end: int) -> FileState:
    return FileState(
        watched, ident.dev, ident.ino, ident.head_hash, ident.head_size, end, time.time_ns()
    )


def _count_slice(
    piece: Slice, question: Question, settings: Settings, env: RunEnv
) -> tuple[Tally, int, str | None]:
    """Count one slice exactly; its tally, where it ended and the format it was read as."""
    from logagent.counters import Tally
    from logagent.engine.exact import count_exactly
    from logagent.sources.slices import open_slice

    source = open_slice(piece.path, piece.start, whole_lines=not piece.to_end)
    try:
        if source.seekable and not source.size:
            return Tally(), piece.start, None
        counted = count_exactly([source], question, settings, env)
        size = source.size
    finally:
        source.close()
    result, tally = counted.result, counted.tally
    if tally is None:
        why = next((w for w in result.warnings if w.startswith("partial")), "the read stopped")
        raise CronStopped(f"{why}; nothing was committed (the next run reads it again)")
    if result.recuse is not None and result.recuse.reason_code.value in UNREADABLE:
        raise CronRecused(
            f"{piece.path}: {result.recuse.detail}; nothing was committed (name the "
            "format with --format)",
            path=piece.path,
        )
    end = piece.start + (size if size is not None else tally.bytes_read)
    return tally, end, result.input.format


def window_result(
    state: State, question: Question, settings: Settings, job: CronJob, now_s: float
) -> tuple[Result, int]:
    """The answer over the runs in the window, from their stored tallies; and how many."""
    from logagent.engine.exact import answer_tally
    from logagent.formats.bucketed import parse_bucket

    since = None if job.window_s is None else now_s - job.window_s
    ids = [run_id for run_id, _, _ in state.runs(since)]
    tally = tally_of(*state.tallies(ids))
    bucket = settings.analysis.bucket
    bucket_s = None if bucket == "off" else parse_bucket(bucket or DEFAULT_BUCKET)
    fmt = state.meta("format") or settings.analysis.format
    result = answer_tally(tally, question, settings, fmt=fmt, bucket_s=bucket_s, paths=job.paths)
    return result, len(ids)
