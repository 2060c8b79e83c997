"""The errors of extraction, in one place so that every module of extract/ can raise them."""

from eqsat_uopc.errors import UserError

__all__ = ["CostModelError", "ExtractionError"]


class CostModelError(UserError, ValueError):
    """A cost model that cannot be used: unknown name, bad kind, or a bad cost for some op."""


class ExtractionError(UserError, ValueError):
    """An extraction that failed or whose result did not check: the message says what was wrong."""
