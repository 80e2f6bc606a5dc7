"""EDGE module: write a synthetic JSON-lines application log and its truth.

Usage: python -m logagent.samples.app --size-mb 20 --seed 1 -o app.jsonl

Writes ``FILE`` and ``FILE.truth.json``: per message template (the
generator's own key and ``{slot}`` text) its level and count by logger, and per
logger its count by level, all counted from the rendered blocks while writing
(never by re-parsing the file). Rendering is ``app_render`` (PURE).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from .app_render import LOGGERS, TEMPLATES, render_block

BLOCK_RECORDS = 50_000
PILOT_RECORDS = 2_000
MB = 1_000_000


def _block_bytes(lines: Any) -> bytes:
    return ("\n".join(lines.to_list()) + "\n").encode()


def mean_record_bytes(seed: int) -> float:
    """Average line length, measured on a pilot block rendered with a side seed."""
    return len(_block_bytes(render_block(seed + 1, 0, 0, PILOT_RECORDS).lines)) / PILOT_RECORDS


def generate(path: str | os.PathLike[str], *, size_mb: float, seed: int) -> dict[str, Any]:
    """Write about ``size_mb`` MB (10**6 bytes) of JSON lines; return and write the truth."""
    if not size_mb > 0 or seed < 0:
        raise ValueError(f"need size_mb > 0 and seed >= 0, got {size_mb}, {seed}")
    n_records = max(1, round(size_mb * MB / mean_record_bytes(seed)))
    counts = np.zeros((len(TEMPLATES), len(LOGGERS)), dtype=np.int64)
    written = 0
    with open(path, "wb") as fh:
        for no, first in enumerate(range(0, n_records, BLOCK_RECORDS)):
            block = render_block(seed, no, first, min(BLOCK_RECORDS, n_records - first))
            written += fh.write(_block_bytes(block.lines))
            np.add.at(counts, (block.templates, block.loggers), 1)
    truth = truth_dict(counts, {"seed": seed, "bytes": written, "lines": n_records})
    with open(f"{os.fspath(path)}.truth.json", "w", encoding="utf-8") as fh:
        json.dump(truth, fh, indent=1)
        fh.write("\n")
    return truth


def truth_dict(counts: np.ndarray, meta: dict[str, Any]) -> dict[str, Any]:
    """Per-template and per-logger counts as plain JSON values."""
    templates = {
        t.key: {
            "level": t.level,
            "text": t.text,
            "count": int(counts[i].sum()),
            "by_logger": {LOGGERS[j]: int(counts[i, j]) for j in np.flatnonzero(counts[i])},
        }
        for i, t in enumerate(TEMPLATES)
    }
    loggers: dict[str, dict[str, int]] = {lg: {} for lg in LOGGERS}
    for i, t in enumerate(TEMPLATES):
        for j, lg in enumerate(LOGGERS):
            if counts[i, j]:
                loggers[lg][t.level] = loggers[lg].get(t.level, 0) + int(counts[i, j])
    return {**meta, "templates": templates, "loggers": loggers}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; print one summary line to stderr."""
    p = argparse.ArgumentParser(
        prog="python -m logagent.samples.app",
        description="Generate a JSON-lines app log (ts/level/logger/message) with ~20 "
        "error templates plus FILE.truth.json counted while writing.",
    )
    p.add_argument(
        "--size-mb", type=float, default=20.0, help="approximate size in MB (default 20)"
    )
    p.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="log file to write")
    args = p.parse_args(argv)
    try:
        truth = generate(args.output, size_mb=args.size_mb, seed=args.seed)
    except (ValueError, OSError) as err:
        p.error(str(err))
    print(f"wrote {truth['bytes']} bytes, {truth['lines']} lines to {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
