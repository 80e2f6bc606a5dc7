"""Frozen dataclasses that pydantic validates only where input comes from outside (PURE).

The result contract and the settings are plain frozen dataclasses with the
methods of a pydantic model that the code uses (``model_copy``,
``model_dump``, ``model_dump_json``, ``model_validate``,
``model_json_schema``). pydantic itself costs every run ~0.1 s of start-up
(its import and the build of ~25 models), and a run builds these objects from
values it made itself. So pydantic is imported only to validate what comes
from outside — a config file, the environment, a checkpoint, an upload's
parameters, a flag that the quick check below does not accept — and to write
the JSON Schema; it validates the same dataclasses, with the constraints
written in their annotations (``annotated_types``: ``Ge``, ``Le``...).

``build`` is the quick way for values a front door parsed: it accepts a value
only where it is unmistakably valid (the exact type, in bounds, one of the
literals) and otherwise hands the whole input to pydantic, which accepts it
(coerced the same way) or raises ``pydantic.ValidationError`` with its usual
message. ``tests/unit/test_model.py`` checks that both ways agree.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import math
import numbers
import sys
import types
import typing
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, ClassVar, Literal, Self, TypeVar

import annotated_types as at

T = TypeVar("T")
#: what pydantic reads from a dataclass: unknown keys are errors, as in the models before
FORBID: dict[str, Any] = {"extra": "forbid"}
#: pydantic's words for an unknown key of a model (of a dataclass: "Unexpected keyword argument")
EXTRA = "Extra inputs are not permitted"


def error_text(error: Any) -> str:
    """The message of one pydantic error, an unknown key told as the models told it."""
    if error["type"] == "unexpected_keyword_argument":
        return EXTRA
    if error["type"] == "value_error":  # our own validator's words, without pydantic's label
        return str(error["ctx"]["error"])
    return str(error["msg"])


class _Refuse(Exception):
    """The quick check does not accept a value: pydantic decides."""


class Before:
    """``Annotated`` metadata: ``func`` turns the raw value into the one validated (pydantic's
    ``BeforeValidator``, without importing pydantic to declare it)."""

    def __init__(self, func: Callable[[Any], Any]) -> None:
        self.func = func

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        return core_schema.no_info_before_validator_function(self.func, handler(source))


class After:
    """``Annotated`` metadata: ``func`` checks (and may raise ``ValueError`` on) the value."""

    def __init__(self, func: Callable[[Any], Any]) -> None:
        self.func = func

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        return core_schema.no_info_after_validator_function(self.func, handler(source))


class Model:
    """The pydantic-model methods the code uses, on a frozen dataclass."""

    __pydantic_config__ = FORBID
    #: check every construction, as pydantic did (the public API's ``Question``): the quick
    #: check, and pydantic where it refuses; the others are built from values the code made
    _checked: ClassVar[bool] = False

    def __post_init__(self) -> None:
        """Give an enum field its enum for its value, a tuple field a tuple for a list (as
        pydantic did on construction: ``Question(kind="status", where=["status=5xx"])``)."""
        if self._checked and not _VALIDATING.get():
            _check(self)
        for name, make in _coercions(type(self)):
            value = getattr(self, name)
            if value is not None and type(value) is not make:
                object.__setattr__(self, name, make(value))

    def model_copy(self, *, update: dict[str, Any] | None = None) -> Self:
        """A copy with ``update``'s fields replaced (not validated, as pydantic's)."""
        return dataclasses.replace(self, **(update or {}))  # type: ignore[type-var]

    def model_dump(
        self, *, mode: str = "python", exclude: set[str] | None = None
    ) -> dict[str, Any]:
        """The fields as a dict (``mode="json"``: only JSON values), without ``exclude``'s."""
        out: dict[str, Any] = dump(self, json_mode=mode == "json")
        return {k: v for k, v in out.items() if k not in exclude} if exclude else out

    def model_dump_json(self, *, indent: int | None = None) -> str:
        """The JSON text of ``model_dump(mode="json")`` (UTF-8 kept, compact without indent).

        Equal to pydantic's once parsed; as text, a float under 1e-4 is written as Python
        writes it (``1e-05``, where pydantic wrote ``1e-5``)."""
        seps = (",", ":") if indent is None else (",", ": ")
        return json.dumps(dump(self, json_mode=True, text=True), indent=indent, separators=seps,
                          ensure_ascii=False, allow_nan=False)  # fmt: skip

    @classmethod
    def model_validate(cls, obj: Any) -> Self:
        """``obj`` (a dict, or an instance) validated by pydantic."""
        out: Self = _adapter(cls).validate_python(obj)
        return out

    @classmethod
    def model_validate_json(cls, text: str | bytes) -> Self:
        """JSON text validated by pydantic."""
        out: Self = _adapter(cls).validate_json(text)
        return out

    @classmethod
    def model_json_schema(cls, mode: Literal["validation", "serialization"] = "validation") -> Any:
        """The JSON Schema pydantic writes for this class."""
        return _adapter(cls).json_schema(mode=mode)


