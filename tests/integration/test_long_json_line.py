"""A JSON record longer than the line cap (probe M: a 182 KB line of a model server's error
log): a cut JSON line never parses, whatever lies in its first bytes. The warning says so
and names --line-cap, and that flag does read it whole."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from logagent.cli import main


def _record(logger: str, message: str) -> str:
    stamp = "2024-05-01T10:00:00Z"
    return json.dumps({"timestamp": stamp, "level": "ERROR", "logger": logger, "message": message})


def test_a_cut_json_record_is_malformed_and_the_cap_flag_reads_it(tmp_path: Path) -> None:
    log = tmp_path / "error.log"
    lines = [_record("app.db", f"timeout {i}") for i in range(300)]
    lines.insert(150, _record("app.middleware.logging", "x" * 182_000))
    log.write_text("\n".join(lines) + "\n")
    base = ["analyze", str(log), "--json", "--llm", "off", "--full"]

    cut = json.loads(CliRunner().invoke(main, base).output)
    assert cut["progress"]["truncated_lines"] == 1
    assert cut["progress"]["malformed_lines"] == 1
    assert {r["key"]: r["count"] for r in cut["answer"]["top"]} == {"app.db": 300}
    warning = next(w for w in cut["warnings"] if "were cut to" in w)
    assert "a cut JSON line always" in warning and "--line-cap" in warning

    whole = json.loads(CliRunner().invoke(main, [*base, "--line-cap", "256KiB"]).output)
    assert whole["progress"]["truncated_lines"] == 0 and whole["status"] == "exact"
    assert {r["key"]: r["count"] for r in whole["answer"]["top"]} == {
        "app.db": 300,
        "app.middleware.logging": 1,
    }
