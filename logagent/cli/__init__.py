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

import importlib
import signal
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
    3 recused (cannot answer), 4 partial answer, 130 interrupted twice.
    """


def entry(args: Any = None) -> None:
    """The ``logagent`` command: the CLI, then an exit no signal can turn into a lost result."""
    try:
        main(args)
    finally:  # the result is out: a SIGTERM during interpreter teardown must not kill it (-15)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
