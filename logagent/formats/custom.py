"""Custom formats from TOML files (PURE apart from reading the files it is given).

Each ``configs/formats/*.toml`` defines one format::

    name = "billing"                       # used as --format billing
    description = "billing service log"    # optional, shown by `logagent formats`
    pattern = '^(?P<ts>\\S+ \\S+) (?P<level>[A-Z]+) (?P<component>[^:]+): (?P<message>.*)$'
    time_format = "%Y-%m-%d %H:%M:%S"      # optional strftime of the ts group
    min_line_bytes = 20                    # optional l_min (default 1)
    record_start = '[0-9]{4}-'             # optional: fold lines not matching it (stack traces)

``pattern`` is a Rust regex (Polars) with named groups: ``message`` plus any
of ``ts``, ``level``, ``component`` for an application log, or ``path`` and
``status`` for an access log. A bad regex, a missing group or a clash with a
built-in name is a ``FormatError`` naming the file.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import polars as pl

from logagent.errors import FormatError
from logagent.formats.app import AppRegexFormat, group_names
from logagent.formats.base import PATH, STATUS, RegexFormat

CustomFormat = AppRegexFormat | RegexFormat
_KEYS = {"name", "description", "pattern", "time_format", "min_line_bytes", "record_start"}


def load_custom_formats(
    directory: str | Path, reserved: Iterable[str] = ()
) -> dict[str, CustomFormat]:
    """Every ``*.toml`` format in ``directory`` by name (none when it does not exist)."""
    path = Path(directory)
    if not path.is_dir():
        return {}
    out: dict[str, CustomFormat] = {}
    taken = {"auto", *reserved}  # --format auto is detection, not a format
    for file in sorted(path.glob("*.toml")):
        fmt = load_custom_format(file)
        if fmt.name in taken or fmt.name in out:
            raise FormatError(f"format name {fmt.name!r} is already taken", path=str(file))
        out[fmt.name] = fmt
    return out


def load_custom_format(file: str | Path) -> CustomFormat:
    """The format defined in one TOML file."""
    try:
        spec = tomllib.loads(Path(file).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise FormatError(f"cannot read format file: {exc}", path=str(file)) from exc
    try:
        return build_custom_format(spec)
    except FormatError as exc:
        raise FormatError(exc.message, path=str(file), **exc.context) from exc


def build_custom_format(spec: Mapping[str, Any]) -> CustomFormat:
    """A format from its definition (the keys of a format file)."""
    unknown = set(spec) - _KEYS
    name, pattern = spec.get("name"), spec.get("pattern")
    if unknown:
        raise FormatError(f"unknown keys {sorted(unknown)} (known: {sorted(_KEYS)})")
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_.\-]*", name):
        raise FormatError("'name' must be a word such as 'billing'")
    if not isinstance(pattern, str):
        raise FormatError("'pattern' (a regex with named groups) is missing", format=name)
    _check_regex(pattern, name)
    groups = set(group_names(pattern))
    min_bytes = spec.get("min_line_bytes", 1)
    if type(min_bytes) is not int or min_bytes < 1:  # bool is no int here
        raise FormatError(
            f"'min_line_bytes' must be a whole number of bytes, 1 or more (not {min_bytes!r})",
            format=name,
        )
    description = str(spec.get("description", f"custom format ({name})"))
    if {PATH, STATUS} <= groups:
        return RegexFormat(name, pattern, min_bytes, description=description)
    if "message" not in groups or not groups & {"level", "component"}:
        raise FormatError(
            "pattern needs groups 'message' and 'level' or 'component' (an application log), "
            "or 'path' and 'status' (an access log)",
            format=name,
        )
    start = spec.get("record_start")
    if start is not None:
        _check_start(str(start), name)
    time_format = spec.get("time_format")
    return AppRegexFormat(
        name=name,
        patterns=(pattern,),
        min_line_bytes=min_bytes,
        time_formats=(str(time_format),) if time_format else (),
        record_start=str(start) if start is not None else None,
        description=description,
    )


def _check_regex(pattern: str, name: str) -> None:
    try:
        pl.Series([""]).str.extract_groups(pattern)
    except pl.exceptions.PolarsError as exc:
        raise FormatError(f"pattern is not a valid regex: {exc}", format=name) from exc


def _check_start(start: str, name: str) -> None:
    """record_start is used by two engines: keep it to their common, line-local subset."""
    _check_regex(start, name)
    try:
        compiled = re.compile(start)
    except re.error as exc:
        raise FormatError(f"record_start is not a valid regex: {exc}", format=name) from exc
    if compiled.match("") or re.search(r"\\[dDsSwWbB]|\[\^|\$", start):
        raise FormatError(
            "record_start must not match an empty line and may not use \\d \\s \\w \\b, "
            "negated classes or $ (write [0-9], [ \\t], [A-Za-z0-9_])",
            format=name,
        )
