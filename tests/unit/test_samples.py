"""Tests for the synthetic log generator (logagent.samples) and the committed sample logs.

Every count here is recomputed independently from the written bytes with a simple regex (or
json.loads) and a small normalizer of its own, never with the package's parsers.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from logagent.samples import generate
from logagent.samples.routes import high_cardinality_routes, standard_routes

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_DIR = ROOT / "sample_logs"

_REQ = r'"([A-Z]+) ([^ ?"]*)(\?[^ "]*)? HTTP/\d\.\d"'
COMBINED = re.compile(
    r"^\S+ - \S+ \[(28/Nov/2026:\d\d:\d\d:\d\d) \+0000\] "
    + _REQ
    + r' (\d{3}) (\d+) "[^"]*" "[^"]*" \d+\.\d{3}$'
)
COMMON = re.compile(
    r"^\S+ - \S+ \[(28/Nov/2026:\d\d:\d\d:\d\d) \+0000\] " + _REQ + r" (\d{3}) (\d+|-)$"
)
JSON_KEYS = [
    "time",
    "remote_addr",
    "method",
    "path",
    "status",
    "bytes",
    "request_time",
    "user_agent",
]
UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
LONG_HEX = re.compile(r"^[0-9a-fA-F]{16,}$")

Made = Callable[..., tuple[Path, dict[str, Any]]]


def normalize(raw: str) -> str:
    """Test-local route normalizer implementing the documented rules."""
    out = []
    for seg in raw.split("?", 1)[0].split("/"):
        if re.fullmatch(r"[0-9]+", seg):
            out.append("{id}")
        elif UUID.match(seg):
            out.append("{uuid}")
        elif LONG_HEX.match(seg):
            out.append("{hex}")
        else:
            out.append(seg)
    return "/".join(out)


@dataclass
class Tally:
    """Independent counts of one log file."""

    lines: int = 0
    valid: int = 0
    by_route: Counter[tuple[str, int]] = field(default_factory=Counter)
    raw_5xx: Counter[str] = field(default_factory=Counter)
    times: list[str] = field(default_factory=list)
    route_of_line: list[tuple[str, int] | None] = field(default_factory=list)


def parse(line: str, fmt: str) -> tuple[str, str, int] | None:
    """(time, raw path without query, status) of a valid line, else None."""
    if fmt == "jsonl":
        try:
            obj = json.loads(line)
        except ValueError:
            return None
        if not isinstance(obj, dict) or list(obj) != JSON_KEYS:
            return None
        return obj["time"], obj["path"].split("?", 1)[0], int(obj["status"])
    m = (COMBINED if fmt == "combined" else COMMON).match(line)
    return (m.group(1), m.group(3), int(m.group(5))) if m else None


def tally(path: Path, fmt: str) -> Tally:
    """Count a file line by line with the test's own regexes."""
    t = Tally()
    for line in path.read_bytes().split(b"\n")[:-1]:
        t.lines += 1
        rec = parse(line.decode("utf-8", errors="replace"), fmt)
        t.route_of_line.append(None if rec is None else (normalize(rec[1]), rec[2]))
        if rec is None:
            continue
        t.valid += 1
        t.times.append(rec[0])
        t.by_route[(normalize(rec[1]), rec[2])] += 1
        if rec[2] >= 500:
            t.raw_5xx[rec[1]] += 1
    return t


