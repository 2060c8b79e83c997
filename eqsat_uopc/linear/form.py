"""The linear form of an i32 term: the analysis the divmod and comparison algebra is computed from.

Index arithmetic is sums of terms times constants: `r0*24 + (g // 8)*3 + l + 5`. Its linear form
is those terms (*atoms*: inputs, divisions, products of variables, anything that is not a sum or a
product by a constant), each atom's integer coefficient (like atoms merged: `x*2 + x*3` is `5x`)
and the constant; the interval analysis gives each atom's bounds. Every fold of the algebra is a
question about this value, whatever the spelling of the sum (`(a + 5) + b*2`, `b*2 + (5 + a)`, `2*b
+ a + 5` are one form), which is what makes the folds general where rules over one spelling are not.

`LinearForm.of(u)` reads a term (its coefficients and constant int32 values: a form that needs a
wider one is not read); `.write()` writes a canonical one back (atoms in a fixed order, coefficient
after the atom, the constant last) when every value it computes is an int32. `.bounds()` is the
exact integer range from the atoms' bounds.

What the folds may assume, and the guards that give it them (each fold's schema is proved in int32
arithmetic with these guards: eqsat_uopc/verify/schemas/):
- under wrap, a term's value equals its linear form's exactly when that range fits in int32
  (`fits()`): the partial sums and products of the term may wrap, but the ring arithmetic of int32
  brings them back to the exact value, which is then in range. Every fold checks this of every
  value it divides, compares or takes the bounds of, inner terms it reads included (the numerator
  of a remainder inside a sum);
- under no_overflow every intermediate of the program is exact, so every term's value is its
  linear form's (`exact=True`), inner terms included;
- under both, a written term must compute no value outside int32 (`write()` checks every partial
  sum and product against the form's `magnitude()`): a fold brings no overflow where the program
  had none, and builds no constant before it knows the constant is an int32.

`Product` reads a term as a constant times a product of factors, for the symbolic gcd of terms
with a variable divisor (`(d*b + c*d) // d`).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN, dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.semantics.intervals import bounds

__all__ = ["MAX_TERMS", "LinearForm", "Product", "atom_bounds", "exact_sum", "fits_i32", "is_index"]

MAX_TERMS = 32  # atoms of a linear form at most; a longer sum is not read (the folds are per term)


def is_index(u: UOp) -> bool:
    """Is u a scalar i32 term, what the algebra is about?"""
    return u.dtype is dtypes.i32 and u.shape == ()


def fits_i32(lo: int, hi: int) -> bool:
    return lo >= I32_MIN and hi <= I32_MAX


def atom_bounds(u: UOp) -> tuple[int, int]:
    """The bounds of an atom (the wrap-sound interval analysis: the full range when unknown)."""
    lo, hi = bounds(u)
    return int(lo), int(hi)


def exact_sum(u: UOp) -> LinearForm | None:
    """The linear form of the i32 sum u when u computes it exactly at every input within its bounds,
    under either int semantics: the form fits int32 and the interval analysis bounds every addition
    and product of u within int32 (none leaves it on the way). For the folds that read a term of
    the program they were not asked about (shared_zero_tests, shared_multiples)."""
    if u.op is not Ops.ADD or not is_index(u):
        return None
    form = LinearForm.of(u)
    if form is None or not form.fits():
        return None
    full = (I32_MIN, I32_MAX)
    if any(atom_bounds(n) == full for n in u.toposort() if n.op in (Ops.ADD, Ops.MUL) and is_index(n)):
        return None
    return form


@dataclass(frozen=True)
class LinearForm:
    """sum(coefficient * atom) + const: atoms distinct and in first-seen order, coefficients nonzero."""

    terms: tuple[tuple[UOp, int], ...]
    const: int

    @staticmethod
    def of(u: UOp) -> LinearForm | None:
        """The linear form of an i32 term (None past MAX_TERMS atoms, or for a non-i32 term), read
        once per node."""
        return u.memo("linear_form", _read_form) if is_index(u) else None

    @staticmethod
    def constant(c: int) -> LinearForm:
        return LinearForm((), c)

    @staticmethod
    def atom(u: UOp, coefficient: int = 1) -> LinearForm:
        return LinearForm(((u, coefficient),) if coefficient else (), 0)

    # -- arithmetic
    def __add__(self, other: LinearForm) -> LinearForm:
        coeffs = dict(self.terms)
        for a, c in other.terms:
            coeffs[a] = coeffs.get(a, 0) + c
        return LinearForm(tuple((a, c) for a, c in coeffs.items() if c), self.const + other.const)

    def __sub__(self, other: LinearForm) -> LinearForm:
        return self + other.scaled(-1)

    def scaled(self, k: int) -> LinearForm:
        if k == 0:
            return LinearForm((), 0)
        return LinearForm(tuple((a, c * k) for a, c in self.terms), self.const * k)

    def plus(self, c: int) -> LinearForm:
        return LinearForm(self.terms, self.const + c)

    def exact_div(self, k: int) -> LinearForm | None:
        """self / k when k divides every coefficient and the constant."""
        if k == 0 or self.const % k or any(c % k for _, c in self.terms):
            return None
        return LinearForm(tuple((a, c // k) for a, c in self.terms), self.const // k)

    def without_const(self) -> LinearForm:
        return LinearForm(self.terms, 0)

    # -- questions
    @property
    def is_constant(self) -> bool:
        return not self.terms

    def coefficient_gcd(self) -> int:
        return math.gcd(*(c for _, c in self.terms)) if self.terms else 0

    def bounds(self) -> tuple[int, int]:
        """The exact integer range of the form, from the atoms' bounds."""
        lo = hi = self.const
        for a, c in self.terms:
            alo, ahi = atom_bounds(a)
            if c > 0:
                lo, hi = lo + c * alo, hi + c * ahi
            else:
                lo, hi = lo + c * ahi, hi + c * alo
        return lo, hi

    def fits(self) -> bool:
        """Is every value of the form an int32, so that a term computing it never wraps to another?"""
        return fits_i32(*self.bounds())

    def magnitude(self) -> int:
        """An upper bound on the absolute value of every partial sum and product of the form, in any
        order: a rebuilt term whose magnitude fits computes every intermediate exactly."""
        m = abs(self.const)
        for a, c in self.terms:
            alo, ahi = atom_bounds(a)
            m += abs(c) * max(abs(alo), abs(ahi))
        return m

    def writable(self) -> bool:
        """Can the form be written as a term that computes no value outside int32 (its coefficients
        and constant int32 constants, every partial sum and product within the magnitude)?"""
        return fits_i32(-self.magnitude(), self.magnitude()) and all(
            fits_i32(k, k) for k in (self.const, *(c for _, c in self.terms))
        )

    # -- back to a term
    def write(self) -> UOp | None:
        """The canonical term of the form if it is writable (a lone atom always is: it is a term of
        the program already), else None."""
        if self.const == 0 and len(self.terms) == 1 and self.terms[0][1] == 1:
            return self.terms[0][0]
        return self.to_uop() if self.writable() else None

    def to_uop(self) -> UOp:
        """A canonical term: atom * coefficient summed in the form's order, the constant last
        (unchecked: `write()` is the checked way; UOpError for a constant beyond int32)."""
        out: UOp | None = None
        for a, c in self.terms:
            t = a if c == 1 else a * c
            out = t if out is None else out + t
        if out is None:
            return UOp.const(self.const)
        return out + self.const if self.const else out


