"""Zeek's TSV layout: fitted to its #fields header, directives neither records nor malformed."""

from __future__ import annotations

from datetime import UTC, datetime

import polars as pl

from logagent.formats.app import COMPONENT, MESSAGE, TIME
from logagent.formats.catalog import build_any_format
from logagent.formats.detect import detect_all
from logagent.formats.fieldsets import fields_of_format, getter
from logagent.formats.zeektsv import ZEEK_TSV, ZeekTsvFormat

HEAD = [
    "#separator \\x09",
    "#set_separator\t,",
    "#empty_field\t(empty)",
    "#unset_field\t-",
    "#path\tweird",
    "#open\t2024-04-12-19-29-12",
    "#fields\tts\tuid\tid.orig_h\tid.orig_p\tid.resp_h\tid.resp_p\tname\taddl\tnotice\tpeer",
    "#types\ttime\tstring\taddr\tport\taddr\tport\tstring\tstring\tbool\tstring",
]
ROWS = [
    "1521911720.600843\tCsPzgh4tp5lHBTnsrf\t10.47.1.152\t49562\t23.2.1.5\t80\tbad_HTTP_request\t-\tF\tzeek",
    "1521911721.000000\t-\t10.47.1.153\t49563\t23.2.1.5\t80\tunknown_HTTP_method\tFOO\tF\tzeek",
]


def parse(fmt: ZeekTsvFormat, lines: list[str], *names: str) -> pl.DataFrame:
    line = pl.col("line")
    base = fmt.fields(line)
    cols = {**base, **{n: getter(fmt, n, base, line) for n in names}}
    return pl.DataFrame({"line": lines}).select(**cols)


def test_fit_names_the_columns_of_the_header_and_its_path() -> None:
    fmt = ZEEK_TSV.fit([*HEAD, *ROWS])
    assert fmt.field_sets[0][0] == "weird" and fmt.field_sets[0][1][6] == "name"
    assert fmt.separator == "\t" and fmt.unset == "-"
    names, any_key = fields_of_format(fmt)
    assert {"name", "addl", "id.orig_h"} <= set(names) and not any_key
    df = parse(fmt, [*HEAD, *ROWS], "name", "addl")
    assert df[MESSAGE].to_list()[-2:] == ["CsPzgh4tp5lHBTnsrf", "-"]
    assert df[MESSAGE].to_list()[:8] == [None] * 8  # directives are no record
    assert df[COMPONENT].to_list()[-1] == "weird"
    assert df["name"].to_list()[-2:] == ["bad_HTTP_request", "unknown_HTTP_method"]
    assert df["addl"].to_list()[-2:] == [None, "FOO"]  # unset is null: never matches
    assert df[TIME].to_list()[-2] == datetime(2018, 3, 24, 17, 15, 20, 600843, tzinfo=UTC)


def test_a_sample_without_a_header_falls_back_to_the_common_logs() -> None:
    dns = (
        "1521911720.865716\tCqKst53mF3det3eDV9\t10.47.1.100\t41772\t10.0.0.100\t53\tudp\t"
        "36329\t0.000870\tise.wrccdc.org\t1\tC_INTERNET\t1\tA\t0\tNOERROR\tF\tF\tT\tT\t0\t"
        "ise.wrccdc.cpp.edu,134.71.3.16\t2230.000000,41830.000000\tF"
    )
    fmt = ZEEK_TSV.fit([dns])
    df = parse(fmt, [dns, "1521911720.8\tonly\tthree"], "query", "rcode_name")
    assert df["query"].to_list() == ["ise.wrccdc.org", None]
    assert df["rcode_name"].to_list() == ["NOERROR", None]
    assert df[COMPONENT].to_list() == ["dns", None]
    assert df[MESSAGE].to_list() == ["CqKst53mF3det3eDV9", None]  # a short line is malformed


def test_two_logs_in_one_input_each_read_by_its_own_header() -> None:
    dns_head = ["#path\tdns", "#fields\tts\tuid\tquery\trcode_name"]
    lines = [*HEAD, *ROWS, *dns_head, "1521911722.5\tCx\texample.com\tNXDOMAIN"]
    fmt = ZEEK_TSV.fit(lines)
    df = parse(fmt, lines, "query", "name")
    assert df[COMPONENT].to_list()[-1] == "dns" and df["query"].to_list()[-1] == "example.com"
    assert df["name"].to_list()[-1] is None and df["query"].to_list()[-3] is None


def test_detect_names_it_with_directives_excused() -> None:
    sample = [*HEAD, *ROWS, "#close\t2024-04-12-19-34-07"]
    found = detect_all(sample)
    assert found.best == "zeek_tsv" and found.confidence == 1.0
    assert isinstance(build_any_format("zeek_tsv", sample), ZeekTsvFormat)


def test_a_separator_other_than_tab_is_honoured() -> None:
    head = ["#separator \\x7c", "#path\tx", "#fields|ts|uid|what"]
    fmt = ZEEK_TSV.fit(head)
    assert fmt.separator == "|"
    df = parse(fmt, ["1521911722.5|Cq|hello"], "what")
    assert df["what"].to_list() == ["hello"] and df[COMPONENT].to_list() == ["x"]


def test_fields_are_the_sampled_headers_columns() -> None:
    """With a header in the sample, its columns are the fields (not every default list's)."""
    names, _ = fields_of_format(ZEEK_TSV.fit([*HEAD, *ROWS]))
    assert "name" in names and "query" not in names
    assert "query" in fields_of_format(ZEEK_TSV.fit(ROWS))[0]  # no header: the defaults
