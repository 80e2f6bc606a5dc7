"""What text every match of a regex holds: literals a sample must contain (PURE).

Detection scores every format on a sample in one Polars query, and a
format's regexes cost their compilation and their expressions' building on
every run, whether or not a line could match: ~1.5 ms a format, ~40 formats,
and the compiled automata stay in the process (a 1-line run's memory). A
regex whose every match holds a literal the sample lacks matches no line of
it, so its format scores 0 unparsed (``detect._ruled_out``).

``pattern_needs`` reads a regex (Rust syntax, as Polars runs it) and returns
a formula of literals: a string (the match holds it), ``AllOf`` (each) or
``OneOf`` (one of them), or None when it cannot tell. It is sound by being
narrow: a run of plain characters that no quantifier makes optional is a
literal; a class, ``.``, an assertion, an escape it does not know, a repetition
of a group or an optional part ends a run and adds nothing; an alternation
needs one of its branches; inline flags (``(?i)``, ``(?x)``, ...) or syntax it
does not read make the whole regex unknown. A literal run never crosses a
group's edge (``a(?:b)c`` needs ``a``, ``b`` and ``c``, not ``abc``).
``holds`` tests a formula on a text (``searcher``: each literal searched
once); the sample's lines joined is enough to rule a format out (a line that
matched would have put each literal in it). ``^`` and ``$`` are the newline
around each line in that text (``joined``): a regex that starts with ``^\\[``
needs a line that starts with a bracket.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import NamedTuple

from logagent.formats.app import FLAGS, class_end

try:
    import stringzilla as _sz
except ImportError:  # pragma: no cover - every platform with a wheel has it
    _sz = None


class AllOf(NamedTuple):
    """Every part holds (tuples: ~700 of them are built for the catalog's regexes on every
    run, where frozen dataclasses cost a third more of its 4 ms)."""

    parts: tuple[Need, ...]


class OneOf(NamedTuple):
    """At least one part holds."""

    parts: tuple[Need, ...]


Need = str | AllOf | OneOf
#: What ``^`` and ``$`` need: the lines are searched joined, each between two newlines
#: (``joined``), so ``^\[`` needs "\n[" (a line that starts with a bracket), not a bracket
#: anywhere (an access log's stamp has one: only its lines' starts rule PHP's layout out).
NL = "\n"
#: Escaped characters that stand for themselves in Rust's syntax (``\<`` and ``\>`` do
#: not: they are word boundaries there).
_LITERAL_ESCAPES = frozenset(".+*?()|[]{}^$\\/-\"'#&~:,=@%!; ")
#: Escapes of one character that stand for a class or an assertion (no literal).
_CLASS_ESCAPES = frozenset("dDsSwWbBAzZ")
_ESCAPED_CONTROLS = {"t": "\t", "n": "\n", "r": "\r"}
_BOUNDARIES = frozenset({"start", "end", "start-half", "end-half"})
#: A counted repetition's bounds as Rust writes them: ``{n}``, ``{n,}``, ``{n,m}`` (blanks
#: allowed, ASCII digits only).
_BOUNDS = re.compile(r"\s*([0-9]+)\s*(?:,\s*([0-9]*)\s*)?", re.ASCII)


class _Unknown(Exception):
    """The regex holds syntax this reader does not follow."""


def holds(need: Need, text: str | Callable[[str], bool]) -> bool:
    """Whether ``text`` holds what ``need`` asks; ``text`` may be a test of one literal
    (``searcher``: each literal searched once for many formulas)."""
    has = text.__contains__ if isinstance(text, str) else text
    if isinstance(need, str):
        return has(need)
    if isinstance(need, AllOf):
        return all(holds(part, has) for part in need.parts)
    return any(holds(part, has) for part in need.parts)


def joined(lines: list[str]) -> str:
    """The text ``holds`` reads for ``lines`` (none holding a newline): each line between two
    newlines, so that a line's edges are literals too (``NL``)."""
    return NL + NL.join(lines) + NL


def searcher(text: str) -> Callable[[str], bool]:
    """Whether ``text`` holds a literal, each literal searched once. A literal no line holds
    is the common case and costs a whole pass: StringZilla's SIMD search does it ~15 times
    faster than ``str.__contains__`` (256 KB: ~15 against ~250 us; 47 of the catalog's 67
    literals are missing from an access log's sample)."""
    memo: dict[str, bool] = {}
    if _sz is None:  # pragma: no cover - every platform with a wheel has it

        def has(literal: str) -> bool:
            if literal not in memo:
                memo[literal] = literal in text
            return memo[literal]

        return has
    haystack = _sz.Str(text.encode("utf-8", "surrogatepass"))

    def has_sz(literal: str) -> bool:
        if literal not in memo:
            memo[literal] = haystack.find(literal.encode("utf-8", "surrogatepass")) >= 0
        return memo[literal]

    return has_sz


def any_of(needs: list[Need | None]) -> Need | None:
    """What one of several regexes' matches holds (a format of several patterns)."""
    if any(n is None for n in needs):
        return None
    return _simplify(OneOf(tuple(n for n in needs if n is not None)))  # no None: checked above


