"""Committed app-log samples: a slow independent reference and the format layer agree with
each sidecar (records and errors per component), and detection picks the sidecar's format."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest

from logagent.formats.catalog import build_any_format
from logagent.formats.detect import detect_all
from logagent.formats.records import fold_records
from logagent.samples.app_samples import BUILDERS

SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs"
NAMES = list(BUILDERS)  # every committed app-log sample
ERRORS = {"ERROR", "FATAL", "CRITICAL"}

Reading = tuple[str, str] | None  # (level, component) of a record's first line


def _log4j(line: str) -> Reading:
    m = re.match(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (\w+) +\[[^\]]*\] (\S+) - ", line)
    return (m[1], m[2]) if m else None


def _python(line: str) -> Reading:
    m = re.match(
        r"^(?:\d{4}-\d\d-\d\d [\d:,]+ - (?P<c2>\S+) - (?P<l2>\w+) - "
        r"|(?P<l1>[A-Z]+):(?P<c1>[^:]*):)",
        line,
    )
    return (m["l1"] or m["l2"], m["c1"] or m["c2"]) if m else None


def _syslog3164(line: str) -> Reading:
    m = re.match(r"^\w{3} +\d+ [\d:]+ \S+ ([^\[: ]+)(?:\[\d+\])?: (.*)$", line)
    if not m:
        return None
    return ("ERROR" if re.search(r"\b(error|failed)\b", m[2]) else "INFO"), m[1]


def _syslog5424(line: str) -> Reading:
    """Tokenized by hand: <PRI>1, then five space-separated header fields, then the rest."""
    m = re.match(r"<(\d{1,3})>1 ", line)
    if not m or int(m[1]) > 191:
        return None
    fields = line[m.end() :].split(" ", 5)
    if len(fields) < 6 or not _sd_then_message(fields[5]):
        return None
    severity = int(m[1]) % 8
    return ("FATAL" if severity <= 2 else "ERROR" if severity == 3 else "INFO"), fields[2]


def _sd_then_message(rest: str) -> bool:
    """``-`` or ``[...]`` elements (``\\]`` escaped inside), then nothing or a space."""
    if rest.startswith("-"):
        return rest[1:2] in ("", " ")
    i = 0
    while rest[i : i + 1] == "[":
        i += 1
        while i < len(rest) and rest[i] != "]":
            i += 2 if rest[i] == "\\" else 1
        if i >= len(rest):
            return False
        i += 1
    return i > 0 and rest[i : i + 1] in ("", " ")


APACHE_LEVELS = {"emerg": "FATAL", "alert": "FATAL", "crit": "FATAL", "error": "ERROR"}


def _apache_error(line: str) -> Reading:
    m = re.match(r"^\[\w{3} \w{3} +\d+ [\d:.]+ \d{4}\] \[(?:([^:\]]+):)?([a-z]+\d?)\] ", line)
    return (APACHE_LEVELS.get(m[2], "INFO"), m[1] or "-") if m else None


def _hadoop(line: str) -> Reading:
    m = re.match(
        r"^(?:\d{6} \d{6}(?: \d+)?|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) "
        r"([A-Z]+) +(?:\[[^\]]*\] )?([\w$.]+): ",
        line,
    )
    return (m[1], m[2]) if m else None


def _jsonapp(line: str) -> Reading:
    try:
        obj = json.loads(line)
    except ValueError:
        return None
    return str(obj["level"]).upper(), obj["logger"]


def _logfmt(line: str) -> Reading:
    pairs = dict(re.findall(r'(\w+)=("[^"]*"|\S+)', line))
    if not pairs or " ".join(f"{k}={v}" for k, v in pairs.items()) != line:
        return None
    return pairs["level"].upper(), pairs["component"]


#: Slow, independent readers of a record's first line, by format (re and str, no Polars).
REFERENCE: dict[str, Callable[[str], Reading]] = {
    "log4j": _log4j,
    "python": _python,
    "syslog3164": _syslog3164,
    "syslog5424": _syslog5424,
    "apache_error": _apache_error,
    "hadoop": _hadoop,
    "jsonapp": _jsonapp,
    "logfmt": _logfmt,
}


def reference(text: str, fmt: str) -> tuple[int, Counter[str]]:
    """Records and error records per component, by a slow line-by-line reading."""
    records, errors = 0, Counter[str]()
    for line in text.split("\n"):
        if (found := REFERENCE[fmt](line.removesuffix("\r"))) is not None:
            level, comp = found
            records += 1
            errors[comp] += level in ERRORS
    return records, +errors


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


#: Samples whose lines a nested, less specific format parses just as well: the tie goes to
#: the more specific format (catalog order) and is not ambiguous (``catalog.NESTED``).
NESTED_TIES = {"hadoop.log": "log4j"}  # MapReduce lines are log4j lines with "class: msg"


@pytest.mark.parametrize("name", NAMES)
def test_detection_picks_the_sidecar_format(name: str) -> None:
    """detect_all ranks the sidecar's format first, unambiguous; a nested tie counts the same."""
    truth = json.loads((SAMPLES / f"{name}.expected.json").read_text())
    text = (SAMPLES / name).read_bytes().decode("utf-8", "replace")
    found = detect_all([x.removesuffix("\r") for x in text.split("\n")], year=2024)
    assert found.best == truth["format"]
    assert not found.ambiguous and not found.low_confidence
    runner_up = found.scores[1]
    if name in NESTED_TIES:
        assert runner_up == (NESTED_TIES[name], found.confidence)
        # were the tie broken the other way, the nested format would still count right
        want = (truth["records"], Counter(truth["errors_by_component"]))
        assert layer_counts(text, NESTED_TIES[name]) == want
    else:
        assert runner_up[1] < found.confidence
