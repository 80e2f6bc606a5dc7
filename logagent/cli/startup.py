"""The garbage collector and numpy's BLAS threads during start-up (EDGE: process state).

A run's imports (Polars, numpy, ~110 modules of ours, their classes) make
hundreds of thousands of objects that live as long as the process. The
collector, left on, walks them again and again while they are made: a 1-line
``analyze`` ran 124 collections costing 62 ms, one of them a full one (30 ms),
a seventh of its wall time. So the commands that run the engine start with
the collector off, and once their imports are done ``imports_done`` moves
everything made so far out of its reach (``gc.freeze``) and turns it on again:
the run itself collects as always, over its own objects only.

The same commands take the code ``dataclasses`` compiles for their classes
from ``cli.codecache`` (~80 ms of compiling per run otherwise), and
``imports_done`` writes what was new.

numpy's OpenBLAS starts a thread a core when numpy loads, and they spin a
while: where another process keeps one of the two cores busy (a cron job
beside a service), importing numpy took 101-116 ms here against 54-67 ms with
one thread (5 runs each; the same ~60-85 ms on an idle host), and a 1-line
``analyze`` on a busy host 0.47 s against 0.39 s (medians of 10 interleaved
runs). logagent multiplies no matrices, so every command runs with one BLAS
thread (``single_blas_thread``) unless the environment names another count;
the library API leaves its host process as it is.

Polars' allocator (jemalloc) keeps an arena a core and a cache a thread: a
1-line ``analyze`` peaked at 100.0-100.9 MiB, against 96.8-97.7 MiB with one
arena and no thread caches (8 runs each, interleaved). On this 2-core host
that setting cost no time on 1 GB (``--full`` 0.72 against 0.71 s, ``-q
status`` 2.80 against 2.81 s) and saved 8 MiB there, but on a host with many
cores many threads would share the one arena's lock. So only small inputs
get it (``compact_allocator``): regular, uncompressed files of at most
``SMALL_INPUT_BYTES`` in all, named on the command line (not stdin, globs or
pipes, whose size is not known before reading), unless the environment sets
the allocator's options itself. (Polars writes its own options into the same
variable as it loads, with those it found after them.)
"""

from __future__ import annotations

import gc
import os
import stat
import sys
from collections.abc import Container, Iterable, MutableMapping

#: the commands that start with the collector off; each calls ``imports_done`` before it reads
DEFERRED = frozenset({"analyze", "cron", "resume"})


def single_blas_thread(environ: MutableMapping[str, str] = os.environ) -> None:
    """One OpenBLAS thread, unless ``environ`` sets a count (module doc); read when numpy
    loads, so called before anything imports it."""
    environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def defer_collection(command: str | None) -> None:
    """Start-up of ``command``: if it is one of ``DEFERRED``, the collector off and the
    classes' compiled code from the cache."""
    if command in DEFERRED:
        gc.disable()
        from logagent.cli import codecache

        codecache.install()


def imports_done() -> None:
    """The imports are done: freeze what they made, and collect as usual from here."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()
    from logagent.cli import codecache

    codecache.save()


#: The most input bytes (in all) a run gets the compact allocator for (module doc).
SMALL_INPUT_BYTES = 16 << 20
#: jemalloc's options then: one arena, no thread caches (read as Polars loads).
COMPACT_JEMALLOC = ("_RJEM_MALLOC_CONF", "narenas:1,tcache:false")


def compact_allocator(
    paths: Iterable[str],
    environ: MutableMapping[str, str] = os.environ,
    loaded: Container[str] = sys.modules,
) -> bool:
    """Polars' compact allocator for a small input (module doc); whether it was set. Called
    before Polars loads (``loaded``: the modules imported), with the paths as given on the
    command line."""
    from logagent.magic import kind_of

    name, options = COMPACT_JEMALLOC
    if name in environ or "polars" in loaded:
        return False
    total = 0
    for path in paths:
        try:  # stat first: opening a FIFO waits for its writer, and closing it ends the pipe
            if not stat.S_ISREG(os.stat(path).st_mode):
                return False  # a pipe, a device: size unknown
            with open(path, "rb") as f:
                st = os.fstat(f.fileno())
                if not stat.S_ISREG(st.st_mode) or kind_of(f.read(4)) is not None:
                    return False  # replaced since; compressed or UTF-16: size unknown
        except OSError:  # stdin ('-'), a glob, a missing file: the run says what it is
            return False
        total += st.st_size
        if total > SMALL_INPUT_BYTES:
            return False
    environ[name] = options
    return True
