"""The dataclass models agree with pydantic: the quick check, the dumps and the JSON."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pydantic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logagent import model
from logagent.config import Settings
from logagent.result import Answer, Question, QuestionKind, TopEntry

#: values a flag or a caller may give: valid, out of bounds, of another type, sizes as text
ODD = st.one_of(
    st.integers(-3, 2**31),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
    st.sampled_from(["auto", "64KiB", "1 MiB", "2TiB", "0", "x", "error", "warn", "top-errors"]),
    st.lists(st.sampled_from(["status=5xx", "a"]), max_size=2),
)
#: each field's plainly valid values (ints where floats are declared: pydantic makes floats)
VALID: dict[str, dict[str, list[Any]]] = {
    "reader": {
        "unit_size": ["auto", 4096, "64KiB"],
        "line_cap": [65536, "4KiB"],
        "batch_bytes": [8 << 20, "1MiB"],
        "order": ["auto", "random"],
        "scan_processes": [0, 2],
        "adapt_from": [1 << 20],
    },
    "analysis": {
        "question": ["status", QuestionKind.STATUS],
        "top": [3, 1000],
        "min_requests": [1, 100],
        "format": ["auto", "combined"],
        "level": ["warn"],
        "where": [("a",), ["status=5xx"]],
        "year": [2020, None],
        "delta": [0.05],
    },
    "budget": {
        "max_seconds": [5, 2.5, None],
        "max_fraction": [0.5, 1],
        "memory": ["25%"],
        "sketch_keys": [10],
    },
    "llm": {"mode": ["off"], "timeout_s": [5, 1.5], "temperature": [0, 2]},
}
quick_accepted: list[bool] = []


@st.composite
def overrides(draw: st.DrawFn) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for section, fields in VALID.items():
        chosen = draw(st.lists(st.sampled_from(sorted(fields)), unique=True, max_size=3))
        if chosen:
            out[section] = {
                n: draw(st.sampled_from(fields[n]) if draw(st.integers(0, 3)) else ODD)
                for n in chosen
            }
    if draw(st.booleans()):
        out["log_level"] = draw(st.sampled_from(["info", 3]))
    return out


def pydantic_way(values: dict[str, Any]) -> Settings | str:
    try:
        return Settings.model_validate(values)
    except pydantic.ValidationError as exc:
        return f"invalid: {len(exc.errors())}"


@settings(max_examples=400, deadline=None)
@given(overrides())
def test_the_quick_check_accepts_only_what_pydantic_accepts_alike(values: dict[str, Any]) -> None:
    """Where the quick check accepts the values, pydantic builds the same settings from them."""
    want = pydantic_way(values)
    try:
        got: Settings | str = model._quick(Settings, values)
    except model._Refuse:
        quick_accepted.append(False)
        return
    quick_accepted.append(True)
    assert repr(got) == repr(want)  # equal, and of the same types (5 is not 5.0 here)


def test_the_quick_check_is_not_vacuous() -> None:
    """The property above saw the quick check accept values, and refuse others."""
    test_the_quick_check_accepts_only_what_pydantic_accepts_alike()
    assert any(quick_accepted) and not all(quick_accepted)


def test_build_raises_pydantic_errors_for_invalid_values() -> None:
    """What the quick check refuses goes to pydantic, with its message."""
    with pytest.raises(pydantic.ValidationError, match="less than or equal to 1073741824"):
        model.build(Settings, {"reader": {"unit_size": "2TiB"}})
    with pytest.raises(pydantic.ValidationError, match=r"Extra inputs|Unexpected"):
        model.build(Settings, {"reader": {"nope": 1}})
    built = model.build(Settings, {"reader": {"unit_size": "64KiB"}, "analysis": {"top": 3}})
    assert (built.reader.unit_size, built.analysis.top) == (65536, 3)


def entry(i: int, **extra: Any) -> TopEntry:
    return TopEntry(
        key=f"/r/{i}",
        count=np.int64(10 - i),
        estimate=10 - i,  # an int in a float field: pydantic made it 10.0
        low=np.float64(9.5 - i),
        high=math.inf,
        share=0.25,
        share_low=0,
        share_high=1,
        breakdown={"503": 1.0},
        **extra,
    )


def test_dumps_equal_pydantics() -> None:
    """``model_dump(mode="json")`` and ``model_dump_json`` write what pydantic writes."""
    answer = Answer(top=[entry(0), entry(1, requests=40, rate=0.5)], ties=[["a", "b"]], total=19)
    adapter = pydantic.TypeAdapter(Answer)
    validated = adapter.validate_python(model.dump(answer, json_mode=False))
    want = adapter.dump_python(validated, mode="json")
    assert answer.model_dump(mode="json") == want
    text = json.loads(adapter.dump_json(validated))  # JSON text: a non-finite float is null
    assert json.loads(answer.model_dump_json()) == text
    assert json.loads(answer.model_dump_json(indent=2)) == text
    assert text["top"][0]["estimate"] == 10.0 and text["top"][0]["high"] is None
    assert answer.model_dump_json() == adapter.dump_json(validated).decode()


def test_model_validate_checks_constraints_and_unknown_keys() -> None:
    """Input from outside (a checkpoint, an upload) is validated by pydantic."""
    q = Question.model_validate({"kind": "status", "top": 3, "where": ["status=5xx"]})
    assert (q.kind, q.top, q.where) == (QuestionKind.STATUS, 3, ("status=5xx",))
    for bad in ({"top": 0}, {"delta": 1.0}, {"nope": 1}, {"level": "info"}):
        with pytest.raises(pydantic.ValidationError):
            Question.model_validate(bad)
    assert Question.model_validate_json(q.model_dump_json()) == q


def test_model_copy_replaces_fields_of_a_frozen_model() -> None:
    """``model_copy(update=...)`` is a changed copy; the original stays as it was."""
    q = Question(top=3)
    assert q.model_copy(update={"top": 4}).top == 4 and q.top == 3
    with pytest.raises(AttributeError):
        q.top = 5  # type: ignore[misc]


def test_construction_gives_enums_and_tuples_as_pydantic_did() -> None:
    """The public API's ``Question(kind="top-errors")`` holds the enum, as pydantic made it."""
    q = Question(kind="status", where=["status=5xx"])  # type: ignore[arg-type]
    assert q.kind is QuestionKind.STATUS and q.where == ("status=5xx",)
    assert q == Question.model_validate({"kind": "status", "where": ["status=5xx"]})


@pytest.mark.parametrize(
    "bad",
    [{"top": 0}, {"delta": 0.0}, {"where": "status=5xx"}, {"level": "info"}, {"kind": "nope"}],
)
def test_a_question_is_checked_when_it_is_built(bad: dict[str, Any]) -> None:
    """The public API's ``Question(...)`` refuses what pydantic refused (it is not run blind)."""
    with pytest.raises(pydantic.ValidationError):
        Question(**bad)


def test_a_question_is_coerced_as_pydantic_did() -> None:
    """Lax values become the declared types, the way pydantic's validation made them."""
    q = Question(top="3", delta=1 / 50)  # type: ignore[arg-type]
    assert q.top == 3 and type(q.top) is int and q == Question(top=3, delta=0.02)
