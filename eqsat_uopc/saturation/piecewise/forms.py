"""The values of the piecewise-linear normal forms, and the arithmetic on them that needs no builder.

An integer term built of `+`, `*` by a constant, MAX and MIN over other terms (the *atoms*: inputs,
products of variables, divisions, ...) is a maximum of minima of linear forms over the atoms:

    max_i min_j (sum_k c_ijk * atom_k + d_ij)

A `Linear` is one linear form, `(terms, constant)` with `terms` the `(atom, coefficient)` pairs
sorted by atom, no coefficient 0: `2 * a0 - a3 + 5` is `(((0, 2), (3, -1)), 5)`. A `Minimum` is a
frozenset of linear forms and a `Form` a frozenset of minima: the order of a MAX's or a MIN's
operands does not matter, so `max(a, b)` and `max(b, a)` have one form, and a form compares with
`==`. Atoms are numbered per builder (normal.py); coefficients and constants are ints, or
Fractions in the rational pass (division.py).

They are plain tuples and frozensets, not NamedTuples, on purpose: the builder makes, hashes and
compares hundreds of thousands of linear forms on the Caviar corpus, and a NamedTuple costs 6x a
tuple to build and 2x an index to read a field of. Code unpacks them by name instead
(`terms, constant = linear`).
"""

from __future__ import annotations

from fractions import Fraction

__all__ = [
    "Coefficient",
    "Form",
    "Linear",
    "Minimum",
    "Range",
    "below",
    "constant_form",
    "constant_of",
    "linear_range",
    "residue",
    "scaled",
]

Coefficient = int | Fraction
Terms = tuple[tuple[int, Coefficient], ...]  # (atom, coefficient), sorted by atom, no coefficient 0
Linear = tuple[Terms, Coefficient]  # (terms, constant)
Minimum = frozenset[Linear]  # the minimum of these linear forms
Form = frozenset[Minimum]  # the maximum of these minima
Range = tuple[Coefficient, Coefficient]  # [lo, hi], both included


def constant_form(v: Coefficient) -> Form:
    """The form of the constant v."""
    return frozenset([frozenset([((), v)])])


def constant_of(x: Form) -> Coefficient | None:
    """v when x is the constant v."""
    if len(x) == 1:
        (m,) = x
        if len(m) == 1:
            ((terms, c),) = m
            if not terms:
                return c
    return None


def residue(x: Form, c: int) -> int | None:
    """r when every linear form of x has coefficients divisible by c and its constant = r mod c
    (so x = r mod c too, whichever form wins): `min(8a, 8b + 10)` has residue 2 modulo 4."""
    r = None
    for m in x:
        for terms, d in m:
            if any(k % c for _, k in terms) or (r is not None and d % c != r):
                return None
            r = d % c
    return r


def scaled(minimum: Minimum, k: Coefficient) -> list[Linear]:
    """Every linear form of a minimum times k (the caller decides what k < 0 makes of the minimum)."""
    return [(tuple((a, c * k) for a, c in terms) if k else (), d * k) for terms, d in minimum]


def below(a: Minimum, b: Minimum) -> bool:
    """Is min(a) <= min(b) for every input, because every form of b has one of a with the same
    terms and a constant no larger? (`min(x, y) <= min(x + 2, y)`)"""
    lows = dict(a)
    return all(t in lows and lows[t] <= c for t, c in b)


def linear_range(f: Linear, bounds: dict[int, tuple[int, int]]) -> Range | None:
    """The range of f given the bounds of its atoms, None when an atom is unbounded."""
    terms, lo = f
    hi = lo
    for atom, k in terms:
        b = bounds.get(atom)
        if b is None:
            return None
        lo, hi = lo + min(k * b[0], k * b[1]), hi + max(k * b[0], k * b[1])
    return lo, hi
