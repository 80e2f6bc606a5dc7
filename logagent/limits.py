"""Settings that can never fit the memory budget, refused before anything is read (PURE).

Router-Mem keeps a run inside its budget by taking the ladder's steps, but
some costs are fixed by the settings before the first batch: the process
itself, the unit bookkeeping (the reading order and per-unit rows hold a few
words per unit, so ``--unit-size 1`` on a 300 MB file needs gigabytes), and
one line held whole up to ``--line-cap`` (read, copied, parsed). A setting
whose fixed cost exceeds the budget is a usage error (exit 2), never a run
that outgrows its budget or a partial answer that was doomed from the start.
"""

from __future__ import annotations

from logagent.errors import ConfigError
from logagent.sources import permute

#: bytes of bookkeeping per unit (order, per-unit rows, batch offsets), measured with margin;
#: only for orders kept as arrays (``sources.permute.MATERIALIZE_UNITS``): beyond, the order is
#: computed for the ranks asked and per-unit rows exist for the units read, which the memory
#: ladder watches like any other growth
UNIT_BOOKKEEPING_BYTES = 48
#: a line of ``line_cap`` bytes is held this many times at its peak (buffer, copy, parse)
LINE_COPIES = 8
#: the least room a run needs beside the process: one smallest batch at its peak
MIN_RUN_BYTES = 32 << 20


def _mib(n: int) -> str:
    return f"{n / (1 << 20):,.0f} MiB" if n >= 1 << 20 else f"{n:,} bytes"


def check_start(budget_bytes: int, rss_bytes: int) -> None:
    """A budget below what the process needs to start and read one batch is a usage error."""
    needed = rss_bytes + MIN_RUN_BYTES
    if budget_bytes < needed:
        raise ConfigError(
            f"memory budget {_mib(budget_bytes)} is below what logagent needs to run "
            f"(about {_mib(needed)}: {_mib(rss_bytes)} to start, {_mib(MIN_RUN_BYTES)} to read); "
            "give --memory-budget a larger size or a share such as 25%"
        )


def check_fixed_costs(
    *, budget_bytes: int, line_cap: int, unit_size: int | None, total_bytes: int
) -> None:
    """Refuse a line cap or a unit size whose fixed memory cost is over the budget."""
    line_cost = line_cap * LINE_COPIES
    if line_cost > budget_bytes:
        raise ConfigError(
            f"--line-cap {_mib(line_cap)} cannot fit the memory budget {_mib(budget_bytes)} "
            f"(a line that long is held about {LINE_COPIES} times while parsed); "
            f"use at most {_mib(budget_bytes // LINE_COPIES)} or a larger budget"
        )
    if unit_size is None or total_bytes == 0:
        return
    units = -(-total_bytes // unit_size)
    cost = min(units, permute.MATERIALIZE_UNITS) * UNIT_BOOKKEEPING_BYTES
    if cost > budget_bytes // 2:
        least = -(-total_bytes * UNIT_BOOKKEEPING_BYTES * 2 // budget_bytes)
        raise ConfigError(
            f"--unit-size {unit_size:,} bytes cuts {_mib(total_bytes)} into {units:,} units, "
            f"whose bookkeeping (~{_mib(cost)}) cannot fit half the memory budget "
            f"{_mib(budget_bytes)}; use at least {least:,} bytes, or auto"
        )
