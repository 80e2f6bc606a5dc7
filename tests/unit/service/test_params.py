"""Query parameters: the CLI's flags, malformed ones named in a 422."""

from __future__ import annotations

from pathlib import Path

import pytest

from logagent.service.config import ServiceConfig
from logagent.service.execute import check_params
from logagent.service.params import ParamError, parse_query


def fields(exc: ParamError) -> list[str]:
    return [e["loc"][-1] for e in exc.errors]


def test_parameters_map_to_the_cli_settings_sections() -> None:
    """Given values land in the sections `logagent analyze` fills; the rest stay unset."""
    req = parse_query([("question", "status"), ("top", "3"), ("seed", "7"), ("wait", "2.5")])
    over = req.params.overrides()
    assert req.wait_s == 2.5
    assert over["analysis"]["question"] == "status" and over["analysis"]["top"] == 3
    assert over["analysis"]["seed"] == 7 and over["analysis"]["delta"] is None


@pytest.mark.parametrize(
    ("items", "field"),
    [
        ([("top", "0")], "top"),
        ([("top", "many")], "top"),
        ([("delta", "1.5")], "delta"),
        ([("question", "nonsense")], "question"),
        ([("wait", "-1")], "wait"),
        ([("wait", "soon")], "wait"),
        ([("full", "perhaps")], "full"),
        ([("epsilon", "1")], "epsilon"),
        ([("seed", "-3")], "seed"),
        ([("colour", "red")], "colour"),
        ([("top", "1"), ("top", "2")], "top"),
        ([("by", "route"), ("by", "client")], "by"),  # only where= repeats
    ],
)
def test_malformed_query_names_the_field(items: list[tuple[str, str]], field: str) -> None:
    """Every malformed or unsupported parameter is an error naming it."""
    with pytest.raises(ParamError) as exc:
        parse_query(items)
    assert field in fields(exc.value)


def test_by_and_where_go_where_the_cli_puts_them() -> None:
    """by= names the field, where= repeats; without question= they ask `top`, as the CLI."""
    req = parse_query([("by", "client"), ("where", "status>=400"), ("where", "method=GET")])
    over = req.params.overrides()["analysis"]
    assert over["by"] == "client" and over["where"] == ("status>=400", "method=GET")
    assert over["question"] == "top"
    named = parse_query([("question", "top-4xx"), ("by", "client")]).params.overrides()
    assert named["analysis"]["question"] == "top-4xx"


def test_values_are_parsed_by_the_cli_options() -> None:
    """A flag is a boolean, numbers are numbers, each as `logagent analyze` parses its flag."""
    req = parse_query([("full", "true"), ("delta", "0.05"), ("top", "3"), ("max_fraction", "0.5")])
    assert req.params.full is True and req.params.delta == 0.05
    assert req.params.top == 3 and req.params.max_fraction == 0.5


@pytest.mark.parametrize(
    ("items", "field"),
    [
        ([("since", "yesterday")], "since"),
        ([("until", "2026-13-01")], "until"),
        ([("since", "1h"), ("until", "2h")], "since"),  # since after until
        ([("format", "no-such-format")], "format"),
        ([("now", "garbage")], "now"),
    ],
)
def test_checks_the_engine_runs_later_name_the_field(
    items: list[tuple[str, str]], field: str, tmp_path: Path
) -> None:
    """Time window, format name and --now are refused at POST by the engine's own parsers."""
    cfg = ServiceConfig(data_dir=str(tmp_path), memory_budget_bytes=1 << 30)
    with pytest.raises(ParamError) as exc:
        check_params(parse_query(items).params, cfg)
    assert fields(exc.value) == [field]


@pytest.mark.parametrize(
    "items",
    [
        [("since", "24h"), ("until", "now")],
        [("since", "2026-11-28T00:00:00Z")],
        [("format", "combined"), ("question", "status")],
        [("format", "auto")],
    ],
)
def test_well_formed_queries_pass_the_checks(items: list[tuple[str, str]], tmp_path: Path) -> None:
    """What `logagent analyze` accepts passes."""
    cfg = ServiceConfig(data_dir=str(tmp_path), memory_budget_bytes=1 << 30)
    check_params(parse_query(items).params, cfg)
