"""The errors of the saturation layer: SaturationError and DrawError (the user's), SaturationBug (ours)."""

from __future__ import annotations

from eqsat_uopc.errors import UserError

__all__ = ["DrawError", "SaturationBug", "SaturationError"]


class SaturationError(UserError, ValueError):
    """Bad input to saturate (the message names the argument and what would be right), or a request
    the e-graph at hand cannot serve (an egglog extractor after close())."""


class DrawError(SaturationError):
    """A picture of an e-graph that cannot be made: unknown file suffix, an e-graph too big to read,
    Graphviz's `dot` missing or failing, or a choice/root not in the e-graph."""


class SaturationBug(RuntimeError):
    """A broken invariant found while reading egglog's e-graph back (an e-class mixing types, an
    e-class without its loader row, an extracted term that is not in the e-graph): a bug in
    eqsat-uopc, not bad input, so it is no UserError and the command line shows its traceback."""
