"""Command-line front door (EDGE): flags -> Settings -> engine; errors -> exit codes (one table).

Exit codes: 0 settled or exact, 1 internal error, 2 usage or input error,
3 recused, 4 partial, 130 interrupted twice (no result).
"""

from __future__ import annotations

import datetime
import json
import logging
import os
import signal
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from types import FrameType
from typing import Any

import click
import structlog

from logagent.checkpoint import CheckpointError, CheckpointFile
from logagent.checkpoint import load as load_checkpoint
from logagent.config import LLMSettings, Settings, load_settings
from logagent.engine import analyze
from logagent.errors import (
    ConfigError,
    FormatError,
    InputError,
    LLMUnavailable,
    LogagentError,
    OutputError,
)
from logagent.report.html import render_html
from logagent.report.llm import OllamaChat
from logagent.report.write import with_report, write_report
from logagent.result import Question, QuestionKind, Report, Result, Status, json_schema
from logagent.run import ProgressEvent, RunEnv

EXIT_OK, EXIT_INTERNAL, EXIT_USAGE, EXIT_RECUSED, EXIT_PARTIAL = 0, 1, 2, 3, 4
EXIT_INTERRUPTED = 130  # a second interrupt: stop at once, no result

#: The one table from failures to exit codes.
ERROR_EXIT: tuple[tuple[type[LogagentError], int], ...] = (
    (InputError, EXIT_USAGE),
    (ConfigError, EXIT_USAGE),
    (FormatError, EXIT_USAGE),
    (OutputError, EXIT_USAGE),
    (LLMUnavailable, EXIT_USAGE),  # only with --llm on; otherwise the template is used
)
STATUS_EXIT = {
    Status.EXACT: EXIT_OK,
    Status.SETTLED: EXIT_OK,
    Status.RECUSED: EXIT_RECUSED,
    Status.PARTIAL: EXIT_PARTIAL,
}


def exit_code_for(exc: LogagentError) -> int:
    """Exit code of a failure."""
    return next((code for kind, code in ERROR_EXIT if isinstance(exc, kind)), EXIT_INTERNAL)


def entry() -> None:
    """The ``logagent`` command: the CLI, then an exit no signal can turn into a lost result."""
    try:
        main()
    finally:  # the result is out: a SIGTERM during interpreter teardown must not kill it (-15)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="logagent")
def main() -> None:
    """logagent: answer a targeted question about a huge log, reading only what the answer needs."""


@main.command("analyze")
@click.argument("paths", nargs=-1, required=True)
@click.option(
    "--question",
    "-q",
    type=click.Choice([k.value for k in QuestionKind]),
    default=None,
    help="What to ask [default: top-errors].",
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
    "--since",
    default=None,
    help="Only records at or after this time: ISO 8601 or relative (24h, 7d, 90m).",
)
@click.option("--until", default=None, help="Only records before this time: ISO 8601 or relative.")
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
    "--seed", type=int, default=None, help="Seed of the random unit order (reproducible runs)."
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
def analyze_cmd(paths: tuple[str, ...], **opts: Any) -> None:
    """Answer a question about the logs at PATHS (files, globs, .gz/.zst/.bz2, '-' for stdin)."""
    _configure_logging()

    def run() -> tuple[Result, Settings]:
        settings = load_settings(opts["config_file"], **_overrides(opts))
        now = _parse_now(opts["now"])
        return _run(list(paths), settings, quiet=opts["quiet"], now=now), settings

    _front_door(run, as_json=opts["as_json"], out=opts["out"], html_out=opts["html_out"])


