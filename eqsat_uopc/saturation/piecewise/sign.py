"""The second decision: the bounds of the atoms fix the sign of `b - a`.

`b - a` is itself a maximum of minima of linear forms; it is above 0 for every input when every
form of one minimum is (from the bounds of remainders and bounded inputs), and at most 0 when one
form of every minimum is. `248 + ((max(v, 4) - 1) // 252) * 252 + min(v, 4) < v` is false: the left
side is `v + 251 - (max(v, 4) - 1) % 252`, and the remainder is at most 251. Costlier than a
constant difference (a subtraction of forms), so it comes second.
"""

from __future__ import annotations

from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.saturation.piecewise.normal import PiecewiseLinear, TooBig

__all__ = ["sign"]


def sign(forms: PiecewiseLinear, a: UOp, b: UOp) -> int | None:
    """1 when b - a > 0 for every input, -1 when b - a <= 0 for every input, else None."""
    try:
        d = forms.difference_form(a, b)
    except TooBig:
        return None
    ranges = [[forms.range_of(f) for f in m] for m in d]
    if any(all(r is not None and r[0] > 0 for r in m) for m in ranges):
        return 1
    if all(any(r is not None and r[1] <= 0 for r in m) for m in ranges):
        return -1
    return None
