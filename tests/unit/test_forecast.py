"""The memory forecast: what a batch leaves behind is counted once, its transient once."""

from __future__ import annotations

from logagent.routermem.forecast import PRIOR_PER_BYTE, Forecast

MIB = 1 << 20


def test_memory_that_stays_is_not_counted_as_transient() -> None:
    """RSS 150 -> 230 MiB with the peak at 240: the transient is 10 MiB, not 90."""
    f = Forecast()
    f.start(rss=150 * MIB, peak=150 * MIB)
    f.observe(rss=230 * MIB, peak=240 * MIB, batch_bytes=8 * MIB, units=0)
    assert f.per_byte == PRIOR_PER_BYTE  # 10 MiB over 8 MiB is below the prior
    assert f.next_batch(8 * MIB, 0) == int(PRIOR_PER_BYTE * 8 * MIB)


def test_a_large_transient_raises_the_factor() -> None:
    """A batch whose peak stands 80 MiB above the RSS after it: per_byte = 80 / 8 = 10."""
    f = Forecast()
    f.start(rss=100 * MIB, peak=100 * MIB)
    f.observe(rss=110 * MIB, peak=190 * MIB, batch_bytes=8 * MIB, units=0)
    assert f.per_byte == 10.0


def test_growth_per_unit_is_the_last_batchs() -> None:
    """RSS that stays after a batch of 100 units: its growth per unit is forecast again."""
    f = Forecast()
    f.start(rss=100 * MIB, peak=100 * MIB)
    f.observe(rss=101 * MIB, peak=101 * MIB, batch_bytes=0, units=100)
    assert f.next_batch(0, 200) == 2 * MIB
