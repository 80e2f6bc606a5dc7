"""The error-types pilot: evenly spaced, whole lines, one component's events."""

from __future__ import annotations

from logagent.errortypes import PILOT_BYTES, PILOT_PLACES, pilot_events, place_offsets, whole_lines
from logagent.formats.adapter import AppAsAccess
from logagent.formats.applogs import LOG4J


def test_places_are_spread_and_seed_free() -> None:
    """A large input gets PILOT_PLACES evenly spaced places; a small one is read in full."""
    big = 10**9
    offsets = place_offsets(big)
    assert len(offsets) == PILOT_PLACES and offsets[0] == 0 and offsets[-1] < big
    assert place_offsets(3 * PILOT_BYTES) == [0, PILOT_BYTES, 2 * PILOT_BYTES]


def test_whole_lines_drop_the_cut_ends() -> None:
    """The partial first line (mid-file) and the partial last line are dropped."""
    assert whole_lines(b"tail\nfull one\nfull two\nhea", at_start=False) == ["full one", "full two"]
    assert whole_lines(b"first\nsecond\npar", at_start=True) == ["first", "second"]


def test_pilot_keeps_only_the_component_events() -> None:
    """Only ERROR+ records of the asked component reach the miner."""
    lines = [
        "2024-03-05 10:00:00,000 ERROR [m] pay - charge failed for 12",
        "2024-03-05 10:00:01,000 ERROR [m] web - page failed",
        "2024-03-05 10:00:02,000 INFO  [m] pay - charge ok",
        "\tat pay.Charge(Charge.java:1)",
    ]
    messages = pilot_events(lines, AppAsAccess(LOG4J), LOG4J, "pay")
    assert messages.to_list() == ["charge failed for 12"]
