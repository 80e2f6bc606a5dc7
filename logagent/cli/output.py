"""Writing a result to a path without replacing what is there (EDGE).

Temp file + rename is right only for a regular file or a new path: renamed
over a device node, a FIFO or a symlink it would replace the node itself (as
root, ``--out /dev/null`` would break the machine) and never write the
symlink's target. So, by what the path is:

* new path or regular file: written atomically (a temp file in the same
  folder, fsync, rename; an existing file keeps its mode);
* symlink: followed; its final target is written by these same rules, in the
  target's folder, and the link stays;
* character or block device, FIFO: opened and written in place (a FIFO with
  no reader is an error, not a hang);
* directory, socket, a missing folder: a usage error, found before the run
  starts (``check_target``); so is a path that is one of the run's inputs
  (``--out app.log`` had replaced the log with its own answer).
"""

from __future__ import annotations

import errno
import fcntl
import glob
import os
import stat
from collections.abc import Sequence

from logagent.atomic import replace_atomically
from logagent.errors import ConfigError, OutputError


def check_target(
    path: str, what: str = "--out", *, regular_only: bool = False, inputs: Sequence[str] = ()
) -> None:
    """Refuse, before any reading, an output path that can never be written as a file, or
    that is one of ``inputs`` (the run's paths and globs: a link to one, too).

    ``regular_only``: a device or FIFO is refused too (a checkpoint must be read back).
    """
    same = input_at(path, inputs)
    if same is not None:
        which = "standard input" if same == "-" else same
        raise ConfigError(
            f"{what}: is an input of this run ({which}); name another file", path=path
        )
    real = os.path.realpath(path)
    try:
        mode = os.stat(real).st_mode
    except FileNotFoundError:
        folder = os.path.dirname(real) or "."
        if not os.path.isdir(folder):
            raise ConfigError(f"{what}: the folder {folder} does not exist", path=path) from None
        return
    except OSError as exc:
        raise ConfigError(f"{what}: cannot use this path ({exc.strerror})", path=path) from exc
    if stat.S_ISDIR(mode):
        raise ConfigError(f"{what}: is a directory; name a file", path=path)
    if stat.S_ISSOCK(mode):
        raise ConfigError(f"{what}: is a socket; name a file, a device or a FIFO", path=path)
    if regular_only and not stat.S_ISREG(mode):
        raise ConfigError(f"{what}: is a device or FIFO; name a regular file", path=path)


def check_outputs(out: str | None, html: str | None, inputs: Sequence[str] = ()) -> None:
    """``check_target`` of ``--out`` and ``--html``, when given; and not one file for both
    (the page would replace the result, both written with exit 0)."""
    for path, what in ((out, "--out"), (html, "--html")):
        if path is not None:
            check_target(path, what, inputs=inputs)
    if out is not None and html is not None and input_at(html, [out]):
        raise ConfigError("--out and --html name the same file; name two")


def input_at(path: str, inputs: Sequence[str]) -> str | None:
    """The input (of ``inputs``, globs expanded) that ``path`` names, if any: the same file,
    by a link or another name too."""
    try:
        target = os.stat(path)
    except OSError:  # a new path: an input not made yet (cron's state) has its name
        real = os.path.realpath(path)
        return next((p for p in inputs if p != "-" and os.path.realpath(p) == real), None)
    if not stat.S_ISREG(target.st_mode):  # /dev/null as --out while reading /dev/null: fine
        return None
    for pattern in inputs:
        named = [pattern]
        if glob.has_magic(pattern) and not os.path.lexists(pattern):
            named = glob.glob(pattern)
        for each in named:
            try:  # '-': standard input, which may be that file (``< app.log``)
                st = os.fstat(0) if each == "-" else os.stat(each)
            except OSError:
                continue
            if (st.st_dev, st.st_ino) == (target.st_dev, target.st_ino):
                return each
    return None


def write_text(path: str, text: str) -> None:
    """Write ``text`` to ``path`` by what the path is (see the module); ``OSError`` on failure."""
    real = os.path.realpath(path)  # a symlink's final target, in the target's folder
    try:
        mode = os.stat(real).st_mode
    except FileNotFoundError:
        replace_atomically(real, text.encode("utf-8"))
        return
    if stat.S_ISREG(mode):
        replace_atomically(real, text.encode("utf-8"), mode=stat.S_IMODE(mode))
    elif stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISFIFO(mode):
        _write_in_place(real, text, fifo=stat.S_ISFIFO(mode))
    else:  # checked up front; the path changed under the run
        raise OSError(errno.EISDIR if stat.S_ISDIR(mode) else errno.EINVAL, "not a file", path)


def safe_write(path: str, text: str, what: str) -> None:
    """``write_text`` with its failure as an ``OutputError`` naming ``what`` was not written."""
    try:
        write_text(path, text)
    except OSError as exc:
        raise OutputError(f"cannot write {what} ({exc.strerror or exc})", path=path) from exc


def _write_in_place(path: str, text: str, *, fifo: bool) -> None:
    flags = os.O_WRONLY | os.O_NOCTTY | (os.O_NONBLOCK if fifo else 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if fifo and exc.errno == errno.ENXIO:
            raise OSError(errno.ENXIO, "no process is reading the FIFO", path) from exc
        raise
    try:
        if fifo:  # opened without blocking; write with blocking as a pipe does
            fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        data = memoryview(text.encode("utf-8"))
        while data:
            data = data[os.write(fd, data) :]
    finally:
        os.close(fd)
