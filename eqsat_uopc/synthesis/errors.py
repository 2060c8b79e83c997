"""The error a synthesis run's settings raise: SynthesisError (a UserError, and a ValueError)."""

from __future__ import annotations

from eqsat_uopc.errors import UserError

__all__ = ["SynthesisError"]


class SynthesisError(UserError, ValueError):
    """Settings a synthesis run cannot use: an unknown op or base rule set, a bad grammar, a log
    beside the output written with other settings. The message names the setting."""
