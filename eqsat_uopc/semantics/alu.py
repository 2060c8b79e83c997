"""exec_alu: the reference semantics of every elementwise op, the single source of truth.

The greedy constant folder, the saturation engine's folding step and the C backend must agree with
this function bit for bit. Values are Python scalars in the representation `truncate` defines:
i32 wraps (two's complement), f32 is the double nearest its 32-bit value, bool is bool.

Where C leaves a result undefined (division by zero, INT_MIN // -1, a cast of a non-finite or
out-of-range float to int), exec_alu returns None: "refuse to fold", never a made-up value.

f32 ops are computed in double precision and rounded once to f32. For +, *, / and sqrt that is
exactly IEEE single precision (double has more than 2*24+2 bits, so the double rounding is
innocuous); for SIN, EXP2 and LOG2 it is defined to be the f32 rounding of the libm double result.
MAX is `b if b > a else a` (Python's max): MAX(NaN, 1) is NaN, MAX(1, NaN) is 1, MAX(-0.0, 0.0) is
-0.0. The C backend renders exactly that expression.

    >>> from eqsat_uopc.ir.dtype import dtypes
    >>> from eqsat_uopc.ir.ops import Ops
    >>> from eqsat_uopc.semantics.alu import exec_alu
    >>> exec_alu(Ops.FLOORDIV, dtypes.i32, (-7, 2)), exec_alu(Ops.ADD, dtypes.i32, (2**31 - 1, 1))
    (-4, -2147483648)
    >>> exec_alu(Ops.FLOORDIV, dtypes.i32, (1, 0)) is None  # undefined in C: never folded
    True
"""

from __future__ import annotations

import math
from typing import Any

from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN, DType, dtypes, truncate
from eqsat_uopc.ir.ops import Ops

__all__ = ["exec_alu"]


def _round_input(v: Any) -> Any:
    # Deviation from the chapter: it rounded f32 inputs only when the *result* was float, so
    # CMPNE(16777217.0, 16777216.0) was True here and False in C. Inputs are rounded by their own
    # dtype (a Python float is an f32 value), whatever the result type.
    return truncate(dtypes.f32, v) if isinstance(v, float) else v


def exec_alu(op: Ops, dtype: DType, vals: list) -> Any:
    """The value of op (result dtype `dtype`) on scalar inputs, or None where C is undefined."""
    vals = [_round_input(v) for v in vals]
    match op:
        case Ops.ADD:
            r = vals[0] + vals[1]
        case Ops.MUL:
            r = vals[0] * vals[1]  # Python gives nan for inf * 0, as IEEE does
        case Ops.MAX:
            a, b = vals
            r = b if b > a else a
        case Ops.CMPLT:
            return vals[0] < vals[1]
        case Ops.CMPNE:
            return vals[0] != vals[1]
        case Ops.FLOORDIV:
            a, b = vals
            if b == 0 or (a == I32_MIN and b == -1):
                return None  # C traps on both
            r = a // b
        case Ops.FLOORMOD:
            a, b = vals
            if b == 0:
                return None
            r = a % b
        case Ops.WHERE:
            r = vals[1] if vals[0] else vals[2]
        case Ops.RECIP:
            v = vals[0]
            r = 1.0 / v if v != 0 else math.copysign(math.inf, v)
        case Ops.EXP2:
            v = vals[0]
            r = math.inf if v >= 1024 else math.pow(2.0, v)
        case Ops.LOG2:
            v = vals[0]
            r = math.log2(v) if v > 0 else (-math.inf if v == 0 else math.nan)
        case Ops.SQRT:
            v = vals[0]
            r = math.sqrt(v) if v >= 0 else math.nan
        case Ops.SIN:
            v = vals[0]
            r = math.sin(v) if math.isfinite(v) else math.nan
        case Ops.CAST:
            return _cast(dtype, vals[0])
        case _:
            return None
    return truncate(dtype, r)


def _cast(dtype: DType, v: Any) -> Any:
    if dtype is dtypes.bool:
        return bool(v)
    if dtype is dtypes.i32:
        if isinstance(v, float):
            if not math.isfinite(v):
                return None  # undefined in C: refuse
            t = math.trunc(v)  # C truncates toward zero
            return t if I32_MIN <= t <= I32_MAX else None  # out of range is undefined too
        return int(v)
    return truncate(dtypes.f32, float(v))
