"""Detection's shortcuts give the scores the full detection gives (formats/detect.py).

* A layout that needs what no sampled line holds (``record_needs``: a JSON
  object; ``literal_needs``: a literal every match of its regexes holds, or a
  JSON layout's signature keys) is scored 0 without its expressions: that
  must be the score its expressions give. The literals are checked on strings
  generated to match the catalog's regexes and random ones
  (``hypothesis.from_regex``, and Rust's regex as the judge), and on JSON
  lines whose keys are written with escapes.
* JSON key fitting skips ``json.loads`` for lines that cannot be an object.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logagent.formats.access import AccessFormat
from logagent.formats.app import AppRegexFormat
from logagent.formats.base import RegexFormat
from logagent.formats.detect import _ruled_out, _shares, every_format
from logagent.formats.jsonl import choose_keys, has_key, object_of
from logagent.formats.jsonlayouts import JSON_LAYOUTS, JsonLayout
from logagent.formats.needs import holds, joined, pattern_needs

SAMPLES = sorted(
    p
    for p in (Path(__file__).resolve().parents[2] / "sample_logs").iterdir()
    if p.is_file() and not p.name.endswith((".json", ".md", ".gz"))
)


def _lines(path: Path, limit: int = 400) -> list[str]:
    text = path.read_bytes().decode("utf-8", "replace").splitlines()
    return text[:limit]


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_pruned_scores_equal_the_full_ones_on_every_sample_log(path: Path) -> None:
    lines = _lines(path)
    fmts = every_format(lines)
    series = pl.Series("line", lines, dtype=pl.String)
    assert list(_shares(fmts, series).items()) == list(_shares(fmts, series, prune=False).items())


def test_pruning_happens_on_an_access_log_and_not_on_a_json_one() -> None:
    """The shortcut is taken (else the test above proves nothing about it)."""
    access = _lines(next(p for p in SAMPLES if p.name == "nginx_access.log"))
    ruled = _ruled_out(every_format(access), pl.Series("line", access))
    assert {"jsonl", "jsonapp", "bunyan", "caddy"} <= set(ruled)
    assert {"log4j", "kafka", "zookeeper", "elasticsearch", "cri", "nginx_error"} <= set(ruled)
    assert {"php", "envoy"} <= set(ruled)  # "^\[": no line starts with the stamp's bracket
    app = _lines(next(p for p in SAMPLES if p.name == "app.jsonl"))
    ruled = _ruled_out(every_format(app), pl.Series("line", app))
    assert not {"jsonl", "jsonapp", "caddy"} & set(ruled)
    assert {"bunyan", "pino", "journald", "docker_json", "zeek"} <= set(ruled)  # by their keys
    bunyan = _lines(next(p for p in SAMPLES if p.name == "bunyan.jsonl"))
    assert "bunyan" not in _ruled_out(every_format(bunyan), pl.Series("line", bunyan))
    log4j = _lines(next(p for p in SAMPLES if p.name == "app_log4j.log"))
    ruled = _ruled_out(every_format(log4j), pl.Series("line", log4j))
    assert {"combined", "common", "haproxy", "nginx_error"} <= set(ruled)
    assert "log4j" not in ruled


def _catalog_regexes() -> list[tuple[str, str]]:
    """(format, regex) for every regex that finds the records of a catalog format."""
    out = []
    for name, fmt in every_format(["x"]).items():
        if isinstance(fmt, AccessFormat):
            out += [(name, p) for p in (fmt.pattern, fmt.greedy) if p is not None]
        elif isinstance(fmt, RegexFormat):
            out.append((name, fmt.pattern))
        elif isinstance(fmt, AppRegexFormat):
            out += [(name, p) for p in fmt.patterns]
    return out


def _python(pattern: str) -> str:
    """A Rust regex of the catalog in Python's syntax (``\\x{FEFF}`` is ``\\uFEFF`` there)."""
    return re.sub(r"\\x\{([0-9A-Fa-f]{4})\}", r"\\u\1", pattern)


CATALOG = _catalog_regexes()


