"""What every reading command shares (EDGE): run, report, print, map failures to exit codes.

A run's result is never lost: signals during the report stage end that stage
(the template report is used), the printing ignores SIGTERM, and an output
that cannot be written falls back to standard output.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from types import FrameType
from typing import TYPE_CHECKING

import click

from logagent.cli.exits import EXIT_INTERNAL, EXIT_INTERRUPTED, STATUS_EXIT, exit_code_for
from logagent.cli.output import check_outputs, safe_write
from logagent.errors import LLMUnavailable, LogagentError, OutputError

if TYPE_CHECKING:
    from logagent.config import LLMSettings, Settings
    from logagent.engine.run import ProgressEvent
    from logagent.result import Result

Runner = Callable[[], "tuple[Result, Settings]"]


def front_door(
    run: Runner,
    *,
    as_json: bool,
    out: str | None,
    html_out: str | None,
    inputs: Sequence[str] = (),
) -> None:
    """Run, report, print, and map every failure to its exit code (one table); ``inputs``: the
    paths the run reads, which no output may be."""
    try:
        check_outputs(out, html_out, inputs)
        with finishing_signals() as finishing:
            started = time.monotonic()
            result, settings = run()
            result = report(result, settings, started=started)
            finishing()
            emit(result, as_json=as_json, out=out)
            emit_html(result, html_out)
        require_llm(result, settings.llm)
    except LogagentError as exc:
        fail(str(exc), exit_code_for(exc))
    except KeyboardInterrupt:  # a second SIGINT/SIGTERM while reading
        fail("interrupted", EXIT_INTERRUPTED)
    except MemoryError:
        fail("out of memory (try a smaller --line-cap or --memory-budget)", EXIT_INTERNAL)
    except Exception as exc:  # a bug: one clear line, the traceback in the log (not swallowed)
        from logagent import log

        log.get_logger("logagent").debug("internal_error", exc_info=True)
        fail(
            f"internal error: {type(exc).__name__}: {exc} "
            "(a bug: please report it with LOGAGENT_LOG_LEVEL=debug output)",
            EXIT_INTERNAL,
        )
    sys.exit(STATUS_EXIT[result.status.value])


def fail(message: str, code: int) -> None:
    """One line on standard error (if it is open), then exit with ``code``."""
    prefix = "" if message == "interrupted" else "error: "
    say(f"logagent: {prefix}{message}")
    sys.exit(code)


def say(line: str) -> None:
    """A line on standard error; a closed one is not an error of ours."""
    with suppress(OSError, ValueError):
        click.echo(line, err=True)


def report(result: Result, settings: Settings, *, started: float) -> Result:
    """The report after the engine: checked LLM prose, else the template (and say so).

    The LLM stage has one deadline (``llm.timeout_s``, and what is left of
    ``--max-seconds``), and SIGINT/SIGTERM end it with the template report.
    """
    from logagent.report.llm import write_with_deadline

    left = None
    if settings.budget.max_seconds is not None:
        left = settings.budget.max_seconds - (time.monotonic() - started)
    result = write_with_deadline(result, settings.llm, seconds_left=left)
    rep = result.report
    if rep.fallback_reason == "llm_unavailable":
        say(f"logagent: {rep.fallback_detail}; the report is rendered from a template")
    elif rep.fallback_reason == "llm_rejected":
        say(
            "logagent: the LLM's text did not match the result twice "
            f"({rep.fallback_detail}); the report is rendered from a template"
        )
    return result


def require_llm(result: Result, settings: LLMSettings) -> None:
    """``--llm on``: a missing LLM is an error (after the template report was written)."""
    if settings.mode == "on" and result.report.fallback_reason == "llm_unavailable":
        raise LLMUnavailable(f"--llm on, but {result.report.fallback_detail}")


def emit(result: Result, *, as_json: bool, out: str | None) -> None:
    """The result (JSON) or its report (Markdown) on standard output or in ``out``."""
    text = result.model_dump_json(indent=2) + "\n" if as_json else result.report.markdown
    emit_text(text, out)


def emit_text(text: str, out: str | None) -> None:
    """``text`` on standard output or in ``out``; printed when ``out`` cannot be written."""
    if out is None:
        write_stdout(text)
        return
    try:
        safe_write(out, text, "the output")
    except OutputError as exc:
        write_stdout(text)  # never lose the result
        raise OutputError(f"{exc.message}; the result was printed instead", path=out) from exc


def emit_html(result: Result, path: str | None) -> None:
    """The HTML report in ``path``."""
    if path is None:
        return
    from logagent.report.html import render_html

    safe_write(path, render_html(result), "the HTML report")


def write_stdout(text: str) -> None:
    """``text`` on standard output; a reader that went away is not an error of ours."""
    try:
        if sys.stdout is None:
            raise OSError(9, "standard output is closed")
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away (| head)
        _silence_stdout()
    except (OSError, ValueError) as exc:
        _silence_stdout()
        why = getattr(exc, "strerror", None) or "it is closed"
        raise OutputError(f"cannot write to standard output: {why}") from exc


def _silence_stdout() -> None:
    """Point fd 1 at /dev/null so the interpreter's final flush cannot fail."""
    with suppress(OSError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)


def stop_signals() -> tuple[signal.Signals, ...]:
    """The signals that stop a run: SIGINT, SIGTERM, and SIGHUP (the terminal or the ssh
    session closed: its default action killed a long run with nothing written, not even
    to ``--out`` or a checkpoint) unless it is ignored (``nohup``: then it stays so)."""
    hangup = signal.getsignal(signal.SIGHUP) is not signal.SIG_IGN
    return (signal.SIGINT, signal.SIGTERM, *([signal.SIGHUP] if hangup else []))


@contextmanager
def finishing_signals() -> Iterator[Callable[[], None]]:
    """Signals outside the reading (``interrupt_flag`` covers that) never lose a result.

    Until ``finishing()`` is called, SIGINT, SIGTERM and SIGHUP (``stop_signals``) raise
    ``KeyboardInterrupt`` (the report stage catches it and uses the template);
    from then on both are ignored: the result is printed whatever comes.
    """
    printing = [False]
    hung_up = [False]

    def handler(signum: int, frame: FrameType | None) -> None:
        if signum == signal.SIGHUP:  # a hang-up often comes twice: it interrupts once
            if hung_up[0]:
                return
            hung_up[0] = True
        if not printing[0]:
            raise KeyboardInterrupt

    previous = {s: signal.signal(s, handler) for s in stop_signals()}
    try:
        yield lambda: printing.__setitem__(0, True)
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


@contextmanager
def interrupt_flag() -> Iterator[Callable[[], str | None]]:
    """SIGINT/SIGTERM/SIGHUP (``stop_signals``) ask the run to stop after the current batch
    with a partial answer."""
    caught: list[str] = []

    def handler(signum: int, frame: FrameType | None) -> None:
        if caught:  # a second signal: stop now (a hang-up, often sent twice, is no second one)
            if signum == signal.SIGHUP:
                return
            raise KeyboardInterrupt
        caught.append(signal.Signals(signum).name)

    previous = {s: signal.signal(s, handler) for s in stop_signals()}
    try:
        yield lambda: caught[0] if caught else None
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


@contextmanager
def progress_display(quiet: bool) -> Iterator[Callable[[ProgressEvent], None] | None]:
    """A rich progress bar on stderr, only when stderr is a terminal."""
    if quiet or sys.stderr is None or not sys.stderr.isatty():
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


def configure_logging() -> None:
    """structlog on stderr at ``LOGAGENT_LOG_LEVEL``, set up only if an event is logged."""
    from logagent import log

    log.set_level()
