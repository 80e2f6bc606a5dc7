"""EDGE module: builds the committed sample logs in ``sample_logs/``.

Run ``python -m logagent.samples.build_samples [OUT_DIR]`` to (re)write
``nginx_access.log``, ``apache_access.log`` and ``app_access.jsonl`` plus an
``X.expected.json`` for each.  The traffic is hand-shaped (browsing sessions
with their assets and XHR calls, crawlers, health probes, a vulnerability
scanner, an upstream incident) rather than the bulk generator's output.

The PURE part is deterministic and lives beside this module: the shared
record type and helpers in ``access_records``, the shop behind nginx in
``access_shop_visits`` (visitors and their API calls) and ``access_shop``
(bots, probes, oddities and :func:`build_nginx`), the Apache docs site in
``access_docs``, the JSON API service in ``access_api``, and the simple
independent parser that computes the expected answers by reading the written
file back in ``access_expected``. Only :func:`main`, :func:`write_sample` and
:func:`read_lines` here touch the disk.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .access_api import build_app
from .access_docs import build_apache
from .access_expected import expected_for
from .access_shop import build_nginx


def read_lines(path: Path) -> list[str]:
    """Lines of a file without their newline (UTF-8, bad bytes replaced)."""
    return path.read_bytes().decode("utf-8", errors="replace").split("\n")[:-1]


SAMPLES: dict[str, tuple[str, Callable[[random.Random], list[str]], int]] = {
    "nginx_access.log": ("combined", build_nginx, 11),
    "apache_access.log": ("common", build_apache, 12),
    "app_access.jsonl": ("jsonl", build_app, 13),
}


def write_sample(out_dir: Path, name: str) -> dict[str, Any]:
    """Write one sample and its expected JSON (computed by re-reading it)."""
    fmt, build, seed = SAMPLES[name]
    path = out_dir / name
    path.write_text("\n".join(build(random.Random(seed))) + "\n", encoding="utf-8")
    expected = expected_for(read_lines(path), fmt)
    Path(f"{path}.expected.json").write_text(
        json.dumps(expected, indent=2) + "\n", encoding="utf-8"
    )
    return expected


def main(argv: list[str] | None = None) -> int:
    """Write all samples into OUT_DIR (default: sample_logs)."""
    args = sys.argv[1:] if argv is None else argv
    out_dir = Path(args[0] if args else "sample_logs")
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in SAMPLES:
        exp = write_sample(out_dir, name)
        print(
            f"{name}: {exp['lines']} lines, {exp['malformed_lines']} malformed, "
            f"top {exp['top_errors'][:2]}",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
