"""Parsers, JSON key mapping, detection and route normalization."""

from __future__ import annotations

import json

import polars as pl
import pytest

from logagent.formats import DEFAULT_RULES, detect, normalize_paths
from logagent.formats.access import COMBINED, COMMON
from logagent.formats.base import parse as parse_lines
from logagent.formats.jsonl import JsonFormat, auto_mapping
from logagent.formats.routes import INVALID_REQUEST, RouteRule
from logagent.testing import combined_line, common_line


def parse(fmt, lines):  # type: ignore[no-untyped-def]
    return parse_lines(fmt, pl.Series("line", lines, dtype=pl.String)).rows()


def test_combined_parses_path_and_status_with_trailing_fields() -> None:
    """combined yields the raw path and status, with or without a trailing request time."""
    line = combined_line("/api/v1/users/7?x=1", 503)
    assert parse(COMBINED, [line, line.rsplit(" ", 1)[0]]) == [("/api/v1/users/7?x=1", 503)] * 2


def test_combined_keeps_invalid_requests_as_records() -> None:
    """A TLS probe logged as a request is a valid record with no path."""
    line = '1.2.3.4 - - [28/Nov/2026:13:55:36 +0000] "\\x16\\x03\\x01\\x00" 400 157 "-" "-"'
    assert parse(COMBINED, [line]) == [(None, 400)]


def test_combined_handles_escaped_quotes() -> None:
    """Escaped quotes inside the request and user agent do not break the line."""
    line = '1.2.3.4 - - [28/Nov/2026:13:55:36 +0000] "GET /a\\"b HTTP/1.1" 502 1 "-" "x \\"y\\" z"'
    assert parse(COMBINED, [line]) == [('/a\\"b', 502)]


def test_common_and_combined_do_not_overlap() -> None:
    """A common line is not combined and vice versa."""
    c, k = common_line("/x", 200), combined_line("/x", 200)
    assert parse(COMMON, [c, k]) == [("/x", 200), (None, None)]
    assert parse(COMBINED, [c, k]) == [(None, None), ("/x", 200)]


def test_json_auto_mapping_finds_common_keys() -> None:
    """status_code / url / @timestamp style keys are found automatically."""
    sample = [json.dumps({"status_code": 503, "url": "/p/1", "@timestamp": "t"}) for _ in range(4)]
    mapping = auto_mapping(sample)
    assert (mapping["status"], mapping["path"], mapping["ts"]) == (
        "status_code",
        "url",
        "@timestamp",
    )


def test_json_explicit_nested_mapping_wins() -> None:
    """An explicit dotted key reaches into nested objects."""
    line = json.dumps({"http": {"response": {"status_code": "502"}}, "url": {"path": "/n/9"}})
    fmt = JsonFormat(
        mapping=auto_mapping([line], {"status": "http.response.status_code", "path": "url.path"})
    )
    assert parse(fmt, [line, "not json", "{}"]) == [("/n/9", 502), (None, None), (None, None)]


def test_json_request_key_yields_the_path() -> None:
    """A 'request' key holding 'GET /x HTTP/1.1' is reduced to its path."""
    line = json.dumps({"status": 500, "request": "GET /r/5?q HTTP/1.1"})
    fmt = JsonFormat(mapping=auto_mapping([line]))
    assert parse(fmt, [line]) == [("/r/5?q", 500)]


def test_json_prefilter_matches_5xx_records() -> None:
    """The JSON prefilter accepts spaced and quoted 5xx values and rejects 4 digits."""
    fmt = JsonFormat(mapping={"status": "http.status", "path": "p"})
    assert fmt.error_prefilter.search(b'{"status": "503"}')
    assert fmt.error_prefilter.search(b'{"status":500,')
    assert not fmt.error_prefilter.search(b'{"status":5000}')


