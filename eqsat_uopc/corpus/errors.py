"""The one error a corpus reader raises: it names the file, line, entry and column."""

from __future__ import annotations

__all__ = ["CorpusError"]


class CorpusError(ValueError):
    """A corpus entry that cannot be read: the message names the entry and the position."""
