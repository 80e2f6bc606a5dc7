"""What a cron run has read of each file, and how its text is encoded (EDGE: reads files).

A file is counted once however many watched paths reach it (``Reads``), and a
file without a byte-order mark is read by the codec its path's last mark
named (``byte_order``; the state keeps it).
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from logagent.cron.rotation import Slice, identify, same_content
from logagent.cron.state import FileState
from logagent.errors import InputError, InputIsDirectory, InputNotFound

if TYPE_CHECKING:  # Polars: imported by the runs that count
    from logagent.counters import Tally


@dataclass
class Reads:
    """How far a run has each file: a file two watched paths reach is counted once.

    ``stored``: each watched path's state (a file the logger moved from one watched path to
    another, ``a.log`` to ``a.log.1``, was read up to that offset under its old path);
    ``done``: how far each file (device, inode) was read in this run.
    """

    stored: dict[str, FileState]
    done: dict[tuple[int, int], int] = field(default_factory=dict)
    #: how far finished files were read (``State.ends``), and those this run read to the end
    ends: dict[tuple[str, int], int] = field(default_factory=dict)
    finished: list[tuple[str, int, int]] = field(default_factory=list)
    #: when the run began to read: what it read is what was written before (a state's
    #: ``seen_ns``; taken after the reads, it hid a rotated file written meanwhile)
    started_ns: int = field(default_factory=time.time_ns)
    #: The head a copy must share with a file read under another path to be taken for it
    #: (a copytruncate copy, a compressed rotation: other inodes). Two logs may well open with
    #: the same few lines (IIS's ``#Software``/``#Version``): not these many bytes.
    MIN_SHARED_HEAD = 1024

    def start(self, piece: Slice, watched: str) -> tuple[int, tuple[int, int] | None]:
        """Where to read ``piece`` from, and its file's (device, inode)."""
        try:
            st = os.stat(piece.path)
        except OSError:  # gone: its read says so
            return piece.start, None
        key = (st.st_dev, st.st_ino)
        start = max(piece.start, self.done.get(key, 0))
        if piece.role in ("new", "unseen"):  # read before under another watched path?
            for path, was in self.stored.items():
                if path == watched or not was.head_size:
                    continue
                moved = (was.dev, was.ino) == key  # renamed: the same file
                copied = was.head_size >= self.MIN_SHARED_HEAD  # a copy: the same content
                if (moved or copied) and same_content(piece.path, was):
                    start = max(start, was.offset)
        return start, key

    def finish(self, piece: Slice, end: int) -> None:
        """``piece`` was a finished file's, read to ``end``: kept by its head (``late``)."""
        if piece.role in FINAL_ROLES:
            try:
                ident = identify(piece.path)
            except (InputError, OSError):  # gone meanwhile: nothing more can come of it
                return
            self.finished.append((ident.head_hash, ident.head_size, end))


def byte_order(path: str) -> str | None:
    """The codec the byte-order mark of the file at ``path`` names (None: none, or unread)."""
    from logagent.magic import byte_order_codec

    try:
        with open(path, "rb") as f:
            return byte_order_codec(f.read(4))
    except OSError:  # gone meanwhile, unreadable: its slice's read says so
        return None


#: Slices of files that are finished: a rotated file's rest, a rotated file never seen.
FINAL_ROLES = ("rotated", "unseen", "late")


#: A whole line of blanks only (``bytes.strip``'s): no line to parse (``extract.BLANK``).
_BLANK_LINE = re.compile(rb"(?m)^[ \t\r\x0b\x0c]*\n")


def malformed_rest(piece: Slice, text: str | None) -> tuple[Tally, int]:
    """A finished slice no line of which is a record: its lines, all malformed, and its end."""
    from logagent.counters import Tally
    from logagent.sources.slices import open_slice

    source = open_slice(piece.path, piece.start, whole_lines=not piece.to_end, text=text)
    lines = blank = nbytes = 0
    rest = b""  # the line a chunk ends inside
    try:
        while chunk := source.read_at(nbytes, 1 << 20):
            nbytes += len(chunk)
            held = rest + chunk
            cut = held.rfind(b"\n") + 1  # the whole lines, counted in C
            lines += held.count(b"\n", 0, cut)
            blank += len(_BLANK_LINE.findall(held, 0, cut))
            rest = held[cut:]
            if len(rest) > 1 << 16:  # a line longer than that: only whether it is blank
                rest = b"x" if rest.strip() else b" "
    finally:
        source.close()
    if rest:  # a last line without its newline is a line too
        lines += 1
        blank += not rest.strip()
    # blank lines are no lines to parse, nor malformed (``extract.BLANK``)
    tally = Tally(bytes_read=nbytes, lines=lines, parsed=lines - blank, malformed=lines - blank)
    return tally, piece.start + (source.size if source.size is not None else nbytes)


def check_paths(paths: list[str], stored: dict[str, FileState]) -> None:
    """An error when no watched path is a file (nor one the job read before), or one is a
    directory. A typo, a directory or a glob the shell did not expand (systemd's
    ``ExecStart``) had every run answer "0 events", exit 0 (nagios OK), for ever; a job
    that also watches a log written only later (an error log) goes on without it, warned."""
    missing = []
    for path in paths:
        if os.path.isdir(path):
            raise InputIsDirectory("is a directory: cron watches log files", path=path)
        if not os.path.exists(path) and path not in stored:
            glob = any(c in os.path.basename(path) for c in "*?[")
            hint = " (a pattern: the shell expands it, cron does not)" if glob else ""
            missing.append(f"{path}: no such file{hint}")
    if missing and len(missing) == len(paths):
        raise InputNotFound("; ".join(missing))
