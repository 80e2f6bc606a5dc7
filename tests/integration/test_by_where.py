"""--by FIELD --where COND end to end, against an independent per-line reference.

The reference reads access lines with str methods (split at the quotes, as a
server's own parser does for lines without escaped quotes) and app samples
with ``tests/real_reference.py``; it shares no code with logagent's Polars
parsers. Every ranked count must equal the reference's, and the ranking must
be the reference's top counts.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests import real_reference as ref

DIR = Path(__file__).resolve().parents[2] / "sample_logs"
ACCESS = ["nginx_access.log", "apache_access.log"]
Record = dict[str, str]


def run(*args: str) -> subprocess.CompletedProcess[bytes]:
    cmd = [sys.executable, "-m", "logagent", "analyze", *args, "--llm", "off", "--quiet"]
    return subprocess.run(cmd, capture_output=True, timeout=300, check=False)


def answer(*args: str) -> dict[str, Any]:
    done = run(*args, "--json")
    assert done.returncode == 0, done.stderr.decode()
    out: dict[str, Any] = json.loads(done.stdout)
    return out


def access_records(name: str) -> list[Record]:
    """Fields of each access record of a sample, read with str methods."""
    out = []
    for line in (DIR / name).read_text(errors="replace").splitlines():
        parts = line.split('"')
        if len(parts) < 3 or "[" not in parts[0] or '\\"' in line:
            continue  # apache's escaped quotes: the reference does not read them (none is ranked)
        head, request, rest = parts[0], parts[1], parts[2].split(" ")
        words = head[: head.index("[")].split()
        status = rest[1] if len(rest) > 2 else ""
        if not re.fullmatch(r"\d{3}", status) or len(words) not in (3, 4):
            continue
        req = request.split(" ")
        ok = len(req) in (2, 3) and req[0].isalpha()
        rec = {"client": words[-3], "status": status, "user": words[-1]}
        if ok:
            rec["method"], rec["path"] = req[0], req[1]
        if len(parts) >= 6:
            rec["user_agent"] = parts[5]
        out.append(rec)
    return out


def route(path: str) -> str:
    """The default route rules, written again: ids, uuids, long hex segments."""
    path = re.sub(r"[?#].*$", "", path)
    path = re.sub(r"^[A-Za-z][A-Za-z0-9+.-]*://[^/]*", "", path)
    uuid = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"

    def seg(s: str) -> str:
        if re.fullmatch(r"\d+", s):
            return "{id}"
        if re.fullmatch(uuid, s):
            return "{uuid}"
        if re.fullmatch(r"[0-9a-fA-F]{16,}", s):
            return "{hex}"
        return s

    return "/".join(seg(s) for s in path.split("/"))


def tally(recs: list[Record], key: Callable[[Record], str | None], keep: Callable[[Record], bool]):  # type: ignore[no-untyped-def]
    out: Counter[str] = Counter()
    for r in recs:
        k = key(r) if keep(r) else None
        if k is not None:
            out[k] += 1
    return out


def check_ranking(result: dict[str, Any], truth: Counter[str], top: int = 5) -> None:
    """Each ranked key's count is the truth's, and the counts are the truth's top counts."""
    got = {e["key"]: e["count"] for e in result["answer"]["top"]}
    assert got, "nothing ranked"
    for key, count in got.items():
        assert truth[key] == count, (key, count, truth[key])
    assert sorted(got.values(), reverse=True) == [c for _, c in truth.most_common(top)][: len(got)]
    assert len(got) == min(top, len(truth))


def _status(r: Record) -> int:
    return int(r["status"])


