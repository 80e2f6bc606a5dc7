"""EDGE module: command line for the log generator (writes files).

Usage: python -m logagent.samples --scenario dominant --size-mb 100
--seed 1 [--format combined|common|jsonl] -o FILE
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from .generate import generate
from .plan import SCENARIOS
from .render import FORMATS

_SCENARIO_HELP = """scenarios (5xx = status 500-599):
  dominant          one route has ~60% of all 5xx, the next ~6%
  close             top two routes within 3% in 5xx count
  tie               top two routes have exactly equal 5xx counts
  late_incident     top route fails only in the last 10% of lines
  late_incident_new like late_incident, but the top route has no request at
                    all (of any status) before the last 10% of lines
  high_cardinality  ~40 templates dense with {id}/{uuid}/{hex} values
  no_errors         no 5xx at all (4xx still present)
  garbage           binary/text junk with ~0.1% valid lines
"""


def parser() -> argparse.ArgumentParser:
    """Build the argument parser."""
    p = argparse.ArgumentParser(
        prog="python -m logagent.samples",
        description="Generate a synthetic web access log plus a ground "
        "truth sidecar FILE.truth.json (counted while generating).",
        epilog=_SCENARIO_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--scenario", required=True, choices=SCENARIOS, help="which error pattern to plant"
    )
    p.add_argument(
        "--size-mb", required=True, type=float, help="approximate file size in MB (10**6 bytes)"
    )
    p.add_argument(
        "--seed",
        type=int,
        default=1,
        help="random seed; same arguments give identical bytes (default 1)",
    )
    p.add_argument(
        "--format",
        dest="fmt",
        choices=FORMATS,
        default="combined",
        help="combined (nginx + request time, default), common (apache) or jsonl",
    )
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="log file to write")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; print one summary line to stderr."""
    p = parser()
    args = p.parse_args(argv)
    start = time.perf_counter()
    try:
        truth = generate(
            args.output, scenario=args.scenario, size_mb=args.size_mb, seed=args.seed, fmt=args.fmt
        )
    except (ValueError, OSError) as err:
        p.error(str(err))
    secs = max(time.perf_counter() - start, 1e-9)
    print(
        f"wrote {truth['bytes']} bytes, {truth['lines']} lines to "
        f"{args.output} in {secs:.2f} s "
        f"({truth['bytes'] / 1e6 / secs:.1f} MB/s)",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
