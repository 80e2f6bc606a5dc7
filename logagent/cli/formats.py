"""``logagent formats``, ``detect`` and ``schema``: what logagent can read and returns (EDGE)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import click

from logagent.cli.exits import EXIT_RECUSED, exit_code_for
from logagent.cli.frontdoor import fail, write_stdout
from logagent.errors import LogagentError

if TYPE_CHECKING:
    from logagent.formats.custom import CustomFormat
    from logagent.formats.detect import Detection


@click.command("schema")
def schema_cmd() -> None:
    """Print the JSON Schema of the result (the same as configs/result.schema.json)."""
    import json

    from logagent.result import json_schema

    write_stdout(json.dumps(json_schema(), indent=2) + "\n")


FORMATS_DIR = "configs/formats"


@click.command("formats")
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
        fail(str(exc), exit_code_for(exc))
    for name, kind, description in describe_formats(custom):
        click.echo(f"{name:<14} {kind:<7} {description}")


@click.command("detect")
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
        fail(str(exc), exit_code_for(exc))
    if not sample:  # nothing to score: say why, as analyze does (EMPTY_INPUT, exit 3)
        click.echo("empty: the input holds no non-blank line to detect a layout from", err=True)
        raise SystemExit(EXIT_RECUSED)
    found = detect_all(sample, year=year or datetime.datetime.now(datetime.UTC), custom=custom)
    for name, score in found.scores:
        click.echo(f"{name:<14} {score:.3f}")
    _echo_best(found, sample, custom)


def _echo_best(found: Detection, sample: list[str], custom: Mapping[str, CustomFormat]) -> None:
    """The best layout and its confidence; exit 3 (recused) when nothing reads the sample."""
    from logagent.formats.catalog import build_any_format
    from logagent.formats.detect import LOW_CONFIDENCE
    from logagent.formats.generic import NAME as GENERIC

    flags = [f for f, on in (("ambiguous", found.ambiguous), ("low", found.low_confidence)) if on]
    best = found.best
    if best == GENERIC:  # say what was inferred: the guess is only as good as its parts
        click.echo(getattr(build_any_format(GENERIC, sample, custom=custom), "description", ""))
    click.echo(
        f"best: {best} confidence: {found.confidence:.3f} "
        f"sample_lines: {found.sample_lines}" + (f" ({', '.join(flags)})" if flags else "")
    )
    if found.low_confidence:
        runner = ", ".join(f"{n} {s:.3f}" for n, s in found.scores[1:3])
        guess = (  # a format reading no line is no guess: the first one tried
            f"best guess {best} reads {found.confidence:.1%} (then {runner})"
            if found.confidence > 0
            else "no layout reads any of them"
        )
        click.echo(
            f"unrecognized: no layout reads {LOW_CONFIDENCE:.0%} of the {found.sample_lines} "
            f"sampled lines; {guess}; name one with --format or add a custom format",
            err=True,
        )
        raise SystemExit(EXIT_RECUSED)