@main.command("resume")
@click.argument("checkpoint_file", type=click.Path(dir_okay=False))
@click.option(
    "--memory-budget",
    default=None,
    help="A new memory budget (a partial answer stopped by memory can go on with more).",
)
@click.option("--max-seconds", type=click.FloatRange(0, min_open=True), default=None)
@click.option("--max-cpu-seconds", type=click.FloatRange(0, min_open=True), default=None)
@click.option("--max-fraction", type=click.FloatRange(0, 1, min_open=True), default=None)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--out", type=click.Path(dir_okay=False), default=None, help="Write to FILE.")
@click.option("--html", "html_out", type=click.Path(dir_okay=False), default=None)
@click.option("--quiet", is_flag=True, help="No progress bar.")
def resume_cmd(checkpoint_file: str, **opts: Any) -> None:
    """Go on with the run saved in CHECKPOINT_FILE (same inputs, question, seed) to its end.

    Budgets given here replace the saved ones; the checkpoint keeps being
    updated, and is removed once the run finishes.
    """
    _configure_logging()

    def run() -> tuple[Result, Settings]:
        cp = load_checkpoint(checkpoint_file)
        budget = {k: opts[k] for k in ("max_seconds", "max_cpu_seconds", "max_fraction")}
        budget["memory"] = opts["memory_budget"]
        settings = resumed_settings(cp.settings, checkpoint_file, budget)
        with _interrupt_flag() as interrupted, _progress_display(opts["quiet"]) as on_progress:
            env = RunEnv(
                interrupted=interrupted,
                on_progress=on_progress,
                checkpoint=CheckpointFile(checkpoint_file),
            )
            question = Question.model_validate(cp.question)
            return analyze(list(cp.paths), question, settings, env, resume=cp), settings

    _front_door(run, as_json=opts["as_json"], out=opts["out"], html_out=opts["html_out"])


def resumed_settings(saved: dict[str, Any], path: str, budget: dict[str, Any]) -> Settings:
    """The saved settings of a run, with new budgets and its checkpoint file."""
    try:
        values = dict(saved)
        values["budget"] = {**values.get("budget", {}), **_drop_none_values(budget)}
        values["checkpoint"] = {**values.get("checkpoint", {}), "path": path}
        return Settings(**values)
    except (ValueError, TypeError) as exc:
        raise CheckpointError(f"the checkpoint's settings are not valid here ({exc})") from exc


