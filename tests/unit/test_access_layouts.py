"""Access layouts of proxies, balancers and CDNs (formats/proxies.py, w3c.py, jsonaccess.py):
fields of each layout's own line shapes, what is no record, the #Fields: fit, the 5xx prefilter
as a superset of 5xx records, and detection naming them (and nothing else) unambiguously."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from logagent.errors import FormatError
from logagent.formats.catalog import build_any_format
from logagent.formats.detect import detect_all
from logagent.formats.extract import CONTINUATION
from logagent.formats.jsonaccess import CADDY, TRAEFIK
from logagent.formats.proxies import ALB, ELB, ENVOY, HAPROXY, HEROKU, S3, SQUID
from logagent.formats.w3c import CLOUDFRONT, IIS
from tests.real_reference import ACCESS_SAMPLES

DIR = Path(__file__).resolve().parents[2] / "sample_logs"

ISTIO = (
    '[2022-01-20T22:38:26.354Z] "GET /api/v1/items/42?x=1 HTTP/1.1" 503 UH no_healthy_upstream - '
    '"-" 0 19 0 - "192.168.0.3" "curl/7.68.0" "069c37c4-bead-49ae-8ef3-fe9fdca1602b" '
    '"app.test.com" "-" outbound|80||my-app.default.svc.cluster.local - 10.244.0.233:80 '
    "192.168.0.3:43900 - my-app"
)
ENVOY_CLASSIC = (
    '[2018-11-23T04:51:00.281Z] "GET / HTTP/1.1" 200 - 0 58 4 1 "-" "curl/7.47.0" '
    '"f21ebd42-6770-4aa5-88d4-e56118165a7d" "one.example.com" "172.18.0.4:80"'
)
HAPROXY_BARE = (
    "10.0.1.2:33317 [06/Feb/2009:12:14:14.655] http-in static/srv1 10/0/30/69/109 502 2750 "
    '- - ---- 1/1/1/1/0 0/0 {1wt.eu} {} "GET /index.html HTTP/1.1"'
)
HAPROXY_TCP = (
    "Feb  6 12:12:56 localhost haproxy[14387]: 10.0.1.2:33313 [06/Feb/2009:12:12:51.443] fnt "
    "bck/srv1 0/0/5007 212 -- 0/0/0/0/3 0/0"
)
ALB_NO_REQUEST = (
    "http 2018-11-30T22:23:00.186641Z app/my-lb/50dc6c495c0c9188 192.168.131.39:2817 - "
    '-1 -1 -1 400 - 0 0 "- - - " "-" - - - "-" "-" "-" - 2018-11-30T22:22:48.364000Z "-" "-" "-"'
)
TRAEFIK_LINE = json.dumps(
    {
        "ClientHost": "10.0.0.12",
        "DownstreamStatus": 502,
        "RequestMethod": "POST",
        "RequestPath": "/travel/7?a=b",
        "request_User-Agent": "curl/8.0",
        "level": "info",
        "msg": "",
        "time": "2026-05-18T09:52:41Z",
    }
)


def parse(fmt: object, lines: list[str]) -> list[dict[str, object]]:
    line = pl.col("line")
    cols = {**fmt.fields(line), **fmt.extra_fields(line)}  # type: ignore[attr-defined]
    return pl.DataFrame({"line": lines}).select(**cols).to_dicts()


def test_envoy_reads_istio_and_the_classic_default() -> None:
    istio, classic = parse(ENVOY, [ISTIO, ENVOY_CLASSIC])
    assert istio["status"] == 503 and istio["path"] == "/api/v1/items/42?x=1"
    assert istio["client"] == "192.168.0.3" and istio["user_agent"] == "curl/7.68.0"
    assert istio["method"] == "GET"
    assert classic["status"] == 200 and classic["path"] == "/" and classic["client"] == "-"


def test_haproxy_without_syslog_header_and_tcp_lines_are_no_records() -> None:
    bare, tcp = parse(HAPROXY, [HAPROXY_BARE, HAPROXY_TCP])
    assert (bare["status"], bare["path"], bare["client"]) == (502, "/index.html", "10.0.1.2")
    assert tcp["status"] is None  # a TCP log line has no HTTP status


def test_haproxy_reads_a_request_it_cut_at_its_log_length() -> None:
    """HAProxy cuts a request past ``tune.http.logurilen`` and logs no closing quote
    (logstash-patterns-core's haproxy spec has such a line): a 503 there had been malformed."""
    cut = (
        "Jul 31 22:20:22 loadbalancer haproxy[1190]: 203.0.113.54:59968 [31/Jul/2017:22:20:22.447]"
        " loadbalancer default/instance8 135/0/1/19/156 503 1015 - - --VR 8/8/0/0/0 0/0 "
        '"GET /path/to/request/that/exceeds/more/than/1024/charactersss'
    )
    (row,) = parse(HAPROXY, [cut])
    assert (row["status"], row["method"]) == (503, "GET")
    assert row["path"] == "/path/to/request/that/exceeds/more/than/1024/charactersss"
    assert parse(HAPROXY, [cut.replace('"GET', "GET")])[0]["status"] is None  # no request


def test_a_request_without_a_path_is_still_a_record() -> None:
    (row,) = parse(ALB, [ALB_NO_REQUEST])
    assert row["status"] == 400 and row["path"] is None and row["method"] is None


def test_classic_elb_tcp_entries_are_flagged_not_malformed() -> None:
    tcp = (
        "2015-05-13T23:39:43.945958Z my-loadbalancer 192.168.131.39:2817 10.0.0.1:80 "
        '0.001069 0.000028 0.000041 - - 82 305 "- - - " "-" - -'
    )
    frame = pl.DataFrame({"line": [tcp]}).select(**ELB.fields(pl.col("line")))
    assert frame[CONTINUATION].to_list() == [True] and frame["status"].to_list() == [None]


def test_traefik_and_caddy_fields() -> None:
    (row,) = parse(TRAEFIK, [TRAEFIK_LINE])
    assert row == {
        "path": "/travel/7?a=b",
        "status": 502,
        "client": "10.0.0.12",
        "method": "POST",
        "user_agent": "curl/8.0",
    }
    other = json.dumps({"level": "info", "ts": 1.5, "msg": "server running"})
    (row,) = parse(CADDY, [other])
    assert row["status"] is None  # Caddy's own log lines are no requests


def test_w3c_fit_reads_every_fields_block_of_the_sample() -> None:
    sample = [
        "#Fields: date time cs-method cs-uri-stem sc-status",
        "2020-01-01 00:00:00 GET /a 500",
        "#Fields: date time c-ip cs-method cs-uri-stem cs-uri-query sc-status cs(User-Agent)",
        "2020-01-01 00:00:01 1.2.3.4 POST /b x=1 200 curl/8",
        "junk that is no record",
    ]
    fmt = IIS.fit(sample)
    rows = parse(fmt, sample)
    assert [r["status"] for r in rows] == [None, 500, None, 200, None]
    assert rows[1]["path"] == "/a" and rows[1]["client"] is None
    assert (rows[3]["client"], rows[3]["method"], rows[3]["user_agent"]) == (
        "1.2.3.4",
        "POST",
        "curl/8",
    )
    flags = pl.DataFrame({"line": sample}).select(**fmt.fields(pl.col("line")))[CONTINUATION]
    assert flags.to_list() == [True, False, True, False, False]
    # A line of IIS's default field list is read even when the sample names no #Fields.
    default = "2018-01-01 08:09:10 127.0.0.1 GET / q=100 80 - 81.2.69.143 Mozilla/5.0 - 503 0 0 123"
    assert parse(IIS.fit([]), [default])[0]["status"] == 503


def test_cloudfront_and_iis_do_not_read_each_other() -> None:
    cf = (DIR / "cloudfront.log").read_text().splitlines()
    iis = (DIR / "iis_w3c.log").read_text().splitlines()
    records = [r for r in parse(IIS.fit(cf), cf) if r["status"] is not None]
    assert records == []
    records = [r for r in parse(CLOUDFRONT.fit(iis), iis) if r["status"] is not None]
    assert records == []


@pytest.mark.parametrize("name", sorted(ACCESS_SAMPLES))
def test_the_prefilter_keeps_every_5xx_record(name: str) -> None:
    """Lines the 5xx prefilter drops hold no 5xx record (the errors-only read stays exact)."""
    lines = [ln for ln in (DIR / name).read_text().splitlines() if ln.strip()]
    extra = {"haproxy": [HAPROXY_BARE], "envoy": [ISTIO], "alb": [ALB_NO_REQUEST]}
    lines += extra.get(ACCESS_SAMPLES[name], [])
    fmt = build_any_format(ACCESS_SAMPLES[name], lines)
    prefilter = fmt.error_prefilter
    assert prefilter is not None
    frame = pl.DataFrame({"line": lines}).select(pl.col("line"), **fmt.fields(pl.col("line")))
    for row in frame.iter_rows(named=True):
        if row["status"] is not None and 500 <= row["status"] <= 599:
            assert prefilter.search(row["line"].encode()), row["line"]


def test_detection_names_each_layout_on_inline_lines() -> None:
    cases = {
        "envoy": [ISTIO, ENVOY_CLASSIC],
        "haproxy": [HAPROXY_BARE],
        "traefik": [TRAEFIK_LINE],
        "s3": S3_LINES,
        "squid": SQUID_LINES,
        "heroku": HEROKU_LINES,
    }
    for name, lines in cases.items():
        found = detect_all(lines)
        assert found.best == name and found.confidence == 1.0 and not found.ambiguous


def test_w3c_directives_are_excused_from_detection() -> None:
    lines = (DIR / "cloudfront.log").read_text().splitlines()
    found = detect_all(lines)
    assert found.best == "cloudfront" and found.confidence == 1.0
    assert dict(found.scores)["w3c"] == 0.0


def test_unknown_format_lists_the_new_layouts() -> None:
    with pytest.raises(FormatError) as err:
        build_any_format("nosuch", [])
    for name in (
        "haproxy",
        "envoy",
        "alb",
        "elb",
        "cloudfront",
        "w3c",
        "caddy",
        "traefik",
        "cloudflare",
        "uwsgi",
        "s3",
        "squid",
        "heroku",
    ):
        assert name in str(err.value)


def test_w3c_fit_keeps_at_most_max_sets_field_lists() -> None:
    """A sample with many distinct #Fields lists fits the first MAX_SETS (plus the defaults:
    IIS's default list and IIS 6's every field, for a log without its header)."""
    from logagent.formats.w3c import MAX_SETS

    sample = [
        f"#Fields: date time {' '.join(f'f{i}' for i in range(n))} sc-status" for n in range(40)
    ]
    fmt = IIS.fit(sample)
    assert len(IIS.field_sets) == 2 and len(fmt.field_sets) == MAX_SETS + 2
    assert fmt.field_sets[0] == ("date", "time", "sc-status")


def test_mixed_inputs_keep_w3c_directives_apart() -> None:
    """FirstOf(w3c, haproxy): directives stay flagged, records of both parse, junk is neither."""
    from logagent.formats.mixed import FirstOf

    lines = ["#Fields: date time cs-method cs-uri-stem sc-status", "2020-01-01 00:00:00 GET /a 500"]
    mixed = FirstOf((IIS.fit(lines), HAPROXY))
    sample = [*lines, HAPROXY_BARE, "junk line that nothing reads"]
    frame = pl.DataFrame({"line": sample}).select(**mixed.fields(pl.col("line")))
    assert frame["status"].to_list() == [None, 500, 502, None]
    assert frame[CONTINUATION].to_list() == [True, False, False, False]


UWSGI_LINES = [
    "*** Starting uWSGI 2.0.21 (64bit) on [Tue Mar  5 10:00:00 2024] ***",
    "[pid: 41|app: 0|req: 7/7] 10.1.2.3 () {52 vars in 1011 bytes} [Tue Mar  5 10:00:01 2024] "
    "GET /orders/17?page=2 => generated 93 bytes in 412 msecs (HTTP/1.1 502) 3 headers in 120 "
    "bytes (1 switches on core 0)",
    "Traceback (most recent call last):",
    "[pid: 41|app: -1|req: -1/8] 10.1.2.4 (alice) {40 vars in 700 bytes} [Tue Mar  5 10:00:02 "
    "2024] POST /login => generated 21 bytes in 75 micros (HTTP/2.0 200) 2 headers in 83 bytes "
    "(0 switches on core 1)",
    "[pid: 41|app: 0|req: 8/9] 10.1.2.5 () {52 vars in 1011 bytes} [Tue Mar  5 10:00:03 2024] "
    "GET /big.iso => generated 0 bytes in 2 msecs via offload() (HTTP/1.1 503) 3 headers in 120 "
    "bytes (1 switches on core 0)",
    "[pid: 41|app: 0|req: 9/10] 0.0.0.0 () {0 vars in 9000 bytes} [Tue Mar  5 10:00:04 2024] - - "
    "=> generated 0 bytes in 0 msecs (- 500) 0 headers in 0 bytes (0 switches on core 0)",
]


def test_uwsgi_request_lines_and_the_apps_output() -> None:
    """uWSGI's request lines are records (padded day, app -1, micros, HTTP/2); the app's own
    output between them is not; its 5xx prefilter keeps every 5xx line."""
    from logagent.formats.proxies import UWSGI

    frame = pl.DataFrame({"line": UWSGI_LINES}).select(
        **UWSGI.fields(pl.col("line")), **UWSGI.extra_fields(pl.col("line")),
        time=UWSGI.time_expr(pl.col("line")),
    )  # fmt: skip
    assert frame["status"].to_list() == [None, 502, None, 200, 503, 500]
    assert frame["path"].to_list()[3:] == ["/login", "/big.iso", "-"]
    assert frame["path"][1] == "/orders/17?page=2"
    assert frame["client"].to_list()[3:] == ["10.1.2.4", "10.1.2.5", "0.0.0.0"]
    assert frame["method"].to_list()[3:] == ["POST", "GET", "-"]
    assert [str(t) for t in frame["time"].to_list()[1::2]] == [
        "2024-03-05 10:00:01+00:00",
        "2024-03-05 10:00:02+00:00",
        "2024-03-05 10:00:04+00:00",
    ]
    for line, status in zip(UWSGI_LINES, frame["status"].to_list(), strict=True):
        assert bool(UWSGI.error_prefilter.search(line.encode())) == ((status or 0) >= 500)
    found = detect_all(UWSGI_LINES * 3)
    assert found.best == "uwsgi" and found.confidence == 4 / 6


def test_w3c_records_need_an_http_status_and_a_date() -> None:
    """A space-separated line of another layout that splits into as many values (a syslog line)
    is no W3C record: its status must be an HTTP one (or CloudFront's 000) and its date a
    date."""
    cron = "Mar 22 13:41:18 host app[1]: GET /x from 10.0.0.1 port 80 443 ms ok done"
    plain = "2024-01-02 03:04:05 10.0.0.1 GET /a - 80 - 10.0.0.2 curl - 000 0 0 12"
    bad = "2024-01-02 03:04:05 10.0.0.1 GET /a - 80 - 10.0.0.2 curl - 10 0 0 12"
    frame = pl.DataFrame({"line": [cron, plain, bad]}).select(**IIS.fields(pl.col("line")))
    assert frame["status"].to_list() == [None, 0, None]


#: Amazon S3 server access log: lnav's ``src/formats/s3_log.json`` samples (tstack/lnav @
#: bb0005f96c8dc486ee0b9005a4562be0ef61c878, BSD-2-Clause), the second with a 503 SlowDown of
#: a PUT and an ARN requester; then a lifecycle expiration, as AWS's documentation lists them.
S3_LINES = [
    "b659b576cff1e15e4c0313ff8930fba9f53e6794567f5c60dab3abf2f8dfb6cc www.example.com "
    "[10/Feb/2012:16:42:07 -0500] 1.2.3.4 arn:aws:iam::179580289999:user/phillip.boss "
    '5F9C7B4C2B0B5D6E REST.GET.OBJECT index "GET /index HTTP/1.1" 200 - 368 368 10 9 '
    '"-" "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/535.11 (KHTML, like Gecko)"',
    "79a59df900b949e55d96a1e698fbacedfd6e09d98eacf8f8d5218e7cd47ef2be awsexamplebucket1 "
    "[06/Feb/2019:00:00:38 +0000] 192.0.2.3 arn:aws:sts::123456789012:assumed-role/ci/job "
    "3E57427F3EXAMPLE REST.PUT.OBJECT photos/2019/08/puppy.jpg "
    '"PUT /awsexamplebucket1/photos/2019/08/puppy.jpg?x-foo=bar HTTP/1.1" 503 SlowDown 244 '
    '- 11 - "-" "aws-sdk-java/1.11.506" - s9lzHYrFp76ZVxRcpX9+5cjAnEH2ROuNkd2BHfIa6UkFVdtjf5mK= '
    "SigV4 ECDHE-RSA-AES128-GCM-SHA256 AuthHeader awsexamplebucket1.s3.us-west-1.amazonaws.com "
    "TLSV1.2 - -",
]
S3_LIFECYCLE = (
    "79a59df900b949e55d96a1e698fbacedfd6e09d98eacf8f8d5218e7cd47ef2be awsexamplebucket1 "
    "[06/Feb/2019:00:00:38 +0000] - AWS:79A59DF900B949E5 3E57427F3EXAMPLE S3.EXPIRE.OBJECT "
    'photos/2018/puppy.jpg "-" - - - 1024 - - "-" "-" -'
)


def test_s3_access_log_fields_time_and_its_own_work() -> None:
    """S3's path is the request URI's, its status the HTTP one; a lifecycle entry (status
    ``-``) is flagged as no HTTP record, not malformed."""
    frame = pl.DataFrame({"line": [*S3_LINES, S3_LIFECYCLE]})
    line = pl.col("line")
    got = frame.select(**S3.fields(line), **S3.extra_fields(line), time=S3.time_expr(line))
    assert got.select("path", "status", "client", "method").rows() == [
        ("/index", 200, "1.2.3.4", "GET"),
        ("/awsexamplebucket1/photos/2019/08/puppy.jpg?x-foo=bar", 503, "192.0.2.3", "PUT"),
        (None, None, None, None),
    ]
    assert got[CONTINUATION].to_list() == [False, False, True]
    assert got["user_agent"][1] == "aws-sdk-java/1.11.506"
    assert [str(t) for t in got["time"][:2]] == [
        "2012-02-10 21:42:07+00:00",
        "2019-02-06 00:00:38+00:00",
    ]
    assert S3.error_prefilter is not None and S3.error_prefilter.search(S3_LINES[1].encode())
    assert detect_all([*S3_LINES, S3_LIFECYCLE] * 5).scores[0] == ("s3", 1.0)


#: Squid's native access log: logstash-plugins/logstash-patterns-core
#: ``spec/patterns/squid_spec.rb`` @ 7f94275ec8212f7f0aa6eb4ac5dbf3d70cd05cac (Apache-2.0), its
#: three lines; then one with a 503, and one through syslog with a 502.
SQUID_LINES = [
    "1525344856.899  16867 10.170.72.111 TCP_TUNNEL/200 6256 CONNECT "
    "logs.ap-southeast-2.amazonaws.com:443 - HIER_DIRECT/53.140.206.134 -",
    "1525334330.556      3 120.65.1.1 TCP_REFRESH_MISS/200 2014 GET "
    "http://www.sample.com/hellow_world.txt public-user DIRECT/www.sample.com text/plain "
    "902351708.872",
    "1426235912.366     16 192.168.3.50 TCP_MISS_ABORTED/000 0 GET "
    "http://garfield.com/comic/2015-03-13 - HIER_DIRECT/193.135.59.44 -",
    "1580740555.461    138 192.168.5.2 TCP_MISS/503 3853 GET http://wiki.ipfire.org/ "
    "hansolo@jedi.local DIRECT/178.63.73.246 text/html",
    "Mar 13 08:38:32 proxy squid[1234]: 1426235912.366     16 192.168.3.50 TCP_MISS/502 0 GET "
    "http://garfield.com/comic/2015-03-14 - HIER_DIRECT/193.135.59.44 -",
]


def test_squid_status_after_the_cache_result_and_epoch_time() -> None:
    frame = pl.DataFrame({"line": SQUID_LINES})
    line = pl.col("line")
    got = frame.select(**SQUID.fields(line), **SQUID.extra_fields(line), time=SQUID.time_expr(line))
    assert got.select("status", "client", "method").rows() == [
        (200, "10.170.72.111", "CONNECT"),
        (200, "120.65.1.1", "GET"),
        (0, "192.168.3.50", "GET"),
        (503, "192.168.5.2", "GET"),
        (502, "192.168.3.50", "GET"),
    ]
    assert got["path"].to_list()[:2] == [
        "/logs.ap-southeast-2.amazonaws.com:443",
        "/www.sample.com/hellow_world.txt",  # the site stays in the route
    ]
    assert str(got["time"][0]) == "2018-05-03 10:54:16.899000+00:00"
    secret = SQUID_LINES[3].replace("http://wiki", "http://bob:hunter2@wiki")
    path = pl.DataFrame({"line": [secret]}).select(SQUID.fields(line)["path"]).item()
    assert path == "/wiki.ipfire.org/"  # credentials in a URL never reach a route
    prefilter = SQUID.error_prefilter
    assert prefilter is not None
    assert [bool(prefilter.search(x.encode())) for x in SQUID_LINES] == [0, 0, 0, 1, 1]
    # through syslog only: squid, not syslog3164 (nested), and not ambiguous
    found = detect_all(SQUID_LINES[4:] * 10)
    assert found.best == "squid" and not found.ambiguous
    # with other programs' syslog lines: squid while it reads half the sample, then syslog
    other = "May  3 10:54:17 proxy cron[77]: (root) CMD (run-parts /etc/cron.hourly)"
    mostly = detect_all(SQUID_LINES[4:] * 10 + [other] * 9)
    assert mostly.best == "squid" and not mostly.ambiguous
    assert detect_all(SQUID_LINES[4:] * 10 + [other] * 11).best == "syslog3164"


#: Heroku's router, as Heroku's documentation prints its lines (``heroku logs``), an H12 and a
#: plain request; then one through a Logplex syslog drain (RFC 5424).
HEROKU_LINES = [
    "2026-12-06T02:40:38.123456+00:00 heroku[router]: at=error code=H12 "
    'desc="Request timeout" method=GET path="/api/items/42" host=myapp.herokuapp.com '
    'request_id=8601b555-6a34-4c5d-8e35-1f1a4a7e0d9f fwd="204.204.204.204" dyno=web.1 '
    "connect=0ms service=30000ms status=503 bytes=0 protocol=https",
    "2026-12-06T02:40:39.223456+00:00 heroku[router]: at=info method=POST path=/login "
    'host=myapp.herokuapp.com request_id=8601b556 fwd="204.204.204.205" dyno=web.2 '
    "connect=1ms service=18ms status=302 bytes=421 protocol=https",
    "<158>1 2026-12-06T02:40:40.323456+00:00 host heroku router - at=info method=GET "
    'path="/" host=myapp.herokuapp.com request_id=8601b557 fwd="204.204.204.206" dyno=web.1 '
    "connect=0ms service=3ms status=200 bytes=1024 protocol=https",
    # H18 puts sock= first; the older form has no request_id and fwd unquoted
    "2026-12-06T02:40:41.000000+00:00 heroku[router]: sock=backend at=error code=H18 "
    'desc="Server Request Interrupted" method=POST path="/upload" host=myapp.herokuapp.com '
    'request_id=8601b558 fwd="204.204.204.207" dyno=web.1 connect=1ms service=9ms status=503 '
    "bytes=0 protocol=https",
    "2012-11-30T06:45:29.000000+00:00 heroku[router]: at=info method=GET path=/ "
    "host=myapp.herokuapp.com fwd=17.17.17.17 dyno=web.1 connect=1ms service=18ms status=200 "
    "bytes=1234",
]


def test_heroku_router_fields_time_and_prefilter() -> None:
    frame = pl.DataFrame({"line": HEROKU_LINES})
    line = pl.col("line")
    got = frame.select(**HEROKU.fields(line), **HEROKU.extra_fields(line), t=HEROKU.time_expr(line))
    assert got.select("path", "status", "client", "method").rows() == [
        ("/api/items/42", 503, "204.204.204.204", "GET"),
        ("/login", 302, "204.204.204.205", "POST"),
        ("/", 200, "204.204.204.206", "GET"),
        ("/upload", 503, "204.204.204.207", "POST"),
        ("/", 200, "17.17.17.17", "GET"),
    ]
    assert str(got["t"][0]) == "2026-12-06 02:40:38.123456+00:00"
    prefilter = HEROKU.error_prefilter
    assert prefilter is not None
    assert [bool(prefilter.search(x.encode())) for x in HEROKU_LINES] == [1, 0, 0, 1, 0]
    found = detect_all(HEROKU_LINES[2:3] * 10)  # the drain's lines alone: heroku, not syslog5424
    assert found.best == "heroku" and not found.ambiguous


def test_kubernetes_audit_log_reads_as_its_own_json_access_layout() -> None:
    """The API server's audit log: 5xx by ``requestURI`` (``responseStatus.code``); an event of
    the stage before the response (no status yet) is flagged, not malformed, so an audit
    policy that keeps ``RequestReceived`` still reads at 100 %."""
    rows = []
    for i in range(20):
        base = {
            "kind": "Event",
            "apiVersion": "audit.k8s.io/v1",
            "level": "Metadata",
            "auditID": f"id-{i}",
            "requestURI": f"/api/v1/namespaces/default/pods/web-{i}",
            "verb": "get",
            "sourceIPs": ["10.0.0.7"],
            "userAgent": "kubectl/v1.29.0",
            "requestReceivedTimestamp": "2026-12-06T02:40:38.123456Z",
        }
        rows.append({**base, "stage": "RequestReceived"})
        done = {"metadata": {}, "code": 500 if i % 2 else 200}
        rows.append({**base, "stage": "ResponseComplete", "responseStatus": done})
    lines = [json.dumps(r) for r in rows]
    found = detect_all(lines)
    assert found.scores[0] == ("k8s_audit", 1.0) and not found.ambiguous
    fmt = build_any_format("k8s_audit", lines)
    line = pl.col("line")
    frame = pl.DataFrame({"line": lines}).select(**fmt.fields(line), **fmt.extra_fields(line))
    assert frame["status"].to_list()[:4] == [None, 200, None, 500]
    assert frame[CONTINUATION].to_list()[:4] == [True, False, True, False]
    assert frame.row(3, named=True)["path"] == "/api/v1/namespaces/default/pods/web-1"
    assert frame.row(3, named=True)["client"] == "10.0.0.7"
    # an application's JSON log that carries a responseStatus is not taken for an audit log
    app = [
        json.dumps({"time": "2026-12-06T02:40:38Z", "level": "ERROR", "msg": f"call {i} failed",
                    "responseStatus": {"code": 500}})
        for i in range(20)
    ]  # fmt: skip
    assert detect_all(app).best != "k8s_audit"


def test_generic_access_reads_custom_log_formats_and_yields_to_named_layouts() -> None:
    """A custom nginx ``log_format`` no layout names (no ident and user, an ISO stamp first) is
    read by its quoted request line and the status after it, discounted as ``generic`` is; a
    log a layout names keeps it, unambiguously."""
    from logagent.formats.proxies import GENERIC_ACCESS

    custom = [
        '10.0.0.1 [06/Dec/2026:02:40:38 +0000] "GET /api/v1/items/42 HTTP/1.1" 502 150 "-" "curl"',
        '2026-12-06T02:40:39+00:00 10.0.0.2 "POST /login HTTP/2.0" 200 615 0.001',
        '2026-12-06T02:40:40+00:00 10.0.0.3 "GET /x HTTP/1.1" 5000 1',  # no 3-digit status
        # HAProxy's marker of a request it could not parse, in a custom CLF-like log-format
        # wrapped in syslog (probe J: 52 such 400s had been malformed, 4xx "exact" at 2)
        "Nov 10 15:10:57 haproxy haproxy[489]: 203.116.206.254 - - [10/Nov/2016:07:10:57 +0000]"
        ' "<BADREQ>" 400 187 "" "" 33813 470 "bayer" "bayer" "<NOSRV>" -1 -1 -1 -1 48 PR--',
    ]
    line = pl.col("line")
    got = pl.DataFrame({"line": custom}).select(
        **GENERIC_ACCESS.fields(line),
        **GENERIC_ACCESS.extra_fields(line),
        t=GENERIC_ACCESS.time_expr(line),
    )
    assert got.select("path", "status", "method").rows() == [
        ("/api/v1/items/42", 502, "GET"),
        ("/login", 200, "POST"),
        (None, None, None),
        (None, 400, None),
    ]
    assert [str(t) for t in got["t"][:2]] == [
        "2026-12-06 02:40:38+00:00",
        "2026-12-06 02:40:39+00:00",
    ]
    assert GENERIC_ACCESS.error_prefilter is not None
    assert GENERIC_ACCESS.error_prefilter.search(custom[0].encode())
    found = detect_all(custom[:2] * 10)
    assert found.scores[0] == ("generic_access", 0.9) and not found.ambiguous
    combined = (DIR / "nginx_access.log").read_text().splitlines()[:200]
    found = detect_all(combined)
    assert found.best == "combined" and not found.ambiguous
    assert dict(found.scores)["generic_access"] == pytest.approx(0.9, abs=0.01)


def test_w3c_reads_quotes_and_ftp_methods_only_where_its_sample_has_them() -> None:
    """The quote-aware tokenizer and the FTP-method test cost 7x a split on a 227 MB IIS log
    (a review): a fitted layout uses them only when its sample shows quotes or runs of
    blanks, and an FTP command as a method."""
    head = "#Fields: date time c-ip cs-method cs-uri-stem sc-status"
    plain = IIS.fit([head, "2024-01-01 00:00:00 1.2.3.4 GET /a 200"])
    assert not plain.quoted and not plain.ftp_methods
    quoted = IIS.fit([head, '2024-01-01 00:00:00 "1.2.3.4" GET /a 200'])
    assert quoted.quoted and not quoted.ftp_methods
    ftp = IIS.fit([head, "2024-01-01 00:00:00 1.2.3.4 [2]USER anonymous 331"])
    assert ftp.ftp_methods and not ftp.quoted
