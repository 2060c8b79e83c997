"""The errors of the saturation layer: SaturationError, and DrawError for pictures of e-graphs."""

from __future__ import annotations

__all__ = ["DrawError", "SaturationError"]


class SaturationError(ValueError):
    """Bad input to saturate (the message names the argument and what would be right), or a broken
    invariant found while reading egglog's e-graph back (the message names the e-class)."""


class DrawError(SaturationError):
    """A picture of an e-graph that cannot be made: unknown file suffix, an e-graph too big to read,
    Graphviz's `dot` missing or failing, or a choice/root not in the e-graph."""
