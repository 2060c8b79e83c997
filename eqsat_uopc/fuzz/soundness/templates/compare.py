"""Templates aimed at the index algebra's comparisons (eqsat_uopc/linear/compare.py).

Comparisons decided by the bounds of their difference, scaled by the gcd of its coefficients, with
a narrow remainder dropped, simplexes, a lone division against a constant, `!=` decided by
divisibility, and `max` decided by bounds: each with sums that may wrap at their edges.
"""

from __future__ import annotations

from eqsat_uopc.fuzz.soundness.draw import EdgeDraw, wrap
from eqsat_uopc.fuzz.soundness.registry import template
from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.semantics.intervals import bounds

__all__: list[str] = []

_FAMILY = "linear/compare"
_NONNEG = ("touch-max", "near-max", "range", "small", "around-2**30", "around-2**16")


@template("cmp-decided", _FAMILY, "a < b and a != b decided by the bounds of a - b: x + 1 < x + 3")
def _decided(d: EdgeDraw) -> UOp:
    x = d.linear(d.int(1, 2), const=0)
    a = d.plus_const(x, d.const(edge=0.5))
    b = d.plus_const(x, d.const(edge=0.5))
    if d.chance(0.3):
        b = d.add(b, d.some_input())
    if d.chance(0.3):
        a, b = d.scaled(a, d.pick((2, 4, -1))), d.scaled(b, d.pick((2, 4, -1)))
    return d.compare(a, b)


@template("cmp-scaled", _FAMILY, "the gcd of the coefficients divided out: 6x + 4y < 9 -> 3x + 2y < 5")
def _scaled(d: EdgeDraw) -> UOp:
    g = d.pick((2, 3, 4, 6, 2**15, 2**16, 2**30))
    coefs = [wrap(g * d.coef(edge=0.05, largest=4)) or g for _ in range(d.int(1, 3))]
    s = d.linear(coefs=coefs, const=d.pick((0, d.const())))
    k = d.pick((d.const(), d.edge(), wrap(g * d.small() + d.int(0, 3))))
    if d.chance(0.5):
        return d.compare(s, UOp.const(k))
    return d.compare(UOp.const(k), s) if d.chance(0.5) else s.ne(k)


@template(
    "cmp-drop-remainder", _FAMILY, "Q + R < K with R too narrow to matter: 4x + y < 8 (y in [0, 3]) -> x < 2"
)
def _drop_remainder(d: EdgeDraw) -> UOp:
    h = d.pick((2, 4, 8, 16, 2**16, 2**30))
    q = d.linear(coefs=[wrap(h * d.coef(edge=0.05, largest=3)) or h for _ in range(d.int(1, 2))], const=0)
    r = d.input(("small", "range", "point", "near-max", "near-min"))
    r = r if d.chance(0.7) else d.scaled(r, -1)
    k = d.pick((d.const(), wrap(h * d.small(-4, 4) + d.int(0, h - 1 if h < 100 else 3)), d.edge()))
    return d.compare(d.add(q, r), UOp.const(k), d.pick(("lt", "lt", "ge", "gt")))


@template("cmp-simplex", _FAMILY, "sum a_i x_i < 1 with a_i > 0 and x_i >= 0 -> sum x_i < 1")
def _simplex(d: EdgeDraw) -> UOp:
    xs = [d.scaled(d.input(_NONNEG), d.pick((1, 2, 3, 2**16, 2**30, I32_MAX))) for _ in range(d.int(2, 3))]
    s = d.total(xs)
    form = d.pick(("lt1", "not", "ge1", "le0"))
    if form == "lt1":
        return s < 1
    if form == "not":
        return d.not_(s < 1)
    return d.compare(s, UOp.const(1), "ge") if form == "ge1" else d.compare(s, UOp.const(0), "le")


@template("cmp-lone-division", _FAMILY, "x // d < m -> x < m*d (d > 0; d < 0 through (-x) // -d)")
def _lone_division(d: EdgeDraw) -> UOp:
    x = d.linear(d.int(1, 2), const=d.pick((0, d.const())))
    c = d.divisor(edge=0.4)
    q = x // c
    m = d.pick(
        (d.const(), d.edge(), d.small(-3, 3), wrap(I32_MAX // abs(c) + d.int(0, 2)) if c not in (0,) else 1)
    )
    if d.chance(0.3):
        q = d.scaled(q, -1)
    return d.compare(q, UOp.const(m)) if d.chance(0.7) else d.compare(UOp.const(m), q)


@template("cmp-ne-divisibility", _FAMILY, "a != b decided by divisibility (2x != 2y + 1) or scaled (4x != 8)")
def _ne_divisibility(d: EdgeDraw) -> UOp:
    g = d.pick((2, 3, 4, 2**16, 2**30))
    a = d.scaled(d.some_input(), wrap(g * d.pick((1, 1, -1, 2))))
    b = d.scaled(d.some_input(), wrap(g * d.pick((1, 3, -2)))) if d.chance(0.5) else UOp.const(0)
    k = d.pick((d.int(0, g - 1 if g < 100 else 5), wrap(g * d.small()), d.edge()))
    rhs = d.plus_const(b, k)
    return a.ne(rhs) if d.chance(0.6) else d.compare(a, rhs, "eq")


@template("max-bounds", _FAMILY, "max(a, b) -> a when a's bounds lie at or above b's")
def _max_bounds(d: EdgeDraw) -> UOp:
    a = d.linear(1, const=d.pick((0, d.const())))
    lo, hi = (int(v) for v in bounds(a))
    b_kind = d.pick(("below", "const", "input", "sum"))
    if b_kind == "below" and lo > I32_MIN:
        b = UOp.const(wrap(lo - d.int(0, 3)))
    elif b_kind == "const":
        b = UOp.const(d.pick((wrap(hi + d.int(0, 3)), d.edge(), d.const())))
    elif b_kind == "input":
        b = d.input()
    else:
        b = d.plus_const(d.some_input(), d.const())
    out = a.maximum(b) if d.chance(0.5) else b.maximum(a)
    return d.plus_const(out, d.const()) if d.chance(0.3) else out


def _at_an_end(d: EdgeDraw) -> UOp:
    """A comparison of a term with a constant at or near an end of the term's range: a parity, a
    remainder, an input of any bounds, an odd offset's parity (tinygrad's `(y + 1) % 2 < 1`)."""
    x = d.input()
    shape = d.pick(("parity", "odd-parity", "remainder", "input"))
    if shape == "parity":
        t = x % 2
    elif shape == "odd-parity":
        t = d.plus_const(x, d.pick((1, 3, -1, I32_MAX, 2**30 + 1))) % 2
    elif shape == "remainder":
        t = x % d.pick((3, 4, 2**16, d.divisor(negative=0.0)))
    else:
        t = x
    lo, hi = (int(v) for v in bounds(t))
    end = d.pick((lo, hi))
    k = wrap(end + d.pick((1, 1, 0, -1, 2)))
    if d.chance(0.5):
        return t < k if d.chance(0.7) else (t < k).ne(True)
    return UOp.const(wrap(end - d.pick((1, 1, 0, 2)))) < t


@template(
    "cmp-packed",
    _FAMILY,
    "two comparisons at an end of their ranges as one: 0 < a%2 && b%2 < 1 -> b%2 < a%2, c1 || c2",
)
def _packed(d: EdgeDraw) -> UOp:
    c1, c2 = _at_an_end(d), _at_an_end(d)
    if d.chance(0.5):
        return c1.where(c2, False) if d.chance(0.6) else d.and_(c1, c2)
    return c1.where(True, c2) if d.chance(0.6) else d.or_(c1, c2)