def test_every_catalog_regex_has_needs() -> None:
    """The reader follows the whole catalog (a regex it gives up on is scored every run)."""
    assert len(CATALOG) >= 30
    assert [name for name, p in CATALOG if pattern_needs(p) is None] == []


@pytest.mark.parametrize(
    ("name", "pattern"), CATALOG, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CATALOG)]
)
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_every_match_of_a_catalog_regex_holds_its_needs(
    name: str, pattern: str, data: st.DataObject
) -> None:
    """Strings that match a format's regex (Python's reading of it) hold its literals."""
    need = pattern_needs(pattern)
    assert need is not None
    text = data.draw(st.from_regex(_python(pattern), fullmatch=True))
    assert holds(need, joined([text])), (name, text)  # a line, as detection joins them


def _unique_names(pattern: str) -> str:
    """Each ``(?P<g>`` of a generated regex named apart (a name twice is no regex)."""
    count = iter(range(10**6))
    return re.sub(r"\(\?P<g>", lambda _: f"(?P<g{next(count)}>", pattern)


def _random_regex() -> st.SearchStrategy[str]:
    """Regexes of literals, escapes, classes, groups, branches and quantifiers."""
    atoms = st.sampled_from(
        ["a", "b", "ab", " ", "-", r"\[", r"\]", r"\.", r"\d", r"\s", "[a-c]", "[^b]", ".", r"\t"]
    )
    quantifiers = st.sampled_from(["", "", "", "?", "*", "+", "{2}", "{0,2}", "{1,3}", "+?", "??"])
    # A group repeats a bounded number of times: ``from_regex`` keeps only the strings
    # Python's ``re`` matches, and ``re`` backtracks exponentially on a group repeated
    # without bound whose branches overlap (``(…|[a-c]*)+?((?:\]+|[^b])*){0,2}\]``: 2 of
    # 40 seeds ran over a minute, one over 8). The reader takes only a quantifier's least
    # count, which these cover (0, 1, 2); atoms keep the unbounded ones.
    bounded = st.sampled_from(["", "", "", "?", "{2}", "{0,2}", "{1,3}", "??"])

    def grow(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        group = st.builds(
            lambda kind, branches, q: f"({kind}{'|'.join(branches)}){q}",
            st.sampled_from(["?:", "?P<g>", ""]),
            st.lists(inner, min_size=1, max_size=3),
            bounded,
        )
        return st.lists(
            st.one_of(group, st.builds(str.__add__, atoms, quantifiers)), max_size=5
        ).map("".join)

    return st.recursive(st.builds(str.__add__, atoms, quantifiers), grow, max_leaves=8).map(
        _unique_names
    )


@settings(max_examples=300, deadline=None)
@given(data=st.data(), pattern=_random_regex())
def test_every_match_of_a_random_regex_holds_its_needs(data: st.DataObject, pattern: str) -> None:
    """The reader's literals on regexes a user could write: every match holds them."""
    need = pattern_needs(pattern)
    assert need is not None, pattern
    text = data.draw(st.from_regex(pattern, fullmatch=True))
    assert holds(need, joined([text])), (pattern, text)  # a line, as detection joins them


#: Atoms of Rust's syntax (some Python's ``re`` reads otherwise or not at all), each with
#: texts it matches: what ``_rust_regex`` builds a string from, for Polars to judge.
_RUST_ATOMS: list[tuple[str, list[str]]] = [
    ("a", ["a"]),
    ("b", ["b"]),
    (" ", [" "]),
    ("-", ["-"]),
    ("é", ["é"]),
    (r"\[", ["["]),
    (r"\.", ["."]),
    (r"\ ", [" "]),
    (r"\#", ["#"]),
    (r"\&", ["&"]),
    (r"\~", ["~"]),
    (r"\-", ["-"]),
    (r"\/", ["/"]),
    (r"\t", ["\t"]),
    (r"\a", ["\x07"]),
    (r"\d", ["0", "7", "\u0663"]),
    (r"\s", [" ", "\t"]),
    (r"\w", ["a", "_"]),
    (r"\x61", ["a"]),
    (r"\x{62}", ["b"]),
    (r"\u0061", ["a"]),
    (r"\pL", ["a", "é"]),
    (r"\PL", ["1", " "]),
    (r"\p{Ll}", ["a"]),
    ("[a-c]", ["a", "c"]),
    ("[^b]", ["a", " "]),
    ("[]a]", ["]", "a"]),
    ("[a&&[ab]]", ["a"]),
    ("[a-c--b]", ["a", "c"]),
    ("[a~~b]", ["a", "b"]),
    ("[[:alpha:]]", ["a", "b"]),
    (".", ["a", " ", "."]),
    ("}", ["}"]),
    ("]", ["]"]),
]
#: Assertions: no text, never repeated.
_RUST_ZERO_WIDTH = ["^", "$", r"\b", r"\B", r"\<", r"\>", r"\b{start}", r"\b{end}", r"\A", r"\z"]
_RUST_QUANTIFIERS = [
    ("", 1, 1),
    ("?", 0, 1),
    ("*", 0, 2),
    ("+", 1, 2),
    ("{2}", 2, 2),
    ("{0,2}", 0, 2),
    ("{ 2 }", 2, 2),
    ("{2,}", 2, 3),
    ("{0}", 0, 0),
    ("+?", 1, 2),
    ("??", 0, 1),
]


@st.composite
def _rust_regex(draw: st.DrawFn, depth: int = 0) -> tuple[str, str]:
    """A regex in Rust's syntax and a text built to match it (Polars says whether it does)."""
    pattern, text = "", ""
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["atom", "atom", "zero", "group"] if depth < 2 else ["atom"]))
        if kind == "zero":
            pattern += draw(st.sampled_from(_RUST_ZERO_WIDTH))
            continue
        q, low, high = draw(st.sampled_from(_RUST_QUANTIFIERS))
        if kind == "group":
            branches = draw(st.lists(_rust_regex(depth + 1), min_size=1, max_size=3))
            opening = draw(st.sampled_from(["(?:", "(", "(?P<g>"]))
            pattern += opening + "|".join(b[0] for b in branches) + ")" + q
            texts = [b[1] for b in branches]
        else:
            atom, texts = draw(st.sampled_from(_RUST_ATOMS))
            pattern += atom + q
        text += "".join(draw(st.sampled_from(texts)) for _ in range(draw(st.integers(low, high))))
    return pattern, text


