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
  `x // d` is `(-x) // -d`);
- a parity of an odd offset complemented: the atom `(y + c) % 2` with c odd is `1 - y % 2` (the
  parity of y + c, wrapped or not: 2**32 is even), so `(x + 1) % 2 < 1` is `0 < x % 2` and reads the
  same remainder as every other parity test of x;
- two comparisons at an end of their ranges packed into one (`fold_conjunction`): each comparison c
  is `e < 0` for a form e (`!(d < 0)` is `-d - 1 < 0`), and `e < 0` is `e == lo` when e's least
  value lo is -1. So `c1 && c2` with lo1 = lo2 = -1 is `e1 + e2 == -2`, that is `e1 + e2 + 1 < 0`
  (neither sum can be below its least value), and `c1 || c2` with both greatest values hi1 = hi2 = 0
  is `e1 + e2 < 0` (it is false exactly when both are 0): `0 < a % 2 && 0 < b % 2` is
  `1 < a % 2 + b % 2`, `0 < a % 2 && b % 2 < 1` is `b % 2 < a % 2`.

A comparison that is a *zero test*, true exactly when a sum S of positive multiples of nonnegative
atoms is 0 (`x + y < 1`, `2*x + 3*y < 2`, `0 < x + y`, `x + y != 0`: S < -k with 1 <= -k <= the
smallest coefficient; -S + k < 0 with 0 <= k below it; S != 0), is the same test on any other sum
of positive multiples of those very atoms: S is 0 exactly when every atom is. `shared_zero_tests`
pairs each zero test of a set of terms (one kernel's index expressions) with the same test on the
other sums of the set, `0 < x + y` with `2*x + y < 1 != true` spelled `0 < 2*x + y` where a load's
index computes `2*x + y` anyway: the comparison then reads that sum and its own addition goes.

The result is written `P < N + m` (P the positive terms, N the negated negative ones); it replaces
the comparison when it is decided, smaller, or as large with smaller constants. Each fold needs
both sides' exact values (their linear forms fit int32, or no_overflow's `exact`), the lone
division's numerator's too, and writes only sums that compute no value outside int32; each is proved
as a schema in int32 arithmetic with these guards (eqsat_uopc/verify/schemas/).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.linear.form import LinearForm, atom_bounds, exact_sum, fits_i32, is_index

__all__ = [
    "complemented_parities",
    "difference",
    "fold_compare",
    "fold_conjunction",
    "fold_max",
    "shared_zero_tests",
    "zero_test",
]


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
    d = complemented_parities(d)
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


def fold_conjunction(u: UOp, exact: bool = False) -> UOp | None:
    """One comparison equal to `c1 && c2` (`where(c1, c2, false)`) or `c1 || c2` (`where(c1, true,
    c2)`) of two i32 comparisons each at an end of its difference's range (module docstring), when
    it is smaller; else None (`exact`: see difference)."""
    if u.op is not Ops.WHERE or u.dtype is not dtypes.bool or u.shape:
        return None
    c1, then, other = u.src
    if _is_false(other):
        conjunction, c2 = True, then
    elif _is_true(then):
        conjunction, c2 = False, other
    else:
        return None
    e1, e2 = _negative_test(c1, exact), _negative_test(c2, exact)
    if e1 is None or e2 is None:
        return None
    end = 0 if conjunction else 1  # the end: lo (index 0) = -1, or hi (index 1) = 0
    if e1.bounds()[end] != end - 1 or e2.bounds()[end] != end - 1:
        return None
    total = e1 + e2
    r = _normal_lt(total.plus(1) if conjunction else total, exact)
    return r if r is not None and _weight(r) < _weight(u) else None


def complemented_parities(d: LinearForm) -> LinearForm:
    """d with each atom `(y + c) % 2`, c odd, read as `1 - y % 2` (y its numerator's form without the
    constant, written back; an atom whose y cannot be written stays). Equal at every input under
    either int semantics: a term computes its form modulo 2**32 (an even modulus), so its parity is
    the exact form's, and the written y computes no value outside int32 (`LinearForm.write`)."""
    out = d
    for a, c in d.terms:
        if a.op is not Ops.FLOORMOD or a.src[1].op is not Ops.CONST or a.src[1].arg != 2:
            continue
        num = LinearForm.of(a.src[0])
        if num is None or num.const % 2 == 0 or not num.terms:
            continue
        y = num.without_const().write()
        if y is None:
            continue
        out = out - LinearForm.atom(a, c) + LinearForm.atom(y % 2, -c).plus(c)
    return out


