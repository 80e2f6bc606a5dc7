"""Replace a regular file atomically (EDGE): a reader sees the old content or the new, never a mix.

A temp file in the same folder, written and fsync'ed, then renamed over the
path. Only right for a regular file or a new path (renamed over a device, a
FIFO or a symlink it would replace the node itself): callers resolve links
and route other nodes elsewhere (``cli.output``).
"""

from __future__ import annotations

import os
import tempfile


def replace_atomically(path: str, data: bytes, *, mode: int | None = None) -> None:
    """Write ``data`` to ``path`` via temp + fsync + rename; ``mode`` None: 0666 less the umask."""
    fd, tmp = tempfile.mkstemp(prefix=".logagent-", dir=os.path.dirname(path) or ".")
    try:
        with os.fdopen(fd, "wb") as f:
            if mode is None:
                umask = os.umask(0)
                os.umask(umask)
                mode = 0o666 & ~umask  # mkstemp makes 0600; ours are ordinary files
            os.fchmod(f.fileno(), mode)
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def try_lock(fd: int) -> bool:
    """An exclusive ``flock`` on ``fd`` if free: False when another holds it; OSError for
    anything else (the lock of cron's state, of a checkpoint)."""
    import errno
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            return False
        raise
    return True
