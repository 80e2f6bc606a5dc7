"""Which bytes of which files a run reads: file identity across rotation (EDGE: stats, reads).

A watched path names *a file* only for a while: logrotate renames it
(``access.log`` -> ``access.log.1``, ``.1.gz``, ``-20261201``), copies and
truncates it (``copytruncate``), compresses it, or a new file takes its name
(and sometimes its inode). So a file is known by its identity, not its name:
device, inode, and a SHA-256 of the first bytes of its *content*
(decompressed, up to ``HEAD_BYTES``) with how many bytes were hashed.

``plan_path`` compares the stored state of a watched path with what is there
now and returns the slices to read, in order:

* the same file (same inode, same head, not shorter than the offset): its
  new complete lines, from the stored offset;
* another plain file that begins with the stored head, holds the offset and
  ends a line there, the old file being gone from the siblings: the old content
  moved in by a copy that only grew (rsync, ``cp`` and ``mv``), read on from the
  stored offset;
* otherwise the file followed was rotated, truncated or replaced: the old
  file is looked for among the path's siblings (``PATH.*``, ``PATH-*``) by
  identity — the same inode first (a rename), else the same content head
  with at least ``offset`` bytes (a copy, a compressed copy) — and finished
  from the stored offset to its end; then the file now at the path is read
  from 0. An old file that cannot be found is said in a warning (the lines
  appended to it after the last run are lost). A sibling written since the
  last run whose head is not among the heads read before (a file born and
  rotated away between two runs) is read whole; one whose head is that of a
  file finished before (``ends``) but holds more than was read of it (a logger
  still writing to its rotated file) is read from there.
"""

from __future__ import annotations

import glob
import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from logagent.cron.state import FileState
from logagent.errors import InputError
from logagent.sources.files import Source, open_source

HEAD_BYTES = 4096


@dataclass(frozen=True)
class Slice:
    """Content bytes of ``path`` from ``start``: to the last complete line, or (``to_end``) all.

    A rotated file too is read to its last complete line (a compressed one, which cannot
    grow, to its end): its logger may still finish a half-written line there (``late``);
    read to its end, that line had been two malformed fragments and its record lost."""

    path: str
    start: int
    to_end: bool
    role: str  # "appended" | "rotated" (finishing the old file) | "new" | "unseen" | "late"


@dataclass
class Plan:
    """What to read for one watched path, and what happened to it since the last run."""

    watched: str
    slices: list[Slice] = field(default_factory=list)
    rotation: str | None = None  # rename | copytruncate | replaced | vanished
    old_found: str | None = None  # where the old file was found
    warnings: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Identity:
    """A file's identity (see the module)."""

    dev: int
    ino: int
    head_hash: str
    head_size: int


def content_head(path: str, n: int) -> bytes:
    """The first ``n`` content bytes of ``path`` (decompressed), fewer if it is shorter."""
    source = open_source(path)
    try:
        return source.read_at(0, n) if n > 0 else b""
    finally:
        source.close()


def identify(path: str) -> Identity:
    """The identity of the file at ``path``: its first ``HEAD_BYTES`` hashed (fewer if shorter).

    The head may reach past what was read: a log only grows at its end, so
    the bytes already there never change (a partial last line only grows).
    """
    st = os.stat(path)
    head = content_head(path, HEAD_BYTES)
    return Identity(st.st_dev, st.st_ino, hashlib.sha256(head).hexdigest(), len(head))


def same_content(path: str, stored: FileState) -> bool:
    """Whether ``path`` begins with the content the stored head hash was taken of."""
    try:
        head = content_head(path, stored.head_size)
    except (InputError, OSError):
        return False
    return len(head) == stored.head_size and hashlib.sha256(head).hexdigest() == stored.head_hash


@contextmanager
def _opened(path: str) -> Iterator[Source | None]:
    """``path``'s content, closed after; None when it cannot be opened (gone meanwhile)."""
    try:
        source = open_source(path)
    except (InputError, OSError):
        yield None
        return
    try:
        yield source
    finally:
        source.close()


def content_reaches(path: str, offset: int) -> bool:
    """Whether ``path`` holds at least ``offset`` content bytes."""
    if offset == 0:
        return True
    with _opened(path) as source:
        if source is None:
            return False
        if source.seekable:
            return (source.size or 0) >= offset
        return len(source.read_at(offset - 1, 1)) == 1


