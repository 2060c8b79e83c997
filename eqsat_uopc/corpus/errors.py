"""The one error a corpus reader raises: it names the file, line, entry and column."""

from __future__ import annotations

from eqsat_uopc.errors import UserError

__all__ = ["CorpusError"]


class CorpusError(UserError, ValueError):
    """A corpus entry that cannot be read: the message names the entry and the position."""
