"""Templates aimed at the index algebra's divisions and remainders (eqsat_uopc/linear/divmod.py).

One template per fold: the constant quotient, nested remainders, congruence, the gcd, nesting by a
factor, reduced coefficients, the constant brought into range, merged nested divisions, negative
divisors, and the folds by a variable divisor (nested remainders, a multiple of the divisor's own
form, the symbolic gcd, exact multiples). Each draws the fold's shape with inputs, offsets and
divisors at the int32 edges as often as small ones, so that the numerator may wrap where the fold
reads it as exact.
"""

from __future__ import annotations

from eqsat_uopc.fuzz.soundness.draw import EdgeDraw, wrap
from eqsat_uopc.fuzz.soundness.registry import template
from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.semantics.intervals import bounds

__all__: list[str] = []

_FAMILY = "linear/divmod"
_NARROW = ("near-max", "near-min", "point", "small", "around-2**30", "around-2**16", "range")
_NONNEG = ("touch-max", "near-max", "range", "small", "around-2**30", "around-2**16")


@template(
    "divmod-const-quotient",
    _FAMILY,
    "x // y constant on the bounds (x % y = x - q*y), constant or variable y",
)
def _const_quotient(d: EdgeDraw) -> UOp:
    if d.chance(0.3):
        x = d.input(_NARROW)
        return d.divmod(d.plus_const(x, d.const()), d.nonzero_input() if d.chance(0.7) else d.input(_NARROW))
    s = d.linear(d.int(1, 2), kinds=_NARROW)
    lo, hi = (int(b) for b in bounds(s))
    width = hi - lo + 1
    choices = [d.divisor(), d.divisor(edge=0.9)]
    if 2 <= width <= I32_MAX:
        choices.append(width + d.int(0, 3))
    c = d.pick(choices)
    k = d.pick((d.const(), wrap((-lo) % c + c * d.int(-1, 1)) if c > 0 else d.const(), 0))
    return d.divmod(d.plus_const(s, k), c)


@template("divmod-nested-mod", _FAMILY, "(a % (k*c) + b) % c -> (a + b) % c, b with the same atoms as a")
def _nested_mod(d: EdgeDraw) -> UOp:
    # mostly not powers of two: a sum that wraps changes its remainder by 2**32 mod c, 0 for those
    c = d.pick((3, 5, 6, 7, 12, 100, -3, -6, 2, 4, 2**16, 2**30, -(2**30), 46341, d.divisor()))
    m = wrap(c * d.pick((1, 2, 3, 4, -1, -2, 2**14, 2**15)))
    if m == 0 or m % c:
        m = c * 2 if abs(c) < 2**30 else c
    k = d.const(edge=0.6)
    mode = d.pick(("cancel-offset", "cancel-offset", "cancel-atom", "general", "general"))
    ends = ("unbounded", "touch-max", "touch-min", "near-max", "near-min")
    if mode == "cancel-offset":  # ((v + 1) % 6 - 1) % 3: the offsets cancel, v may wrap
        x = d.input(ends)
        return d.divmod(d.plus_const(d.plus_const(x, k) % m, wrap(-k)), c, "mod" if d.chance(0.8) else "div")
    if mode == "cancel-atom":  # ((v + 2147483647) % 6 - v) % 3: the atom cancels, the constant wraps
        x = d.input()
        k = d.pick((I32_MAX, I32_MIN, I32_MAX - 1, 2**30, d.edge()))
        s = d.add(d.plus_const(x, k) % m, d.scaled(x, -1))
        return d.divmod(d.plus_const(s, d.pick((0, 0, d.small()))), c, "mod" if d.chance(0.8) else "div")
    terms = [(d.input(), d.pick((1, 1, -1, 2, d.coef())))]
    if d.chance(0.3):
        terms.append((d.input(), d.coef()))
    inner = d.plus_const(d.total([d.scaled(x, f) for x, f in terms]), k)
    outer = d.scaled(inner % m, d.pick((1, 1, 1, -1, 2)))
    extra = []
    if d.chance(0.5):  # the inner sum's own atoms again, cancelling or not
        x, f = d.pick(terms)
        extra.append(d.scaled(x, d.pick((wrap(-f), wrap(-f), 1, -1, 2))))
    if d.chance(0.3):
        extra.append(d.some_input())
    s = d.total([outer, *extra])
    b = d.pick((wrap(-k), wrap(-k + c), wrap(-k + d.small(-2, 2)), d.const(), 0))
    return d.divmod(d.plus_const(s, b), c, "mod" if d.chance(0.8) else "div")


