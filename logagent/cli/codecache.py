"""The code ``dataclasses`` compiles at start-up, kept between runs (EDGE: one file).

``@dataclass`` writes each class's methods (``__init__``, ``__repr__``,
``__eq__``, ``__hash__``, a frozen class's ``__setattr__`` and
``__delattr__``) as source text and compiles it with ``exec``: ~740
compilations for the ~130 classes a run imports (ours and the libraries'),
~80 ms of every ``analyze`` or ``cron`` run on this 2-core machine, more than
any module's own code. The text is the same on every run, so its compiled
code is too: like a ``.pyc`` file, this cache keeps it.

``install`` points the name ``exec`` inside the ``dataclasses`` module (a
module-level name lookup comes before the builtins) at ``CodeCache.exec``,
which compiles a text only when it is not in the cache, exactly as ``exec``
would (``<string>``, no inherited future flags), and executes the code object.
Nothing of ``dataclasses`` itself is copied or changed; a Python whose
``dataclasses`` stopped calling ``exec`` would simply not use the cache.

The file lives next to the package's bytecode (``logagent/__pycache__``),
named for the interpreter and its optimization level, and holds the exact
interpreter version: a file from another build, or one that does not load, is
ignored. It is written (atomically) only when a run compiled something new,
never when bytecode writing is off (``-B``, ``PYTHONDONTWRITEBYTECODE``),
unless asked to (``python -m logagent.cli.codecache COMMAND …``, which
``make venv`` runs once so that a checkout with bytecode writing off has it).
A directory that cannot be written leaves things as they were: compiled on
every run.
"""

from __future__ import annotations

import atexit
import dataclasses
import marshal
import os
import sys
from types import CodeType
from typing import Any

#: The cache file of this interpreter (its cache tag and optimization level in the name).
PATH = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
    "__pycache__",
    f"dataclass-code.{sys.implementation.cache_tag}.opt{sys.flags.optimize}.marshal",
)
#: Past this many texts the file starts again from one run's: old classes' texts go.
MAX_ENTRIES = 4000


class CodeCache:
    """Compiled code by source text, loaded from ``path`` (nothing when it cannot be read)."""

    def __init__(self, path: str, *, force: bool = False) -> None:
        self.path, self.force = path, force
        self.hits = self.misses = 0  # texts found in the cache, and compiled here
        self._unsaved = False
        self._used: dict[str, CodeType] = {}
        self._code: dict[str, CodeType] = _load(path)

    def exec(self, source: Any, globals: dict[str, Any] | None = None, locals: Any = None) -> None:
        """``exec(source, globals, locals)``, the compilation of a text taken from the cache."""
        if type(source) is str:
            code = self._code.get(source)
            if code is None:
                # as exec compiles a text: filename "<string>", the caller's (no) future flags
                code = compile(source, "<string>", "exec", dont_inherit=True)
                self._code[source] = code
                self.misses += 1
                self._unsaved = True
            else:
                self.hits += 1
            self._used[source] = code
            source = code
        exec(source, globals, locals)

    def save(self) -> bool:
        """Write the cache if this process compiled something new; whether it was written."""
        if not self._unsaved or (sys.dont_write_bytecode and not self.force):
            return False
        keep = self._code if len(self._code) <= MAX_ENTRIES else self._used
        import tempfile  # only when something is written: start-up time

        folder = os.path.dirname(self.path)
        try:
            os.makedirs(folder, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=os.path.basename(self.path), dir=folder)
            try:
                os.fchmod(fd, 0o644)  # as a .pyc: readable by whoever runs the package
                with os.fdopen(fd, "wb") as out:
                    marshal.dump((sys.version, keep), out)
                os.replace(tmp, self.path)
            except BaseException:
                os.unlink(tmp)
                raise
        except (OSError, ValueError):  # read-only package, full disk: compile next time too
            return False
        self._unsaved = False
        return True


def _load(path: str) -> dict[str, CodeType]:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return {}
    try:
        version, code = marshal.loads(data)
    except (EOFError, ValueError, TypeError):  # cut or foreign: compiled afresh
        return {}
    if version != sys.version or not isinstance(code, dict):
        return {}
    return code


_INSTALLED: CodeCache | None = None


def install(*, force: bool = False, path: str | None = None) -> CodeCache:
    """Serve ``dataclasses``' compilations from the cache for the rest of the process, and
    save what was new when it ends (``force``: even with bytecode writing off)."""
    global _INSTALLED
    if _INSTALLED is None:
        _INSTALLED = CodeCache(path or PATH, force=force)
        dataclasses.exec = _INSTALLED.exec  # type: ignore[attr-defined]
        atexit.register(_INSTALLED.save)
    _INSTALLED.force = _INSTALLED.force or force
    return _INSTALLED


def save() -> None:
    """Write what the imports compiled (``startup.imports_done``; again at exit)."""
    if _INSTALLED is not None:
        _INSTALLED.save()


def main() -> None:
    """``python -m logagent.cli.codecache COMMAND …``: run a logagent command, keeping the
    code its start-up compiled even where bytecode writing is off (``make venv``)."""
    from logagent.cli import codecache, entry  # this module by its name, not as __main__

    codecache.install(force=True)
    entry(sys.argv[1:])


if __name__ == "__main__":
    main()
