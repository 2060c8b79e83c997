"""bounds, vmin, vmax: a conservative interval analysis of scalar int and bool expressions.

The promise: for every assignment of values to the program's inputs, the value of u lies in
[vmin(u), vmax(u)], under the semantics of exec_alu (int32 wraps). Where the interval arithmetic
could leave the int32 range the true value might wrap, so the analysis gives up and answers the
full range. Floats and shaped values always get their dtype's full range.

A RANGE lies in [0, extent - 1]. Results are cached per node (u.memo), and the walk over
uncached sources is iterative, so a 20,000-deep chain does not hit the recursion limit.

    >>> from eqsat_uopc.ir.uop import UOp
    >>> from eqsat_uopc.semantics.intervals import bounds, vmax, vmin
    >>> i = UOp.range(16, "i")
    >>> vmin(i * 4 + 3), vmax(i * 4 + 3), bounds(UOp.param(0) % 8)
    (3, 63, (0, 7))
"""

from __future__ import annotations

import math
from typing import Any

from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import ALU, Ops
from eqsat_uopc.ir.uop import UOp

__all__ = ["bounds", "vmax", "vmin"]

_KEY = "bounds"


def _cached(u: UOp) -> tuple[Any, Any] | None:
    memo = u._memo  # read without computing: UOp.memo would compute on a miss
    return None if memo is None else memo.get(_KEY)


def _inputs(u: UOp) -> tuple[UOp, ...]:
    """The sources whose bounds u's bounds are computed from."""
    return u.src if (u.op in ALU or u.op is Ops.RANGE) else ()


def bounds(u: UOp) -> tuple[Any, Any]:
    """(lo, hi) with lo <= value(u) <= hi for every input; the dtype's range when nothing is known."""
    if (b := _cached(u)) is not None:
        return b
    stack: list[tuple[UOp, bool]] = [(u, False)]
    while stack:
        n, ready = stack.pop()
        if _cached(n) is not None:
            continue
        if ready:
            n.memo(_KEY, _clamped_bounds)
            continue
        stack.append((n, True))
        stack.extend((s, False) for s in _inputs(n) if _cached(s) is None)
    return _cached(u)


def vmin(u: UOp) -> Any:
    return bounds(u)[0]


def vmax(u: UOp) -> Any:
    return bounds(u)[1]


def _clamped_bounds(u: UOp) -> tuple[Any, Any]:
    lo, hi = _bounds(u)
    if u.dtype is dtypes.i32 and (lo < dtypes.min(u.dtype) or hi > dtypes.max(u.dtype)):
        return (dtypes.min(u.dtype), dtypes.max(u.dtype))  # might wrap around: give up
    if u.dtype is dtypes.bool:
        return (bool(lo), bool(hi))  # bool ADD/MUL are OR/AND: monotone, so this stays sound
    return (lo, hi)


def _bounds(u: UOp) -> tuple[Any, Any]:
    d = u.dtype
    full = (dtypes.min(d), dtypes.max(d))
    if u.op is Ops.CONST:
        return (u.arg, u.arg)
    if u.op is Ops.RANGE:
        return (0, max(0, vmax(u.src[0]) - 1))
    if u.op is Ops.PARAM and u.arg.bounds is not None:
        return u.arg.bounds
    if d.is_float or u.shape != ():
        return full
    if u.op is Ops.CAST and u.src[0].dtype is dtypes.bool:
        return (int(vmin(u.src[0])), int(vmax(u.src[0])))
    if u.op is Ops.WHERE:
        (c0, c1), (a0, a1), (b0, b1) = bounds(u.src[0]), bounds(u.src[1]), bounds(u.src[2])
        if c0:
            return (a0, a1)
        if not c1:
            return (b0, b1)
        return (min(a0, b0), max(a1, b1))
    if u.op not in ALU or len(u.src) != 2 or u.src[0].dtype.is_float:
        return full
    (a0, a1), (b0, b1) = bounds(u.src[0]), bounds(u.src[1])
    match u.op:
        case Ops.ADD:
            return (a0 + b0, a1 + b1)
        case Ops.MUL:
            if any(isinstance(v, float) and math.isinf(v) for v in (a0, a1, b0, b1)):
                return full
            ps = [a0 * b0, a0 * b1, a1 * b0, a1 * b1]
            return (min(ps), max(ps))
        case Ops.MAX:
            return (max(a0, b0), max(a1, b1))
        case Ops.FLOORDIV if b0 > 0 or b1 < 0:
            # floor division is monotone in each operand on either side of 0: the corners bound it
            qs = [a0 // b0, a0 // b1, a1 // b0, a1 // b1]
            return (min(qs), max(qs))
        case Ops.FLOORMOD if b0 > 0:  # in [0, y) and, for x >= 0, at most x
            if a0 >= 0 and a1 < b0:
                return (a0, a1)
            return (0, b1 - 1 if a0 < 0 else min(a1, b1 - 1))
        case Ops.FLOORMOD if b1 < 0:  # in (y, 0] and, for x <= 0, at least x
            if a1 <= 0 and a0 > b1:
                return (a0, a1)
            return (b0 + 1 if a1 > 0 else max(a0, b0 + 1), 0)
        case Ops.CMPLT:
            return (True, True) if a1 < b0 else (False, False) if a0 >= b1 else (False, True)
        case Ops.CMPNE:
            if a1 < b0 or b1 < a0:
                return (True, True)
            return (False, False) if a0 == a1 == b0 == b1 else (False, True)
    return full
