"""``python -m logagent`` runs the CLI."""

from logagent.cli import main

main()
