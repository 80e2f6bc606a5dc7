"""``logagent analyze``: flags -> Settings -> engine -> report (EDGE).

Imports only click at module level (``analyze --help`` is instant); the
engine, Polars and the settings models load when a run starts.
"""

from __future__ import annotations

import contextlib
import datetime
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import click

from logagent.cli.frontdoor import (
    configure_logging,
    front_door,
    interrupt_flag,
    progress_display,
)
from logagent.errors import ConfigError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from logagent.config import Settings
    from logagent.engine.tallied import Backend
    from logagent.result import Question, Result

#: ``result.QuestionKind`` values (a test keeps the two equal; no pydantic at import)
QUESTION_KINDS = [
    "top-errors",
    "error-rate",
    "status",
    "top-error-components",
    "error-types",
    "timeline",
    "top",
    "top-4xx",
    "top-clients",
]


@click.command("analyze")
@click.argument("paths", nargs=-1, required=True)
@click.option(
    "--question",
    "-q",
    type=click.Choice(QUESTION_KINDS),
    default=None,
    help="What to ask [default: top-errors; top-error-components on an application log]. "
    "Presets of --by/--where: top-errors = --by route --where status=5xx, top-4xx = --by "
    "route --where status=4xx, top-clients = --by client, top-error-components = --by "
    "component --where level>=error; top = --by/--where alone.",
)
@click.option(
    "--top",
    "-k",
    type=click.IntRange(1, 1000),
    default=None,
    help="How many keys to rank [default: 5].",
)
@click.option(
    "--format",
    "fmt",
    default=None,
    help="Log format: auto, a built-in or a custom one (`logagent formats` lists them) "
    "[default: auto].",
)
@click.option(
    "--level",
    type=click.Choice(["error", "warn"]),
    default=None,
    help="App questions: least level counted, error (FATAL, ERROR) or warn (also WARN) "
    "[default: error].",
)
@click.option("--key", default=None, help="error-types: the component to break down.")
@click.option(
    "--by",
    default=None,
    metavar="FIELD",
    help="Rank the values of FIELD (route, path, client, method, status, user_agent, level, "
    "component, a JSON/logfmt key, a custom regex group) among the records that match "
    "every --where. Without -q every record counts; with a named question, its events.",
)
@click.option(
    "--where",
    multiple=True,
    metavar="COND",
    help="Count only records where COND holds: FIELD OP VALUE, OP one of = != >= <= > < ~ !~ "
    "(status=5xx, status>=400, status=404,500, level>=warn, rcode_name=NXDOMAIN, "
    "message~timeout). Repeat to require several.",
)
@click.option(
    "--since",
    default=None,
    help="Only records at or after this time: ISO 8601 or relative (24h, 7d, 90m).",
)
@click.option(
    "--until",
    default=None,
    help="Only records at or before this time (both bounds are inclusive): ISO 8601 or relative.",
)
@click.option(
    "--bucket",
    default=None,
    help="Timeline bucket width: auto (24-100 buckets over the time range), off, or e.g. "
    "5m, 1h, 1d [default: auto].",
)
@click.option(
    "--year",
    type=click.IntRange(1970, 9999),
    default=None,
    help="Year of year-less timestamps (syslog, glog) [default: this year, or the last one "
    "for dates that would lie in the future].",
)
@click.option(
    "--now",
    default=None,
    hidden=True,
    help="The 'now' relative times count from, ISO 8601 (reproducible runs and tests).",
)
@click.option(
    "--full",
    is_flag=True,
    help="Read everything (an exact answer) instead of stopping once settled.",
)
@click.option(
    "--delta",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    default=None,
    help="Error level: a settled answer is wrong at most this often [default: 0.01].",
)
@click.option(
    "--epsilon",
    type=click.FloatRange(0, 1, max_open=True),
    default=None,
    help="Routes closer than this (relative) are reported as a tie [default: 0].",
)
@click.option(
    "--negligible",
    type=click.FloatRange(0, 1, max_open=True),
    default=None,
    help="Stop once the matching events are proved under this share of the lines: "
    "nothing worth reporting; 0 turns it off [default: 1e-4].",
)
@click.option(
    "--ranked",
    is_flag=True,
    help="Also settle the order within the top-k, not only which routes are in it.",
)
@click.option(
    "--assume-exchangeable",
    is_flag=True,
    help="Streams (stdin, .gz): allow a model-based early stop (assumes a stationary log).",
)
@click.option(
    "--memory-budget",
    default=None,
    help="Most memory the run may use: a size (512MiB) or a share of what is free (25%).",
)
@click.option(
    "--max-seconds",
    type=click.FloatRange(0, min_open=True),
    default=None,
    help="Stop with a partial answer after this many seconds.",
)
@click.option(
    "--max-cpu-seconds",
    type=click.FloatRange(0, min_open=True),
    default=None,
    help="Stop with a partial answer after this much CPU time.",
)
@click.option(
    "--max-fraction",
    type=click.FloatRange(0, 1, min_open=True),
    default=None,
    help="Stop with a partial answer after reading this share of the input.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the result as JSON instead of the Markdown report.",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write the output to FILE (atomically).",
)
@click.option(
    "--unit-size", default=None, help="Sampling unit size, e.g. 16KiB, or auto [default: auto]."
)
@click.option(
    "--order",
    type=click.Choice(["auto", "sequential", "random"]),
    default=None,
    help="Unit reading order [default: auto].",
)
@click.option(
    "--seed",
    type=click.IntRange(0, 2**63 - 1),
    default=None,
    help="Seed of the random unit order, 0 to 2^63-1 (reproducible runs).",
)
@click.option(
    "--min-requests",
    type=click.IntRange(1),
    default=None,
    help="error-rate: least requests a route needs to be ranked [default: 100].",
)
@click.option("--no-normalize", is_flag=True, help="Count raw paths instead of route templates.")
@click.option(
    "--line-cap", default=None, help="Longest line kept, e.g. 64KiB; longer lines are cut."
)
@click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False),
    default=None,
    help="TOML config file (also LOGAGENT_CONFIG).",
)
@click.option(
    "--checkpoint",
    type=click.Path(dir_okay=False),
    default=None,
    help="Save progress to FILE (periodically and on a stop) for `logagent resume FILE`.",
)
@click.option(
    "--checkpoint-every",
    type=click.IntRange(1),
    default=None,
    help="Batches between checkpoints [default: 16].",
)
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option(
    "--llm",
    type=click.Choice(["auto", "on", "off"]),
    default=None,
    help="LLM-written report (checked against the result): auto uses it if the Ollama "
    "server answers, on requires it (exit 2 if none answers), off never asks [default: auto].",
)
@click.option(
    "--html",
    "html_out",
    type=click.Path(dir_okay=False),
    default=None,
    help="Also write the report as one self-contained HTML page with charts to FILE.",
)
@click.option(
    "--engine",
    type=click.Choice(["local", "dask"]),
    default="local",
    help="Where units are read and counted: this process, or Dask workers (needs "
    "logagent[dask]; PATHS may then be fsspec URLs such as s3://bucket/key) [default: local].",
)
@click.option("--scheduler", default=None, help="--engine dask: the cluster, tcp://HOST:PORT.")
@click.option(
    "--workers",
    type=click.IntRange(1, 256),
    default=None,
    help="--engine dask without --scheduler: local worker processes [default: cores, at most 4].",
)
def analyze_cmd(paths: tuple[str, ...], **opts: Any) -> None:
    """Answer a question about the logs at PATHS (files, globs, .gz/.zst/.bz2, '-' for stdin).

    Exit codes: 0 settled or exact, 1 internal error, 2 usage or input error,
    3 recused (cannot answer), 4 partial answer, 130 interrupted twice (or once before an input
    gave a whole line).
    """
    configure_logging()
    from logagent.cli.startup import compact_allocator

    compact_allocator(paths)  # a small input: Polars' allocator holds less (before it loads)

    def run() -> tuple[Result, Settings]:
        from logagent import log
        from logagent.cli.output import input_at
        from logagent.config import load_settings

        for path, what in ((opts["out"], "--out"), (opts["html_out"], "--html")):
            if path and opts["checkpoint"] and input_at(path, [opts["checkpoint"]]):
                raise ConfigError(f"{what} and --checkpoint name the same file; name two")

        settings = load_settings(opts["config_file"], **overrides(opts))
        log.set_level(settings.log_level)
        now = parse_now(opts["now"])
        from logagent.cli.engines import backend_for

        with backend_for(opts, settings) as backend:
            result = run_analysis(
                list(paths), settings, quiet=opts["quiet"], now=now, backend=backend
            )
        return result, settings

    front_door(
        run, as_json=opts["as_json"], out=opts["out"], html_out=opts["html_out"], inputs=paths
    )


