"""Synthetic web access logs with exact ground truth.

EDGE vs PURE: :mod:`logagent.samples.generate` (re-exported here as
:func:`generate`), :mod:`logagent.samples.__main__` (CLI) and
:mod:`logagent.samples.build_samples` are EDGE modules - they write files.
``routes``, ``plan``, ``fields``, ``render``, ``junk`` and ``truth`` are
PURE: they build columns, lines and counts in memory only. So are the parts
of the committed access-log samples that ``build_samples`` writes:
``access_records`` (the shared record type and helpers), ``access_shop_visits``
and ``access_shop`` (the shop behind nginx), ``access_docs`` (the Apache docs
site), ``access_api`` (the JSON API service) and ``access_expected`` (the
independent parse that gives each sample's expected answers).

``generate(path, scenario=..., size_mb=..., seed=..., fmt="combined")``
writes a log of about ``size_mb`` * 10**6 bytes and ``<path>.truth.json``::

    {"scenario", "seed", "format", "bytes", "lines", "valid_lines",
     "lines_5xx",
     "routes": {route: {"requests", "4xx", "5xx", "status": {"503": n}}},
     "top_errors": [[route, n5xx], ...],        # count desc, name asc
     "top_errors_raw": [[raw_path, n5xx], ...],  # top 20, query dropped
     "prefix_90_lines", "prefix_90_top"}         # late_incident(_new) only

Routes are normalized templates: a raw path minus its query, with
all-digit segments -> ``{id}``, UUID segments -> ``{uuid}`` and segments
of >= 16 hex chars -> ``{hex}``.
"""

from .generate import generate
from .plan import SCENARIOS
from .render import FORMATS

__all__ = ["FORMATS", "SCENARIOS", "generate"]
