"""Which keys of a JSON or logfmt log hold its time, level, component and message, chosen
from sampled lines (PURE). Split from ``formats.structured``, whose formats read them.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from logagent.formats.app import COMPONENT, LEVEL, MESSAGE, TS
from logagent.formats.jsonl import PLAIN_KEY, choose_keys, has_key, object_of
from logagent.formats.structured import APP_KEYS, LOGFMT_LINE, default_mapping


def names_component(sample: Iterable[str], mapping: Mapping[str, str], *, logfmt: bool) -> bool:
    """Whether a sampled record holds ``mapping``'s component key (else the format ranks
    records by their error kind: ``KeyedFields.head_component``)."""
    key = mapping.get(COMPONENT)
    if not key:
        return False
    loads: Callable[[str], dict[str, Any] | None] = _logfmt_loads if logfmt else object_of
    return any(_has(obj, key) for obj in map(loads, sample) if obj)


def auto_app_mapping(
    sample: Iterable[str], explicit: Mapping[str, str] | None = None, *, logfmt: bool = False
) -> dict[str, str]:
    """Choose keys for ts/level/component/message from sample lines; explicit keys win."""
    loads: Callable[[str], dict[str, Any] | None] = _logfmt_loads if logfmt else object_of
    objects = [obj for obj in map(loads, sample) if obj]
    found = choose_keys(objects, APP_KEYS, _has)
    if not logfmt:  # a field the top level lacks: inside an envelope most records hold
        nested = _nested(objects, [name for name in APP_KEYS if name not in found])
        found |= choose_keys(objects, nested, _has)
    mapping = default_mapping(logfmt=logfmt) | found
    if _clef_level(objects, mapping):
        mapping[LEVEL] = "@l"
    if (
        not logfmt
        and TS in found
        and LEVEL not in found  # nor inside an envelope (``_nested``)
        and MESSAGE not in found
        and not _any_held(objects, (*APP_KEYS[LEVEL], *APP_KEYS[MESSAGE]))
    ):
        # JSON events that write neither, in no sampled object (Suricata's eve.json, a JSON
        # export of rows): each object with a stamp is a record, without level or message
        # (``structured.fields_of``); their fields answer --by/--where. They had been "no
        # known format" whatever was asked. Detection discounts such a bare reading
        # (``JsonAppFormat.bare``): a JSON access log with a line of another shape stays one.
        del mapping[LEVEL], mapping[MESSAGE]
    mapping.update({k: v for k, v in (explicit or {}).items() if v and k in APP_KEYS})
    return mapping


#: Objects that wrap a record's own fields: logstash's ``@fields``, Filebeat's ``fields``,
#: OpenTelemetry's ``attributes``. Only these: an object of the record's data (``user``,
#: ``request``) holds a "name" or a "level" of its own, which no record's component is.
ENVELOPES = ("@fields", "fields", "attributes", "@metadata", "extra", "context", "payload")


def _nested(objects: Sequence[dict[str, Any]], names: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """The well-known keys of ``names`` inside the envelopes (``ENVELOPES``) most records
    hold: lnav's ``{"ts": …, "@fields": {"lvl": …, "msg": …}}`` was refused, "not in a log
    format logagent knows"."""
    half = (len(objects) + 1) // 2
    held = [e for e in ENVELOPES if sum(isinstance(o.get(e), dict) for o in objects) >= half]
    return {
        name: tuple(f"{e}.{k}" for e in held for k in APP_KEYS[name] if "." not in k)
        for name in names
        if held
    }


def _clef_level(objects: Sequence[dict[str, Any]], mapping: Mapping[str, str]) -> bool:
    """Serilog's compact JSON (CLEF: ``@t`` and ``@m``/``@mt``): ``@l`` is its level, written
    only where the level is not Information, so most events of a healthy service hold none,
    and the half-present rule of ``choose_keys`` had left it out with every Error event's
    level. Events without one are read as Information (``JsonAppFormat._clef``)."""
    clef = mapping.get(TS) == "@t" and mapping.get(MESSAGE) in ("@m", "@mt")
    return clef and mapping.get(LEVEL) != "@l" and bool(objects)


_PAIRS = re.compile(r'([A-Za-z0-9_.@/\-]+)=(?:"(?:[^"\\]|\\.)*"|[^ \t"]*)')


def _logfmt_loads(line: str) -> dict[str, Any] | None:
    """Keys of a logfmt line (values are not needed to choose keys)."""
    if not re.fullmatch(LOGFMT_LINE.removeprefix("^").removesuffix("$"), line):
        return None
    return {m.group(1): True for m in _PAIRS.finditer(line)}


def _any_held(objects: Sequence[dict[str, Any]], keys: Sequence[str]) -> bool:
    """Whether any of ``objects`` holds any of ``keys`` (a level the half rule leaves out,
    written by 40 % of the records, is still their level: a review)."""
    return any(_has(obj, key) for obj in objects for key in keys)


def _has(obj: dict[str, Any], key: str) -> bool:
    return has_key(obj, key, literal_dots=True)  # logfmt keys may hold dots themselves


#: The share of a sample's JSON objects one key order must hold to be learned (``key_order``).
KEY_ORDER_SHARE = 0.5


def key_order(sample: Iterable[str]) -> tuple[str, ...]:
    """The top-level keys, in order, that most sampled JSON objects write (at least
    ``KEY_ORDER_SHARE`` of them; each key once, each a ``jsonl.PLAIN_KEY`` without dots), or
    ``()``: a JSON app log whose lines are written by one logger call shape, read by one regex
    (``JsonAppFormat.key_order``)."""
    orders: Counter[tuple[str, ...]] = Counter()
    for line in sample:
        if not line.lstrip().startswith("{"):
            continue
        try:
            keys = json.loads(line, object_pairs_hook=_top_keys)
        except (ValueError, RecursionError):
            continue
        if isinstance(keys, _Keys):
            orders[tuple(keys)] += 1
    if not orders:
        return ()
    order, n = orders.most_common(1)[0]
    plain = all(PLAIN_KEY.fullmatch(k) and "." not in k for k in order)
    if n < KEY_ORDER_SHARE * sum(orders.values()) or not plain or len(set(order)) < len(order):
        return ()
    return order


class _Keys(list[str]):
    """An object's keys in order (``json.loads``' hook for every object, inner ones too)."""


def _top_keys(pairs: list[tuple[str, Any]]) -> _Keys:
    return _Keys(key for key, _ in pairs)