def _drop_none_values(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


def _front_door(
    run: Callable[[], tuple[Result, Settings]],
    *,
    as_json: bool,
    out: str | None,
    html_out: str | None,
) -> None:
    """Run, report, print, and map every failure to its exit code (one table)."""
    try:
        with _finishing_signals() as finishing:
            result, settings = run()
            result = _report(result, settings.llm)
            finishing()
            _emit(result, as_json=as_json, out=out)
            _emit_html(result, html_out)
        _require_llm(result, settings.llm)
    except LogagentError as exc:
        click.echo(f"logagent: error: {exc}", err=True)
        sys.exit(exit_code_for(exc))
    except KeyboardInterrupt:  # a second SIGINT/SIGTERM while finishing
        click.echo("logagent: interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except MemoryError:
        click.echo("logagent: error: out of memory (try a smaller --line-cap or batch)", err=True)
        sys.exit(EXIT_INTERNAL)
    except Exception as exc:  # a bug: one clear line, the traceback in the log (not swallowed)
        structlog.get_logger("logagent").debug("internal_error", exc_info=True)
        click.echo(
            f"logagent: internal error: {type(exc).__name__}: {exc} "
            "(a bug: please report it with LOGAGENT_LOG_LEVEL=debug output)",
            err=True,
        )
        sys.exit(EXIT_INTERNAL)
    sys.exit(STATUS_EXIT[result.status])


@main.command("schema")
def schema_cmd() -> None:
    """Print the JSON Schema of the result (the same as configs/result.schema.json)."""
    _write_stdout(json.dumps(json_schema(), indent=2) + "\n")


def _overrides(opts: dict[str, Any]) -> dict[str, Any]:
    return {
        "reader": {
            "unit_size": opts["unit_size"],
            "order": opts["order"],
            "line_cap": opts["line_cap"],
        },
        "analysis": {
            "question": opts["question"],
            "top": opts["top"],
            "format": opts["fmt"],
            "level": opts["level"],
            "key": opts["key"],
            "since": opts["since"],
            "until": opts["until"],
            "seed": opts["seed"],
            "min_requests": opts["min_requests"],
            "normalize": False if opts["no_normalize"] else None,
            "delta": opts["delta"],
            "epsilon": opts["epsilon"],
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


def question_from(settings: Settings) -> Question:
    """The question a run asks, from the analysis settings."""
    a = settings.analysis
    return Question(
        kind=a.question,
        top=a.top,
        min_requests=a.min_requests,
        normalize=a.normalize,
        delta=a.delta,
        epsilon=a.epsilon,
        level=a.level,
        key=a.key,
        since=a.since,
        until=a.until,
    )


def _parse_now(text: str | None) -> datetime.datetime | None:
    """``--now`` as an aware UTC time (naive means UTC); a bad one is a usage error."""
    if text is None:
        return None
    try:
        now = datetime.datetime.fromisoformat(text)
    except ValueError as exc:
        raise ConfigError(f"--now {text!r} is not an ISO 8601 time") from exc
    return now if now.tzinfo else now.replace(tzinfo=datetime.UTC)


def _run(
    paths: list[str], settings: Settings, *, quiet: bool, now: datetime.datetime | None = None
) -> Result:
    path = settings.checkpoint.path
    with _interrupt_flag() as interrupted, _progress_display(quiet) as on_progress:
        env = RunEnv(
            interrupted=interrupted,
            on_progress=on_progress,
            checkpoint=CheckpointFile(path) if path else None,
        )
        if now is not None:
            env = replace(env, wall_clock=lambda: now)
        return analyze(paths, question_from(settings), settings, env)


@contextmanager
def _finishing_signals() -> Iterator[Callable[[], None]]:
    """Signals outside the reading (``_interrupt_flag`` covers that) never lose a result.

    SIGTERM is noted and ignored: the answer is computed, it is printed. SIGINT
    (Ctrl-C) still cuts a slow LLM short (the template report is used) until
    ``finishing()`` is called; then the result is printed whatever comes.
    """
    printing = [False]

    def handler(signum: int, frame: FrameType | None) -> None:
        if signum == signal.SIGINT and not printing[0]:
            raise KeyboardInterrupt

    previous = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield lambda: printing.__setitem__(0, True)
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


@contextmanager
def _interrupt_flag() -> Iterator[Callable[[], str | None]]:
    """SIGINT/SIGTERM ask the run to stop after the current batch with a partial answer."""
    caught: list[str] = []

    def handler(signum: int, frame: FrameType | None) -> None:
        if caught:  # a second signal: stop now
            raise KeyboardInterrupt
        caught.append(signal.Signals(signum).name)

    previous = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield lambda: caught[0] if caught else None
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


@contextmanager
def _progress_display(quiet: bool) -> Iterator[Callable[[ProgressEvent], None] | None]:
    """A rich progress bar on stderr, only when stderr is a terminal."""
    if quiet or not sys.stderr.isatty():
        yield None
        return
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TimeElapsedColumn,
        TransferSpeedColumn,
    )

    with Progress(
        "reading",
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeElapsedColumn(),
        transient=True,
    ) as bar:
        task = bar.add_task("read", total=None)

        def update(event: ProgressEvent) -> None:
            bar.update(task, completed=event.bytes_read, total=event.bytes_total)

        yield update


def _emit(result: Result, *, as_json: bool, out: str | None) -> None:
    text = result.model_dump_json(indent=2) + "\n" if as_json else result.report.markdown
    if out is None:
        _write_stdout(text)
        return
    try:
        _write_atomic(out, text)
    except OSError as exc:
        _write_stdout(text)  # never lose the result
        raise OutputError(
            f"cannot write output ({exc.strerror}); the result was printed instead", path=out
        ) from exc


def _report(result: Result, settings: LLMSettings) -> Result:
    """The report step after the engine: checked LLM prose, else the template (and say so)."""
    client = None if settings.mode == "off" else OllamaChat(settings)
    try:
        result = write_report(result, client)
    except KeyboardInterrupt:  # Ctrl-C while a slow model writes: keep the answer
        detail = "interrupted while the LLM was writing"
        result = with_report(
            result, Report(fallback_reason="llm_unavailable", fallback_detail=detail)
        )
    report = result.report
    if report.fallback_reason == "llm_unavailable":
        click.echo(
            f"logagent: {report.fallback_detail}; the report is rendered from a template", err=True
        )
    elif report.fallback_reason == "llm_rejected":
        click.echo(
            "logagent: the LLM's text did not match the result twice "
            f"({report.fallback_detail}); the report is rendered from a template",
            err=True,
        )
    return result


def _require_llm(result: Result, settings: LLMSettings) -> None:
    """``--llm on``: a missing LLM is an error (after the template report was written)."""
    if settings.mode == "on" and result.report.fallback_reason == "llm_unavailable":
        raise LLMUnavailable(f"--llm on, but {result.report.fallback_detail}")


def _emit_html(result: Result, path: str | None) -> None:
    if path is None:
        return
    try:
        _write_atomic(path, render_html(result))
    except OSError as exc:
        raise OutputError(f"cannot write the HTML report ({exc.strerror})", path=path) from exc


def _write_stdout(text: str) -> None:
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away (| head): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except OSError as exc:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise OutputError(f"cannot write to standard output: {exc.strerror}") from exc


def _write_atomic(path: str, text: str) -> None:
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".logagent-", dir=directory)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)  # mkstemp makes 0600; a report is an ordinary file
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _configure_logging() -> None:
    level = getattr(
        logging, os.environ.get("LOGAGENT_LOG_LEVEL", "warning").upper(), logging.WARNING
    )
    tty = sys.stderr.isatty()
    renderer: Any = structlog.dev.ConsoleRenderer() if tty else structlog.processors.JSONRenderer()
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso"),
            *([] if tty else [structlog.processors.format_exc_info]),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
    )