def check_settings(settings: Settings, paths: Sequence[str] = ()) -> None:
    """Settings that can never be met are usage errors before anything is read; ``paths``:
    the run's inputs, which its checkpoint may not be."""
    from logagent.cli.output import check_target
    from logagent.config import memory_budget_bytes
    from logagent.engine.checkpoint import check_replaceable
    from logagent.limits import check_start
    from logagent.routermem import memory

    budget = memory_budget_bytes(settings.budget.memory, memory.available_bytes())
    check_start(budget, memory.rss_bytes())
    if settings.checkpoint.path is not None:
        check_target(settings.checkpoint.path, "--checkpoint", regular_only=True, inputs=paths)
        check_replaceable(settings.checkpoint.path)
    if settings.analysis.question == "timeline" and settings.analysis.bucket == "off":
        raise ConfigError(
            "--question timeline answers with the events per time bucket: give --bucket auto "
            "or a width such as 5m, 1h, 1d (not off)"
        )


def overrides(opts: dict[str, Any]) -> dict[str, Any]:
    from logagent.questions import asked_kind

    return {
        "reader": {
            "unit_size": opts["unit_size"],
            "order": opts["order"],
            "line_cap": opts["line_cap"],
        },
        "analysis": {
            "question": asked_kind(opts["question"], opts["by"], opts["where"]),
            "top": opts["top"],
            "format": opts["fmt"],
            "level": opts["level"],
            "key": opts["key"],
            "by": opts["by"],
            "where": tuple(opts["where"]) or None,
            "since": opts["since"],
            "until": opts["until"],
            "seed": opts["seed"],
            "year": opts["year"],
            "bucket": opts["bucket"],
            "min_requests": opts["min_requests"],
            "normalize": False if opts["no_normalize"] else None,
            "delta": opts["delta"],
            "epsilon": opts["epsilon"],
            "negligible": opts["negligible"],
            "full": True if opts["full"] else None,
            "assume_exchangeable": True if opts["assume_exchangeable"] else None,
            "ranked": True if opts["ranked"] else None,
        },
        "budget": {
            "max_seconds": opts["max_seconds"],
            "max_cpu_seconds": opts["max_cpu_seconds"],
            "max_fraction": opts["max_fraction"],
            "memory": opts["memory_budget"],
        },
        "checkpoint": {"path": opts["checkpoint"], "every": opts["checkpoint_every"]},
        "llm": {"mode": opts["llm"]},
    }