@template(
    "divmod-cancelling-offsets",
    _FAMILY,
    "((x + k1) op c1 + k2) op c2, k2 undoing k1 (x near an int32 end): the folds merging nested div/mod",
)
def _cancelling_offsets(d: EdgeDraw) -> UOp:
    x = d.input(("unbounded", "touch-max", "touch-min", "near-max", "near-min", "range"))
    x = d.scaled(x, d.pick((1, 1, 1, -1, 2, 3))) if d.chance(0.3) else x
    c1 = d.pick((2, 3, 5, 6, 7, 12, 2**16, 2**30, -2, -3, 46341, d.divisor()))
    c2 = d.pick((2, 3, 5, 6, 7, 10, 2**16, -3, -6, 46341, d.divisor()))
    if d.chance(0.5):  # c1 a multiple of c2 (nested remainders) or c2 one of c1 (nested divisions)
        c1 = wrap(c2 * d.pick((1, 2, 3))) or c2
    k1 = d.pick((wrap(c1), wrap(2 * c1), wrap(-c1), wrap(c1 * d.small()), 1, 2, -1, d.edge(), d.small()))
    op1, op2 = d.pick(("div", "mod")), d.pick(("div", "mod"))
    q = k1 // c1
    k2 = d.pick((wrap(-q), wrap(-q), wrap(-k1), wrap(-q + d.small(-1, 1)), wrap(-k1 + c2), d.small()))
    inner = d.divmod(d.plus_const(x, k1), c1, op1)
    return d.divmod(d.plus_const(inner, k2), c2, op2)


@template(
    "divmod-congruence", _FAMILY, "coefficients replaced by residues of either sign: (13x) % 12 -> x % 12"
)
def _congruence(d: EdgeDraw) -> UOp:
    c = d.pick((3, 4, 5, 6, 7, 8, 9, 12, 16, 2**16, 2**16 + 1, 2**30, I32_MAX, d.divisor()))
    coefs = []
    for _ in range(d.int(1, 3)):
        r = d.int(-2, 2)
        m = d.pick((-2, -1, 1, 1, 2, 3))
        coefs.append(wrap(r + m * abs(c)) or abs(c) + 1)
    return d.divmod(d.linear(coefs=coefs, const=d.const(edge=0.5)), c)


@template("divmod-gcd", _FAMILY, "the gcd of coefficients and divisor factored out: (6a) // 9 -> (2a) // 3")
def _gcd(d: EdgeDraw) -> UOp:
    g = d.pick((2, 3, 4, 6, 8, 2**15, 2**16, 2**29, 2**30))
    c = wrap(g * d.pick((1, 2, 3, 5, -1, -2))) or g
    if d.chance(0.2):
        c = wrap(g * d.int(1, 4) + d.int(1, max(1, min(g - 1, 100))))
    c = c or g
    coefs = [wrap(g * d.coef(edge=0.05, largest=5)) or g for _ in range(d.int(1, 3))]
    k = wrap(g * d.small(-6, 6) + (d.int(0, min(g - 1, 100)) if d.chance(0.4) else 0))
    if d.chance(0.3):
        k = d.edge()
    return d.divmod(d.linear(coefs=coefs, const=k), c)


@template("divmod-nest-by-factor", _FAMILY, "x // c -> (x // f) // (c / f) for a coefficient f dividing c")
def _nest_by_factor(d: EdgeDraw) -> UOp:
    f = d.pick((2, 3, 4, 8, 2**15, 2**16))
    c = d.pick(
        (f * d.int(2, 5), -f * d.int(2, 5), I32_MIN, -(2**30), 2**30, 2**16 * f if f <= 2**14 else 2**30)
    )
    c = wrap(c) or I32_MIN
    coefs = [wrap(f * d.coef(edge=0.05, largest=4)) or f] + [
        d.coef(edge=0.1, largest=3) for _ in range(d.int(0, 2))
    ]
    x = d.linear(coefs=coefs, const=d.pick((0, d.small(-f, 2 * f) if f < 100 else d.const())))
    if d.chance(0.25):  # a division already nested: (x // 2) // -2**31
        x = x // d.pick((2, 3, 4, -2, f))
    return d.divmod(x, c)


@template(
    "divmod-reduce-coefficients",
    _FAMILY,
    "(f*v + b) % c -> ((f mod c)*v + b) % c for f outside [0, c), x >= 0",
)
def _reduce_coefficients(d: EdgeDraw) -> UOp:
    c = d.pick((3, 4, 6, 7, 8, 10, 16, 2**16, 2**30, d.divisor(negative=0.1)))
    coefs = [d.pick((wrap(c + d.int(1, 5)), wrap(2 * c + 1), wrap(c * 3 - 1), -1, -2, d.coef(edge=0.3)))]
    coefs += [d.coef(edge=0.1) for _ in range(d.int(0, 2))]
    return d.divmod(d.linear(coefs=coefs, const=d.pick((0, d.int(0, 20), d.const())), kinds=_NONNEG), c)


@template(
    "divmod-constant-into-range", _FAMILY, "(x + k) // c -> (x + k % c) // c + k // c, (x + k) % c alike"
)
def _constant_into_range(d: EdgeDraw) -> UOp:
    c = d.divisor(edge=0.3)
    k = d.pick(
        (d.edge(), wrap(c * d.int(1, 4) + d.int(0, 3)), wrap(c * d.pick((2**14, 2**20, -(2**20)))), d.const())
    )
    x = d.linear(d.int(1, 2), const=k)
    return d.divmod(x, c)