def _check(obj: Model) -> None:
    """``obj``'s fields as pydantic would validate them (``ValidationError`` if not valid)."""
    values = {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}  # type: ignore[arg-type]
    try:
        checked = _quick_values(type(obj), values)
    except _Refuse:
        token = _VALIDATING.set(True)  # pydantic builds the instance again: not checked twice
        try:
            made = _adapter(type(obj)).validate_python(values)
        finally:
            _VALIDATING.reset(token)
        checked = {name: getattr(made, name) for name in values}
    for name, value in checked.items():
        object.__setattr__(obj, name, value)


_VALIDATING: ContextVar[bool] = ContextVar("logagent_model_validating", default=False)


def is_validation_error(exc: BaseException) -> bool:
    """Whether ``exc`` is pydantic's ValidationError (pydantic is loaded only if it ran)."""
    core = sys.modules.get("pydantic_core")
    return core is not None and isinstance(exc, core.ValidationError)


_ADAPTERS: dict[Any, Any] = {}
_HINTS: dict[Any, dict[str, Any]] = {}
_PLANS: dict[Any, tuple[tuple[tuple[str, type | None], ...], tuple[tuple[str, type], ...]]] = {}


def _adapter(cls: Any) -> Any:
    """pydantic's validator of ``cls`` (built once, on first use: pydantic is imported here)."""
    if cls not in _ADAPTERS:
        from pydantic import TypeAdapter

        _ADAPTERS[cls] = TypeAdapter(cls)
    return _ADAPTERS[cls]


def build(cls: type[T], values: dict[str, Any]) -> T:
    """``cls`` from ``values`` (nested dicts for nested dataclasses), checked; see the module.

    Raises ``pydantic.ValidationError`` (from pydantic) for what is not valid.
    """
    try:
        out: T = _quick(cls, values)
    except _Refuse:
        out = _adapter(cls).validate_python(values)
    return out


def _quick(cls: Any, values: Any) -> Any:
    """``cls`` built from ``values`` that the quick check accepts (``_Refuse`` otherwise)."""
    kwargs = _quick_values(cls, values)
    token = _VALIDATING.set(True)  # checked already
    try:
        return cls(**kwargs)
    finally:
        _VALIDATING.reset(token)


def _quick_values(cls: Any, values: Any) -> dict[str, Any]:
    if not isinstance(values, dict):
        raise _Refuse
    hints = model_hints(cls)
    if set(values) - set(hints):
        raise _Refuse
    kwargs = {name: _value(hints[name], v) for name, v in values.items()}
    for f in dataclasses.fields(cls):
        if f.name not in kwargs:  # a default is checked like a given value
            made = f.default_factory
            _value(hints[f.name], f.default if made is dataclasses.MISSING else made())
    return kwargs


def model_hints(cls: Any) -> dict[str, Any]:
    """The resolved annotations of a dataclass, ``Annotated`` metadata kept."""
    if cls not in _HINTS:
        hints = typing.get_type_hints(cls, include_extras=True)  # each base's own module
        _HINTS[cls] = {f.name: hints[f.name] for f in dataclasses.fields(cls)}
    return _HINTS[cls]


