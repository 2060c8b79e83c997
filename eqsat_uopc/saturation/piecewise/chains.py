"""Chains of `&&` (`||`) whose comparisons bound one linear form out of every integer.

A conjunction (`where(a, b, false)`, how the corpus writes `a && b`; nested, a chain of them) is
false when the bounds its comparisons put on one linear form L leave no integer: each comparison
whose `b - a` is a multiple of L plus a constant bounds L from one side (or pins it, or excludes a
value), and `8x + 1 <= 16x + 1 && 16x + 16 <= 8x + 7` says `x >= 0` and `x <= -2`. A disjunction
(`where(a, true, b)`) is true when the conjunction of its operands' negations is false. No rule in
the e-graph sees this without normalizing both comparisons first, which the cancellation of `x * 16`
against `x * 8` across `<` would need (it has no rule: moving a term across a comparison feeds
associativity without bound).
"""

from __future__ import annotations

import math
from fractions import Fraction

from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.saturation.piecewise.compare import is_comparison
from eqsat_uopc.saturation.piecewise.forms import Terms
from eqsat_uopc.saturation.piecewise.normal import PiecewiseLinear, TooBig

__all__ = ["decide_chain", "is_chain"]

_CHAIN = 32  # literals of a conjunction or disjunction taken at most
_TRUE, _FALSE = UOp.const(True), UOp.const(False)


def is_chain(u: UOp) -> bool:
    """Is u a scalar `a && b` (`where(a, b, false)`) or `a || b` (`where(a, true, b)`)?"""
    return u.op is Ops.WHERE and not u.shape and (u.src[2] is _FALSE or u.src[1] is _TRUE)


class _Span:
    """What a chain's comparisons say of one linear form L so far: lo <= L <= hi (None: unbounded
    that way), L not in `excluded`."""

    __slots__ = ("excluded", "hi", "lo")

    def __init__(self, lo: int | None, hi: int | None) -> None:
        self.lo, self.hi, self.excluded = lo, hi, set()

    def at_least(self, lo: int) -> None:
        if self.lo is None or lo > self.lo:
            self.lo = lo

    def at_most(self, hi: int) -> None:
        if self.hi is None or hi < self.hi:
            self.hi = hi

    @property
    def empty(self) -> bool:
        """No integer left?"""
        lo, hi = self.lo, self.hi
        return lo is not None and hi is not None and (lo > hi or (lo == hi and lo in self.excluded))


def decide_chain(forms: PiecewiseLinear, u: UOp, decided: dict[UOp, bool]) -> bool | None:
    """False for a conjunction u, true for a disjunction u, whose literals (`decided` gives the
    comparisons and chains already decided) leave some linear form no integer; else None. A literal
    decided true adds nothing to a conjunction, one decided false decides it."""
    if u.src[2] is _FALSE:
        literals, value = _literals(u, conjunction=True), False
    elif u.src[1] is _TRUE:
        literals, value = [(c, not positive) for c, positive in _literals(u, conjunction=False)], True
    else:
        return None
    if len(literals) > _CHAIN:
        return None
    spans: dict[Terms, _Span] = {}  # L's terms -> what is known of L
    for c, positive in literals:
        known = decided.get(c, c.arg if c.op is Ops.CONST else None)
        if known is not None:
            if bool(known) is positive:
                continue  # true: no constraint
            return value  # false: so is the conjunction
        if not is_comparison(c):
            continue
        try:
            d = forms.difference_form(*c.src)
        except TooBig:
            continue
        if len(d) != 1 or len(m := next(iter(d))) != 1:
            continue
        ((terms, k0),) = m
        if not terms or any(isinstance(k, Fraction) for _, k in terms):
            continue
        g = math.gcd(*(k for _, k in terms)) * (1 if terms[0][1] > 0 else -1)
        key = tuple((a, k // g) for a, k in terms)  # b - a = g * L + k0, L's first coefficient > 0
        if (span := spans.get(key)) is None:
            r = forms.range_of((key, 0))
            span = spans[key] = _Span(None, None) if r is None else _Span(r[0], r[1])
        if c.op is Ops.CMPLT:
            p = 1 - k0 if positive else -k0  # g L >= p (a < b), g L <= p (negated)
            if positive == (g > 0):
                span.at_least(-(-p // g))  # ceil(p / g)
            else:
                span.at_most(p // g)  # floor(p / g)
        elif k0 % g:  # g L + k0 = 0 has no integer solution
            if not positive:
                return value
        elif positive:
            span.excluded.add(-k0 // g)
        else:
            span.at_least(-k0 // g)
            span.at_most(-k0 // g)
        if span.empty:
            return value
    return None


def _literals(u: UOp, conjunction: bool) -> list[tuple[UOp, bool]]:
    """The literals of a chain of conjunctions (`where(a, b, false)`) or disjunctions (`where(a,
    true, b)`), each a boolean term and whether it appears as itself or negated (`c != true`)."""
    out, stack = [], [u]
    while stack and len(out) <= _CHAIN:
        n = stack.pop()
        if conjunction and n.op is Ops.WHERE and n.src[2] is _FALSE:
            stack += [n.src[1], n.src[0]]
        elif not conjunction and n.op is Ops.WHERE and n.src[1] is _TRUE:
            stack += [n.src[2], n.src[0]]
        elif n.op is Ops.CMPNE and n.src[1] is _TRUE:
            out.append((n.src[0], False))
        else:
            out.append((n, True))
    return out
