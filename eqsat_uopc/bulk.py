"""Bulk building: Python's cyclic garbage collector paused while a layer builds a large acyclic structure.

Reading a saturated e-graph back, indexing it for an extractor and building the extracted program
allocate an object or more per e-node, millions on large programs, none of them part of a
reference cycle. CPython's collector still runs every 700 allocations, and as the survivors pile
up its older generations walk all of them again: reading back a 675,000-e-node e-graph took 7.9-9.1 s
with it running and 4.3-4.6 s with it paused. Pausing it over such a phase frees nothing later than it
would have been freed (there are no cycles to find); the collector runs again when the phase ends.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["gc_paused"]


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for the block (or, as a decorator, the call); nests, and
    leaves it off if it was off."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
