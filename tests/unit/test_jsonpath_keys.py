"""A JSON key a user names in the configuration (``[formats.json_keys]``) is read whatever
quote it holds, and one no JSONPath here can name is a configuration error (exit 2), not an
internal error: ``message = "it's"`` exited 1 with a JSONPath ComputeError."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from logagent.formats.jsonl import jsonpath, readable_key
from logagent.formats.structured import JsonAppFormat

KEYS = ["msg", "it's", 'say "hi"', "a b", "a]b", "é", "x'y'z", "-", "@t", "$"]


@pytest.mark.parametrize("key", KEYS)
def test_a_key_with_one_kind_of_quote_is_read(key: str) -> None:
    line = json.dumps({key: "v", "other": "w"})
    got = pl.Series([line]).str.json_path_match(jsonpath(key, nested=False)).to_list()
    assert got == ["v"]


def test_dotted_parts_are_members_each_quoted_as_it_needs() -> None:
    line = json.dumps({"it's": {"x": "w"}, "a": {"b'c": "v"}})
    assert pl.Series([line]).str.json_path_match(jsonpath("it's.x")).to_list() == ["w"]
    assert pl.Series([line]).str.json_path_match(jsonpath("a.b'c")).to_list() == ["v"]


@pytest.mark.parametrize("key", ["a\\b", "a\\", "\\", 'it\'s "x"'])
def test_a_key_no_jsonpath_can_name_is_refused(key: str) -> None:
    with pytest.raises(ValueError, match="cannot be read"):
        readable_key(key)
    with pytest.raises(ValueError, match="cannot be read"):
        jsonpath(key)


def test_a_mapped_key_with_a_quote_reads_its_records() -> None:
    fmt = JsonAppFormat(mapping={"level": "lvl", "component": "it's", "message": "m"})
    lines = [json.dumps({"lvl": "error", "it's": "billing", "m": "x"})]
    frame = pl.DataFrame({"line": lines}).select(**fmt.fields(pl.col("line")))
    assert frame["component"].to_list() == ["billing"]


def _analyze(tmp_path: Path, key: str) -> subprocess.CompletedProcess[str]:
    config = tmp_path / "c.toml"
    config.write_text(f"[formats.json_keys]\ncomponent = {json.dumps(key)}\n")
    log = tmp_path / "a.jsonl"
    rows = [{"level": "error" if i % 3 else "info", key: f"svc{i % 2}"} for i in range(60)]
    log.write_text("".join(json.dumps({**r, "msg": "m"}) + "\n" for r in rows))
    cmd = [sys.executable, "-m", "logagent", "analyze", str(log), "--config", str(config)]
    cmd += ["-q", "top-error-components", "--full", "--json", "--quiet", "--llm", "off"]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, timeout=120)


def test_the_cli_reads_a_component_key_with_a_quote(tmp_path: Path) -> None:
    done = _analyze(tmp_path, "it's")
    assert done.returncode == 0, done.stderr
    top = json.loads(done.stdout)["answer"]["top"]
    assert {e["key"]: e["count"] for e in top} == {"svc0": 20, "svc1": 20}


def test_the_cli_refuses_a_key_it_cannot_read_as_a_configuration_error(tmp_path: Path) -> None:
    done = _analyze(tmp_path, "a\\b")
    assert done.returncode == 2, done.stderr
    assert "json_keys" in done.stderr and "cannot be read" in done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