def _value(hint: Any, value: Any) -> Any:
    """``value`` as pydantic would give it for ``hint``, when that is plain; else ``_Refuse``."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Annotated:
        inner, *meta = args
        for m in meta:
            if isinstance(m, Before):
                try:
                    value = m.func(value)
                except ValueError:  # pydantic says so, naming the field
                    raise _Refuse from None
        value = _value(inner, value)
        for m in meta:
            _bound(m, value)
        return value
    if origin in (types.UnionType, typing.Union):
        for branch in args:
            try:
                return _value(branch, value)
            except _Refuse:
                continue
        raise _Refuse
    if origin is Literal:
        if type(value) is str and value in args:
            return value
        raise _Refuse
    return _plain(hint, origin, args, value)


def _plain(hint: Any, origin: Any, args: tuple[Any, ...], value: Any) -> Any:
    if hint is type(None):
        if value is None:
            return None
    elif hint in (int, str, bool):
        if type(value) is hint:
            return value
    elif hint is float:
        if type(value) is float and math.isfinite(value):
            return value
        if type(value) is int and abs(value) <= 2**53:  # beyond, float() may round or overflow
            return float(value)
    elif isinstance(hint, type) and issubclass(hint, enum.Enum):
        if isinstance(value, hint):
            return value
        if type(value) is str and value in hint._value2member_map_:
            return hint(value)
    elif origin is tuple and args[1:] == (Ellipsis,):
        if isinstance(value, (tuple, list)):
            return tuple(_value(args[0], v) for v in value)
    elif origin is dict:
        if type(value) is dict:
            return {_value(args[0], k): _value(args[1], v) for k, v in value.items()}
    elif origin is list:
        if type(value) is list:
            return [_value(args[0], v) for v in value]
    elif dataclasses.is_dataclass(hint):
        if type(value) is hint:
            return value
        return _quick(hint, value)
    raise _Refuse


def _bound(meta: Any, value: Any) -> None:
    within = not (
        (isinstance(meta, at.Gt) and not value > meta.gt)
        or (isinstance(meta, at.Ge) and not value >= meta.ge)
        or (isinstance(meta, at.Lt) and not value < meta.lt)
        or (isinstance(meta, at.Le) and not value <= meta.le)
    )
    if not within:
        raise _Refuse
    if isinstance(meta, After):
        try:
            meta.func(value)
        except ValueError:
            raise _Refuse from None


def dump(obj: Any, *, json_mode: bool, text: bool = False) -> Any:
    """A dataclass tree as plain values: pydantic's ``model_dump`` (``json_mode``: its JSON mode,
    enums as values, tuples as lists; ``text``: for JSON text, non-finite floats as null).

    A number is given the type its field declares, as pydantic's validation gave it: an int
    in a ``float`` field is written as a float, a numpy scalar as a Python number.
    """
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {
            name: dump(_as(kind, getattr(obj, name)), json_mode=json_mode, text=text)
            for name, kind in _kinds(type(obj))
        }
    if isinstance(obj, enum.Enum):
        return obj.value if json_mode else obj
    if isinstance(obj, dict):
        return {
            dump(k, json_mode=json_mode): dump(v, json_mode=json_mode, text=text)
            for k, v in obj.items()
        }
    if isinstance(obj, (list, tuple)):
        items = [dump(v, json_mode=json_mode, text=text) for v in obj]
        return items if json_mode or isinstance(obj, list) else tuple(items)
    if type(obj) in _PLAIN:
        return None if text and type(obj) is float and not math.isfinite(obj) else obj
    if isinstance(obj, numbers.Integral):  # numpy's integers are registered as these
        return int(obj)
    if isinstance(obj, numbers.Real):
        return dump(float(obj), json_mode=json_mode, text=text)
    return obj


_PLAIN = frozenset({int, float, str, bool, type(None)})


def _as(kind: type | None, value: Any) -> Any:
    if kind is float and type(value) is not float and isinstance(value, numbers.Real):
        return float(value) if not isinstance(value, bool) else value
    return value


def _kinds(cls: Any) -> tuple[tuple[str, type | None], ...]:
    """Each field's name, and ``float`` where the field holds a float (or None)."""
    return _plan(cls)[0]


def _coercions(cls: Any) -> tuple[tuple[str, type], ...]:
    """The fields ``Model.__post_init__`` coerces: enums, and tuples of any length."""
    return _plan(cls)[1]


def _plan(cls: Any) -> tuple[tuple[tuple[str, type | None], ...], tuple[tuple[str, type], ...]]:
    """What ``dump`` and ``__post_init__`` need of ``cls``'s fields, read once from its hints."""
    if cls not in _PLANS:
        kinds: list[tuple[str, type | None]] = []
        coerce: list[tuple[str, type]] = []
        for name, hint in model_hints(cls).items():
            kinds.append((name, _number_kind(hint)))
            if typing.get_origin(hint) is typing.Annotated:
                hint = typing.get_args(hint)[0]
            if typing.get_origin(hint) in (types.UnionType, typing.Union):  # an optional enum
                given = [a for a in typing.get_args(hint) if a is not type(None)]
                hint = given[0] if len(given) == 1 else hint
            if isinstance(hint, type) and issubclass(hint, enum.Enum):
                coerce.append((name, hint))
            elif typing.get_origin(hint) is tuple and typing.get_args(hint)[1:] == (Ellipsis,):
                coerce.append((name, tuple))
        _PLANS[cls] = (tuple(kinds), tuple(coerce))
    return _PLANS[cls]


def _number_kind(hint: Any) -> type | None:
    if typing.get_origin(hint) is typing.Annotated:
        return _number_kind(typing.get_args(hint)[0])
    if typing.get_origin(hint) in (types.UnionType, typing.Union):
        kinds = {_number_kind(a) for a in typing.get_args(hint) if a is not type(None)}
        return kinds.pop() if len(kinds) == 1 else None
    return float if hint is float else None