def ranked(counts: Counter[str]) -> list[list[Any]]:
    """Count desc, then key asc."""
    return [[k, n] for k, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


def errors_by_route(t: Tally) -> Counter[str]:
    """5xx lines per normalized route."""
    out: Counter[str] = Counter()
    for (route, status), n in t.by_route.items():
        if status >= 500:
            out[route] += n
    return out


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Made:
    """Generate (once per argument set) a small log and return (path, truth)."""
    cache: dict[tuple[str, float, int, str], tuple[Path, dict[str, Any]]] = {}

    def make(
        scenario: str, size_mb: float = 2.0, seed: int = 5, fmt: str = "combined"
    ) -> tuple[Path, dict[str, Any]]:
        key = (scenario, size_mb, seed, fmt)
        if key not in cache:
            path = tmp_path_factory.mktemp(scenario) / f"{scenario}-{seed}.{fmt}"
            truth = generate(path, scenario=scenario, size_mb=size_mb, seed=seed, fmt=fmt)
            cache[key] = (path, truth)
        return cache[key]

    return make


def shares(truth: dict[str, Any]) -> list[float]:
    """5xx share of each route in top_errors order."""
    return [n / truth["lines_5xx"] for _, n in truth["top_errors"]]


def test_dominant_top_route_has_about_60_percent_of_5xx(made: Made) -> None:
    """dominant: the top route holds ~60 % of all 5xx and the runner-up ~6 %."""
    _, truth = made("dominant")
    s = shares(truth)
    assert 0.58 <= s[0] <= 0.62
    assert 0.05 <= s[1] <= 0.07
    assert s[2] < s[1]


def test_close_top_two_within_3_percent_and_clear_of_third(made: Made) -> None:
    """close: the top two differ by at most 3 % (but do differ) and lead the third clearly."""
    _, truth = made("close")
    (_, a), (_, b), (_, c) = truth["top_errors"][:3]
    assert a > b >= 0.97 * a
    assert c < 0.7 * b


def test_tie_top_two_exactly_equal(made: Made) -> None:
    """tie: the top two routes have exactly equal 5xx counts, well above the third."""
    _, truth = made("tie")
    (ra, a), (rb, b), (_, c) = truth["top_errors"][:3]
    assert a == b and ra < rb
    assert c < 0.7 * a


def test_late_incident_prefix_top_differs_from_whole_file_top(made: Made) -> None:
    """late_incident: the first 90 % of lines crown another route; the whole file the incident."""
    path, truth = made("late_incident")
    top, second = truth["top_errors"][:2]
    assert truth["prefix_90_top"] != top[0]
    assert top[1] >= 1.4 * second[1]
    t = tally(path, "combined")
    prefix = truth["prefix_90_lines"]
    assert prefix == int(0.9 * truth["lines"])
    early = Counter(r for r, s in filter(None, t.route_of_line[:prefix]) if s >= 500)
    assert early[top[0]] == 0
    assert ranked(early)[0][0] == truth["prefix_90_top"]
    for cut in (0.3, 0.6, 0.9):
        head = filter(None, t.route_of_line[: int(cut * t.lines)])
        part = Counter(r for r, s in head if s >= 500)
        assert ranked(part)[0][0] != top[0]


def test_late_incident_new_route_is_absent_before_the_incident(made: Made) -> None:
    """late_incident_new: the top route has no line of any status in the first 90 % of lines."""
    path, truth = made("late_incident_new")
    top, second = truth["top_errors"][:2]
    assert top[1] >= 1.4 * second[1]
    assert truth["prefix_90_top"] not in (None, top[0])
    t = tally(path, "combined")
    assert ranked(errors_by_route(t)) == truth["top_errors"]
    prefix = truth["prefix_90_lines"]
    assert prefix == int(0.9 * truth["lines"])
    seen = [i for i, rec in enumerate(t.route_of_line) if rec is not None and rec[0] == top[0]]
    assert seen and min(seen) >= prefix
    assert truth["routes"][top[0]]["requests"] > top[1]  # it also serves non-5xx requests late
    early = Counter(r for r, s in filter(None, t.route_of_line[:prefix]) if s >= 500)
    assert ranked(early)[0][0] == truth["prefix_90_top"]


def test_no_errors_has_no_5xx_but_has_4xx(made: Made) -> None:
    """no_errors: zero 5xx lines in truth and in the file, while 4xx remain."""
    path, truth = made("no_errors")
    assert truth["lines_5xx"] == 0
    assert truth["top_errors"] == truth["top_errors_raw"] == []
    t = tally(path, "combined")
    assert not errors_by_route(t)
    assert sum(n for (_, s), n in t.by_route.items() if 400 <= s < 500) > 0


def test_garbage_is_mostly_junk_with_about_0_1_percent_valid_lines(made: Made) -> None:
    """garbage: ~0.1 % valid lines among NUL-laden, non-UTF-8 and very long junk lines."""
    path, truth = made("garbage", size_mb=3.0)
    data = path.read_bytes()
    assert truth["lines"] == data.count(b"\n")
    assert 0.0005 <= truth["valid_lines"] / truth["lines"] <= 0.002
    assert b"\x00" in data
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")
    assert max(len(x) for x in data.split(b"\n")) > 10_000
    t = tally(path, "combined")
    assert t.valid == truth["valid_lines"]
    assert t.by_route == route_status_counts(truth)


def route_status_counts(truth: dict[str, Any]) -> Counter[tuple[str, int]]:
    """Flatten truth["routes"] into (route, status) -> count."""
    out: Counter[tuple[str, int]] = Counter()
    for route, info in truth["routes"].items():
        for status, n in info["status"].items():
            out[(route, int(status))] = n
    return out


@pytest.mark.parametrize("fmt", ["combined", "jsonl", "common"])
def test_truth_matches_independent_count_of_file(made: Made, fmt: str) -> None:
    """Truth (route x status counts, 5xx and raw-path rankings) matches a recount of the file."""
    path, truth = made("dominant", fmt=fmt)
    t = tally(path, fmt)
    assert t.lines == t.valid == truth["lines"] == truth["valid_lines"]
    assert path.stat().st_size == truth["bytes"]
    assert t.by_route == route_status_counts(truth)
    assert ranked(errors_by_route(t)) == truth["top_errors"]
    assert sum(errors_by_route(t).values()) == truth["lines_5xx"]
    assert ranked(t.raw_5xx)[:20] == truth["top_errors_raw"]
    for info in truth["routes"].values():
        assert info["requests"] == sum(info["status"].values())
        assert info["5xx"] == sum(n for s, n in info["status"].items() if s.startswith("5"))
        assert info["4xx"] == sum(n for s, n in info["status"].items() if s.startswith("4"))


def test_top_route_raw_paths_differ_from_template(made: Made) -> None:
    """The top 5xx route has placeholders, so its raw paths are not the route string."""
    _, truth = made("dominant")
    assert "{" in truth["top_errors"][0][0]
    assert all("{" not in raw for raw, _ in truth["top_errors_raw"])


def test_timestamps_non_decreasing_within_the_day(made: Made) -> None:
    """Timestamps never go backwards and stay within 2026-11-28."""
    for fmt in ("combined", "jsonl"):
        path, _ = made("dominant", fmt=fmt)
        times = tally(path, fmt).times
        assert times == sorted(times)
    assert times[0].startswith("2026-11-28T00:00:00") and times[-1] == "2026-11-28T23:59:59.999Z"


def test_same_seed_gives_identical_bytes(made: Made, tmp_path: Path) -> None:
    """Same (scenario, size, seed, format) -> identical bytes and truth; another seed differs."""
    path, truth = made("dominant")
    again = tmp_path / "again.log"
    assert generate(again, scenario="dominant", size_mb=2.0, seed=5) == truth
    assert again.read_bytes() == path.read_bytes()
    other, _ = made("dominant", seed=6)
    assert other.read_bytes() != path.read_bytes()


def test_high_cardinality_has_many_distinct_raw_paths(made: Made) -> None:
    """high_cardinality: most lines carry a distinct raw path (query excluded)."""
    path, truth = made("high_cardinality", size_mb=3.0)
    raws = {m.group(3) for m in map(COMBINED.match, path.read_text().splitlines()) if m}
    assert len(raws) >= 0.5 * truth["lines"]
    assert 30 <= len(truth["routes"]) <= 45
    assert 0.58 <= shares(truth)[0] <= 0.62


def test_file_size_and_5xx_rate_are_as_requested(made: Made) -> None:
    """A 10 MB request gives ~10 MB with ~0.5 % 5xx lines and ~30 % query strings."""
    path, truth = made("dominant", size_mb=10.0)
    assert abs(truth["bytes"] - 10_000_000) < 300_000
    assert 0.004 <= truth["lines_5xx"] / truth["lines"] <= 0.006
    matches = [COMBINED.match(x) for x in path.read_text().splitlines()]
    with_query = sum(1 for m in matches if m and m.group(4))
    assert 0.27 <= with_query / truth["lines"] <= 0.33
    assert len(truth["routes"]) >= 150


def test_jsonl_lines_have_exactly_the_documented_keys(made: Made) -> None:
    """jsonl: every line is an object with exactly the documented keys in order."""
    path, _ = made("dominant", fmt="jsonl")
    first = json.loads(path.read_text().splitlines()[0])
    assert list(first) == JSON_KEYS
    assert isinstance(first["status"], int) and isinstance(first["request_time"], float)


def test_route_templates_are_fixed_points_of_normalization() -> None:
    """Templates only use whole-segment placeholders; fixed segments never normalize."""
    for route in standard_routes() + high_cardinality_routes():
        fixed = [s for s in route.template.split("/") if s not in ("{id}", "{uuid}", "{hex}")]
        assert normalize("/".join(fixed)) == "/".join(fixed), route.template
    assert 180 <= len(standard_routes()) <= 220


def test_invalid_arguments_are_rejected(tmp_path: Path) -> None:
    """Unknown scenario/format, a non-positive size or a negative seed raise ValueError."""
    with pytest.raises(ValueError):
        generate(tmp_path / "x", scenario="nope", size_mb=1, seed=1)
    with pytest.raises(ValueError):
        generate(tmp_path / "x", scenario="tie", size_mb=1, seed=1, fmt="xml")
    with pytest.raises(ValueError):
        generate(tmp_path / "x", scenario="tie", size_mb=0, seed=1)
    with pytest.raises(ValueError):
        generate(tmp_path / "x", scenario="tie", size_mb=1, seed=-1)


def test_cli_writes_log_and_truth_and_prints_summary(tmp_path: Path) -> None:
    """The CLI writes FILE and FILE.truth.json and prints one summary line to stderr."""
    out = tmp_path / "cli.log"
    cmd = [
        sys.executable,
        "-m",
        "logagent.samples",
        "--scenario",
        "tie",
        "--size-mb",
        "0.5",
        "--seed",
        "3",
        "--format",
        "jsonl",
        "-o",
        str(out),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=ROOT)
    truth = json.loads(Path(f"{out}.truth.json").read_text())
    assert truth["format"] == "jsonl" and truth["bytes"] == out.stat().st_size
    assert proc.stdout == ""
    assert re.fullmatch(r"wrote \d+ bytes, \d+ lines to .* \(\d+\.\d MB/s\)\n", proc.stderr)


SAMPLE_FORMATS = {
    "nginx_access.log": "combined",
    "apache_access.log": "common",
    "app_access.jsonl": "jsonl",
}
# A request that is not "METHOD TARGET HTTP/x" (TLS junk, "-") is still a record.
_SAMPLE_REQ = r'"(?:[A-Z]+ (\S+) HTTP/[\d.]+|[^"]*)"'
SAMPLE_RES = {
    "combined": re.compile(
        r"^\S+ \S+ \S+ \[[^\]]+\] "
        + _SAMPLE_REQ
        + r' (\d{3}) (?:\d+|-) "[^"]*" "[^"]*"(?: [\d.]+)?$'
    ),
    "common": re.compile(r"^\S+ \S+ \S+ \[[^\]]+\] " + _SAMPLE_REQ + r" (\d{3}) (?:\d+|-)$"),
}


def sample_route(path: str | None) -> str:
    """Route of a sample record's path; an invalid request has its own route."""
    return "(invalid request)" if path is None else normalize(path)


def sample_record(line: str, fmt: str) -> tuple[str | None, int] | None:
    """(raw path, status) of a valid sample line, else None."""
    if fmt == "jsonl":
        try:
            obj = json.loads(line)
        except ValueError:
            return None
        return (
            (obj["path"], obj["status"])
            if isinstance(obj, dict) and list(obj) == JSON_KEYS
            else None
        )
    m = SAMPLE_RES[fmt].match(line)
    return (m.group(1), int(m.group(2))) if m else None


@pytest.mark.parametrize("name", sorted(SAMPLE_FORMATS))
def test_sample_expected_json_matches_independent_count(name: str) -> None:
    """Each committed sample's expected JSON agrees with a recount of the sample file."""
    fmt = SAMPLE_FORMATS[name]
    path = SAMPLE_DIR / name
    expected = json.loads((SAMPLE_DIR / f"{name}.expected.json").read_text())
    lines = path.read_bytes().decode("utf-8").split("\n")
    assert lines[-1] == ""
    recs = [sample_record(x, fmt) for x in lines[:-1]]
    valid = [r for r in recs if r is not None]
    errors = Counter(sample_route(p) for p, s in valid if 500 <= s <= 599)
    assert expected["format"] == fmt
    assert expected["lines"] == len(recs)
    assert expected["malformed_lines"] == len(recs) - len(valid)
    status = Counter(s for _, s in valid)
    assert expected["status"] == {str(k): v for k, v in sorted(status.items())}
    assert expected["top_errors"] == ranked(errors)[:5]
    assert expected["routes_5xx_total"] == sum(errors.values())
    assert 200_000 <= path.stat().st_size <= 2_000_000


def test_nginx_sample_has_its_documented_oddities() -> None:
    """nginx sample: TLS junk, empty request, cut line, IPv6, huge query, %-encoded paths."""
    text = (SAMPLE_DIR / "nginx_access.log").read_text()
    assert '"\\x16\\x03\\x01' in text and '] "-" 400 0 ' in text
    assert re.search(r"^2a02:[0-9a-f:]+ - - \[", text, re.M)
    assert max(len(x) for x in text.splitlines()) > 2500
    assert "%20" in text and "%C3%A9" in text
    top = json.loads((SAMPLE_DIR / "nginx_access.log.expected.json").read_text())["top_errors"]
    assert top[0][1] >= 3 * top[1][1]
