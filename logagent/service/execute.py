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

from logagent.service.params import FLAGS, AnalysisParams, ParamError, param_error

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
    params = AnalysisParams.model_validate(job.params.get("query", {}))
    return _settings(params, cfg, batch_bytes, checkpoint=job.checkpoint)


def _settings(
    params: AnalysisParams, cfg: ServiceConfig, batch_bytes: int, *, checkpoint: str | None
) -> Settings:
    from logagent.config import load_settings

    over: dict[str, Any] = params.overrides()
    over["budget"]["memory"] = str(cfg.memory_budget_bytes)  # one budget: the process's RSS
    if batch_bytes < DEFAULT_BATCH_BYTES:
        over["reader"] = {"batch_bytes": batch_bytes}
    over["checkpoint"] = {"path": checkpoint, "hint": False}  # the service resumes its own
    over["llm"] = {"mode": cfg.llm}
    return load_settings(cfg.config_file, **over)


def check_params(params: AnalysisParams, cfg: ServiceConfig) -> None:
    """What ``logagent analyze`` would refuse, refused before the upload is stored.

    The same code as the CLI and the engine, only earlier: the settings
    (``load_settings``), ``--now`` (``parse_now``), the question
    (``question_from``), the time window (``timewindow.parse_window``, the
    engine's) and the format name (``build_any_format``, the engine's, with
    the custom formats it would load). ``ParamError`` names the field.
    """
    from datetime import UTC, datetime

    from logagent.cli.analyze import parse_now, question_from
    from logagent.errors import ConfigError, FormatError
    from logagent.formats.where import parse_cond
    from logagent.timewindow import parse_window

    try:
        settings = _settings(params, cfg, DEFAULT_BATCH_BYTES, checkpoint=None)
    except ConfigError as exc:
        raise ParamError([param_error(_field_of(exc.message), exc.message)]) from exc
    try:
        now = parse_now(params.now) or datetime.now(UTC)
    except ConfigError as exc:
        raise ParamError([param_error("now", exc.message)]) from exc
    try:
        question = question_from(settings)  # --by/--where resolved as the CLI resolves them
        for cond in question.where:
            parse_cond(cond)
    except ConfigError as exc:
        field = (
            "where"
            if exc.message.startswith("--where")
            else "by"
            if "--by" in exc.message
            else "question"
        )
        raise ParamError([param_error(field, exc.message)]) from exc
    try:
        parse_window(question.since, question.until, now=now)
    except ConfigError as exc:
        flag = str(exc.context.get("flag", "--since"))
        raise ParamError([param_error(flag.removeprefix("--"), exc.message)]) from exc
    try:
        _check_format(settings)
    except FormatError as exc:
        raise ParamError([param_error("format", exc.message)]) from exc


def _check_format(settings: Settings) -> None:
    """The format name is one the engine can build (``auto``, built-in or custom)."""
    name = settings.analysis.format
    if name == "auto":
        return
    from logagent.formats.catalog import ACCESS_NAMES, APP_NAMES, build_any_format
    from logagent.formats.custom import load_custom_formats

    custom = load_custom_formats(settings.formats.custom_dir, reserved=(*ACCESS_NAMES, *APP_NAMES))
    build_any_format(name, [], json_keys=settings.formats.json_keys, custom=custom)


def _field_of(message: str) -> str:
    """The query parameter a settings error is about (``analysis.top: ...`` -> ``top``)."""
    for name in FLAGS:
        if f"analysis.{name}:" in message or f"budget.{name}:" in message:
            return name
    return "query"


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
    if job.params.get("damaged"):  # stored up to its damage (``uploads.Decoder``)
        result = _damaged(result, str(job.params["damaged"]))
    if job.upload:
        result = renamed(result, job.upload, upload_name(job))
    elif job.params.get("given_path"):  # the path as the client gave it, not as resolved
        result = renamed(result, job.params["path"], job.params["given_path"])
    return write_with_deadline(result, settings.llm, seconds_left=None)


def _damaged(result: Result, why: str) -> Result:
    """The answer over an upload whose compressed log ended early: partial, as ``logagent
    analyze`` says of such a ``.gz`` (``input_damaged``: what came before the damage counted)."""
    from logagent.engine.resultparts import made_partial
    from logagent.routermem.router import Reason

    warning = f"partial answer: {why}; counts cover only what was decompressed before it"
    return made_partial(result, Reason.INPUT_DAMAGED.value, why, [warning])


def upload_name(job: Job) -> str:
    """What a result calls an upload: the client's file name, else ``upload:<id>``."""
    name = job.params.get("filename")
    return str(name) if name else f"upload:{job.id}"


def renamed(result: Result, path: str, name: str) -> Result:
    """``result`` with the input ``path`` called ``name`` everywhere.

    Everywhere: ``input.paths``, warnings and details that quote the path,
    the report. An upload's place in the data dir is no business of the
    client; a server path is shown as the client gave it.
    """
    import json

    from logagent.result import Result

    text = result.model_dump_json()
    for each in {path, os.path.realpath(path)}:
        text = text.replace(json.dumps(each)[1:-1], json.dumps(name)[1:-1])
    return Result.model_validate_json(text)


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
