"""Access logs inside a wrapper (syslog, CRI, ``docker logs``): read as access logs.

The lines follow real ones a probe found misread (crowdsecurity/hub's
``http-wordpress_wpconfig`` test log, an ingress-nginx CRI line, ``docker logs``
of nginx's image in invoiceninja/dockerfiles#504): the wrapper's application
layout read every line, so the default question became top-error-components
("no ERROR+ record in the whole input") and ``-q top-errors`` was refused,
while an access layout read the requests and their 5xx.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from logagent import analyze, load_settings
from logagent.result import Question, QuestionKind, Result, Status
from logagent.testing import fake_env

AGENT = '"-" "Go-http-client/1.1"'


def syslog_nginx(i: int, status: int, path: str) -> str:
    return (
        f"Jul  8 11:{i // 60:02d}:{i % 60:02d} ip-172-31-43-28.us-east-2.compute.internal "
        f"nginx[2869]: 167.71.13.196 - - [08/Jul/2021:11:{i // 60:02d}:{i % 60:02d} +0000] "
        f'"GET {path} HTTP/1.1" {status} 21274 {AGENT}'
    )


def cri_nginx(i: int, status: int, path: str) -> str:
    return (
        f"2022-11-04T10:24:{i % 60:02d}.601933224+00:00 stdout F 10.244.1.0 - - "
        f'[04/Nov/2022:10:24:{i % 60:02d} +0000] "POST {path} HTTP/1.1" {status} 190 "-" '
        f'"Fluent-Bit" 819 0.000 [lq5072-logiq-flash-9999] [] - - - - 1668c11250da6ec5'
    )


def ask(path: Path, kind: QuestionKind | None = None) -> Result:
    question = Question(kind=kind or QuestionKind.TOP_ERRORS, top=5, default_kind=kind is None)
    return analyze([str(path)], question, load_settings(analysis={"full": True}), fake_env())


def top(result: Result) -> list[tuple[str, int]]:
    return [(e.key, e.count) for e in result.answer.top]


LINES: dict[str, Callable[[int, int, str], str]] = {"syslog": syslog_nginx, "cri": cri_nginx}


@pytest.mark.parametrize("wrapper", sorted(LINES))
def test_a_wrapped_access_log_answers_the_default_question(tmp_path: Path, wrapper: str) -> None:
    """Every line a request inside the wrapper: the 5xx are ranked by route, and the status
    question gives HTTP statuses (it gave syslog's levels: INFO 14)."""
    line = LINES[wrapper]
    statuses = [404] * 10 + [502, 502, 500, 200]
    paths = ["/wp-config.php.swp"] * 10 + ["/wp-login.php", "/wp-login.php", "/", "/x"]
    log = tmp_path / f"{wrapper}.log"
    log.write_text(
        "".join(line(i, s, p) + "\n" for i, (s, p) in enumerate(zip(statuses, paths, strict=True)))
    )
    result = ask(log)
    assert result.question.kind is QuestionKind.TOP_ERRORS and result.status is Status.EXACT
    assert top(result) == [("/wp-login.php", 2), ("/", 1)]
    status = ask(log, QuestionKind.STATUS)
    assert dict(top(status)) == {"404": 10, "502": 2, "500": 1, "200": 1}
    app = ask(log, QuestionKind.TOP_ERROR_COMPONENTS)  # asked of the wrapper: still its own
    assert app.input.format != result.input.format


def test_an_access_question_of_a_log_mixed_with_its_servers_lines_is_answered(
    tmp_path: Path,
) -> None:
    """``docker logs`` of nginx: 4 requests then 9 of nginx's own [notice] lines. nginx_error
    reads the file best (the requests fold into its records as "stack traces"), and
    ``-q top-errors`` was refused: it is answered from the requests, with a warning; the
    default question is left to the application layout (the requests are the fewer)."""
    agent = '"Mozilla/5.0 (Windows NT 10.0; Win64; x64)" "-"'
    requests = [
        f'10.10.1.212 - - [28/Mar/2023:14:3{i}:50 +0000] "GET {p} HTTP/1.1" 500 5340 "-" {agent}'
        for i, p in enumerate(["/client", "/client", "/", "/"])
    ]
    notices = [
        f"2023/03/28 15:04:0{i} [notice] {i}#{i}: gracefully shutting down" for i in range(9)
    ]
    log = tmp_path / "docker.log"
    log.write_text("".join(line + "\n" for line in [*requests, *notices]))
    result = ask(log, QuestionKind.TOP_ERRORS)
    assert result.status is Status.EXACT and top(result) == [("/", 2), ("/client", 2)]
    assert any("read as an access log" in w and "nginx_error" in w for w in result.warnings)
    default = ask(log)  # "no ERROR+ record", and where the 5xx are
    assert default.input.format == "nginx_error" and default.status is Status.RECUSED
    assert "of the sampled lines are requests (combined)" in default.recuse.suggestion
    assert "-q top-errors" in default.recuse.suggestion


@pytest.mark.parametrize(
    ("stamp", "since"),
    [
        (lambda s: f"1.2.3.4 - - [22/Sep/2020 08:{s // 60:02d}:{s % 60:02d}]", "08:10"),
        (lambda s: f"::1 - - [Tue, 22 Sep 2020 08:{s // 60:02d}:{s % 60:02d} GMT]", "08:10"),
        (  # a Flask dev server under docker compose: read by generic_access
            lambda s: f"web-1  | 172.18.0.1 - - [22/Sep/2020 08:{s // 60:02d}:{s % 60:02d}]",
            "08:10",
        ),
    ],
    ids=["werkzeug", "morgan", "compose"],
)
def test_a_window_of_stamps_written_in_clfs_place(
    tmp_path: Path, stamp: Callable[[int], str], since: str
) -> None:
    """Werkzeug's ``[22/Sep/2020 08:27:44]`` and morgan's RFC 1123 stamp: ``--since`` was
    refused ("reads no timestamp"); the window counts the requests from 08:10 on."""
    lines = [
        f'{stamp(s)} "GET /p{s % 3} HTTP/1.1" {500 if s % 2 else 200} 12 "-" "x"'
        for s in range(0, 1800, 7)
    ]
    log = tmp_path / "access.log"
    log.write_text("".join(line + "\n" for line in lines))
    settings = load_settings(analysis={"full": True})
    question = Question(kind=QuestionKind.STATUS, top=5, since=f"2020-09-22T{since}:00Z")
    result = analyze([str(log)], question, settings, fake_env())
    want = sum(1 for s in range(0, 1800, 7) if s >= 600)
    assert result.status is Status.EXACT and result.answer.total == want


def test_a_request_without_a_response_is_a_request_with_status_0(tmp_path: Path) -> None:
    """morgan, Traefik and Apache write ``"POST /x HTTP/1.1" - -`` for a request the client left
    before its response (42 of 1,783 lines of a real Express log): they were malformed,
    missing from the status mix and from error-rate's requests. A plain line, one with an
    escaped quote (the capture groups) and one with a bare quote (the greedy read) alike."""
    head = '::1 - - [24/Jan/2024:11:08:{:02d} +0000] "POST {} HTTP/1.1" {} "-" "Mozilla/5.0"'
    lines = [head.format(i, "/expense/add", "200 12") for i in range(20)]
    lines += [head.format(20, "/expense/add", "- -"), head.format(21, '/a\\"b', "- -")]
    lines += [head.format(22, '/a"b', "- -"), head.format(23, "/expense/add", "503 0")]
    log = tmp_path / "morgan.log"
    log.write_text("".join(line + "\n" for line in lines))
    result = ask(log, QuestionKind.STATUS)
    assert dict(top(result)) == {"200": 20, "0": 3, "503": 1}
    assert result.progress.malformed_lines == 0
    assert any("3 requests carry no status" in w for w in result.warnings)
    rate = analyze(
        [str(log)],
        Question(kind=QuestionKind.ERROR_RATE, top=5, min_requests=1),
        load_settings(analysis={"full": True}),
        fake_env(),
    )
    assert {e.key: e.requests for e in rate.answer.top}["/expense/add"] == 22  # with its "-"


def test_iis_ftp_entries_are_no_http_requests(tmp_path: Path) -> None:
    """IIS writes its FTP service's log in W3C too (know-it-peru/WebKnowIT's FTPSVC2), with
    FTP replies in ``sc-status``: a glob over ``LogFiles/*/*.log`` counted 29 "5xx" that were
    530/534 replies to USER. An FTP list's entries are skipped (neither counted nor
    malformed), the web site's requests counted."""
    web = tmp_path / "W3SVC1.log"
    web.write_text(
        "#Software: Microsoft Internet Information Services 8.5\n#Version: 1.0\n"
        "#Fields: date time s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip "
        "cs(User-Agent) cs(Referer) sc-status sc-substatus sc-win32-status time-taken\n"
        + "".join(
            f"2016-02-06 18:0{i}:00 10.0.0.1 GET /wp-admin/setup-config.php - 80 - 1.2.3.4 "
            f"Mozilla/5.0 - {500 if i < 2 else 200} 0 0 15\n"
            for i in range(6)
        )
    )
    ftp = tmp_path / "FTPSVC2.log"
    ftp.write_text(
        "#Software: Microsoft Internet Information Services 8.5\n#Version: 1.0\n"
        "#Fields: date time c-ip cs-username s-ip s-port cs-method cs-uri-stem sc-status "
        "sc-win32-status sc-substatus x-session x-fullpath\n"
        + "".join(
            f"2016-02-06 18:01:5{i} ::1 - ::1 21 USER anonymous {530 + i % 5} 5 25 "
            f"7d5bdf35-ad07-4e53-8564-19b24f13e043 -\n"
            for i in range(8)
        )
    )
    settings = load_settings(analysis={"full": True})
    result = analyze([str(web), str(ftp)], Question(top=5), settings, fake_env())
    assert result.status is Status.EXACT and top(result) == [("/wp-admin/setup-config.php", 2)]
    assert result.answer.keyless == 0 and result.progress.malformed_lines == 0
    status = analyze(
        [str(web), str(ftp)], Question(kind=QuestionKind.STATUS, top=5), settings, fake_env()
    )
    assert dict(top(status)) == {"200": 4, "500": 2}
    assert any("IIS FTP entries" in w for w in status.warnings)


def test_iis4_ftp_entries_are_no_http_requests_and_a_log_of_them_says_so(tmp_path: Path) -> None:
    """IIS 4's FTP log names no field of its own (lnav's test log w3c.2): its ``cs-method`` is
    the session and the command (``[2]USER``, ``[3]sent``). Its 226/230/331 replies had been
    counted as 2xx/3xx HTTP statuses. Beside a web site's log its entries are skipped; alone,
    the refusal says it is an FTP service's log."""
    head = "#Software: Microsoft Internet Information Server 4.0\n#Version: 1.0\n"
    ftp = tmp_path / "ftp.log"
    ftp.write_text(
        head
        + "#Fields: time c-ip cs-method cs-uri-stem sc-status\n"
        + "16:44:49 1.1.1.1 [2]USER anonymous 331\n16:44:49 1.1.1.1 [2]PASS - 230\n"
        + "16:48:35 1.1.1.1 [3]sent /user/test.c 226\n16:48:41 1.1.1.1 [3]created a.txt 226\n"
        + "16:48:42 1.1.1.1 QUIT - 226\n"
    )
    web = tmp_path / "web.log"
    web.write_text(
        head
        + "#Fields: time c-ip cs-method cs-uri-stem sc-status\n"
        + "".join(f"16:4{i}:00 2.2.2.2 GET /a{i % 2} {500 if i < 3 else 200}\n" for i in range(8))
    )
    settings = load_settings(analysis={"full": True})
    status = Question(kind=QuestionKind.STATUS, top=9)
    both = analyze([str(web), str(ftp)], status, settings, fake_env())
    assert dict(top(both)) == {"200": 5, "500": 3}
    assert both.progress.malformed_lines == 0
    alone = analyze([str(ftp)], status, settings, fake_env())
    assert alone.status is Status.RECUSED and alone.recuse is not None
    assert "an FTP service" in alone.recuse.detail


def test_w3c_quoted_values_runs_of_blanks_and_a_missing_header(tmp_path: Path) -> None:
    """W3C strings may be quoted (IIS Advanced Logging's user agents, ``""`` a quote inside:
    lnav's w3c.3), values may be separated by runs of blanks (Oracle Web Cache: w3c.1), and a
    log cut without its ``#Fields`` header may be IIS 6's every field (ossec-hids' entries):
    each had every line refused ("not in a log format logagent knows")."""
    advanced = tmp_path / "advanced.log"
    advanced.write_text(
        "#Software: IIS Advanced Logging Module\n\n#Version: 1.0\n\n"
        "#Fields:   date-local time-local   s-ip   cs-method cs-uri-stem cs-uri-query s-port "
        "cs-username c-ip cs(User-Agent) cs(Referer) cs(Host) sc-status sc-substatus "
        "sc-win32-status TimeTakenMS\n"
        '2012-08-15 17:00:00.363 1.2.3.4 GET /Products/a - 80 - "70.95.0.0" "Mozilla/5.0 '
        '(Linux; Android 4.4.4)" "http://example.com/x" "xzy.example.com" 500 0 0 109\n'
        '2012-08-15 17:00:00.675 10.1.1.1 GET /hello/world - 80 - - "Mozilla/5.0 (Mac)" - '
        '"hello.example.com" 404 " ""garbage"" w/ spaces " 0 359\n'
    )
    oracle = tmp_path / "oracle.log"
    oracle.write_text(
        "#Version: 1.0\n#Software: Oracle9iAS Web Cache/2.0.0.2.0\n"
        "#Fields:  c-ip  c-dns  c-auth-id  date  time  cs-method  cs-uri  sc-status  bytes  "
        "cs(Cookie)  cs(Referrer)  time-taken  cs(User-Agent)\n"
        "64.103.37.2      client_joaz7      DMS.user      2001-10-31     00:00:18      GET      "
        '/admin/a.gif    502     350    "BIG=1443;ORA=%2f"     "http://x/y"     0.001     '
        '"Mozilla/4.0 (compatible; MSIE 5.5)"\n'
    )
    iis6 = tmp_path / "iis6.log"
    iis6.write_text(
        "2007-01-23 05:00:11 W3SVC22 xxx.ossec.net 1.2.3.4 GET / - 80 - 192.168.2.33 "
        "HTTP/1.1 Windows-Update-Agent - - myhost.name 500 0 0 1467 841 31\n"
        "2007-01-22 05:00:11 W3SVC1 HOSTNAME 1.1.1.1 POST /SimpleAuth.asmx - 80 - 2.2.2.2 "
        "HTTP/1.1 Windows-Update-Agent - - hostname 200 0 0 1467 841 31\n"
    )
    settings = load_settings(analysis={"full": True})
    status = Question(kind=QuestionKind.STATUS, top=9)
    for path, want in (
        (advanced, {"500": 1, "404": 1}),
        (oracle, {"502": 1}),
        (iis6, {"500": 1, "200": 1}),
    ):
        result = analyze([str(path)], status, settings, fake_env())
        assert result.status is Status.EXACT, (path.name, result.recuse)
        assert result.input.format == "w3c" and dict(top(result)) == want, path.name
        assert result.progress.malformed_lines == 0, path.name
    errors = analyze([str(advanced)], Question(top=5), settings, fake_env())
    assert top(errors) == [("/Products/a", 1)]
    by_client = Question(kind=QuestionKind.TOP, top=5, by="client")
    clients = analyze([str(advanced)], by_client, settings, fake_env())
    assert dict(top(clients)) == {"70.95.0.0": 1, "-": 1}  # the value, not its quotes


def test_level_asks_a_uvicorn_log_for_its_records_not_its_requests(tmp_path: Path) -> None:
    """uvicorn writes its requests and its own records in one log: the default question reads
    the requests (they are most of it), but ``--level`` is a question of an application's
    records (probe T: a uvicorn log's 110 WARNING records were never counted, --level warn
    answering 5xx routes)."""
    lines = []
    for i in range(60):
        status = 500 if i % 10 == 0 else 200
        request = f'"GET /items/{i} HTTP/1.1" {status} OK'
        lines.append(f"INFO:     10.0.0.{i % 7}:5000{i % 10} - {request}")
        if i % 3 == 0:
            lines.append("WARNING:  Invalid HTTP request received.")
    lines.append("ERROR:    Exception in ASGI application")
    log = tmp_path / "uvicorn.log"
    log.write_text("\n".join(lines) + "\n")
    plain = ask(log)
    assert plain.input.format == "generic_access" and top(plain) == [("/items/{id}", 6)]
    question = Question(kind=QuestionKind.TOP_ERRORS, top=5, default_kind=True, level="warn")
    settings = load_settings(analysis={"full": True, "level": "warn"})
    leveled = analyze([str(log)], question, settings, fake_env())
    assert leveled.input.format == "uvicorn" and leveled.status is Status.EXACT
    assert leveled.question.kind is QuestionKind.TOP_ERROR_COMPONENTS
    assert sum(e.count for e in leveled.answer.top) == 21  # 20 WARNING records, 1 ERROR
    assert not any("ambiguous" in w for w in leveled.warnings)  # uvicorn's lines are JUL's too
