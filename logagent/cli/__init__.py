"""Command-line front door (EDGE): one module per command, imported only when it runs.

``logagent --help`` and ``logagent --version`` import click and this module
only: start-up is a product feature (a cron job that runs every minute pays
it every time), so each command's module — and what it needs, Polars, the
engine, the LLM client — is loaded when that command is asked for.

Exit codes (``exits.py``, one table): 0 settled or exact, 1 internal error,
2 usage or input error, 3 recused, 4 partial, 130 interrupted twice;
``cron`` adds 5 (an alert fired) and 75 (another run holds the state).
"""

from __future__ import annotations

import atexit
import importlib
import os
import signal
import sys
from typing import Any

import click

#: name -> (module, command object, one-line help shown by ``logagent --help``)
COMMANDS: dict[str, tuple[str, str, str]] = {
    "analyze": (
        "logagent.cli.analyze",
        "analyze_cmd",
        "Answer a question about the logs at PATHS.",
    ),
    "resume": ("logagent.cli.resume", "resume_cmd", "Go on with a checkpointed run to its end."),
    "cron": (
        "logagent.cli.cron",
        "cron_cmd",
        "Scheduled runs: read what was appended since the last run, across rotations.",
    ),
    "detect": ("logagent.cli.formats", "detect_cmd", "Score every format on lines of PATHS."),
    "formats": ("logagent.cli.formats", "formats_cmd", "List the built-in and custom formats."),
    "schema": ("logagent.cli.formats", "schema_cmd", "Print the JSON Schema of the result."),
    "serve": ("logagent.cli.serve", "serve_cmd", "Run the HTTP service that analyzes uploads."),
}


class LazyGroup(click.Group):
    """A group whose commands are imported on first use; ``--help`` lists them unimported."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command, in alphabetical order."""
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """Import the command's module now."""
        if cmd_name not in COMMANDS:
            return None
        module, attr, _ = COMMANDS[cmd_name]
        command: click.Command = getattr(importlib.import_module(module), attr)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list from the static table (nothing imported)."""
        rows = [(name, COMMANDS[name][2]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="logagent")
def main() -> None:
    """logagent: answer a targeted question about a huge log, reading only what the answer needs.

    Exit codes: 0 settled or exact, 1 internal error, 2 usage or input error,
    3 recused (cannot answer), 4 partial answer, 130 interrupted twice (or once
    before an input gave a whole line).
    """


#: Commands whose end is left to the interpreter: a server's libraries clean up at exit.
SLOW_EXIT = frozenset({"serve"})


def entry(args: Any = None) -> None:
    """The ``logagent`` command: the CLI, then an exit no signal can turn into a lost result.

    A command that ran to its exit code has written and closed everything it
    writes (results, reports, checkpoints, cron state: atomically, before it
    returns); the interpreter's teardown after that frees Polars', numpy's and
    pydantic's objects one by one, 0.3-0.45 s here, which every run (a cron job
    each minute) would pay for nothing. So the process runs its ``atexit``
    handlers, flushes its standard streams and leaves with ``os._exit``, with
    the same code.
    """
    argv = list(sys.argv[1:] if args is None else args)
    from logagent.cli.startup import defer_collection, single_blas_thread

    single_blas_thread()  # before numpy loads (cli/startup.py)
    defer_collection(_command(argv))
    try:
        main(argv)
    except SystemExit as done:
        code = done.code
    else:  # pragma: no cover - click always exits in standalone mode
        code = 0
    finally:  # the result is out: a SIGTERM (or SIGHUP) during teardown must not kill it (-15)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
    if not (code is None or isinstance(code, int)) or _command(argv) in SLOW_EXIT:
        sys.exit(code)
    _leave(code or 0)


def _command(argv: list[str]) -> str | None:
    """The command named on the line (the first word that is not an option)."""
    return next((a for a in argv if not a.startswith("-")), None)


def _leave(code: int) -> None:
    """Run the exit handlers (``atexit``: a wrapper's, the libraries'), flush the standard
    streams, then end the process without the interpreter's teardown."""
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing more can be said there
            pass
    os._exit(code)
