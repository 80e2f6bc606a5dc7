"""``{"path": ...}`` jobs: a file already on the server, only under an allowed root (PURE-ish).

The path is resolved (symlinks followed) before it is compared with the
roots (also resolved), so a symlink inside a root that points out of it is
refused; a ``..`` component is refused outright, whatever it resolves to.
"""

from __future__ import annotations

import os


class PathRefused(Exception):
    """A path the service will not read; ``status`` is the HTTP status."""

    def __init__(self, message: str, status: int = 403) -> None:
        super().__init__(message)
        self.message, self.status = message, status


def allowed_path(raw: str, roots: tuple[str, ...]) -> str:
    """The resolved path of ``raw`` if it lies under one of ``roots``; else PathRefused."""
    if not roots:
        raise PathRefused("analyzing server paths is off (start with --allow-path-root)")
    if ".." in raw.replace("\\", "/").split("/"):
        raise PathRefused("a path with '..' is refused")
    try:
        if "\0" in raw:
            raise ValueError
        os.fsencode(raw)
    except (ValueError, UnicodeError):  # no file has such a name: os.path says it with a 500
        raise PathRefused(
            "the path holds a NUL or a lone surrogate: no file is named so", 422
        ) from None
    resolved = os.path.realpath(raw)
    for root in roots:
        real_root = os.path.realpath(root)
        if os.path.commonpath([real_root, resolved]) == real_root:
            if not os.path.exists(resolved):
                raise PathRefused("no such file under the allowed roots", status=404)
            if not os.path.isfile(resolved):
                raise PathRefused("not a regular file (a folder, a FIFO, a device)", 422)
            return resolved
    raise PathRefused("the path is outside the allowed roots")