Case = tuple[list[str], Callable[[Record], str | None], Callable[[Record], bool]]
ACCESS_CASES: dict[str, Case] = {
    "top-clients": (["-q", "top-clients"], lambda r: r["client"], lambda r: True),
    "methods-of-4xx-5xx": (
        ["--by", "method", "--where", "status>=400"],
        lambda r: r.get("method"),
        lambda r: _status(r) >= 400,
    ),
    "top-4xx": (["-q", "top-4xx"], lambda r: route(r["path"]) if "path" in r else None,
                lambda r: 400 <= _status(r) < 500),
    "top-4xx-raw": (
        ["-q", "top-4xx", "--no-normalize"],
        lambda r: re.sub(r"[?#].*$", "", r["path"]) if "path" in r else None,
        lambda r: 400 <= _status(r) < 500,
    ),
    "statuses": (["--by", "status"], lambda r: r["status"], lambda r: True),
    # a --where refines a named question: top-errors keeps its 5xx (issue 13's review)
    "top-errors-of-gets": (
        ["-q", "top-errors", "--where", "method=GET"],
        lambda r: route(r["path"]) if "path" in r else None,
        lambda r: r.get("method") == "GET" and 500 <= _status(r) < 600,
    ),
    "clients-of-posts-not-2xx": (
        ["--by", "client", "--where", "method=POST", "--where", "status!=2xx"],
        lambda r: r["client"],
        lambda r: r.get("method") == "POST" and not 200 <= _status(r) < 300,
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(ACCESS_CASES))
@pytest.mark.parametrize("name", ACCESS)
def test_access_selections_equal_the_reference(name: str, case: str) -> None:
    args, key, keep = ACCESS_CASES[case]
    truth = tally(access_records(name), key, keep)
    if not truth:  # nothing matches: a recusal that says so, not an empty ranking
        done = run(str(DIR / name), *args, "--full", "--json")
        assert done.returncode == 3
        recuse = json.loads(done.stdout)["recuse"]
        assert recuse["reason_code"] == "NO_MATCHING_EVENTS"
        assert "no record meets every --where" in recuse["suggestion"]
        return
    full = answer(str(DIR / name), *args, "--full")
    assert full["status"] == "exact"
    check_ranking(full, truth)
    early = answer(str(DIR / name), *args, "--seed", "5")  # the default reading: same answer
    assert {e["key"]: e["count"] for e in early["answer"]["top"]} == {
        e["key"]: e["count"] for e in full["answer"]["top"]
    }


def test_user_agents_of_404s_and_breakdown_by_status() -> None:
    recs = access_records("nginx_access.log")
    truth = tally(recs, lambda r: r.get("user_agent"), lambda r: r["status"] == "404")
    out = answer(str(DIR / "nginx_access.log"), "--by", "user_agent", "--where", "status=404")
    check_ranking(out, truth)
    for e in out["answer"]["top"]:  # one class pinned: each code apart, said as itself
        assert set(e["breakdown"]) == {"404"}
    mixed = answer(str(DIR / "nginx_access.log"), "--by", "method", "--where", "status>=400")
    assert set().union(*(e["breakdown"] for e in mixed["answer"]["top"])) <= {"4xx", "5xx"}
    assert mixed["question"]["by"] == "method" and mixed["question"]["where"] == ["status>=400"]


APP = [
    "kafka_server.log",
    "zookeeper.log",
    "openstack_nova.log",
    "postgres.log",
    "springboot_tidb.log",
    "slog_humanlog.jsonl",
    "nextcloud.jsonl",
    "mongodb_lnav.jsonl",
    "rust_tracing.jsonl",
]


def app_readings(name: str) -> list[tuple[str | None, str]]:
    reader = ref.READERS[ref.SAMPLES[name]]  # every parametrized sample has its reader
    text = (DIR / name).read_text(errors="replace")
    found = [reader(line.removesuffix("\r")) for line in text.split("\n") if line.strip()]
    return [f for f in found if f is not None]


@pytest.mark.parametrize("name", APP)  # real samples with an independent reader
def test_app_selections_equal_the_reference(name: str) -> None:
    readings = app_readings(name)
    warn = Counter(c for lvl, c in readings if lvl == "WARN")
    if warn:  # WARN alone (not WARN+): a selection no named question asks
        out = answer(str(DIR / name), "--by", "component", "--where", "level=warn", "--full")
        check_ranking(out, warn)
        assert all(set(e["breakdown"]) == {"WARN"} for e in out["answer"]["top"])
    levels = Counter(lvl for lvl, _ in readings if lvl is not None)
    out = answer(str(DIR / name), "--by", "level", "--full")
    check_ranking(out, levels)


def test_any_json_key_is_a_field() -> None:
    rows = [json.loads(x) for x in (DIR / "zeek_dns.jsonl").read_text().splitlines()]
    truth = Counter(r["query"] for r in rows if r.get("rcode_name") == "NXDOMAIN")
    out = answer(str(DIR / "zeek_dns.jsonl"), "--by", "query", "--where", "rcode_name=NXDOMAIN")
    check_ranking(out, truth)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--by", "nosuch"], "has no field 'nosuch': its fields are route, path, status, client"),
        (["--by", ""], "analysis.by: name a field"),  # was: no --by, silently
        (["--where", "status~("], "not a valid regular expression"),
        (["--where", "status=5yy"], "a status is a code"),
        (["--where", "level>=loud"], "is no level"),
        (["-q", "top"], "give --by FIELD"),
        (["-q", "status", "--by", "client"], "does not"),
    ],
)
def test_bad_field_or_condition_is_a_usage_error(args: list[str], says: str) -> None:
    done = run(str(DIR / "nginx_access.log"), *args)
    assert done.returncode == 2, done.stderr.decode()
    assert says in done.stderr.decode()
    assert b"Traceback" not in done.stderr
    assert b"This error occurred" not in done.stderr and b"col(" not in done.stderr  # Polars'


def test_a_json_key_no_record_holds_is_refused() -> None:
    done = run(str(DIR / "app.jsonl"), "--by", "usr_id")
    assert done.returncode == 2
    said = done.stderr.decode()
    assert "no sampled record of jsonapp holds the key 'usr_id'" in said
    assert "keys its records hold: ts, level, logger, message" in said  # what it could be


def test_markdown_report_says_what_was_ranked() -> None:
    done = run(str(DIR / "nginx_access.log"), "--by", "client", "--where", "status=5xx")
    text = done.stdout.decode()
    assert done.returncode == 0
    assert "# logagent: client values with the most matching records" in text
    assert "Ranked: the values of `client` among records where `status=5xx`." in text


def test_greedily_read_lines_keep_their_other_fields(tmp_path: Path) -> None:
    """A request with a bare quote and a user agent cut before its quote are records (read
    greedily); their client, method and user agent are fields too (issue 13's review)."""
    head = "1.2.3.4 - - [10/Oct/2023:13:55:36 +0000] "
    log = tmp_path / "acc.log"
    log.write_text(
        head
        + '"GET" /x/?page=\' HTTP/1.0" 501 123 "-" "curl/7.1"\n'
        + head.replace("1.2.3.4", "5.6.7.8")
        + '"GET /a HTTP/1.1" 200 10 "-" "Mozilla/5.0 (X11\n'
    )
    by_client = answer(str(log), "--by", "client", "--where", "status=501", "--full")
    assert [(e["key"], e["count"]) for e in by_client["answer"]["top"]] == [("1.2.3.4", 1)]
    agents = answer(str(log), "--by", "user_agent", "--full")
    assert {e["key"] for e in agents["answer"]["top"]} == {"curl/7.1", "Mozilla/5.0 (X11"}
    methods = answer(str(log), "--by", "method", "--full")
    assert [(e["key"], e["count"]) for e in methods["answer"]["top"]] == [("GET", 1)]
    clients = run(str(log), "-q", "top-clients", "--full", "--json")
    assert clients.returncode == 0
