"""Template mining, freezing and matching."""

from __future__ import annotations

import random

import polars as pl
import pytest

from logagent.templates import OTHER, MiningConfig, mask, match, match_expr, mine, template_id

MESSAGES = [
    "Timeout after 250ms calling acquirer at db-1.prod.internal:5432",
    "Timeout after 1.5s calling acquirer at db-2.prod.internal:6432",
    "Invalid token for user ann@example.com from 10.0.0.1",
    "Invalid token for user bob.smith@example.org from 192.168.1.20",
    "Consumer alpha lagging 17 messages",
    "Consumer beta lagging 3 messages",
    "Failed to write /var/lib/x/1/part-0001.parquet: No space left on device",
    "Failed to write /srv/data/7.log: No space left on device",
    "Deadlock detected in transaction 9f1c2a3b4d5e6f70, rolled back",
    "Deadlock detected in transaction 1234567890123456, rolled back",
]


def test_mask_folds_variable_parts_to_tokens() -> None:
    """E-mails, IPs, hosts, paths, durations, numbers and hex become canonical tokens."""
    out = mask(pl.Series(MESSAGES)).to_list()
    assert out[0] == out[1] == "Timeout after <DUR> calling acquirer at <HOST>"
    assert out[2] == out[3] == "Invalid token for user <EMAIL> from <IP>"
    assert out[6] == out[7] == "Failed to write <PATH>: No space left on device"
    assert out[8] == out[9] == "Deadlock detected in transaction <NUM>, rolled back"


def test_mask_keeps_nulls_and_collapses_space() -> None:
    """Nulls stay null; runs of white space become one space."""
    out = mask(pl.Series(["a  b\t c ", None])).to_list()
    assert out == ["a b c", None]


def test_mine_generalizes_unmasked_words() -> None:
    """Words masking cannot know (a consumer name) become <*> once two values are seen."""
    ts = mine(MESSAGES)
    texts = {t.text for t in ts.templates}
    assert "Consumer <*> lagging <NUM> messages" in texts
    assert len(ts.templates) == 5
    assert ts.pilot_other == 0


def test_match_assigns_ids_and_other() -> None:
    """Every pilot-like message gets its template id; an unknown one and a null get OTHER."""
    ts = mine(MESSAGES)
    ids = match(ts, pl.Series([*MESSAGES, "Consumer gamma lagging 5 messages", "novel", None]))
    assert ids[-2] == ids[-1] == OTHER
    assert ids[-3] == ids[4] == ids[5] != OTHER
    assert ts.text(ids[0]) == "Timeout after <DUR> calling acquirer at <HOST>"
    assert ids[0] == template_id(ts.text(ids[0]))


def test_match_expr_equals_match() -> None:
    """The expression form gives the same ids as the Series form."""
    ts = mine(MESSAGES)
    series = pl.Series("m", [*MESSAGES, "novel", None])
    via_expr = pl.DataFrame({"m": series}).select(match_expr(ts, pl.col("m"))).to_series()
    assert via_expr.to_list() == match(ts, series).to_list()


def test_mine_ignores_order() -> None:
    """Shuffled pilots give identical template ids, texts and pilot counts."""
    base = mine(MESSAGES * 3)
    for seed in range(5):
        shuffled = MESSAGES * 3
        random.Random(seed).shuffle(shuffled)
        assert mine(shuffled) == base


def test_max_templates_keeps_most_frequent() -> None:
    """With a cap, the most frequent templates of the pilot are kept, the rest go to OTHER."""
    pilot = MESSAGES + MESSAGES[:2] * 5
    ts = mine(pilot, MiningConfig(max_templates=1))
    assert [t.text for t in ts.templates] == ["Timeout after <DUR> calling acquirer at <HOST>"]
    assert ts.pilot_other == len(MESSAGES) - 2
    assert match(ts, pl.Series(MESSAGES[2:3])).to_list() == [OTHER]


def test_examples_hide_emails_and_ips() -> None:
    """Quoted examples mask e-mail addresses and IPs but keep the other text."""
    ts = mine(MESSAGES)
    tid = match(ts, pl.Series(MESSAGES[2:3]))[0]
    assert ts.examples(tid) == ("Invalid token for user <EMAIL> from <IP>",)
    tid = match(ts, pl.Series(MESSAGES[:1]))[0]
    assert any("db-1.prod.internal:5432" in e for e in ts.examples(tid))


def test_specific_template_wins_over_general() -> None:
    """A message matching a literal template and a wildcard one gets the literal one."""
    pilot = ["job a done", "job b done", "job c done", "cache miss 1", "cache miss 2"]
    ts = mine(pilot)
    assert ts.text(match(ts, pl.Series(["job zz done"]))[0]) == "job <*> done"


def test_bad_max_templates_is_rejected() -> None:
    """A cap below one is a caller bug and fails loudly."""
    with pytest.raises(ValueError, match="max_templates"):
        mine(MESSAGES, MiningConfig(max_templates=0))


def test_empty_pilot_gives_empty_set() -> None:
    """No pilot messages: no templates, everything is OTHER."""
    ts = mine([])
    assert ts.templates == ()
    assert match(ts, pl.Series(["x"])).to_list() == [OTHER]