def _negative_test(c: UOp, exact: bool) -> LinearForm | None:
    """e with c equal to `e < 0`, for an i32 comparison `a < b` (e = a - b) or its negation
    `(a < b) != true` (e = b - a - 1), both sides exact (difference)."""
    negated = c.op is Ops.CMPNE and _is_true(c.src[1]) and c.src[0].dtype is dtypes.bool
    inner = c.src[0] if negated else c
    if inner.op is not Ops.CMPLT:
        return None
    d = difference(inner, exact)
    if d is None:
        return None
    d = complemented_parities(d)
    return d.scaled(-1).plus(-1) if negated else d


def _is_false(u: UOp) -> bool:
    return u.op is Ops.CONST and u.dtype is dtypes.bool and u.arg is False


def fold_max(u: UOp) -> UOp | None:
    """max(a, b) -> a when a's bounds are all at or above b's (and the other way round)."""
    if u.op is not Ops.MAX or u.shape or u.dtype.is_float:
        return None
    (alo, ahi), (blo, bhi) = (atom_bounds(s) for s in u.src)
    if alo >= bhi:
        return u.src[0]
    return u.src[1] if blo >= ahi else None


def zero_test(u: UOp, exact: bool = False) -> tuple[frozenset[UOp], bool] | None:
    """(the atoms, True) when the i32 comparison u is true exactly when a sum of positive multiples
    of those atoms, each nonnegative, is 0; (the atoms, False) when it is true exactly when the sum
    is not 0; None otherwise (module docstring). With d = lhs - rhs = S + k (or -S + k), S's
    coefficients c_i > 0 and its atoms >= 0, S is 0 or at least min c_i, so `S + k < 0` is `S == 0`
    when 1 <= -k <= min c_i, `-S + k < 0` is `S != 0` when 0 <= k < min c_i, and `S + 0 != 0` is
    `S != 0`; d's value is exact (`difference`)."""
    d = difference(u, exact)
    if d is None or len(d.terms) < 2 or any(atom_bounds(a)[0] < 0 for a, _ in d.terms):
        return None
    signs = {c > 0 for _, c in d.terms}
    if len(signs) != 1:
        return None
    (positive,) = signs
    smallest = min(abs(c) for _, c in d.terms)
    atoms = frozenset(a for a, _ in d.terms)
    if u.op is Ops.CMPNE:
        return (atoms, False) if d.const == 0 else None
    if positive and 1 <= -d.const <= smallest:
        return atoms, True
    if not positive and 0 <= d.const < smallest:
        return atoms, False
    return None


def _is_true(u: UOp) -> bool:
    return u.op is Ops.CONST and u.dtype is dtypes.bool and u.arg is True


def shared_zero_tests(terms: Iterable[UOp], exact: bool = False) -> list[tuple[UOp, UOp]]:
    """Pairs (a zero test among `terms`, the same test on another sum among them): for each
    comparison u that `zero_test` reads as S == 0 (or S != 0) over atoms A (or `u != true` of
    one), and each sum g of the terms whose linear form is T + m with T a sum of positive multiples
    of exactly the atoms A, computed exactly (`exact_sum`), `g < m + 1` (or `m < g`): T is 0
    exactly when every atom of A is, as S is. Under either int semantics (g's value is its form's;
    `exact`: u's sides' values are taken as exact, as no_overflow does). In the order of `terms`."""
    terms = list(terms)
    tests: dict[frozenset[UOp], list[tuple[UOp, bool]]] = {}
    for u in terms:
        if u.op not in (Ops.CMPLT, Ops.CMPNE) or u.shape:
            continue
        if (z := zero_test(u, exact)) is not None:
            tests.setdefault(z[0], []).append((u, z[1]))
        elif _is_true(u.src[1]) and u.op is Ops.CMPNE and (z := zero_test(u.src[0], exact)) is not None:
            tests.setdefault(z[0], []).append((u, not z[1]))  # `test != true`: the test negated
    pairs: list[tuple[UOp, UOp]] = []
    if not tests:
        return pairs
    for g in terms:
        form = exact_sum(g)
        if form is None or not all(c > 0 for _, c in form.terms):
            continue
        m = form.const
        for u, is_zero in tests.get(frozenset(a for a, _ in form.terms), ()):
            if g in u.src or g in u.src[0].src:
                continue  # the test's own sum: the same test
            if is_zero and m + 1 <= 2**31 - 1:
                pairs.append((u, UOp(Ops.CMPLT, (g, UOp.const(m + 1)))))
            elif not is_zero:
                pairs.append((u, UOp(Ops.CMPLT, (UOp.const(m), g))))
    return [(u, t) for u, t in pairs if u is not t]
