"""What real logs of probe N showed, each fix with the lines that showed it.

- Suricata's eve.json (Chala1899/IDS-Lab-Suricata, nicoaller, magnc): JSON events with
  neither a level nor a message were no known format, every question refused (or "exact"
  on 3 of 751 lines read by generic, ``-q status``); ``--by event_type`` had no way in.
- Traefik v2's own JSON log (logrus: level, msg, time, as slog's): every record under "-".
- GitLab's production_json.log: ``-q top-clients`` refused, its ``remote_ip`` listed.
- cloud-init.log: "proved" no known format.
- A Kubernetes audit log's ResponseStarted events were said to be W3C directives.
- HAProxy's TCP log (epartington/rsa_nw_log_haproxy): plain syslog, "exact" INFO 100 where
  55 connections ended on the client's side and one on a server error.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
from click.testing import CliRunner

from logagent.cli import main
from logagent.formats.app import parse_app
from logagent.formats.appkeys import auto_app_mapping
from logagent.formats.detect import detect_all
from logagent.formats.jsonlayouts import SLOG_JSON
from logagent.formats.structured import JsonAppFormat
from logagent.formats.systemlogs import CLOUD_INIT
from logagent.formats.webservers import HAPROXY_TCP


def _analyze(path: Path, *args: str, code: int = 0) -> dict:  # type: ignore[type-arg]
    out = CliRunner().invoke(main, ["analyze", str(path), "--json", "--llm", "off", *args])
    assert out.exit_code == code, out.output
    return json.loads(out.output)


def _eve(i: int) -> str:
    kind = ("flow", "dns", "alert", "flow", "http")[i % 5]
    event = {"timestamp": f"2025-09-16T10:05:{i % 60:02d}.196121-0400", "flow_id": 1000 + i,
             "event_type": kind, "src_ip": f"10.0.0.{i % 7}", "proto": "TCP"}  # fmt: skip
    if kind == "alert":
        event["alert"] = {"signature": "ET INFO probe" if i % 3 else "ET MALWARE CnC", "gid": 1}
    if kind == "http":
        event["http"] = {"status": 200 if i % 2 else 404, "url": "/x"}
    return json.dumps(event, separators=(",", ":"))


EVE = [_eve(i) for i in range(300)]


def test_json_events_without_level_or_message_are_records() -> None:
    mapping = auto_app_mapping(EVE[:100])
    assert "level" not in mapping and "message" not in mapping and mapping["ts"] == "timestamp"
    got = parse_app(JsonAppFormat(mapping=mapping), pl.Series("line", EVE[:10]))
    assert got["message"].null_count() == 0 and got["level"].null_count() == 10
    assert got["time"].null_count() == 0
    # a JSON app log that writes them keeps its keys
    app = [json.dumps({"ts": "2025-01-01T00:00:00Z", "lvl": "error", "msg": "x"})] * 5
    assert auto_app_mapping(app)["level"] == "lvl" and auto_app_mapping(app)["message"] == "msg"


def test_eve_json_answers_by_its_keys(tmp_path: Path) -> None:
    log = tmp_path / "eve.json"
    log.write_text("\n".join(EVE) + "\n")
    assert detect_all(EVE).best == "jsonapp"
    by_type = _analyze(log, "--by", "event_type")
    assert by_type["status"] == "exact"
    assert {r["key"]: r["count"] for r in by_type["answer"]["top"]} == {
        "flow": 120, "dns": 60, "alert": 60, "http": 60,
    }  # fmt: skip
    alerts = _analyze(log, "--by", "alert.signature", "--where", "event_type=alert")
    assert {r["key"]: r["count"] for r in alerts["answer"]["top"]} == {
        "ET INFO probe": 40,
        "ET MALWARE CnC": 20,
    }
    default = _analyze(log, code=3)  # no level: said, not "no known format"
    assert default["recuse"]["reason_code"] == "NO_MATCHING_EVENTS"
    assert "carry no level" in default["recuse"]["detail"]


def test_logrus_json_without_a_source_ranks_error_kinds() -> None:
    lines = [
        '{"level":"error","msg":"accept tcp [::]:80: use of closed network connection",'
        '"entryPointName":"web","time":"2019-10-02T08:00:00Z"}',
        '{"level":"warning","msg":"Could not find network named \'agent_network\'",'
        '"providerName":"docker","time":"2019-10-02T08:00:01Z"}',
        '{"time":"2023-01-01T00:00:00Z","level":"ERROR","source":{"function":"main.run",'
        '"file":"/app/main.go","line":12},"msg":"boom"}',
    ]
    got = parse_app(SLOG_JSON, pl.Series("line", lines))
    assert got["component"].to_list() == ["accept tcp", "Could not find network", "/app/main.go"]


def test_json_access_clients_by_a_remote_ip_key(tmp_path: Path) -> None:
    rows = [
        {"method": "GET", "path": f"/p/{i}", "status": 200 if i % 4 else 500,
         "remote_ip": "10.89.1.26" if i % 3 else "10.89.1.27", "duration_s": 0.01}
        for i in range(30)
    ]  # fmt: skip
    log = tmp_path / "production_json.log"
    log.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    got = _analyze(log, "-q", "top-clients")
    assert {r["key"]: r["count"] for r in got["answer"]["top"]} == {
        "10.89.1.26": 20,
        "10.89.1.27": 10,
    }


CLOUD = [
    "2020-01-16 19:14:48,519 - util.py[DEBUG]: Cloud-init v. 18.5 running 'init-local' at Thu, "
    "16 Jan 2020 19:14:48 +0000. Up 19.41 seconds.",
    "2020-01-16 19:15:52,253 - util.py[WARNING]: Getting data from <class "
    "'cloudinit.sources.DataSourceUI.DataSourceUI'> failed",
    "Traceback (most recent call last):",
    '  File "/usr/lib/python3/dist-packages/cloudinit/sources/__init__.py", line 1, in x',
    "OSError: [Errno 2] No such file or directory",
    "2020-01-16 19:15:53,001 - stages.py[INFO]: Loading datasource",
    "2020-01-16 19:15:54,002 - handlers.py[ERROR]: failed posting event",
]


def test_cloud_init_levels_files_and_tracebacks() -> None:
    from logagent.formats.records import fold_records

    found = detect_all(CLOUD * 3)
    assert found.best == "cloud_init" and found.confidence == 1.0
    folded = fold_records(pl.Series("line", CLOUD), CLOUD_INIT)
    assert folded["level"].to_list() == ["DEBUG", "WARN", "INFO", "ERROR"]
    assert folded["component"].to_list() == ["util.py", "util.py", "stages.py", "handlers.py"]
    assert folded["lines"].to_list() == [1, 4, 1, 1]


def test_kubernetes_audit_skips_are_named_as_such(tmp_path: Path) -> None:
    rows = []
    for i in range(10):
        base = {"kind": "Event", "apiVersion": "audit.k8s.io/v1", "level": "Metadata",
                "auditID": f"id-{i}", "requestURI": f"/api/v1/namespaces/default/pods/w-{i}/exec",
                "verb": "create", "sourceIPs": ["10.0.0.7"], "userAgent": "kubectl/v1.29.0",
                "requestReceivedTimestamp": "2026-12-06T02:40:38.123456Z"}  # fmt: skip
        rows.append({**base, "stage": "ResponseStarted", "responseStatus": {"code": 101}})
        rows.append({**base, "stage": "ResponseComplete", "responseStatus": {"code": 101}})
    log = tmp_path / "audit.jsonl"
    log.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    got = _analyze(log, "-q", "status")
    assert got["input"]["format"] == "k8s_audit" and got["answer"]["total"] == 10
    said = next(w for w in got["warnings"] if "no request of the layout" in w)
    assert "ResponseStarted" in said and "W3C" not in said


TCP = [
    "Jul 12 10:13:23 localhost haproxy[30046]: 10.0.0.23:54824 [12/Jul/2018:10:13:12.662] "
    "fe_db be_db/<db_2> 1/1/11103 186 -- 379/379/379/136/0 0/0",
    "Jul 12 10:13:25 localhost haproxy[30046]: 10.0.0.96:57510 [12/Jul/2018:10:13:25.225] "
    "fe_db be_db/<db_1> 1/1/116 414 cD 380/380/380/118/0 0/0",
    "Jul 12 10:14:02 localhost haproxy[30046]: 10.0.0.96:57611 [12/Jul/2018:10:14:01.001] "
    "fe_db be_db/<db_1> 1/-1/1002 0 SC 380/380/380/118/3 0/0",
    "10.0.0.7:40000 [12/Jul/2018:10:15:00.000] fe_tls be_tls/web1 0/0/+5 +120 CD 1/1/1/1/0 0/0",
]


def test_haproxy_tcp_connections_by_termination_state(tmp_path: Path) -> None:
    found = detect_all(TCP * 4)
    assert found.best == "haproxy_tcp" and not found.ambiguous
    own = [  # HAProxy's own syslog lines beside its connections (a review: syslog3164 won)
        "Jul 12 10:13:00 lb haproxy[30046]: Proxy fe_db started.",
        "Jul 12 10:14:00 lb haproxy[30046]: Server be_db/db1 is DOWN, reason: Layer4 timeout",
    ]
    for specific_first in (True, False):
        assert detect_all([*TCP[:3] * 4, *own], specific_first=specific_first).best == (
            "haproxy_tcp"
        )
    got = parse_app(HAPROXY_TCP, pl.Series("line", TCP))
    assert got["level"].to_list() == ["INFO", "WARN", "ERROR", "WARN"]
    assert got["component"].to_list() == [
        "be_db/<db_2>",
        "be_db/<db_1>",
        "be_db/<db_1>",
        "be_tls/web1",
    ]
    assert got["time"][0].replace(tzinfo=None).isoformat() == "2018-07-12T10:13:12.662000"
    log = tmp_path / "haproxy.log"
    log.write_text("\n".join(TCP[:3] * 5) + "\n")
    by_client = _analyze(log, "--by", "client", "--where", "level>=warn")
    assert {r["key"]: r["count"] for r in by_client["answer"]["top"]} == {"10.0.0.96": 10}


def test_a_bare_json_reading_yields_to_named_layouts() -> None:
    """A review: any JSON object with a stamp is a bare jsonapp record, so a JSON access log
    with one line of another shape (or a last line cut mid-write) had become jsonapp, its 5xx
    question refused, and a Zeek log with lines without a uid too."""
    access = [
        json.dumps({"time": "2024-01-01T10:00:00Z", "path": f"/p{i % 2}", "status": 503})
        for i in range(30)
    ]
    odd = '{"time":"2024-01-01T10:00:01Z","event":"shutdown"}'
    assert detect_all([*access, odd]).best == "jsonl"
    assert detect_all([*access, '{"time": "2024-01-01T10:00:02Z", "pa']).best == "jsonl"
    zeek = [
        json.dumps({"_path": "dns", "ts": "2018-03-24T17:16:56.871971Z", "uid": f"C{i}",
                    "query": "example.org", "rcode_name": "NOERROR"})
        for i in range(20)
    ] + ['{"_path":"stats","ts":"2018-03-24T17:16:57Z","mem":12}'] * 3  # fmt: skip
    assert detect_all(zeek).best == "zeek"


def test_a_level_few_records_write_is_still_their_level() -> None:
    """A review: levels in 40 % of the sampled objects (under the half rule) had been
    dropped with the message key, every record "(no level)"."""
    lines = [
        json.dumps({"time": "2024-01-01T10:00:00Z", "level": "error", "logger": "web",
                    "message": "boom"}) if i % 5 < 2 else
        json.dumps({"time": "2024-01-01T10:00:00Z", "metric": "cpu", "value": i})
        for i in range(50)
    ]  # fmt: skip
    mapping = auto_app_mapping(lines)
    assert mapping["level"] == "level" and mapping["message"] == "message"
    got = parse_app(JsonAppFormat(mapping=mapping), pl.Series("line", lines))
    assert got["level"].to_list().count("ERROR") == 20
