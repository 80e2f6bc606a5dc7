"""Exact counts for incremental front doors (cron): a full read that hands back its tally,
and the result over tallies merged from earlier reads.

Both run the engine's own loop and outcome (``core._analyze``, ``outcome.finish``):
the caller stores and merges tallies, never counts by itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from logagent.config import Settings
from logagent.counters import Accumulator, Tally
from logagent.engine.core import _analyze, _check_fixed_costs
from logagent.engine.outcome import finish
from logagent.engine.run import Run, RunEnv
from logagent.formats.detect import Detection
from logagent.report.markdown import render
from logagent.result import Question, Report, Result
from logagent.sources import Source


@dataclass(frozen=True)
class ExactCount:
    """A full read of some sources: its result, and its tally (None if the read stopped early)."""

    result: Result
    tally: Tally | None
    bucket_s: int | None  # the timeline's bucket width the tally's timeline is cut by


def count_exactly(
    sources: Sequence[Source], question: Question, settings: Settings, env: RunEnv | None = None
) -> ExactCount:
    """Read all of ``sources`` (opened by the caller, e.g. ``sources.slices``) and count exactly.

    The front door for incremental runs: the same loop as ``analyze`` with
    ``--full``, giving back the tally so the caller can store and merge it.
    The caller closes the sources.
    """
    env = env or RunEnv()
    analysis = settings.analysis.model_copy(update={"full": True})
    settings = settings.model_copy(update={"analysis": analysis})
    _check_fixed_costs(settings, env, list(sources))
    run = Run(question, settings, env, list(sources), env.clock(), env.cpu_clock())
    result = _analyze(run)
    tally = None if run.partial else run.acc.snapshot()
    return ExactCount(result, tally, run.bucket_s)


def answer_tally(
    tally: Tally,
    question: Question,
    settings: Settings,
    *,
    fmt: str,
    bucket_s: int | None,
    paths: Sequence[str],
) -> Result:
    """The exact result over a tally merged from stored ones, as a full read would report it."""
    env = RunEnv()
    run = Run(question, settings, env, [], env.clock(), env.cpu_clock())
    run.acc, run.bucket_s = Accumulator(tally), bucket_s
    run.app_log = _app_format(fmt, settings)  # -q status: levels, not HTTP statuses
    result = finish(run, Detection(((fmt, 1.0),), 0), 0, tally.units)
    info = result.input.model_copy(update={"paths": list(paths), "bytes_total": tally.bytes_read})
    result = result.model_copy(update={"input": info})
    return result.model_copy(update={"report": Report(source="template", markdown=render(result))})


def _app_format(name: str, settings: Settings) -> bool:
    """Whether the format named ``name`` (a state's) is an application log's, as
    ``views.counted_format`` tells a run's: a cron ``-q status`` of journald's levels had them
    shown as HTTP statuses ("200 is the most common", "5xx 9.9 %")."""
    from logagent.formats.catalog import ACCESS_NAMES, APP_NAMES, is_app
    from logagent.formats.custom import load_custom_formats

    if name in APP_NAMES or name in ACCESS_NAMES:
        return name in APP_NAMES
    custom = load_custom_formats(settings.formats.custom_dir, reserved=(*ACCESS_NAMES, *APP_NAMES))
    return name in custom and is_app(custom[name])