def question_from(settings: Settings, *, for_log: bool = True) -> Question:
    """The question a run asks, from the analysis settings.

    No question asked (no ``-q``, ``--by``, ``--where`` or ``--key``): top-errors, which the engine
    answers as top-error-components on an application log where ``for_log`` (the
    question's ``default_kind``); a scheduled job pins the kind it asks (``for_log=False``).
    """
    from logagent.questions import resolve_selection
    from logagent.result import Question, QuestionKind

    a = settings.analysis
    asked = a.question or QuestionKind.TOP_ERRORS
    level_asked = a.level or "error"
    kind, by, where, level, key = resolve_selection(asked, a.by, a.where, level_asked, a.key)
    return Question(
        default_kind=for_log and (a.question, a.by, a.key) == (None, None, None) and not a.where,
        kind=kind,
        top=a.top,
        min_requests=a.min_requests,
        normalize=a.normalize,
        delta=a.delta,
        epsilon=a.epsilon,
        level=level,  # type: ignore[arg-type]  # "error" or "warn" (resolve_selection)
        key=key,
        since=a.since,
        until=a.until,
        by=by,
        where=where,
    )


def parse_now(text: str | None) -> datetime.datetime | None:
    """``--now`` as an aware UTC time (naive means UTC); a bad one is a usage error."""
    if text is None:
        return None
    try:
        now = datetime.datetime.fromisoformat(text)
    except ValueError as exc:
        raise ConfigError(f"--now {text!r} is not an ISO 8601 time") from exc
    return now if now.tzinfo else now.replace(tzinfo=datetime.UTC)


def run_analysis(
    paths: list[str],
    settings: Settings,
    *,
    quiet: bool,
    now: datetime.datetime | None = None,
    backend: Backend | None = None,
) -> Result:
    from logagent.cli.startup import imports_done
    from logagent.engine import analyze
    from logagent.engine.checkpoint import CheckpointFile, held
    from logagent.engine.run import RunEnv

    imports_done()
    check_settings(settings, paths)  # after the imports: the process is at its starting size
    path = settings.checkpoint.path
    with (
        held(path) if path else contextlib.nullcontext(),
        interrupt_flag() as interrupted,
        progress_display(quiet) as on_progress,
    ):
        env = RunEnv(
            interrupted=interrupted,
            pending_signal=interrupted,  # the CLI's flag is a plain read
            on_progress=on_progress,
            checkpoint=CheckpointFile(path) if path else None,
            backend=backend,
        )
        if now is not None:
            env = replace(env, wall_clock=lambda: now)
        return analyze(paths, question_from(settings), settings, env)