def siblings(watched: str) -> list[str]:
    """Where logrotate puts a rotated ``watched``: ``PATH.*`` and ``PATH-*``, newest first."""
    found = set(glob.glob(glob.escape(watched) + ".*") + glob.glob(glob.escape(watched) + "-*"))
    files = [p for p in found if os.path.isfile(p)]
    return sorted(files, key=lambda p: (-os.stat(p).st_mtime_ns, p))


def copied_away(watched: str, stored: FileState) -> str | None:
    """A copy of a file whose head was short when read, written since (``copytruncate``).

    With a full ``HEAD_BYTES`` head, a truncated and refilled file shows a
    new head. A file that was shorter (or empty) when last read may begin
    the same after ``copytruncate`` and new writes, so a sibling written
    since that begins with the stored head and holds the offset is taken for
    its copy (the newest such; logrotate shifts older files first).
    """
    if stored.head_size >= HEAD_BYTES:
        return None
    for path in siblings(watched):
        if os.stat(path).st_mtime_ns <= stored.seen_ns:
            continue
        if same_content(path, stored) and content_reaches(path, stored.offset):
            return path
    return None


def find_old(watched: str, stored: FileState) -> str | None:
    """The file followed last time, among the siblings of ``watched`` (see the module).

    None for a file that was empty when read: nothing of it was counted, and
    whatever it became is read whole as an unseen file.
    """
    if stored.head_size == 0:
        return None
    candidates = siblings(watched)
    for path in candidates:  # a rename keeps the inode
        st = os.stat(path)
        if (st.st_dev, st.st_ino) == (stored.dev, stored.ino) and same_content(path, stored):
            return path
    copy = copied_away(watched, stored)
    if copy is not None:  # a short head matches too much: the copy written since, first
        return copy
    for path in candidates:  # a copy (copytruncate), or a compressed copy
        if same_content(path, stored) and content_reaches(path, stored.offset):
            return path
    return None


def is_known(path: str, known: list[tuple[str, int]]) -> bool:
    """Whether ``path`` begins with the head of a file read before."""
    return known_head(path, known) > 0


def known_head(path: str, known: list[tuple[str, int]]) -> int:
    """The size of the longest head of a file read before that ``path`` begins with, else 0."""
    heads: dict[int, str] = {}
    longest = 0
    for head_hash, size in known:
        if size <= longest:  # an empty head matches every file; a shorter one adds nothing
            continue
        if size not in heads:
            try:
                heads[size] = hashlib.sha256(content_head(path, size)).hexdigest()
            except (InputError, OSError):
                return 0
        if heads[size] == head_hash:
            longest = size
    return longest


def unseen(
    watched: str, stored: FileState, old: str | None, known: list[tuple[str, int]]
) -> list[str]:
    """Siblings written since the last run whose head was never read: born and rotated since.

    Without ``create``, logrotate leaves no file at the path until the logger
    writes again; that new file may be rotated away before the next run.
    Files logrotate only moved or compressed begin with a known head.
    """
    out = []
    for path in siblings(watched):
        if path == old or os.stat(path).st_mtime_ns <= stored.seen_ns:
            continue
        if not is_known(path, [*known, (stored.head_hash, stored.head_size)]):
            out.append(path)
    return out[::-1]  # oldest first


def late(
    watched: str, stored: FileState, old: str | None, ends: dict[tuple[str, int], int]
) -> list[Slice]:
    """Finished files written since they were read to their end (``ends``, by head): the rest
    of each, oldest first. A logger that keeps its old file open after the rotation (Apache's
    graceful restart: the reason ``delaycompress`` exists) writes there for a while; those
    lines had been lost, the run "exact". A compressed copy holds them too: read from it."""
    out: list[Slice] = []
    others = {k: v for k, v in ends.items() if k != (stored.head_hash, stored.head_size)}
    for path in siblings(watched) if others else []:
        if path == old or os.stat(path).st_mtime_ns <= stored.seen_ns:
            continue
        heads: dict[int, str] = {}
        read = -1  # the file's end as last read: a short file's head grew with it, so it has
        for (head_hash, size), end in others.items():  # an entry per run that finished it
            if size <= 0 or end <= read:
                continue
            if size not in heads:
                try:
                    heads[size] = hashlib.sha256(content_head(path, size)).hexdigest()
                except (InputError, OSError):
                    break
            if heads[size] == head_hash:
                read = end
        if read >= 0 and content_reaches(path, read + 1):
            out.append(Slice(path, read, False, "late"))
    return out[::-1]


