"""Inputs and how they are cut into units and batches (EDGE: reads files and streams)."""

from logagent.sources.batches import Batch, UnitPlan, choose_unit_size, plan_units
from logagent.sources.files import Source, open_source, resolve_paths
from logagent.sources.framing import Piece, iter_pieces, iter_unit_pieces
from logagent.sources.permute import Order, unit_order
from logagent.sources.readers import iter_seekable_batches, iter_stream_batches

__all__ = [
    "Batch",
    "Order",
    "Piece",
    "Source",
    "UnitPlan",
    "choose_unit_size",
    "iter_pieces",
    "iter_seekable_batches",
    "iter_stream_batches",
    "iter_unit_pieces",
    "open_source",
    "plan_units",
    "resolve_paths",
    "unit_order",
]
