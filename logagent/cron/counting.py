"""What cron counts of one file: a slice counted exactly, and where ``--start end`` begins
(EDGE through the engine); and cron's errors when a slice cannot be counted. Split from
``cron.runner``.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING

from logagent.cron.rotation import Identity, Slice, identify
from logagent.cron.state import FileState
from logagent.errors import LogagentError

if TYPE_CHECKING:
    from logagent.config import Settings
    from logagent.counters import Tally
    from logagent.engine.run import RunEnv
    from logagent.result import Question

UNREADABLE = ("UNRECOGNIZED_FORMAT", "INPUT_UNREADABLE")
TAIL_BYTES = 64 << 10  # the last lines ``--start end`` detects the format on


class CronStopped(LogagentError):
    """A run stopped before its slices were counted (a signal, a budget): nothing was committed."""


class CronRecused(CronStopped):
    """A slice cannot be read as a log (unrecognized, unreadable): nothing was committed."""


def state_at_end(
    watched: str, question: Question, settings: Settings, env: RunEnv
) -> tuple[FileState, str | None]:
    """``--start end``: follow the file from the end of its last complete line.

    The format is detected on the file's last lines (``TAIL_BYTES``, nothing
    counted), so the runs that follow read it as pinned, without detecting.
    """
    from logagent.sources.slices import complete_end, open_slice, stream_complete_end
    from logagent.sources.streams import TEXT_ENCODINGS

    source = open_slice(watched, 0, whole_lines=False)
    try:
        size = source.size or 0
        end = complete_end(source, 0, size) if source.seekable else size
        if source.compression in TEXT_ENCODINGS:  # a live UTF-16 log: its end, as a file's
            end = stream_complete_end(watched)
        tail = source.read_at(max(0, end - TAIL_BYTES), min(end, TAIL_BYTES))
    finally:
        source.close()
    fmt = None
    if source.seekable and tail and settings.analysis.format == "auto":
        start = end - len(tail) + (tail.find(b"\n") + 1 if end > len(tail) else 0)
        probe = replace(env, on_records=None)  # a sample to tell the format: nothing is kept
        try:
            _, _, fmt = count_slice(Slice(watched, start, False, "tail"), question, settings, probe)
        except CronStopped:  # not a log (yet): the first run that reads lines detects it
            fmt = None
    return file_state(watched, identify(watched), end), fmt


def file_state(watched: str, ident: Identity, end: int, seen_ns: int | None = None) -> FileState:
    """What the path was last (``seen_ns``: when the run began to read, else now)."""
    seen = time.time_ns() if seen_ns is None else seen_ns
    return FileState(watched, ident.dev, ident.ino, ident.head_hash, ident.head_size, end, seen)


def count_slice(
    piece: Slice, question: Question, settings: Settings, env: RunEnv, text: str | None = None
) -> tuple[Tally, int, str | None]:
    """Count one slice exactly; its tally, where it ended and the format it was read as
    (``text``: the codec of a file without a mark, ``sources.open_source``)."""
    from logagent.counters import Tally
    from logagent.engine.exact import count_exactly
    from logagent.sources.slices import open_slice

    source = open_slice(piece.path, piece.start, whole_lines=not piece.to_end, text=text)
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
