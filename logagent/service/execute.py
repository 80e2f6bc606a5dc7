"""One job, run by the one engine (EDGE): settings as the CLI builds them, then ``analyze``.

Nothing here analyzes: the query's parameters become the same settings
sections as ``logagent analyze``'s flags (``params.AnalysisParams``), the
question is built by the CLI's own ``question_from``, a checkpointed job goes
on through the engine's resume exactly like ``logagent resume``, and the
report is the CLI's (template, or checked LLM prose with ``--llm``).
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from logagent.service.params import AnalysisParams

if TYPE_CHECKING:
    from logagent.config import Settings
    from logagent.engine.run import RunEnv
    from logagent.result import Result
    from logagent.service.config import ServiceConfig
    from logagent.service.store import Job

#: the engine's measured peak cost of a batch, in batch sizes (``engine.reading.BATCH_COST``)
DEFAULT_BATCH_BYTES = 8 << 20


def batch_bytes_for(cfg: ServiceConfig, baseline_rss: int) -> int:
    """Batch size that lets ``max_jobs`` jobs fit the budget beside the idle service.

    The default (the CLI's) when it fits, so a job reads exactly as
    ``logagent analyze`` does; smaller when the budget is shared thinly.
    """
    from logagent.engine.reading import BATCH_COST, MIN_BATCH_BYTES

    room = max(0, cfg.memory_budget_bytes - baseline_rss) // max(cfg.max_jobs, 1)
    return int(max(MIN_BATCH_BYTES, min(DEFAULT_BATCH_BYTES, room // BATCH_COST)))


def forecast_bytes(batch_bytes: int, input_bytes: int) -> int:
    """Memory a job is forecast to need beside the others, before it has read a batch.

    The engine's own numbers: one batch at its measured peak
    (``BATCH_COST`` times its size, never more than the input), and never
    less than the least a run needs (``limits.MIN_RUN_BYTES``).
    """
    from logagent.engine.reading import BATCH_COST
    from logagent.limits import MIN_RUN_BYTES

    batch = min(batch_bytes, max(input_bytes, 1))
    return max(MIN_RUN_BYTES, BATCH_COST * batch)


def settings_for(job: Job, cfg: ServiceConfig, batch_bytes: int) -> Settings:
    """The settings of ``job``: the config file, its query, and the service's budget."""
    from logagent.config import load_settings

    params = AnalysisParams.model_validate(job.params.get("query", {}))
    over: dict[str, Any] = params.overrides()
    over["budget"]["memory"] = str(cfg.memory_budget_bytes)  # one budget: the process's RSS
    if batch_bytes < DEFAULT_BATCH_BYTES:
        over["reader"] = {"batch_bytes": batch_bytes}
    over["checkpoint"] = {"path": job.checkpoint}
    over["llm"] = {"mode": cfg.llm}
    return load_settings(cfg.config_file, **over)


def run_job(job: Job, cfg: ServiceConfig, env: RunEnv, *, batch_bytes: int) -> Result:
    """Analyze the job's input (or go on from its checkpoint) and write the report."""
    from logagent.cli.analyze import parse_now, question_from
    from logagent.engine import analyze
    from logagent.report.llm import write_with_deadline

    now = parse_now(job.params.get("query", {}).get("now"))
    if now is not None:
        env = replace(env, wall_clock=lambda: now)
    settings = settings_for(job, cfg, batch_bytes)
    if job.checkpoint and os.path.exists(job.checkpoint):
        result, settings = _resume(job.checkpoint, settings, env)
    else:
        target = job.upload or job.params["path"]  # an upload, or a file under an allowed root
        result = analyze([target], question_from(settings), settings, env)
    return write_with_deadline(result, settings.llm, seconds_left=None)


def _resume(path: str, settings: Settings, env: RunEnv) -> tuple[Result, Settings]:
    """Go on from a checkpoint, as ``logagent resume`` does (same inputs, question, seed)."""
    from logagent.cli.resume import resumed_settings
    from logagent.engine import analyze
    from logagent.engine.checkpoint import load
    from logagent.result import Question

    cp = load(path)
    budget = settings.budget.model_dump()
    resumed = resumed_settings(cp.settings, path, budget)
    question = Question.model_validate(cp.question)
    return analyze(list(cp.paths), question, resumed, env, resume=cp), resumed
