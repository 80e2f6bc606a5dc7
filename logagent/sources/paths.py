"""Which files a run reads: globs expanded, each file once (EDGE: lists directories)."""

from __future__ import annotations

import glob
import os
import stat

from logagent.errors import InputNotFound

STDIN = "-"


def resolve_paths(patterns: list[str]) -> list[str]:
    """Expand globs; every pattern must match at least one file ('-' is stdin).

    A glob skips the directories it matches (``/var/log/nginx/*`` may hold
    some); a directory named on its own is still an error.
    """
    out: list[str] = []
    for pattern in patterns:
        if pattern == STDIN or os.path.lexists(pattern) or not glob.has_magic(pattern):
            out.append(pattern)
            continue
        matches = sorted(m for m in glob.glob(pattern) if not os.path.isdir(m))
        if not matches:
            raise InputNotFound("no file matches this pattern", path=pattern)
        out.extend(matches)
    return _unique(out)


def reads_once(path: str) -> bool:
    """Whether ``path`` is standard input or names a FIFO, a pipe (``/dev/fd/N`` of
    ``<(...)``) or a character device: read once, forwards, by this process only."""
    if path == STDIN:
        return True
    try:
        mode = os.stat(path).st_mode
    except OSError:  # a glob, a missing file: opening it says what it is
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


def _unique(paths: list[str]) -> list[str]:
    """Each input once (overlapping globs would count a file twice), in first-seen order."""
    seen: set[str] = set()
    out = []
    for path in paths:
        key = path if path == STDIN else os.path.realpath(path)
        if key not in seen:
            seen.add(key)
            out.append(path)
    return out
