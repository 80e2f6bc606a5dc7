"""The literals every match of a regex holds (formats/needs.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logagent.formats.needs import AllOf, OneOf, any_of, holds, pattern_needs, searcher


@pytest.mark.parametrize(
    ("pattern", "need"),
    [
        ("abc", "abc"),
        (r"a\[b\]", "a[b]"),
        (r"^(?:\S+ )?\S+ \[(?P<ts>[^\]]+)\] x", AllOf(("\n", " [", "] x"))),  # optional: none
        (r"^\[x", "\n[x"),  # the line's start is the newline before it (``joined``)
        (r"ab$", "ab\n"),
        (r"^^x$$", "\nx\n"),  # anchors are zero-width: two at one edge are one newline
        (r"^(?P<a>x)", AllOf(("\n", "x"))),  # never across a group's edge
        ("a?bc*d", AllOf(("b", "d"))),
        ("ab+c", AllOf(("ab", "c"))),  # a run ends at a repetition: "abc" is no match's part
        ("ca+?b", AllOf(("ca", "b"))),
        ("a{2}b{0,3}c{1,}", AllOf(("a", "c"))),
        ("(?:ab)+c", AllOf(("ab", "c"))),
        ("(?:ab)*c", "c"),
        ("(?:ab)?c", "c"),
        ("a(?:b)c", AllOf(("a", "b", "c"))),  # never across a group's edge
        ("x(?P<l>ERROR|WARN)y", AllOf(("x", OneOf(("ERROR", "WARN")), "y"))),
        ("x(?:ab|)y", AllOf(("x", "y"))),  # an empty branch needs nothing
        ("a|b|c", OneOf(("a", "b", "c"))),
        (r"a\tb", "a\tb"),
        (r"\x41B\u0041C\x{41}D\pLE\p{L}F", AllOf(("B", "C", "D", "E", "F"))),
        (r"a\db\sc.d[e-f]g^h$i\bj\b{start}k", AllOf(("a", "b", "c", "d", "g\nh\ni", "j", "k"))),
        ("[]a]b", "b"),
        ("[[:alpha:]x]y", "y"),
        (".*", AllOf(())),
    ],
)
def test_the_literals_of_a_pattern(pattern: str, need: object) -> None:
    """Runs of plain characters no quantifier makes optional, per branch and group."""
    assert pattern_needs(pattern) == need


@pytest.mark.parametrize(
    "pattern",
    [
        "(?i)error",  # flags change what a literal matches
        "a(?i:b)c",
        "(?x)a b",
        "(?<name>a)",
        r"a\<b",  # a word boundary in Rust, no "<"
        r"a\0b",
        r"a\Ub",
        "a{,3}b",
        "a**",
        "*a",
        "(ab",
        "ab)",
        "[ab",
        "a]",
        "a{2,1}b",  # bounds Rust refuses: the regex never runs, no formula for it
        "a{2,b}c",
        "a{\u0663}b",
        r"\b{ start }a",
        "(" * 400 + "a" + ")" * 400,  # deeper than Python's stack (Rust stops at 250)
    ],
)
def test_syntax_it_does_not_follow_is_unknown(pattern: str) -> None:
    """Unknown (None) rather than a guess: the format is then scored."""
    assert pattern_needs(pattern) is None


def test_holds_and_any_of() -> None:
    """AllOf needs each part, OneOf one; one unknown pattern makes a format's needs unknown."""
    need = AllOf(("x", OneOf(("ERROR", "WARN"))))
    assert holds(need, "a WARN x")
    assert not holds(need, "a WARN")
    assert not holds(need, "x INFO")
    assert holds(AllOf(()), "")
    assert any_of(["a", "b"]) == OneOf(("a", "b"))
    assert any_of(["a", None]) is None
    assert any_of(["a", AllOf(())]) == AllOf(())


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(alphabet=st.sampled_from("ab -\né\u2028\U0001f600"), max_size=60),
    literals=st.lists(st.text(alphabet=st.sampled_from("ab -é\U0001f600"), min_size=1, max_size=4)),
)
def test_the_searcher_finds_what_str_finds(text: str, literals: list[str]) -> None:
    """The SIMD search of the joined sample says what ``in`` says, asked twice (memo)."""
    has = searcher(text)
    for literal in [*literals, *literals]:
        assert has(literal) == (literal in text)
    need = AllOf(tuple(literals))
    assert holds(need, has) == holds(need, text)