@settings(max_examples=400, deadline=None)
@given(built=_rust_regex(), noise=st.text(alphabet="ab .]}-[#&~/\té", max_size=8))
def test_every_rust_match_of_a_random_regex_holds_its_needs(
    built: tuple[str, str], noise: str
) -> None:
    """Rust's regex (run by Polars: the engine detection scores with) is the judge: every
    string it matches holds the literals, on syntax Python reads otherwise or not at all."""
    pattern, text = _unique_names(built[0]), built[1]
    try:
        matched = pl.Series([text, noise, text + noise]).str.contains(pattern).to_list()
    except pl.exceptions.PolarsError:  # not Rust syntax
        return
    need = pattern_needs(pattern)
    if need is None:
        return
    for candidate, hit in zip([text, noise, text + noise], matched, strict=True):
        if hit:
            assert holds(need, joined([candidate])), (pattern, candidate, need)


def _reference(line: str) -> dict[str, Any] | None:
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.text(max_size=40),
        st.builds(
            lambda pad, obj, tail: pad + json.dumps(obj) + tail,
            st.text(alphabet=" \t\n\r\ufeff\x0b\x0c\xa0", max_size=3),
            st.one_of(
                st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
                st.lists(st.integers(), max_size=3),
                st.integers(),
                st.text(max_size=5),
            ),
            st.sampled_from(["", " ", "\n", "x", "}"]),
        ),
    )
)
def test_the_json_fast_reject_decodes_as_json_loads(line: str) -> None:
    assert object_of(line) == _reference(line)  # JSON key fitting, access and app formats


