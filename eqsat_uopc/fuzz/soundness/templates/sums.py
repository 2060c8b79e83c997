"""Templates aimed at the index algebra's sums (eqsat_uopc/linear/sums.py): like terms combined, a
remainder and its quotient recombined fully (`m*(b % c) + (m*c)*(b // c) -> m*b`, also with the
quotient of a congruent or further divided numerator) and partly (`m*(b % c) + (m*c)*((b // c) % e)
-> m*(b % (c*e))`), with numerators, multipliers and divisors at the int32 edges."""

from __future__ import annotations

from eqsat_uopc.fuzz.soundness.draw import EdgeDraw, wrap
from eqsat_uopc.fuzz.soundness.registry import template
from eqsat_uopc.ir.dtype import I32_MAX
from eqsat_uopc.ir.uop import UOp

__all__: list[str] = []

_FAMILY = "linear/sums"


@template("sum-like-terms", _FAMILY, "like terms combined: x*c0 + y + x*c1, x + x*c, x*2**30 + x*2**30")
def _like_terms(d: EdgeDraw) -> UOp:
    x = d.some_input() if d.chance(0.7) else d.expr(1)
    c0, c1 = d.coef(edge=0.4), d.coef(edge=0.4)
    form = d.pick(("two", "three", "cancel", "plus-self"))
    if form == "two":
        return d.add(d.scaled(x, c0), d.scaled(x, c1))
    if form == "three":
        return d.total([d.some_input(), d.scaled(x, c0), d.scaled(x, c1), UOp.const(d.const())])
    if form == "cancel":
        return d.total([d.scaled(x, c0), d.some_input(), d.scaled(x, wrap(-c0))])
    return d.add(d.add(x, x), d.scaled(x, c0))


def _numerator(d: EdgeDraw) -> UOp:
    b = d.linear(d.int(1, 2), const=d.pick((0, 0, d.const(), d.edge())))
    return b


@template(
    "sum-recombine-full",
    _FAMILY,
    "m*(b % c) + (m*c)*(b // c) -> m*b (also (b + 8) // 4, x // 8 with (x // 4) % 2)",
)
def _recombine_full(d: EdgeDraw) -> UOp:
    b = _numerator(d)
    c = d.pick((2, 3, 4, 6, 8, 16, 2**16, 2**30, d.divisor(negative=0.0)))
    m = d.pick((1, 1, 2, 3, -1, 24, 2**16, d.coef(edge=0.3)))
    form = d.pick(("plain", "plain", "shifted", "nested"))
    if form == "plain":
        q = b // c
    elif form == "shifted":  # the quotient of a congruent numerator: (b + j*c) // c
        q = d.plus_const(b, wrap(c * d.pick((1, 2, -1, 2**14)))) // c
    else:  # b = x // k and the quotient x // (k*c)
        k = d.pick((2, 4, 8, 2**15))
        x = b
        b = x // k
        q = x // wrap(k * c) if wrap(k * c) > 0 else x // k // c
    terms = [d.scaled(b % c, m), d.scaled(q, wrap(m * c))]
    if d.chance(0.4):
        terms.append(d.some_input())
    if d.chance(0.3):
        terms.append(UOp.const(d.const()))
    return d.total(terms)


@template("sum-recombine-partial", _FAMILY, "m*(b % c) + (m*c)*((b // c) % e) -> m*(b % (c*e))")
def _recombine_partial(d: EdgeDraw) -> UOp:
    b = _numerator(d)
    c = d.pick((2, 3, 4, 8, 2**15, 2**16, d.divisor(negative=0.0)))
    e = d.pick((2, 3, 4, 2**15, 2**16, 46341))
    m = d.pick((1, 1, 2, -1, 3, d.coef(edge=0.3)))
    terms = [d.scaled(b % c, m), d.scaled((b // c) % e, wrap(m * c))]
    if d.chance(0.3):
        terms.append(d.some_input())
    return d.total(terms)


@template(
    "sum-recombine-offset", _FAMILY, "(r + k) // c * c + (r + k) % c -> r + k with k near 2**30 or 2**31"
)
def _recombine_offset(d: EdgeDraw) -> UOp:
    r = d.input(("range", "small", "touch-max", "near-max", "unbounded"))
    k = d.pick((2**30, d.edge(), d.const(), I32_MAX - d.int(0, 3)))
    b = d.plus_const(r, k)
    c = d.pick((2, 3, 6, 8, 2**16, 2**30, d.divisor(negative=0.2)))
    terms = [d.scaled(b // c, c), b % c]
    if d.chance(0.3):
        terms.append(UOp.const(d.const()))
    return d.total(terms)


@template(
    "sum-remainder-through-quotient",
    _FAMILY,
    "m*(b % c) + k*(b // c) -> m*b + (k - m*c)*(b // c), any k (also with other terms beside)",
)
def _remainder_through_quotient(d: EdgeDraw) -> UOp:
    b = _numerator(d)
    c = d.pick((2, 3, 5, 8, 20, 2**16, 2**30, d.divisor(negative=0.2)))
    m = d.pick((1, 1, 2, 3, -1, 2**16, d.coef(edge=0.3)))
    k = d.pick((1, -1, 2, 7, wrap(m * c + 1), wrap(m * c - 3), 2**30, I32_MAX, d.coef(edge=0.4)))
    terms = [d.scaled(b % c, m), d.scaled(b // c, k)]
    if d.chance(0.3):
        terms.append(d.some_input())
    if d.chance(0.3):
        terms.append(UOp.const(d.const()))
    return d.total(terms)
