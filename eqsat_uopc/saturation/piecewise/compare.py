"""What deciding an integer comparison with one builder means, and what a case split needs of it.

`a < b` and `a != b` (i32 scalars) are decided by a constant difference of their sides' normal
forms (difference.py), else by the sign of `b - a` from the atoms' bounds (sign.py): `x.maximum(y) <
(x + 1).maximum(y + 1)` is true by the first, `(x // 4) * 4 < x + 1` by the second. A split
(residues.py, ranges.py) decides a comparison when every one of its cases decides it alike.
"""

from __future__ import annotations

from collections.abc import Iterable

from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.saturation.piecewise.difference import constant_difference
from eqsat_uopc.saturation.piecewise.normal import PiecewiseLinear
from eqsat_uopc.saturation.piecewise.sign import sign

__all__ = ["decide", "decided_alike", "is_comparison"]


def is_comparison(u: UOp) -> bool:
    """Is u a scalar `a < b` or `a != b` of i32 terms?"""
    return u.op in (Ops.CMPLT, Ops.CMPNE) and u.src[0].dtype is dtypes.i32 and not u.shape


def decide(forms: PiecewiseLinear, u: UOp) -> bool | None:
    """The value of the comparison u for every input (under no_overflow), or None."""
    k = constant_difference(forms, *u.src)
    if k is not None:
        return k > 0 if u.op is Ops.CMPLT else k != 0
    if u.op is Ops.CMPLT and (s := sign(forms, *u.src)) is not None:
        return s > 0
    if u.op is Ops.CMPNE and 1 in (sign(forms, *u.src), sign(forms, *u.src[::-1])):
        return True
    return None


def decided_alike(cases: Iterable[PiecewiseLinear], u: UOp) -> bool | None:
    """u's value when every case of a split decides it, and the same way (None from the first case
    that does not)."""
    value = None
    for case in cases:
        v = decide(case, u)
        if v is None or (value is not None and v is not value):
            return None
        value = v
    return value
