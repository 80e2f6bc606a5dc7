"""Error templates: mine on a pilot, freeze, match every message (PURE).

``mine(pilot_messages, MiningConfig(max_templates=...)) -> TemplateSet`` once;
then ``match(template_set, messages) -> Series`` of template ids (or ``OTHER``)
for every batch. See ``mining`` for why the result does not depend on the
order units are read in.
"""

from .masking import mask, mask_expr, redact_expr
from .matching import classify_expr, count, match, match_expr
from .mining import OTHER, MiningConfig, Template, TemplateSet, mine, template_id

__all__ = [
    "OTHER",
    "MiningConfig",
    "Template",
    "TemplateSet",
    "classify_expr",
    "count",
    "mask",
    "mask_expr",
    "match",
    "match_expr",
    "mine",
    "redact_expr",
    "template_id",
]