@functools.lru_cache(maxsize=256)
def pattern_needs(pattern: str) -> Need | None:
    """The literals every match of ``pattern`` holds (module doc); None when unknown."""
    if FLAGS.search(pattern):
        return None
    try:
        end, need = _alternation(pattern, 0)
    except (_Unknown, ValueError, IndexError, RecursionError):  # Rust nests at most 250 deep
        return None
    return need if end == len(pattern) else None


def _alternation(p: str, i: int) -> tuple[int, Need]:
    """Branches from ``i`` to the ``)`` that closes them (or the end); the index of that end."""
    branches: list[Need] = []
    while True:
        i, branch = _sequence(p, i)
        branches.append(branch)
        if i < len(p) and p[i] == "|":
            i += 1
            continue
        return i, _simplify(OneOf(tuple(branches)))


def _sequence(p: str, i: int) -> tuple[int, Need]:
    """One branch: its items' needs, literal runs joined; ends at ``|``, ``)`` or the end."""
    parts: list[Need] = []
    run = ""
    while i < len(p) and p[i] not in "|)":
        i, literal, inner = _atom(p, i)
        after, least = _quantifier(p, i)
        once, i = after == i, after
        if literal is not None and least >= 1:
            if not (literal == NL and run.endswith(NL)):  # ``^^``: one edge, one newline
                run += literal
            if once:
                continue  # no quantifier: the run goes on
        if run:
            parts.append(run)
        run = ""
        if inner is not None and least >= 1:
            parts.append(inner)
    if run:
        parts.append(run)
    return i, _simplify(AllOf(tuple(parts)))


def _atom(p: str, i: int) -> tuple[int, str | None, Need | None]:
    """The atom at ``i``: the index after it, its literal character (or None), and what a
    group inside it needs (or None)."""
    c = p[i]
    if c == "\\":
        return _escape(p, i)
    if c == "[":
        end = class_end(p, i)
        if end < 0:
            raise _Unknown(p)
        return end + 1, None, None
    if c == "(":
        j = i + 1
        if p.startswith("?P<", j):
            j = p.index(">", j) + 1
        elif p.startswith("?:", j):
            j += 2
        elif p.startswith("?", j):
            raise _Unknown(p)
        j, inner = _alternation(p, j)
        if j >= len(p) or p[j] != ")":
            raise _Unknown(p)
        return j + 1, None, inner
    if c in "^$":  # the line's edge: the newline before (after) it in the joined lines
        return i + 1, NL, None
    if c == ".":
        return i + 1, None, None
    if c in "*+?{}]":
        raise _Unknown(p)  # a quantifier with nothing before it, a stray bracket
    return i + 1, c, None


def _escape(p: str, i: int) -> tuple[int, str | None, None]:
    """The escape at ``i`` (``p[i]`` is a backslash)."""
    c = p[i + 1]
    if c in _LITERAL_ESCAPES:
        return i + 2, c, None
    if c in _ESCAPED_CONTROLS:
        return i + 2, _ESCAPED_CONTROLS[c], None
    if c in _CLASS_ESCAPES:
        if c == "b" and p.startswith("{", i + 2):  # \b{start} and kin
            end = p.index("}", i)
            if p[i + 3 : end] not in _BOUNDARIES:
                raise _Unknown(p)
            return end + 1, None, None
        return i + 2, None, None
    if c in "pPxu":  # a Unicode class or a code point: no literal taken
        if p.startswith("{", i + 2):
            return p.index("}", i) + 1, None, None
        if c in "pP":
            return i + 3, None, None
        width = {"x": 2, "u": 4}[c]
        return i + 2 + width, None, None
    raise _Unknown(p)


def _quantifier(p: str, i: int) -> tuple[int, int]:
    """The quantifier at ``i`` (if any): the index after it and its least count."""
    if i >= len(p) or p[i] not in "?*+{":
        return i, 1
    c = p[i]
    if c == "{":
        end = p.index("}", i)
        bounds = _BOUNDS.fullmatch(p[i + 1 : end])
        if bounds is None or (bounds[2] and int(bounds[2]) < int(bounds[1])):
            raise _Unknown(p)  # Rust refuses it: no formula for a regex that never runs
        least, i = int(bounds[1]), end + 1
    else:
        least, i = (0 if c in "?*" else 1), i + 1
    if i < len(p) and p[i] == "?":  # lazy
        i += 1
    if i < len(p) and p[i] in "?*+{":
        raise _Unknown(p)  # a quantifier of a quantifier: not Rust syntax
    return i, least


def _simplify(need: AllOf | OneOf) -> Need:
    """``need`` without needless nesting (its parts are simple already): an empty AllOf holds
    always, and so does an OneOf with such a part; one part stands alone."""
    if isinstance(need, AllOf):
        flat = tuple(
            q for part in need.parts for q in (part.parts if isinstance(part, AllOf) else (part,))
        )
        return flat[0] if len(flat) == 1 else AllOf(flat)
    if any(isinstance(part, AllOf) and not part.parts for part in need.parts):
        return AllOf(())
    return need.parts[0] if len(need.parts) == 1 else need
