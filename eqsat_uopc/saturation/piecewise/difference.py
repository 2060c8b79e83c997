"""The first decision: two terms whose normal forms differ by a constant k compare by k alone.

`a + min(59, 297 - a) < min(a, 238) + 59` is false: both sides are `min(a + 59, 297)`. Once `+` is
distributed into the MIN this is plain, but a rewrite rule cannot get there without distributing
`+` through associativity and commutativity, an e-graph blow-up; and it is the cheapest decision
(no subtraction of forms, no bounds), so it is tried first.
"""

from __future__ import annotations

from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.saturation.piecewise.normal import PiecewiseLinear

__all__ = ["constant_difference"]


def constant_difference(forms: PiecewiseLinear, a: UOp, b: UOp) -> int | None:
    """k when b's normal form is a's plus the constant k (so b - a = k for every input)."""
    x, y = forms.form(a), forms.form(b)
    if len(x) != len(y):
        return None
    some_terms, some_c = next(iter(next(iter(y))))
    for m in x:
        for terms, c in m:
            if terms == some_terms:
                k = some_c - c
                if forms.normal(frozenset((t, d + k) for t, d in n) for n in x) == y:
                    return k
    return None
