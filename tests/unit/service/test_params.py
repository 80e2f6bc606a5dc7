"""Query parameters: the CLI's flags, malformed ones named in a 422."""

from __future__ import annotations

import pytest

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
        ([("colour", "red")], "colour"),
        ([("top", "1"), ("top", "2")], "top"),
        ([("by", "route")], "by"),
        ([("where", "status>499")], "where"),
    ],
)
def test_malformed_query_names_the_field(items: list[tuple[str, str]], field: str) -> None:
    """Every malformed or unsupported parameter is an error naming it."""
    with pytest.raises(ParamError) as exc:
        parse_query(items)
    assert field in fields(exc.value)


def test_by_and_where_say_not_supported_yet() -> None:
    """--by/--where have no engine logic yet: said plainly, not guessed."""
    with pytest.raises(ParamError) as exc:
        parse_query([("by", "route")])
    assert exc.value.errors[0]["msg"] == "not supported yet"
