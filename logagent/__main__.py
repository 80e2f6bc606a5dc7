"""``python -m logagent`` runs the CLI."""

from logagent.cli import entry

entry()
