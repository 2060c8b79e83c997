"""Row-major layout: flat positions <-> multi-indices of a shape.

Every evaluator of movement ops (the greedy `evaluate` rules, the reference evaluators, the
verifier) maps an output element to its source element through these two functions; the C
backend and the index-expression corpus do the same arithmetic symbolically.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["ravel", "unravel"]


def unravel(i: int, shape: Sequence[int]) -> list[int]:
    """The multi-index of flat position i in a row-major array of shape."""
    out = []
    for s in reversed(shape):
        out.append(i % s)
        i //= s
    return out[::-1]


def ravel(idx: Sequence[int], shape: Sequence[int]) -> int:
    """The flat position of multi-index idx in a row-major array of shape."""
    i = 0
    for x, s in zip(idx, shape, strict=True):
        i = i * s + x
    return i
