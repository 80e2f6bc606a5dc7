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
"""

from __future__ import annotations

import gc
import os
from collections.abc import MutableMapping

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