@pytest.mark.parametrize(
    ("lines", "best"),
    [
        ([combined_line("/a", 200)] * 5, "combined"),
        ([common_line("/a", 200)] * 5, "common"),
        ([json.dumps({"status": 200, "path": "/a"})] * 5, "jsonl"),
    ],
)
def test_detect_picks_the_format_that_parses_most(lines: list[str], best: str) -> None:
    """Detection ranks the right format first with full confidence."""
    d = detect([*lines, "garbage"])
    assert d.best == best
    assert d.confidence == pytest.approx(5 / 6)


def test_detect_gives_zero_confidence_on_junk() -> None:
    """Random text parses in no format."""
    assert detect(["\x00\x01 binary", "hello world", "x" * 300]).confidence == 0.0


def test_route_normalization_rules() -> None:
    """ids, UUIDs, long hex, query strings and absolute URIs are folded."""
    raw = pl.Series(
        [
            "/u/83473/orders?page=2",
            "/p/550E8400-E29B-41D4-A716-446655440000",
            "/h/0123456789abcdef0/x#f",
            "http://example.com:8080/v1/x/12",
            "/v1/ab12",
            None,
            # a JSON Web Token in the path (probe J: each one had been a route of its own)
            "/agent/eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9P",
            "/eyJhbGciOiJIUzI1NiJ9.x.y",  # no token: its payload is too short
        ]
    )
    assert normalize_paths(raw, DEFAULT_RULES).to_list() == [
        "/u/{id}/orders",
        "/p/{uuid}",
        "/h/{hex}/x",
        "/v1/x/{id}",
        "/v1/ab12",
        INVALID_REQUEST,
        "/agent/{jwt}",
        "/eyJhbGciOiJIUzI1NiJ9.x.y",
    ]


def test_custom_route_rule_extends_defaults() -> None:
    """A configured rule applies to whole segments only."""
    rules = (*DEFAULT_RULES, RouteRule("sku", r"SKU-[A-Z0-9]+", "{sku}"))
    out = normalize_paths(pl.Series(["/item/SKU-AB12", "/item/xSKU-AB12"]), rules).to_list()
    assert out == ["/item/{sku}", "/item/xSKU-AB12"]


def test_vhost_combined_prefix_is_accepted() -> None:
    """apache vhost_combined lines (leading host:port) parse like combined ones."""
    line = "shop.example.com:443 " + combined_line("/cart/7", 502)
    assert parse(COMBINED, [line]) == [("/cart/7", 502)]
    assert detect([line] * 4).best == "combined"


@pytest.mark.parametrize(
    ("obj", "want"),
    [
        ({"request": {"uri": "/c/1", "method": "GET"}, "status": 502}, ("/c/1", 502)),  # caddy
        ({"req": {"url": "/p/2"}, "res": {"statusCode": 503}}, ("/p/2", 503)),  # pino
        ({"RequestPath": "/t/3", "DownstreamStatus": 500}, ("/t/3", 500)),  # traefik
        ({"httpRequest": {"requestUrl": "/g/4", "status": 504}}, ("/g/4", 504)),  # GCP
        ({"ClientRequestURI": "/f/5?x=1", "EdgeResponseStatus": 502}, ("/f/5?x=1", 502)),  # CF
        (  # Azure Application Gateway's resource log: its fields nest under "properties"
            {
                "timeStamp": "2024-01-01T00:00:01Z",
                "properties": {"requestUri": "/a/6", "httpStatus": 501},
            },
            ("/a/6", 501),
        ),
        ({"properties": {"requestUri": "/a/7", "httpStatusCode": "503"}}, ("/a/7", 503)),  # AFD
    ],
)
def test_json_keys_of_common_servers_are_found(obj: dict, want: tuple[str, int]) -> None:  # type: ignore[type-arg]
    """Caddy, pino, traefik and Google Cloud JSON access logs map without configuration."""
    line = json.dumps(obj)
    fmt = JsonFormat(mapping=auto_mapping([line] * 3))
    assert parse(fmt, [line]) == [want]
