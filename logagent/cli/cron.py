"""``logagent cron``: scheduled incremental runs over growing, rotating logs (EDGE).

Imports only click at module level; the runner, the state and the engine
load when a run starts. Exit codes: those of ``analyze``, plus 5 when an
``--alert`` fires and 75 (EX_TEMPFAIL) when another run holds the state;
``--exit-codes nagios``: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
from typing import TYPE_CHECKING, Any

import click

from logagent.cli.analyze import QUESTION_KINDS, parse_now
from logagent.cli.exits import EXIT_INTERNAL, EXIT_PARTIAL, EXIT_USAGE, exit_code_for
from logagent.cli.frontdoor import (
    configure_logging,
    emit_text,
    fail,
    interrupt_flag,
    say,
    write_stdout,
)
from logagent.errors import ConfigError, LogagentError, OutputError

if TYPE_CHECKING:
    from logagent.config import Settings
    from logagent.cron.alerts import Alert, Fired
    from logagent.cron.runner import CronOutcome

EXIT_ALERT, EXIT_TEMPFAIL = 5, 75


@click.command("cron")
@click.argument("paths", nargs=-1)
@click.option(
    "--state",
    "state_path",
    default=None,
    help="State file (SQLite) of this job "
    "[default: $XDG_STATE_HOME/logagent/cron-<paths hash>.sqlite].",
)
@click.option(
    "--window",
    default=None,
    help="Rolling window of the answer, e.g. 24h, 7d [default: since the first run].",
)
@click.option(
    "--alert",
    "alerts",
    multiple=True,
    help="rate>X, count>N, share>X (or >WARN,CRIT), new-key; exit 5 when one fires. Repeatable.",
)
@click.option(
    "--exit-codes",
    type=click.Choice(["logagent", "nagios"]),
    default="logagent",
    help="nagios: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN and one status line with "
    "performance data.",
)
@click.option(
    "--history",
    type=click.Path(dir_okay=False),
    default=None,
    help="Append each run's summary to FILE as one JSON line.",
)
@click.option(
    "--start",
    type=click.Choice(["beginning", "end"]),
    default="beginning",
    help="Where to start reading a file seen for the first time [default: beginning].",
)
@click.option("--status", "show_status", is_flag=True, help="Show the state and exit.")
@click.option("--reset", is_flag=True, help="Start over: forget the state's files and counts.")
@click.option(
    "--question",
    "-q",
    type=click.Choice(QUESTION_KINDS),
    default=None,
    help="What to ask [default: top-errors].",
)
@click.option("--top", "-k", type=click.IntRange(1, 1000), default=None, help="Keys to rank.")
@click.option("--format", "fmt", default=None, help="Log format [default: auto, then pinned].")
@click.option(
    "--level",
    type=click.Choice(["error", "warn"]),
    default=None,
    help="App questions: least level counted.",
)
@click.option("--key", default=None, help="error-types: the component to break down.")
@click.option(
    "--bucket", default=None, help="Timeline bucket width (5m, 1h, 1d) or off [default: 1h]."
)
@click.option(
    "--year", type=click.IntRange(1970, 9999), default=None, help="Year of year-less timestamps."
)
@click.option(
    "--min-requests",
    type=click.IntRange(1),
    default=None,
    help="error-rate: least requests a route needs.",
)
@click.option("--no-normalize", is_flag=True, help="Count raw paths instead of route templates.")
@click.option("--line-cap", default=None, help="Longest line kept, e.g. 64KiB.")
@click.option("--memory-budget", default=None, help="Most memory a run may use.")
@click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False),
    default=None,
    help="TOML config file (also LOGAGENT_CONFIG).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option(
    "--out",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write the output to FILE (atomically).",
)
@click.option("--now", default=None, hidden=True, help="The run's time, ISO 8601 (tests).")
def cron_cmd(paths: tuple[str, ...], **opts: Any) -> None:
    """Read what was appended to PATHS since the last run (across rotations) and answer.

    Each run counts only the new complete lines, exactly, stores their counts
    in the state and answers over the --window from the stored counts.

    Exit codes: 0 done, 2 usage, input or state error, 3 recused, 4 stopped
    (nothing committed), 5 an alert fired, 75 another run holds the state.
    """
    configure_logging()
    nagios = opts["exit_codes"] == "nagios"
    try:
        code = _main(list(paths), opts)
    except LogagentError as exc:
        _fail(exc, nagios)
    except KeyboardInterrupt:
        fail("interrupted; nothing was committed", 3 if nagios else 130)
    except Exception as exc:  # a bug: one clear line, the traceback in the log (not swallowed)
        from logagent import log

        log.get_logger("logagent").debug("internal_error", exc_info=True)
        fail(
            f"internal error: {type(exc).__name__}: {exc} "
            "(a bug: please report it with LOGAGENT_LOG_LEVEL=debug output)",
            3 if nagios else EXIT_INTERNAL,
        )
    sys.exit(code)


def _fail(exc: LogagentError, nagios: bool) -> None:
    from logagent.cron.counting import CronRecused, CronStopped
    from logagent.cron.state import StateError, StateLocked

    if isinstance(exc, StateLocked):
        code = EXIT_TEMPFAIL
    elif isinstance(exc, StateError):
        code = EXIT_USAGE
    elif isinstance(exc, CronRecused):
        code = 3
    elif isinstance(exc, CronStopped):
        code = EXIT_PARTIAL
    else:
        code = exit_code_for(exc)
    if nagios:
        write_stdout(f"LOGAGENT UNKNOWN - {exc}\n")
        code = 3
    fail(str(exc), code)


def _main(paths: list[str], opts: dict[str, Any]) -> int:
    from logagent.cron.state import default_state_path

    named = [os.path.abspath(p) for p in paths]
    watched, notes = _distinct(named)
    opts = {**opts, "notes": notes, "named": named}
    if not watched and not (opts["show_status"] and opts["state_path"]):
        raise ConfigError("name the log files to follow (PATH...), or --state FILE for --status")
    # the names as given make the job (a state pins them): which of them are one file may
    # change between runs, and a state made before names were merged stays its job's
    state_path = opts["state_path"] or default_state_path(_job_name(named))
    if opts["show_status"]:
        from logagent.cron.status import render_status

        write_stdout(render_status(state_path, as_json=opts["as_json"]))
        return 0
    if opts["reset"]:
        from logagent.cron.status import reset_state

        reset_state(state_path)
        say(f"logagent: {state_path}: state reset; this run starts over")
    return _run(watched, state_path, opts)


def _distinct(paths: list[str]) -> tuple[list[str], list[str]]:
    """``paths`` naming each file once (the first name given is kept): the same real path
    (``./``, a linked folder, a symlink) or, for a file there now, the same inode (a hard
    link); and a note for each left out. Each had been followed and counted twice."""
    out: list[str] = []
    notes: list[str] = []
    seen: dict[object, str] = {}
    for path in paths:
        keys: list[object] = [os.path.realpath(path)]
        with contextlib.suppress(OSError):
            st = os.stat(path)
            keys.append((st.st_dev, st.st_ino))
        first = next((seen[k] for k in keys if k in seen), None)
        if first is not None:
            again = "named twice" if first == path else f"the file {first} names"
            notes.append(f"{path}: {again}; followed once, as {first}")
            continue
        seen.update(dict.fromkeys(keys, path))
        out.append(path)
    return out, notes


def _job_name(paths: list[str]) -> str:
    digest = hashlib.sha256("\0".join(sorted(paths)).encode()).hexdigest()[:12]
    return f"cron-{digest}"


def _run(watched: list[str], state_path: str, opts: dict[str, Any]) -> int:
    from logagent import log
    from logagent.cli.analyze import question_from
    from logagent.cli.output import check_target
    from logagent.cli.startup import imports_done
    from logagent.config import load_settings
    from logagent.cron.alerts import evaluate, parse_alert
    from logagent.cron.runner import CronJob, run_cron
    from logagent.engine.run import RunEnv
    from logagent.formats.bucketed import parse_bucket

    imports_done()
    for path, what in ((opts["out"], "--out"), (opts["history"], "--history")):
        if path is not None:  # before anything is read or committed
            check_target(path, what, inputs=[*watched, state_path])
    if opts["out"] and opts["history"] and _same_file(opts["out"], opts["history"]):
        raise ConfigError(  # the report replaced the history it had just appended to
            "--out and --history name the same file: the report would replace the history; "
            "name two files"
        )
    alerts = [parse_alert(a) for a in opts["alerts"]]
    window_s = _window_s(opts["window"], parse_bucket)
    settings = load_settings(opts["config_file"], **_overrides(opts))
    log.set_level(settings.log_level)
    notes = [*opts["notes"], *_window_notes(window_s, opts["window"], settings)]
    now = parse_now(opts["now"])
    job = CronJob(
        paths=watched,
        named=opts["named"],
        state_path=state_path,
        window_s=window_s,
        start_at_end=opts["start"] == "end",
        now_s=now.timestamp() if now else None,
        default_state=opts["state_path"] is None,
        notes=notes,
    )
    with interrupt_flag() as interrupted:
        env = RunEnv(interrupted=interrupted, pending_signal=interrupted)
        # the state and the alerts are of the kind asked: a job does not change it by log
        outcome = run_cron(job, question_from(settings, for_log=False), settings, env)
    fired = evaluate(alerts, outcome.result, outcome.previous_top)
    _emit(outcome, alerts, fired, opts)
    return _exit_code(outcome, alerts, fired, opts)


def _window_notes(window_s: int | None, text: str | None, settings: Settings) -> list[str]:
    """What a window cannot be, said: a window is whole buckets of the records' own times.
    ``--bucket off`` keeps no times (the records then count at their run's time, which had
    been put down to the format), and a window under one bucket is that whole bucket
    (``--window 24h --bucket 400d`` answered over 400 days, silently)."""
    from logagent.cron.window import store_bucket_s

    if window_s is None:
        return []
    if settings.analysis.bucket == "off":
        return [
            "--bucket off keeps no record times: the window holds the records read by the "
            "runs made in it, whatever their stamps"
        ]
    width = store_bucket_s(settings)
    if window_s < width:
        return [
            f"--window {text} is shorter than one bucket ({width:,} s): the window is whole "
            "buckets, here the one holding now (incremental.window says which)"
        ]
    return []


def _window_s(text: str | None, parse: Any) -> int | None:
    if text is None:
        return None
    try:
        seconds: int | None = parse(text)
    except ValueError:
        seconds = None
    if seconds is None:
        raise ConfigError(f"--window {text!r}: use a width such as 90m, 24h, 7d")
    return seconds


def _overrides(opts: dict[str, Any]) -> dict[str, Any]:
    return {
        "reader": {"line_cap": opts["line_cap"]},
        "analysis": {
            "question": opts["question"],
            "top": opts["top"],
            "format": opts["fmt"],
            "level": opts["level"],
            "key": opts["key"],
            "year": opts["year"],
            "bucket": opts["bucket"],
            "min_requests": opts["min_requests"],
            "normalize": False if opts["no_normalize"] else None,
        },
        "budget": {"memory": opts["memory_budget"]},
        "llm": {"mode": "off"},
    }


def _emit(
    outcome: CronOutcome, alerts: list[Alert], fired: list[Fired], opts: dict[str, Any]
) -> None:
    from logagent.cron.status import history_line, render_outcome

    text = render_outcome(outcome, fired, as_json=opts["as_json"])
    if opts["exit_codes"] == "nagios":
        from logagent.cron.alerts import nagios

        text = nagios(alerts, fired, outcome.result)[1] + "\n"
    if opts["history"]:
        try:
            with open(opts["history"], "a", encoding="utf-8") as f:
                f.write(history_line(outcome, fired))
        except OSError as exc:
            write_stdout(text)  # the run is committed: never lose its result
            raise OutputError(
                f"cannot append to the history ({exc.strerror or exc}); the result was printed",
                path=opts["history"],
            ) from exc
    emit_text(text, opts["out"])  # the run is committed: printed if --out cannot be written


def _exit_code(
    outcome: CronOutcome, alerts: list[Alert], fired: list[Fired], opts: dict[str, Any]
) -> int:
    from logagent.cron.alerts import nagios

    if opts["exit_codes"] == "nagios":
        return nagios(alerts, fired, outcome.result)[0]
    if fired:
        return EXIT_ALERT
    recuse = outcome.result.recuse
    if recuse is not None and recuse.reason_code.value not in ("NO_MATCHING_EVENTS", "EMPTY_INPUT"):
        return 3
    return 0 if outcome.result.status.value != "partial" else EXIT_PARTIAL


__all__ = ["cron_cmd"]


def _same_file(a: str, b: str) -> bool:
    """Whether two paths name one file (the same path, a link to it, or both not there yet)."""
    import os

    try:
        return os.path.samefile(a, b)
    except OSError:  # one does not exist yet: by their resolved paths
        return os.path.realpath(a) == os.path.realpath(b)