FORMATS_DIR = "configs/formats"


@main.command("formats")
@click.option(
    "--formats-dir",
    default=FORMATS_DIR,
    show_default=True,
    help="Directory of custom format files (*.toml).",
)
def formats_cmd(formats_dir: str) -> None:
    """List the formats: built-in access and application formats, then custom ones."""
    from logagent.formats.catalog import ACCESS_NAMES, APP_NAMES, describe_formats
    from logagent.formats.custom import load_custom_formats

    try:
        custom = load_custom_formats(formats_dir, reserved=(*ACCESS_NAMES, *APP_NAMES))
    except LogagentError as exc:
        click.echo(f"logagent: error: {exc}", err=True)
        sys.exit(exit_code_for(exc))
    for name, kind, description in describe_formats(custom):
        click.echo(f"{name:<14} {kind:<7} {description}")


@main.command("detect")
@click.argument("paths", nargs=-1, required=True)
@click.option(
    "--formats-dir",
    default=FORMATS_DIR,
    show_default=True,
    help="Directory of custom format files (*.toml).",
)
@click.option("--year", type=int, default=None, help="Year of year-less timestamps [default: now].")
def detect_cmd(paths: tuple[str, ...], formats_dir: str, year: int | None) -> None:
    """Score every format on lines sampled from PATHS; print the scores, best and confidence."""
    import datetime

    from logagent.formats.catalog import ACCESS_NAMES, APP_NAMES
    from logagent.formats.custom import load_custom_formats
    from logagent.formats.detect import detect_all
    from logagent.sources import open_source, resolve_paths
    from logagent.sources.sample import sample_lines

    try:
        custom = load_custom_formats(formats_dir, reserved=(*ACCESS_NAMES, *APP_NAMES))
        sources = [open_source(p) for p in resolve_paths(list(paths))]
        try:
            sample = sample_lines(sources, cap=64 << 10)
        finally:
            for source in sources:
                source.close()
    except LogagentError as exc:
        click.echo(f"logagent: error: {exc}", err=True)
        sys.exit(exit_code_for(exc))
    found = detect_all(sample, year=year or datetime.datetime.now().year, custom=custom)
    for name, score in found.scores:
        click.echo(f"{name:<14} {score:.3f}")
    flags = [f for f, on in (("ambiguous", found.ambiguous), ("low", found.low_confidence)) if on]
    click.echo(
        f"best: {found.best} confidence: {found.confidence:.3f} "
        f"sample_lines: {found.sample_lines}" + (f" ({', '.join(flags)})" if flags else "")
    )
