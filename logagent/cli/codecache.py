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
which compiles a text only when it is not in the cache, as ``exec`` would
(``<string>``, no inherited future flags), and executes the code object.
Nothing of ``dataclasses`` itself is copied or changed; a Python whose
``dataclasses`` stopped calling ``exec`` would simply not use the cache.

The file lives next to the package's bytecode (``logagent/__pycache__``),
named for the interpreter and its optimization level, and holds the exact
interpreter version: a file of another version, one that does not load, and
entries that are not text -> code are ignored. It is written (atomically)
only when a run compiled something new, never when bytecode writing is off
(``-B``, ``PYTHONDONTWRITEBYTECODE``) unless asked to (``python -m
logagent.cli.codecache COMMAND …``, which ``make venv`` runs once so that a
checkout with bytecode writing off has it). A directory that cannot be
written leaves things as they were: compiled on every run.
"""

from __future__ import annotations

import atexit
import dataclasses
import marshal
import os
import sys
from types import CodeType
from typing import Any

#: The cache file of this interpreter (its cache tag and optimization level in the name;
#: None where the interpreter has no bytecode cache tag: no cache then).
PATH = (
    os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
        "__pycache__",
        f"dataclass-code.{sys.implementation.cache_tag}.opt{sys.flags.optimize}.marshal",
    )
    if sys.implementation.cache_tag
    else None
)
#: What a file must have been written by: this interpreter's exact version (a build of the
#: same version compiles the same code; marshal and bytecode change between versions).
STAMP = ("logagent-dataclass-code", 1, sys.implementation.name, sys.hexversion)
#: Past this many texts the file starts again from one run's: old classes' texts go.
MAX_ENTRIES = 4000
#: A temporary file left by a writer that was killed is removed after this many seconds.
STALE_S = 600


class CodeCache:
    """Compiled code by source text, loaded from ``path`` (nothing when it cannot be read)."""

    def __init__(self, path: str, *, force: bool = False) -> None:
        self.path, self.force = path, force
        self.hits = self.misses = 0  # texts found in the cache, and compiled here
        self._unsaved = False
        self._used: dict[str, CodeType] = {}
        self._code: dict[str, CodeType] = _load(path)

    def exec(
        self, source: Any, globals: dict[str, Any] | None = None, locals: Any = None, /, **kw: Any
    ) -> None:
        """``exec(source, globals, locals)``, the compilation of a text taken from the cache.

        The call ``dataclasses`` makes, ``exec(text, globals, namespace)``, compiles the
        text as ``exec`` does (``<string>``, no future flags: ``dataclasses`` has none);
        any other call (code objects, no globals, ``closure=``) is passed on as made.
        """
        if type(source) is not str or globals is None or kw:
            if globals is None:  # exec's default: the caller's namespaces, not this frame's
                caller = sys._getframe(1)
                globals = caller.f_globals
                locals = caller.f_locals if locals is None else locals
            exec(source, globals, locals, **kw)
            return
        code = self._code.get(source)
        if code is None:
            code = compile(source, "<string>", "exec", dont_inherit=True)
            self._code[source] = code
            self.misses += 1
            self._unsaved = True
        else:
            self.hits += 1
        self._used[source] = code
        exec(code, globals, locals)

    def save(self) -> bool:
        """Write the cache if this process compiled something new; whether it was written.

        As ``importlib`` writes a ``.pyc``: a temporary file made with mode 0o666 (the
        umask applies), then renamed over the old one; temporary files left by killed
        writers are removed on the way.
        """
        if not self._unsaved or (sys.dont_write_bytecode and not self.force):
            return False
        keep = self._code if len(self._code) <= MAX_ENTRIES else self._used
        folder, name = os.path.split(self.path)
        tmp = f"{self.path}.{os.getpid()}.{id(self):x}.tmp"
        try:
            os.makedirs(folder, exist_ok=True)
            _remove_stale(folder, name)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            try:
                with os.fdopen(fd, "wb") as out:
                    marshal.dump((STAMP, keep), out)
                os.replace(tmp, self.path)
            except BaseException:
                os.unlink(tmp)
                raise
        except (OSError, ValueError):  # read-only package, full disk: compile next time too
            return False
        self._unsaved = False
        return True


def _remove_stale(folder: str, name: str) -> None:
    """Temporary files of ``name`` older than ``STALE_S`` (their writer was killed)."""
    import time

    try:
        entries = [e for e in os.scandir(folder) if e.name.startswith(name + ".")]
        for entry in entries:
            if entry.name.endswith(".tmp") and time.time() - entry.stat().st_mtime > STALE_S:
                os.unlink(entry.path)
    except OSError:  # another process removed it first, or the folder is not ours to clean
        pass


def _load(path: str) -> dict[str, CodeType]:
    """The cache in ``path``: only text -> code entries, from a file this interpreter wrote;
    anything else (missing, cut, foreign, damaged) is an empty cache: compiled afresh."""
    try:
        with open(path, "rb") as f:
            data = f.read()
        stamp, code = marshal.loads(data)
    except Exception:  # OSError, a cut or foreign file, a length that lies (MemoryError)
        return {}
    if stamp != STAMP or type(code) is not dict:
        return {}
    return {k: v for k, v in code.items() if type(k) is str and type(v) is CodeType}


_INSTALLED: CodeCache | None = None


def install(*, force: bool = False, path: str | None = None) -> CodeCache | None:
    """Serve ``dataclasses``' compilations from the cache for the rest of the process, and
    save what was new when it ends (``force``: even with bytecode writing off).

    None (nothing changed) where there is no cache file to use.
    """
    global _INSTALLED
    where = path or PATH
    if _INSTALLED is None and where is not None:
        _INSTALLED = CodeCache(where, force=force)
        dataclasses.exec = _INSTALLED.exec  # type: ignore[attr-defined]
        atexit.register(_INSTALLED.save)
    if _INSTALLED is not None:
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