def _read_form(u: UOp) -> LinearForm | None:
    """u as a sum of coefficient * atom and a constant (LinearForm.of), from its raw form."""
    raw = _raw_form(u)
    if raw is None:
        return None
    coeffs, const = raw
    form = LinearForm(tuple((a, c) for a, c in coeffs.items() if c), const)
    if not all(fits_i32(k, k) for k in (const, *(c for _, c in form.terms))):
        return None  # x * 65536 * 65536: a coefficient no int32 constant can hold
    return form


# The raw form of a term: every atom met reading it left to right, in first-met order, with its
# coefficient (0 for one that cancelled: it keeps its place, as the order of the written form depends
# on it), and the constant; None past MAX_TERMS atoms met. A sum's is its two sides' joined, a product
# by a constant its other side's scaled, so each node's raw form is computed once, from its sources'
# (memoized on the node): reading every prefix of a long sum costs O(1) a node, not O(prefix).
_RawForm = tuple[dict[UOp, int], int] | None
_RAW = "raw_linear_form"  # its name in the node's memo


def _linear_sources(t: UOp) -> tuple[UOp, ...]:
    """The sources a term's raw form is built from (none for an atom or a constant)."""
    if t.op is Ops.ADD:
        return t.src
    if t.op is Ops.MUL and (t.src[1].op is Ops.CONST or t.src[0].op is Ops.CONST):
        return t.src
    return ()


def _raw_form(u: UOp) -> _RawForm:
    """The raw form of u, computing (iteratively, sources first) those of its sources not memoized yet."""
    if u.memoized(_RAW):
        return u.memo(_RAW, _raw_of_node)
    order: list[UOp] = []
    stack = [(u, False)]
    seen: set[UOp] = set()
    while stack:
        t, expanded = stack.pop()
        if expanded:
            order.append(t)
            continue
        if t in seen or t.memoized(_RAW):
            continue
        seen.add(t)
        stack.append((t, True))
        stack.extend((s, False) for s in _linear_sources(t))
    for t in order:
        t.memo(_RAW, _raw_of_node)
    return u.memo(_RAW, _raw_of_node)


def _raw_of_node(t: UOp) -> _RawForm:
    """The raw form of t from its sources' (already memoized)."""
    if t.op is Ops.CONST:
        return {}, t.arg
    if t.op is Ops.ADD:
        a, b = (s.memo(_RAW, _raw_of_node) for s in t.src)
        if a is None or b is None:
            return None
        coeffs = dict(a[0])
        for atom, c in b[0].items():
            coeffs[atom] = coeffs.get(atom, 0) + c
        return (coeffs, a[1] + b[1]) if len(coeffs) <= MAX_TERMS else None
    if t.op is Ops.MUL and (t.src[1].op is Ops.CONST or t.src[0].op is Ops.CONST):
        inner, k = (t.src[0], t.src[1].arg) if t.src[1].op is Ops.CONST else (t.src[1], t.src[0].arg)
        raw = inner.memo(_RAW, _raw_of_node)
        if raw is None:
            return None
        return {atom: c * k for atom, c in raw[0].items()}, raw[1] * k
    return {t: 1}, 0


@dataclass(frozen=True)
class Product:
    """A term as constant * product of factors (a multiset): `(d*b)*3` is 3 * {d, b}."""

    const: int
    factors: Counter

    @staticmethod
    def of(u: UOp) -> Product:
        const, factors = 1, Counter()
        stack = [u]
        while stack:
            t = stack.pop()
            if t.op is Ops.MUL:
                stack.extend(t.src)
            elif t.op is Ops.CONST:
                const *= t.arg
            else:
                factors[t] += 1
        return Product(const, factors)

    def to_uop(self) -> UOp:
        out: UOp | None = None
        for f, n in self.factors.items():
            for _ in range(n):
                out = f if out is None else out * f
        if out is None:
            return UOp.const(self.const)
        return out if self.const == 1 else out * self.const
