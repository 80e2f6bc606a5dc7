"""Real access logs of proxies, balancers and servers (issue 13): each layout detected at >= 0.9,
and the CLI's answers (status distribution, 5xx by raw path and by route, 5xx rate, full read
and early stop) equal the independent per-line reference of tests/real_reference.py."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from logagent.formats.catalog import build_any_format
from logagent.formats.fieldsets import fields_of_format, getter
from tests.real_reference import (
    ACCESS_KEYS,
    ACCESS_SAMPLES,
    access_records,
    access_reference,
    raw_route,
    route,
)

ROOT = Path(__file__).resolve().parents[2]
DIR = ROOT / "sample_logs"
NAMES = sorted(ACCESS_SAMPLES)


def run(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "logagent", *args],
        capture_output=True,
        timeout=180,
        check=False,
        cwd=ROOT,
    )


def answer(name: str, *extra: str) -> tuple[int, dict[str, Any]]:
    args = ("analyze", f"sample_logs/{name}", "--json", "--top", "100", "--llm", "off")
    proc = run(*args, *extra)
    return proc.returncode, json.loads(proc.stdout)


def counts(out: dict[str, Any]) -> dict[str, int]:
    return {e["key"]: e["count"] for e in (out["answer"] or {}).get("top", [])}


def text(name: str) -> str:
    return (DIR / name).read_bytes().decode("utf-8", "replace")


def sidecar(name: str) -> dict[str, Any]:
    out: dict[str, Any] = json.loads((DIR / f"{name}.expected.json").read_text())
    return out


@pytest.mark.parametrize("name", NAMES)
def test_sidecar_equals_the_reference(name: str) -> None:
    """The committed .expected.json is what the independent reference reads."""
    assert sidecar(name) == access_reference(text(name), ACCESS_SAMPLES[name])
    assert sidecar(name)["records"] > 0


@pytest.mark.parametrize("name", NAMES)
def test_detect_names_the_layout(name: str) -> None:
    """logagent detect names the sample's layout, confidence >= 0.9, not ambiguous, exit 0."""
    proc = run("detect", f"sample_logs/{name}")
    last = proc.stdout.decode().splitlines()[-1]
    best = last.split()
    assert proc.returncode == 0
    assert best[1] == ACCESS_SAMPLES[name] and float(best[3]) >= 0.9
    assert "ambiguous" not in last


@pytest.mark.parametrize("name", NAMES)
def test_status_distribution_equals_the_reference(name: str) -> None:
    """-q status --full counts every status as the reference does, with no malformed line."""
    code, out = answer(name, "-q", "status", "--full")
    assert code == 0 and out["status"] == "exact"
    assert out["input"]["format"] == ACCESS_SAMPLES[name]
    assert counts(out) == sidecar(name)["status"]
    assert out["answer"]["total"] == sidecar(name)["records"]


@pytest.mark.parametrize("raw", [True, False])
@pytest.mark.parametrize("name", NAMES)
def test_top_errors_full_and_early_stop_equal_the_reference(name: str, raw: bool) -> None:
    """top-errors by raw path (--no-normalize) and by route: --full and the default early stop
    give the reference's 5xx counts; a sample without any 5xx is a recusal, never an answer."""
    want = sidecar(name)["errors_by_path" if raw else "errors_by_route"]
    flags = ("--no-normalize",) if raw else ()
    code, full = answer(name, "--full", *flags)
    if not want:
        assert code == 3 and full["status"] == "recused"
        return
    assert code == 0 and full["status"] == "exact"
    assert counts(full) == want
    code, early = answer(name, *flags)
    assert code == 0
    assert counts(early) == want  # small samples: the early stop reads them whole


@pytest.mark.parametrize("name", [n for n in NAMES if sidecar(n)["errors_by_route"]])
def test_error_rate_equals_the_reference(name: str) -> None:
    """-q error-rate: 5xx and requests per route as the reference counts them."""
    records = access_records(text(name), ACCESS_SAMPLES[name])
    requests = Counter(route(r["path"]) for r in records)  # type: ignore[arg-type]
    errors = sidecar(name)["errors_by_route"]
    code, out = answer(name, "-q", "error-rate", "--full", "--min-requests", "1")
    assert code == 0 and out["status"] == "exact"
    got = {e["key"]: (e["count"], e["requests"]) for e in out["answer"]["top"]}
    assert got == {k: (errors.get(k, 0), n) for k, n in requests.items()}


@pytest.mark.parametrize("name", NAMES)
def test_client_method_and_agent_equal_the_reference(name: str) -> None:
    """The layout's extra columns (client, method, user agent), as ``--by`` reads them, are the
    reference's, record by record: what a question keyed by those fields will count."""
    lines = [ln.removesuffix("\r") for ln in text(name).split("\n") if ln.strip()]
    fmt = build_any_format(ACCESS_SAMPLES[name], lines)
    line = pl.col("line")
    base = fmt.fields(line)
    names = fields_of_format(fmt)[0]
    cols = {k: getter(fmt, k, base, line) for k in ACCESS_KEYS if k in names}  # --by's columns
    frame = pl.DataFrame({"line": lines}).select(**cols)
    got = [
        {k: row.get(k) for k in ACCESS_KEYS}
        for row in frame.filter(pl.col("status").is_not_null()).iter_rows(named=True)
    ]
    want = [{k: r.get(k) for k in ACCESS_KEYS} for r in access_records(text(name), fmt.name)]
    assert got == want


