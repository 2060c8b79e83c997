"""Comparisons of i32 sums decided or normalized on the linear form of their difference.

`a < b` is `a - b < 0` and `a != b` is `a - b != 0`, whatever the spelling of either side. On the
difference d = S + k (S the terms, k the constant):

- decided by d's bounds: `x + 1 < x + 3` is true, `4*i < 4*i - 1` false; `!=` also by divisibility
  (`2*x != 2*y + 1` is true: an even number is never odd);
- scaled: the gcd g of the coefficients divides out, `S < -k` becomes `S/g < ceil(-k/g)`
  (`6*x + 4*y < 9` -> `3*x + 2*y < 5`);
- a remainder dropped: in `Q + R < K` with the gcd h of Q's coefficients above 1 and R's range so
  narrow that `floor((K - 1 - R) / h)` is one value m, the comparison is `Q/h < m + 1`
  (`4*x + y < 8` with y in [0, 3] is `x < 2`);
- a simplex: `sum a_i x_i < 1` with every a_i > 0 and x_i >= 0 is `sum x_i < 1`;
- `max(a, b)` is a when a's bounds lie at or above b's (`fold_max`);
- a lone division by a constant against a constant: `x // d < m` is `x < m*d` (d > 0; for d < 0,
  `x // d` is `(-x) // -d`).

The result is written `P < N + m` (P the positive terms, N the negated negative ones); it replaces
the comparison when it is decided, smaller, or as large with smaller constants. Each fold needs
both sides' exact values (their linear forms fit int32, or no_overflow's `exact`), the lone
division's numerator's too, and writes only sums that compute no value outside int32; each is proved
as a schema in int32 arithmetic with these guards (eqsat_uopc/verify/schemas/).
"""

from __future__ import annotations

import math

from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.linear.form import LinearForm, atom_bounds, fits_i32, is_index

__all__ = ["difference", "fold_compare", "fold_max"]


def difference(u: UOp, exact: bool = False) -> LinearForm | None:
    """lhs - rhs of an i32 comparison u, when both sides' values are exact (their linear forms fit
    int32, or `exact`: no_overflow takes every intermediate value as exact)."""
    if u.op not in (Ops.CMPLT, Ops.CMPNE) or not is_index(u.src[0]) or u.shape:
        return None
    a, b = LinearForm.of(u.src[0]), LinearForm.of(u.src[1])
    if a is None or b is None or not (exact or (a.fits() and b.fits())):
        return None
    return a - b


def fold_compare(u: UOp, exact: bool = False) -> UOp | None:
    """A constant or a smaller comparison equal to the i32 comparison u, or None (`exact`: see
    difference)."""
    d = difference(u, exact)
    if d is None:
        return None
    lo, hi = d.bounds()
    if u.op is Ops.CMPLT:
        if hi < 0 or lo >= 0:
            return UOp.const(hi < 0)
        r = _normal_lt(d, exact)
    else:
        if hi < 0 or lo > 0:
            return UOp.const(True)
        g = d.coefficient_gcd()
        if g and d.const % g:
            return UOp.const(True)
        r = _spell(d.exact_div(g) if g > 1 else d, Ops.CMPNE)
    return r if r is not None and _weight(r) < _weight(u) else None


def _weight(u: UOp) -> tuple[int, int]:
    """Smaller terms first, then smaller constants: a well-founded order, so rewriting by it ends."""
    nodes = u.toposort()
    return len(nodes), sum(abs(n.arg) for n in nodes if n.op is Ops.CONST and n.dtype is not dtypes.bool)


def _normal_lt(d: LinearForm, exact: bool) -> UOp | None:
    """`d < 0` with the gcd divided out, a narrow remainder dropped, a simplex or a lone division
    unwrapped."""
    g = d.coefficient_gcd()
    s = d.without_const()
    k = -(d.const // g)  # S < -const  <=>  S/g < ceil(-const/g) = -floor(const/g)
    s = LinearForm(tuple((a, c // g) for a, c in s.terms), 0)
    s, k = _drop_remainder(s, k)
    if k == 1 and all(c > 0 and atom_bounds(a)[0] >= 0 for a, c in s.terms):
        s = LinearForm(tuple((a, 1) for a, _ in s.terms), 0)  # a simplex: sum a_i x_i < 1 <=> sum x_i < 1
    if len(s.terms) == 1 and abs(s.terms[0][1]) == 1:
        ((a, c),) = s.terms
        if a.op is Ops.FLOORDIV and a.src[1].op is Ops.CONST and a.src[1].arg not in (0, -(2**31)):
            z, dd = LinearForm.of(a.src[0]), a.src[1].arg
            if z is not None and not (exact or z.fits()):
                z = None  # z's value is not its form's
            if z is not None and dd < 0:  # z // -d = (-z) // d
                z, dd = z.scaled(-1), -dd
            if z is not None:
                # z // dd < k <=> z < k*dd;  -(z // dd) < k <=> z // dd > -k <=> z >= (1 - k)*dd
                bound = k * dd if c == 1 else (1 - k) * dd
                if fits_i32(bound - 1, bound):
                    diff = z.plus(-bound) if c == 1 else z.scaled(-1).plus(bound - 1)
                    return _spell(diff, Ops.CMPLT)
    return _spell(s.plus(-k), Ops.CMPLT)


def _drop_remainder(s: LinearForm, k: int) -> tuple[LinearForm, int]:
    """`Q + R < k` -> `Q/h < m + 1` when R (the unit-coefficient terms) cannot change floor((k-1-R)/h),
    h the gcd of the other coefficients."""
    rest = [(a, c) for a, c in s.terms if abs(c) != 1]
    units = [(a, c) for a, c in s.terms if abs(c) == 1]
    if not rest or not units:
        return s, k
    h = math.gcd(*(c for _, c in rest))
    if h <= 1:
        return s, k
    rlo, rhi = LinearForm(tuple(units), 0).bounds()
    m = (k - 1 - rlo) // h
    if m != (k - 1 - rhi) // h:
        return s, k
    return LinearForm(tuple((a, c // h) for a, c in rest), 0), m + 1


def _spell(d: LinearForm | None, op: Ops) -> UOp | None:
    """`d < 0` or `d != 0` written `P < N + m` (P, N: the positive and negated negative terms)."""
    if d is None:
        return None
    pos = LinearForm(tuple((a, c) for a, c in d.terms if c > 0), 0)
    neg = LinearForm(tuple((a, -c) for a, c in d.terms if c < 0), -d.const)
    if not pos.terms and not neg.terms:
        return None
    if not pos.terms:  # 0 < N + m  <=>  -m < N
        pos, neg = LinearForm.constant(-neg.const), neg.without_const()
    lhs, rhs = pos.write(), neg.write()
    if lhs is None or rhs is None:
        return None
    if op is Ops.CMPNE and not pos.terms:
        lhs, rhs = rhs, lhs  # the side with terms first
    return lhs.ne(rhs) if op is Ops.CMPNE else UOp(Ops.CMPLT, (lhs, rhs))


def fold_max(u: UOp) -> UOp | None:
    """max(a, b) -> a when a's bounds are all at or above b's (and the other way round)."""
    if u.op is not Ops.MAX or u.shape or u.dtype.is_float:
        return None
    (alo, ahi), (blo, bhi) = (atom_bounds(s) for s in u.src)
    if alo >= bhi:
        return u.src[0]
    return u.src[1] if blo >= ahi else None
