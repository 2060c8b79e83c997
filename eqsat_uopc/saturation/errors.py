"""The one error type of the saturation layer."""

from __future__ import annotations

__all__ = ["SaturationError"]


class SaturationError(ValueError):
    """Bad input to saturate (the message names the argument and what would be right), or a broken
    invariant found while reading egglog's e-graph back (the message names the e-class)."""
