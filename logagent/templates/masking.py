"""Mask the variable parts of free-text messages (PURE).

A message is folded to a *canonical masked string*: e-mails, URLs, UUIDs, IP
addresses, host:port pairs, paths, quoted strings, durations, numbers and long
hex words become ``<EMAIL>``, ``<URL>``, ... ``<NUM>`` and runs of white space become one
space. Two messages of one error type then usually share their masked string
exactly, so counting is a join on it; what masking misses (a user name, a
queue name) the template miner generalizes to ``<*>``.

Everything is a Polars expression applied to a whole column at once (the hot
path never loops in Python per message). The regexes use the Rust ``regex``
dialect: no look-around, so each rule is written to stand alone.
"""

from __future__ import annotations

import polars as pl

#: (name, pattern, replacement) applied in this order; order matters (an e-mail
#: holds dots and digits, a UUID holds hex runs, a duration starts with a number).
MASKS: tuple[tuple[str, str, str], ...] = (
    # A word holding U+FFFD was invalid UTF-8 (replaced when read): which bytes were bad
    # varies, and one error type must not split into as many templates as there are spellings.
    ("BADUTF8", r"[^\s]*\x{FFFD}[^\s]*", "<BIN>"),
    ("EMAIL", r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}", "<EMAIL>"),
    ("URL", r"\b[A-Za-z][A-Za-z0-9+.-]*://\S+", "<URL>"),
    (
        "UUID",
        r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b",
        "<UUID>",
    ),
    ("IP", r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b", "<IP>"),
    ("HOST", r"\b[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+:\d{1,5}\b", "<HOST>"),
    ("PATH", r"(^|[\s=:(\[])(?:/[\w.%+~@-]+)+/?", "${1}<PATH>"),
    ("STR", r"'[^']*'|\"[^\"]*\"", "<STR>"),
    ("DUR", r"\b\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h|d)\b", "<DUR>"),
    # Long hex words share the number token: a random hex id is all digits now and
    # then, and two tokens would split one error type in two.
    ("NUM", r"\b(?:\d+(?:\.\d+)?|0x[0-9a-fA-F]+|[0-9a-fA-F]{8,})\b", "<NUM>"),
)

#: Masks applied to the examples a report may quote (personal data only).
PRIVATE_MASKS: tuple[str, ...] = ("EMAIL", "IP")


def mask_expr(messages: pl.Expr) -> pl.Expr:
    """The canonical masked string of each message (null stays null)."""
    out = messages
    for _, pattern, repl in MASKS:
        out = out.str.replace_all(pattern, repl)
    # \x1c-\x1f are white space to Python's str.split (which Drain tokenizes with), not to \s.
    return out.str.replace_all(r"[\s\x1c-\x1f]+", " ").str.strip_chars(" ")


def mask(messages: pl.Series) -> pl.Series:
    """``mask_expr`` over a Series; the result keeps the Series' name and length."""
    frame = pl.DataFrame({"m": messages.cast(pl.String)})
    return frame.select(mask_expr(pl.col("m"))).to_series().alias(messages.name)


def redact_expr(messages: pl.Expr) -> pl.Expr:
    """Hide e-mail addresses and IP addresses, keep the rest of the text as written."""
    out = messages
    for name, pattern, repl in MASKS:
        if name in PRIVATE_MASKS:
            out = out.str.replace_all(pattern, repl)
    return out