@pytest.mark.parametrize("name", NAMES)
def test_time_window_counts_the_reference_records_inside_it(name: str) -> None:
    """--since/--until on each layout: the status counts of the records whose own stamp lies in
    the window (the reference reads the stamps with datetime), by bisection or by filtering."""
    records = access_records(text(name), ACCESS_SAMPLES[name])
    times = sorted({r["time"] for r in records})
    since, until = times[len(times) // 4], times[(3 * len(times)) // 4]
    inside = [r for r in records if since <= r["time"] <= until]
    code, out = answer(
        name, "-q", "status", "--since", since.isoformat(), "--until", until.isoformat()
    )
    assert code == 0 and out["status"] == "exact", out.get("recuse")
    assert counts(out) == dict(Counter(str(r["status"]) for r in inside))


#: The extra fields each layout writes (haproxy's user agent is only in captured headers;
#: uWSGI's default request line has none).
BY_FIELDS = {n: ("client", "method", "user_agent") for n in NAMES} | {
    "haproxy.log": ("client", "method"),
    "uwsgi.log": ("client", "method"),
}


@pytest.mark.parametrize(
    ("name", "field"), [(n, f) for n in NAMES for f in BY_FIELDS[n]], ids=lambda v: str(v)
)
def test_by_extra_field_equals_the_reference(name: str, field: str) -> None:
    """--by client / method / user_agent --full: every record's value counted as the reference
    counts it (records without the value left out), and --where status>=400 on top of it."""
    records = access_records(text(name), ACCESS_SAMPLES[name])
    truth = Counter(r[field] for r in records if r.get(field) is not None)
    code, out = answer(name, "--by", field, "--full")
    assert code == 0 and out["status"] == "exact"
    assert counts(out) == dict(truth)
    errors = Counter(r[field] for r in records if r.get(field) is not None and r["status"] >= 400)
    code, out = answer(name, "--by", field, "--where", "status>=400", "--full")
    if not errors:
        assert code == 3 and out["status"] == "recused"
        return
    assert code == 0 and counts(out) == dict(errors)


@pytest.mark.parametrize("raw", [True, False])
@pytest.mark.parametrize("name", NAMES)
def test_top_4xx_full_and_early_stop_equal_the_reference(name: str, raw: bool) -> None:
    """-q top-4xx by raw path and by route: --full and the default early stop give the
    reference's 4xx counts (requests without a path are no endpoint); none is a recusal."""
    records = access_records(text(name), ACCESS_SAMPLES[name])
    key = raw_route if raw else route
    want = dict(Counter(key(r["path"]) for r in records if 400 <= r["status"] <= 499 and r["path"]))
    flags = ("--top", "1000", *(("--no-normalize",) if raw else ()))  # IIS: 112 paths
    code, full = answer(name, "-q", "top-4xx", "--full", *flags)
    if not want:
        assert code == 3 and full["status"] == "recused"
        return
    assert code == 0 and full["status"] == "exact"
    assert counts(full) == want
    code, early = answer(name, "-q", "top-4xx", *flags)
    assert code == 0
    assert counts(early) == want  # small samples: the early stop reads them whole


#: The lines of lnav's ``test/logfile_haproxy.0`` that ``sample_logs/haproxy.log`` leaves out
#: (sample_logs/SOURCES.md): HAProxy's own messages, which are syslog lines but no requests.
HAPROXY_OWN_LINES = [
    "Feb 25 16:19:38 192.168.4.2 haproxy[1]: Proxy prod_http_in started.",
    "Feb 25 16:19:38 192.168.4.2 haproxy[1]: Proxy tools_http_frnt started.",
    "Feb 25 16:19:38 192.168.4.2 haproxy[1]: Proxy git_inio_ssh_frnt started.",
    "Feb 25 16:20:15 192.168.4.2 haproxy[7]: 95.216.197.33:56224 [25/Feb/2019:16:20:10.111] "
    "prod_http_in/sktst2: SSL handshake failure",
]


def test_haproxy_log_with_its_own_messages_is_read_as_haproxy(tmp_path: Path) -> None:
    """A real HAProxy log holds start-up and TLS lines beside its requests: syslog3164 reads
    them all, HAProxy's layout only the requests, and syslog3164 had won (the 5xx question was
    refused: "needs an access log"). A layout written through syslog that reads half the
    sample or more is the log's layout; the counts are the reference's."""
    path = tmp_path / "haproxy.log"
    path.write_text("\n".join(HAPROXY_OWN_LINES) + "\n" + text("haproxy.log"))
    proc = run("detect", str(path))
    assert proc.returncode == 0 and proc.stdout.decode().splitlines()[-1].split()[1] == "haproxy"
    args = ("analyze", str(path), "--json", "--top", "100", "--llm", "off", "--full")
    out = json.loads(run(*args).stdout)
    assert out["input"]["format"] == "haproxy" and out["status"] == "exact"
    assert counts(out) == sidecar("haproxy.log")["errors_by_route"]
    status = json.loads(run(*args, "-q", "status").stdout)
    assert counts(status) == sidecar("haproxy.log")["status"]


def test_a_question_only_syslog_answers_keeps_syslog3164(tmp_path: Path) -> None:
    """HAProxy's layout wins over syslog3164 for the default question, but a question only
    an application log answers (top-error-components) reads the same file as the syslog it
    also is (a review found it refused: "needs an application log ... the format is
    haproxy")."""
    path = tmp_path / "haproxy.log"
    path.write_text("\n".join(HAPROXY_OWN_LINES) + "\n" + text("haproxy.log"))
    args = ("analyze", str(path), "--json", "--llm", "off", "-q", "top-error-components")
    proc = run(*args)
    out = json.loads(proc.stdout)
    assert proc.returncode in (0, 3) and out["input"]["format"] == "syslog3164"
    assert (
        json.loads(run("analyze", str(path), "--json", "--llm", "off").stdout)["input"]["format"]
        == "haproxy"
    )
