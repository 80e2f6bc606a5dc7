"""Committed app-log samples: a slow independent reference and the format layer agree with
each sidecar (records and errors per component)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import polars as pl
import pytest

from logagent.formats.catalog import build_any_format
from logagent.formats.records import fold_records

SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs"
NAMES = ["app_log4j.log", "app_python.log", "syslog.log", "app.jsonl", "app_logfmt.log"]
ERRORS = {"ERROR", "FATAL", "CRITICAL"}

#: Reference record patterns: (level, component) of a record's first line.
REFERENCE = {
    "log4j": re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (\w+) +\[[^\]]*\] (\S+) - "),
    "python": re.compile(
        r"^(?:\d{4}-\d\d-\d\d [\d:,]+ - (?P<c2>\S+) - (?P<l2>\w+) - |(?P<l1>[A-Z]+):(?P<c1>[^:]*):)"
    ),
    "syslog3164": re.compile(r"^\w{3} +\d+ [\d:]+ \S+ ([^\[: ]+)(?:\[\d+\])?: (.*)$"),
}


def reference(text: str, fmt: str) -> tuple[int, Counter[str]]:
    """Records and error records per component, by a slow line-by-line reading."""
    records, errors = 0, Counter[str]()
    for line in text.split("\n"):
        line = line.removesuffix("\r")
        level, comp = None, None
        if fmt in ("jsonapp", "logfmt"):
            level, comp = _structured(line, fmt)
        elif m := REFERENCE[fmt].match(line):
            if fmt == "log4j":
                level, comp = m.group(1), m.group(2)
            elif fmt == "python":
                level, comp = m["l1"] or m["l2"], m["c1"] or m["c2"]
            else:
                comp = m.group(1)
                level = "ERROR" if re.search(r"\b(error|failed)\b", m.group(2)) else "INFO"
        if comp is not None:
            records += 1
            errors[comp] += level in ERRORS
    return records, +errors


def _structured(line: str, fmt: str) -> tuple[str | None, str | None]:
    if fmt == "jsonapp":
        try:
            obj = json.loads(line)
        except ValueError:
            return None, None
        return str(obj["level"]).upper(), obj["logger"]
    pairs = dict(re.findall(r'(\w+)=("[^"]*"|\S+)', line))
    if not pairs or " ".join(f"{k}={v}" for k, v in pairs.items()) != line:
        return None, None
    return pairs["level"].upper(), pairs["component"]


def layer_counts(text: str, fmt: str) -> tuple[int, Counter[str]]:
    """The same counts through the format layer (fold + parse)."""
    lines = [x.removesuffix("\r") for x in text.split("\n")]
    sample = lines[:200]
    parsed = fold_records(pl.Series("line", lines), build_any_format(fmt, sample, year=2024))  # type: ignore[arg-type]
    valid = parsed.filter(pl.col("valid"))
    errs = valid.filter(pl.col("level").is_in(["ERROR", "FATAL"]))["component"].value_counts()
    return valid.height, Counter(dict(errs.rows()))


@pytest.mark.parametrize("name", NAMES)
def test_reference_and_format_layer_match_the_sidecar(name: str) -> None:
    """Record counts and per-component error counts equal the sidecar, both ways."""
    truth = json.loads((SAMPLES / f"{name}.expected.json").read_text())
    text = (SAMPLES / name).read_bytes().decode("utf-8", "replace")
    want = (truth["records"], Counter(truth["errors_by_component"]))
    assert reference(text, truth["format"]) == want
    assert layer_counts(text, truth["format"]) == want
