"""How the normal forms write `x // c`, `x % c` and `(x // c) * (k * c)` for a constant c > 0.

Index arithmetic is full of divisions by constants, and a division left an atom hides the sum
inside it. Three ways to see through one, from the cheapest:

- **Exact division.** When every linear form of x has coefficients divisible by c and the same
  constant modulo c (forms.residue: x is then that constant modulo c whichever form wins), `x % c`
  is that constant and `x // c` divides each form: `(min(8a, 8b + 2 * 4) // 4) * 4` is
  `min(8a, 8b + 8)`.
- **Floor multiples.** Otherwise `(x // c) * (k * c)` is `k * (x - x % c)`, the remainder an atom
  known to lie in [0, c - 1] (so that the atoms' bounds can use it): `(x // 4) * 4 < x + 1` is true.
  Off in the builder of the residue split (residues.py), which needs the multiples kept as such.
- **Rational division** (the builder's `rational_division`, a second pass on small comparisons):
  `x // c` itself is `(x - x % c) / c`, with rational coefficients, so that divisions of nearby
  terms compare: `(x + 15) // 8 - x // 8 < 3` is `15/8 + (x % 8 - (x + 15) % 8) / 8 < 3`, true.
  The first pass keeps such a division an atom, which is what matching it with another division of
  the same term needs, and costs less.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.saturation.piecewise.forms import Coefficient, Form, constant_form, residue

if TYPE_CHECKING:
    from eqsat_uopc.saturation.piecewise.normal import PiecewiseLinear

__all__ = ["floor_multiple", "quotient", "remainder"]


def _divisor(u: UOp) -> int | None:
    """c when u is `x // c` or `x % c` with a constant c > 0."""
    c = u.src[1]
    return c.arg if c.op is Ops.CONST and c.arg > 0 else None


def quotient(forms: PiecewiseLinear, u: UOp) -> Form | None:
    """The form of `x // c`: exact when x has one residue, rational when the builder says so."""
    c = _divisor(u)
    if c is None:
        return None
    x = forms.form(u.src[0])
    r = residue(x, c)
    if r is None:
        if not forms.rational_division:
            return None
        return _floored(forms, u.src[0], u.src[1], Fraction(1, c))  # x // c = (x - x % c) / c
    return forms.normal([forms.linear({a: k // c for a, k in t}, (d - r) // c) for t, d in m] for m in x)


def remainder(forms: PiecewiseLinear, u: UOp) -> Form | None:
    """The form of `x % c`: the constant residue of x when it has one."""
    c = _divisor(u)
    if c is None:
        return None
    r = residue(forms.form(u.src[0]), c)
    return None if r is None else constant_form(r)


def floor_multiple(forms: PiecewiseLinear, u: UOp) -> Form | None:
    """The form of `(x // c) * (k * c)` (k >= 1) as `k * (x - x % c)`, unless x // c is exact."""
    d, m = u.src
    if d.op is not Ops.FLOORDIV or m.op is not Ops.CONST or d.src[1].op is not Ops.CONST:
        return None
    x, c = d.src
    if not (c.arg > 0 and m.arg > 0 and m.arg % c.arg == 0) or residue(forms.form(x), c.arg) is not None:
        return None
    return _floored(forms, x, c, m.arg // c.arg)


def _floored(forms: PiecewiseLinear, x: UOp, c: UOp, factor: Coefficient) -> Form:
    """(x - x % c) * factor, the remainder an atom in [0, c - 1] (the atom of the term x % c)."""
    return forms.scale(forms.add(forms.form(x), forms.remainder(x, c, -1)), factor)
