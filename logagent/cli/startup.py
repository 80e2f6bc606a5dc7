"""The garbage collector during start-up (EDGE: process state).

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
"""

from __future__ import annotations

import gc

#: the commands that start with the collector off; each calls ``imports_done`` before it reads
DEFERRED = frozenset({"analyze", "cron", "resume"})


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
