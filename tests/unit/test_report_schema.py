"""The published JSON Schema of the result."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from logagent.cli import main
from logagent.result import SCHEMA_VERSION, json_schema

ROOT = Path(__file__).resolve().parents[2]
PUBLISHED = ROOT / "configs" / "result.schema.json"


def test_published_schema_equals_the_generated_one() -> None:
    """configs/result.schema.json is what the model generates (regenerate: logagent schema)."""
    assert json.loads(PUBLISHED.read_text()) == json_schema()


def test_schema_command_prints_the_schema() -> None:
    """`logagent schema` prints the generated schema as JSON."""
    out = CliRunner().invoke(main, ["schema"])
    assert out.exit_code == 0
    assert json.loads(out.output) == json_schema()


def test_schema_names_the_version_and_the_report_fallback() -> None:
    """schema_version defaults to the current version; the report's fallback keys are in it."""
    schema = json_schema()
    assert schema["properties"]["schema_version"]["default"] == SCHEMA_VERSION
    report = schema["$defs"]["Report"]["properties"]
    assert {"source", "model", "fallback_reason", "fallback_detail", "markdown"} <= set(report)


def test_schema_command_has_help() -> None:
    """`logagent schema --help` explains the command."""
    out = CliRunner().invoke(main, ["schema", "--help"])
    assert out.exit_code == 0 and "JSON Schema" in out.output