@template("divmod-merged-division", _FAMILY, "(z // k + a) // c -> (z + a*k) // (k*c), k, c > 0")
def _merged_division(d: EdgeDraw) -> UOp:
    k = d.pick((2, 3, 4, 5, 6, 7, 8, 2**15, 2**16, 46341, 2**30))
    c = d.pick((2, 3, 5, 6, 7, 12, 2**15, 2**16, 46341, 2**30, d.divisor()))
    if d.chance(0.5):  # ((v + 2) // 2 - 1) // 3: z's offset is a multiple of k that a undoes
        x = d.input(("unbounded", "touch-max", "touch-min", "near-max", "near-min"))
        t = d.pick((1, 2, -1, 3, d.small(), 2**14))
        inner = d.plus_const(x, wrap(k * t)) // k
        return d.divmod(d.plus_const(inner, wrap(-t)), c, "div" if d.chance(0.8) else "mod")
    z0 = d.linear(d.int(1, 2), const=0)
    j = d.pick((0, d.small(), d.edge(), wrap(k), wrap(2 * k)))
    inner = d.plus_const(z0, j) // k
    q = j // k
    a = d.pick((0, d.small(-3, 3), d.edge(), wrap(-k), 1, -1, wrap(-q), wrap(-q + 1)))
    return d.divmod(d.plus_const(inner, a), c, "div" if d.chance(0.8) else "mod")


@template("divmod-negative-divisor", _FAMILY, "x // -d = (-x) // d, x % -d = -((-x) % d), d up to 2**31")
def _negative_divisor(d: EdgeDraw) -> UOp:
    c = d.pick((-1, -2, -3, -4, -6, -8, -16, I32_MIN, -I32_MAX, -(2**30), -(2**16), -(2**30) - 1))
    x = d.linear(d.int(1, 2), const=d.pick((0, d.const(), d.edge())))
    if d.chance(0.25):
        x = d.divmod(x, d.divisor(negative=0.6))
    return d.divmod(x, c)


# -- variable divisors


@template("divmod-var-nested-mod", _FAMILY, "(a % y + b) % y -> (a + b) % y, y a variable")
def _var_nested_mod(d: EdgeDraw) -> UOp:
    y = d.nonzero_input() if d.chance(0.8) else d.input()
    x = d.input()
    k = d.const(edge=0.6)
    a = d.plus_const(d.scaled(x, d.pick((1, 1, -1, 2, d.coef()))), k)
    rest = d.pick((wrap(-k), wrap(-k), d.const(), 0))  # cancelling a's offset, or not
    parts = [d.scaled(a % y, d.pick((1, 1, -1, 2))), UOp.const(rest)]
    if d.chance(0.4):
        parts.append(d.scaled(x, d.pick((-1, 1, d.coef()))))
    s = d.total(parts)
    return s % y if d.chance(0.8) else s // y


@template(
    "divmod-var-linear-multiple",
    _FAMILY,
    "x = k*y + r for a sum y: x // y -> k + r // y ((v + 1) // (v + 1) is 1)",
)
def _var_linear_multiple(d: EdgeDraw) -> UOp:
    v = d.input()
    y = d.plus_const(d.scaled(v, d.pick((1, 1, 2, -1))), d.pick((1, -1, 2, d.const())))
    k = d.pick((1, 1, 2, -1, 3, d.coef(edge=0.3)))
    rest = (
        [d.scaled(y, k)] if d.chance(0.5) else [d.scaled(v, wrap(k * d.pick((1, 2)))), UOp.const(d.const())]
    )
    if d.chance(0.5):
        rest.append(d.some_input())
    return d.divmod(d.total(rest), y)


@template(
    "divmod-var-symbolic-gcd", _FAMILY, "(d*b*k1 + d*k2) // (d*k3) -> (b*k1 + k2) // k3 with the symbolic gcd"
)
def _var_symbolic_gcd(d: EdgeDraw) -> UOp:
    y = d.nonzero_input() if d.chance(0.7) else d.input()
    b = d.input(("small", "range", "around-2**16", "unbounded", "touch-max"))
    k = d.pick((1, 2, 3, 4, 2**16, -2))
    s = d.add(b * y * wrap(k * d.pick((1, 2, 3))), y * wrap(k * d.pick((1, 2, -1))))
    if d.chance(0.3):
        s = d.add(s, d.some_input() * y)
    return d.divmod(s, y * k if k != 1 else y)


@template(
    "divmod-var-exact-multiples", _FAMILY, "(y*a + b) // y -> a + b // y, (y*a + b) % y -> b % y, x, y >= 0"
)
def _var_exact_multiples(d: EdgeDraw) -> UOp:
    y = d.nonzero_input() if d.chance(0.6) else d.input(("range", "touch-max", "small"))
    a = d.input(("small", "range", "touch-max", "around-2**16", "near-max"))
    b = d.input(("small", "range", "touch-max", "near-max")) if d.chance(0.7) else UOp.const(d.const())
    terms = [d.pick((y * a, a * y, d.scaled(y * a, d.pick((2, 3))))), b]
    return d.divmod(d.total(terms), y)
