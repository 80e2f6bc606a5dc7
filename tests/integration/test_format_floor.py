"""A full read whose records are under ``min_format_confidence`` of its lines answers nothing.

Probe N: a Suricata eve.json (JSON lines without a message key, which no JSON layout read
then) was "exact" on generic's 3 records of 751 lines for ``-q status``: the detection
sample held 4 % of them, over the 1 % threshold, so the run read everything, then answered.
Here the JSON lines write no stamp either (a bare jsonapp reads stamped events now).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from logagent.cli import main


def _eve(i: int) -> str:
    return json.dumps(
        {"flow_id": i, "event_type": "flow", "src_ip": "10.0.0.1", "dest_ip": "10.0.0.2",
         "proto": "TCP", "flow": {"pkts": i}}
    )  # fmt: skip


def _run(log: Path, *args: str) -> dict:  # type: ignore[type-arg]
    out = CliRunner().invoke(main, ["analyze", str(log), "--json", "--llm", "off", *args])
    return json.loads(out.output)


@pytest.mark.parametrize("question", ["status", "top-error-components"])
def test_a_few_records_among_many_unread_lines_are_no_answer(tmp_path: Path, question: str) -> None:
    log = tmp_path / "eve.json"
    head = [f"2025-09-16T10:05:{i % 60:02d}.196121-0400 INFO worker {i} started" for i in range(40)]
    log.write_text("\n".join([*head, *(_eve(i) for i in range(8000))]) + "\n")
    got = _run(log, "-q", question, "--full")
    assert got["input"]["format_confidence"] >= 0.01  # the sample let the read go on
    assert got["status"] == "recused", got["answer"]
    assert got["recuse"]["reason_code"] == "UNRECOGNIZED_FORMAT"
    assert "40 of the 8,040 lines" in got["recuse"]["detail"]


def _syslog(n: int) -> list[str]:
    """Syslog lines: a layout whose every line starts a record (no continuation lines), so
    the JSON lines after them are malformed."""
    return [f"Sep 16 10:05:{i % 60:02d} web01 engine[7]: error: job {i} failed" for i in range(n)]


def test_records_under_half_the_lines_are_no_answer(tmp_path: Path) -> None:
    """Probe Q: 2 % records (60 of 3,060 lines) had been "exact"; what the other 98 % hold is
    unknown, so no answer is exact: under half the lines explained, the run refuses."""
    log = tmp_path / "mixed.log"
    log.write_text("\n".join([*_syslog(60), *(_eve(i) for i in range(3000))]) + "\n")
    got = _run(log, "-q", "status", "--full")
    assert got["input"]["format"] == "syslog3164"
    assert got["status"] == "recused", got["answer"]
    assert got["recuse"]["reason_code"] == "UNRECOGNIZED_FORMAT"
    assert "60 of the 3,060 lines" in got["recuse"]["detail"]
    assert f"--format {got['input']['format']}" in got["recuse"]["detail"]
    named = _run(log, "-q", "status", "--full", "--format", got["input"]["format"])
    assert named["status"] == "exact" and named["answer"]["total"] == 60


def test_records_over_half_the_lines_answer_with_a_warning(tmp_path: Path) -> None:
    log = tmp_path / "mixed.log"
    log.write_text("\n".join([*_syslog(60), *(_eve(i) for i in range(50))]) + "\n")
    got = _run(log, "-q", "status", "--full")
    assert got["input"]["format"] == "syslog3164"
    assert got["status"] == "exact" and got["answer"]["total"] == 60
    assert got["progress"]["malformed_lines"] == 50
    assert any("malformed" in w for w in got["warnings"])


def test_a_few_malformed_lines_are_never_refused(tmp_path: Path) -> None:
    """Two records and three lines of another layout: under half, but a few lines (the
    fragment a rotation cuts, a banner) say nothing of the format."""
    log = tmp_path / "tiny.log"
    lines = [*_syslog(2), *(_eve(i) for i in range(3))]
    log.write_text("\n".join(lines) + "\n")
    got = _run(log, "-q", "status", "--full")
    assert got["status"] == "exact" and got["answer"]["total"] == 2


def test_a_format_the_user_names_is_not_second_guessed(tmp_path: Path) -> None:
    """A review: uWSGI's request log among pages of the app's own output, ``--format uwsgi``,
    was refused; the named format answers, its malformed lines warned of."""
    log = tmp_path / "eve.json"
    head = [f"2025-09-16T10:05:{i % 60:02d}.196121-0400 INFO worker {i} started" for i in range(40)]
    log.write_text("\n".join([*head, *(_eve(i) for i in range(8000))]) + "\n")
    got = _run(log, "-q", "status", "--full", "--format", "generic")
    assert got["status"] == "exact" and got["answer"]["total"] == 40
    assert any("malformed" in w for w in got["warnings"])


def test_a_stream_read_to_its_end_is_judged_too(tmp_path: Path) -> None:
    """A ``.gz`` file and stdin have no unit count, but are read whole: the same refusal."""
    text = "\n".join([*_syslog(60), *(_eve(i) for i in range(3000))]) + "\n"
    packed = tmp_path / "mixed.log.gz"
    packed.write_bytes(gzip.compress(text.encode()))
    assert _run(packed, "-q", "status")["recuse"]["reason_code"] == "UNRECOGNIZED_FORMAT"
    args = ["analyze", "-", "--json", "--llm", "off", "-q", "status"]
    piped = json.loads(CliRunner().invoke(main, args, input=text).output)
    assert piped["recuse"]["reason_code"] == "UNRECOGNIZED_FORMAT"


def test_lines_folded_into_records_that_look_like_no_part_are_counted(tmp_path: Path) -> None:
    """Probe R: a Traefik debug log read as zerolog folded its access lines into the DEBUG
    records as "stack traces" without a word of what they were; a warning counts them now.
    A review: refusing such reads refused correct ones too (Spring Boot's show-sql lines),
    so they answer: the records counted are the layout's."""
    log = tmp_path / "traefik.log"
    head = [f"2024-11-08T07:31:{i:02d}+01:00 DBG github.com/x/fw.go:187 > msg" for i in range(20)]
    access = [
        f'10.0.0.{i} - - [08/Nov/2024:07:31:{i:02d} +0100] "GET /a HTTP/1.1" 200 5 "-" "-"'
        for i in range(12)
    ]
    log.write_text("\n".join([*head, *access, *(_eve(i) for i in range(12))]) + "\n")
    got = _run(log, "-q", "status", "--full")
    assert got["input"]["format"] == "zerolog" and got["status"] == "exact"
    assert any("24 of them look like no stack trace" in w for w in got["warnings"])
    java = tmp_path / "app.log"
    trace = ["java.lang.IllegalStateException: boom", "\tat a.B.c(B.java:1)", "\t... 4 more"]
    sql = "Hibernate: select o.id, o.total from orders o where o.customer_id=?"
    record = "2024-01-02 03:04:05,678 ERROR [main] com.foo.Bar - failed"
    java.write_text("\n".join([record, *trace, sql, sql, sql] * 20) + "\n")  # 86 % folded
    answered = _run(java, "-q", "status", "--full")
    assert answered["status"] == "exact" and answered["answer"]["total"] == 20
    assert any("60 of them look like no stack trace" in w for w in answered["warnings"])


def test_a_layout_that_shares_its_file_and_a_prefilter_are_not_refused(tmp_path: Path) -> None:
    """A review: uWSGI's request lines among its banner and the app's tracebacks (no records
    by design, README), and HAProxy's HTTP lines whose 5xx candidates are mostly TCP lines
    (their byte counts "5xx"): both were refused by the floor, and answered before."""
    request = (
        "[pid: 7|app: 0|req: {i}/{i}] 10.0.0.1 () {{38 vars in 512 bytes}} "
        "[Mon Mar  4 10:00:{s:02d} 2024] GET /api/orders/{i} => generated 31 bytes in 4 msecs "
        "(HTTP/1.1 {status}) 2 headers in 79 bytes (1 switches on core 0)"
    )
    noise = ["*** Starting uWSGI 2.0.21 (64bit) on [Mon Mar  4 10:00:00 2024] ***"] * 20 + [
        "Traceback (most recent call last):",
        '  File "/app/views.py", line 3, in get',
        "KeyError: 'x'",
    ] * 10
    lines = [request.format(i=i, s=i % 60, status=500 if i < 5 else 200) for i in range(30)]
    log = tmp_path / "uwsgi.log"
    log.write_text("\n".join([*noise, *lines]) + "\n")
    got = _run(log, "-q", "status")
    assert got["input"]["format"] == "uwsgi" and got["status"] == "exact"
    assert {t["key"]: t["count"] for t in got["answer"]["top"]} == {"200": 25, "500": 5}
    http = (
        "Jul 12 10:00:{s:02d} lb haproxy[30046]: 10.0.1.{i}:40000 [12/Jul/2018:10:00:{s:02d}.662]"
        ' www~ be_app/app0 0/0/1/46/25 {status} 4234 - - ---- 12/12/1/0/0 0/0 "GET /api/items/{i}'
        ' HTTP/1.1"'
    )
    tcp = (
        "Jul 12 10:00:{s:02d} lb haproxy[30046]: 10.0.0.{i}:50023 [12/Jul/2018:10:00:{s:02d}.662]"
        " fe_db be_db/db1 1/1/18423 5{i:02d} -- 12/12/1/0/0 0/0"
    )
    mixed = [http.format(i=i, s=i % 60, status=503 if i < 3 else 200) for i in range(60)]
    mixed += [tcp.format(i=i, s=i % 60) for i in range(40)]  # each a 5xx candidate
    haproxy = tmp_path / "haproxy.log"
    haproxy.write_text("\n".join(mixed) + "\n")
    answered = _run(haproxy, "--full")
    assert answered["input"]["format"] == "haproxy" and answered["status"] == "exact"
    assert answered["answer"]["total"] == 3


def test_a_dev_log_with_many_sql_lines_per_record_is_answered(tmp_path: Path) -> None:
    """A review: a Spring Boot dev log with show-sql writes a dozen "Hibernate: select" lines
    under each record, its records under a tenth of the lines (as a boot.log's "[uptime]"
    lines among fsck output are): judging such reads by those lines refused a correct one.
    They are counted in a warning, and the records answer."""
    log = tmp_path / "dev.log"
    sql = "Hibernate: select o.id, o.total from orders o where o.customer_id=?"
    rows = []
    for i in range(40):
        level = "ERROR" if i % 4 == 0 else "INFO"
        rows.append(f"2024-03-05 10:00:{i:02d}.123 {level} 1 --- [exec-{i}] c.a.OrderService : x")
        rows.extend([sql] * 12)
    log.write_text("\n".join(rows) + "\n")
    got = _run(log, "-q", "status", "--full")
    assert got["status"] == "exact" and got["answer"]["total"] == 40
    assert any("480 of them look like no stack trace" in w for w in got["warnings"])