def _chosen_by_counting(
    objects: list[dict[str, Any]], candidates: dict[str, list[str]]
) -> dict[str, str]:
    """``choose_keys`` as it was: each candidate counted over every object."""
    out = {}
    for name, keys in candidates.items():
        for key in keys:
            if objects and sum(1 for o in objects if has_key(o, key)) * 2 >= len(objects):
                out[name] = key
                break
    return out


_KEYS = ["a", "b", "c", "a.b", "b.c"]


@settings(max_examples=300, deadline=None)
@given(
    objects=st.lists(
        st.dictionaries(
            st.sampled_from(["a", "b", "c"]),
            st.one_of(
                st.none(),
                st.integers(0, 3),
                st.dictionaries(st.sampled_from(["b", "c"]), st.one_of(st.none(), st.just(1))),
            ),
        ),
        max_size=12,
    ),
    candidates=st.dictionaries(
        st.sampled_from(["ts", "level", "path"]), st.lists(st.sampled_from(_KEYS), max_size=4)
    ),
)
def test_json_keys_chosen_by_stopping_early_are_the_counted_ones(
    objects: list[dict[str, Any]], candidates: dict[str, list[str]]
) -> None:
    """JSON key fitting stops counting a key once half the objects are known to hold it or
    not (``jsonl._in_at_least``): the same keys as counting every object."""
    assert choose_keys(objects, candidates) == _chosen_by_counting(objects, candidates)


def _escaped(key: str, which: list[bool]) -> str:
    """``key`` with the characters ``which`` marks written as ``\\uXXXX`` escapes."""
    return "".join(f"\\u{ord(c):04x}" if which[i % len(which)] else c for i, c in enumerate(key))


@settings(max_examples=150, deadline=None)
@given(
    layout=st.sampled_from(JSON_LAYOUTS),
    records=st.lists(
        st.tuples(
            st.lists(st.booleans(), min_size=1, max_size=6),  # which signature keys to write
            st.lists(st.booleans(), min_size=1, max_size=4),  # which characters to escape
            st.sampled_from(["x", 3, None, {"v": 1}]),
            st.sampled_from(["", " ", "\t", "  "]),  # blanks around the colon and the braces
        ),
        min_size=1,
        max_size=6,
    ),
)
def test_json_layouts_pruned_by_their_keys_score_as_their_expressions(
    layout: JsonLayout, records: list[tuple[list[bool], list[bool], Any, str]]
) -> None:
    """Lines that write some of a layout's signature keys, some spelled with ``\\u`` escapes:
    the layouts ruled out by the keys' literals score what their expressions give."""
    lines = []
    for keep, escape, value, blank in records:
        keys = [k for i, k in enumerate(layout.signature) if keep[i % len(keep)]]
        body = ", ".join(f'"{_escaped(k, escape)}"{blank}:{blank}{json.dumps(value)}' for k in keys)
        dropped = [k for k in layout.signature if k not in keys]  # as values and nested only
        rest = f'"extra": {json.dumps(dropped)}, "in": {json.dumps(dict.fromkeys(dropped, 1))}'
        lines.append("{" + blank + body + (", " if body else "") + rest + blank + "}")
    fmts = every_format(lines)
    series = pl.Series("line", lines, dtype=pl.String)
    assert list(_shares(fmts, series).items()) == list(_shares(fmts, series, prune=False).items())


def test_a_json_key_an_escape_other_than_u_can_spell_gives_no_literal() -> None:
    """``"a/b"`` can be written ``"a\\/b"``: such a layout's keys give no formula."""
    from logagent.formats.detect import _signed_keys
    from logagent.formats.needs import AllOf, OneOf

    assert _signed_keys(["v", "log.level"]) == AllOf(
        (OneOf(('"v"', "\\u")), OneOf(('"log.level"', "\\u")))
    )
    assert _signed_keys(["v", "a/b"]) is None
    assert _signed_keys(["$.msg", "time"]) is None  # a JSONPath, not a key written so
    assert _signed_keys(['a"b']) is None
    assert _signed_keys([]) is None