def plan_path(
    watched: str,
    stored: FileState | None,
    known: list[tuple[str, int]] | None = None,
    ends: dict[tuple[str, int], int] | None = None,
) -> Plan:
    """The slices to read for ``watched`` given its stored state (see the module)."""
    plan = Plan(watched)
    exists = os.path.isfile(watched)
    if stored is None:
        if exists:
            plan.slices.append(Slice(watched, 0, False, "new"))
        else:  # a typo in a crontab would otherwise answer "nothing read" every run, silently
            plan.warnings.append(_not_there(watched))
        return plan
    if exists and _unchanged(watched, stored) and copied_away(watched, stored) is None:
        plan.slices.extend(late(watched, stored, None, ends or {}))
        plan.slices.append(Slice(watched, stored.offset, False, "appended"))
        return plan
    plan.rotation = _rotation_kind(watched, stored, exists)
    old = find_old(watched, stored)
    plan.slices.extend(late(watched, stored, old, ends or {}))
    if old is None and exists and plan.rotation == "rename" and _continues(watched, stored):
        plan.rotation = "replaced"
        plan.warnings.append(
            f"{watched}: replaced by a file that begins as the one read and ends a line where "
            f"it was read to (a copy moved into place: rsync, cp and mv): read on from byte "
            f"{stored.offset:,}"
        )
        plan.slices.append(Slice(watched, stored.offset, False, "appended"))
        return plan
    plan.old_found = old
    if old is not None:
        plan.slices.append(Slice(old, stored.offset, False, "rotated"))
    elif stored.head_size > 0:
        became = _became(watched, plan.rotation)
        # "if any": a possible loss no run can tell from none (a file read to its end, then
        # overwritten by logrotate's own rename without ``create``, says it too): a warning,
        # not a partial answer
        plan.warnings.append(
            f"{watched}: the file read up to byte {stored.offset:,} {became} and is not found "
            "among its rotated names (PATH.*, PATH-*): lines appended to it after the last "
            "run, if any, were not counted"
        )
    for path in unseen(watched, stored, old, known or []):
        plan.slices.append(Slice(path, 0, False, "unseen"))
    if exists:
        plan.slices.append(Slice(watched, 0, False, "new"))
    return plan


def _not_there(watched: str) -> str:
    """Why a path seen for the first time gives nothing to read."""
    if os.path.exists(watched):
        return f"{watched}: not a regular file: nothing was read from it"
    return (
        f"{watched}: no such file: nothing was read from it (the first run that finds it "
        "starts on it as --start says)"
    )


def _unchanged(watched: str, stored: FileState) -> bool:
    """Same inode, same head, and at least as long as what was read of it."""
    st = os.stat(watched)
    if (st.st_dev, st.st_ino) != (stored.dev, stored.ino):
        return False
    return same_content(watched, stored) and content_reaches(watched, stored.offset)


def _continues(watched: str, stored: FileState) -> bool:
    """Whether another file at ``watched`` begins with what was read of the old one (its head
    is the stored one, of more than nothing, and it holds the offset): the old file's content
    moved in by a copy, which went on (a rename that kept no old file among the siblings)."""
    if stored.head_size == 0 or copied_away(watched, stored) is not None:
        return False
    if not (same_content(watched, stored) and content_reaches(watched, stored.offset)):
        return False
    return _line_ends_at(watched, stored.offset)


def _line_ends_at(path: str, offset: int) -> bool:
    """Whether a line of the plain file ``path`` ends just before ``offset`` (where the read
    goes on). Only the head and this byte are checked: a copy edited before the offset
    (``sed -i`` deleting a line) is not told from one that only grew, unless a line now
    straddles the offset."""
    if offset == 0:
        return True
    with _opened(path) as source:
        return source is not None and source.seekable and source.read_at(offset - 1, 1) == b"\n"


def _became(watched: str, rotation: str) -> str:
    """What became of the file read at ``watched``, in words (``rotation``: its kind)."""
    if rotation == "vanished":
        there = os.path.exists(watched)
        return "was replaced by something not a regular file" if there else "is gone"
    if rotation == "copytruncate":
        return "was emptied in place (copytruncate)"
    return "was renamed or replaced (a new file is at its path)"


def _rotation_kind(watched: str, stored: FileState, exists: bool) -> str:
    if not exists:
        return "vanished"
    st = os.stat(watched)
    if (st.st_dev, st.st_ino) == (stored.dev, stored.ino):
        return "copytruncate"  # or a new file that reused the inode: the same handling
    return "rename"
