"""Templates aimed at the egglog rule families (rules/*.egg), one per family: each draws the left-hand
sides its rules match (their `# lhs -> rhs` comments), with the constants of the side conditions at
the int32 edges, where a guard that reads `a * b < 2^31` or `k*c` fits is what keeps the rule sound."""

from __future__ import annotations

from eqsat_uopc.fuzz.soundness.draw import EdgeDraw, wrap
from eqsat_uopc.fuzz.soundness.registry import template
from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN
from eqsat_uopc.ir.uop import UOp

__all__: list[str] = []

_BIG = (2**15, 2**16, 46341, 2**30, I32_MAX, 2**30 + 1)


def _c(d: EdgeDraw) -> int:
    """A constant of a rule's side condition: small, or one that makes a product or sum leave int32."""
    return d.pick((d.small(-9, 9), d.pick(_BIG), -d.pick(_BIG), I32_MIN, d.edge()))


def _pos(d: EdgeDraw) -> int:
    return d.pick((2, 3, 4, 6, 8, 16, 2**15, 2**16, 46341, 2**30, I32_MAX))


@template(
    "rule-divmod",
    "egglog/divmod",
    "(x // c1) // c2, (x % c1) % c2, (x % c1) // c2, (a*k + b) // c, x // c -> 0",
)
def _divmod(d: EdgeDraw) -> UOp:
    x = d.some_input() if d.chance(0.6) else d.linear(2)
    c1, c2 = _pos(d), _pos(d)
    form = d.pick(("div-div", "mod-mod", "mod-div", "sum-term", "sum-const", "term", "residue", "small"))
    if form == "div-div":
        return (x // c1) // c2
    if form == "mod-mod":
        return (x % wrap(c2 * d.pick((1, 2, 3)))) % c2
    if form == "mod-div":
        return (x % wrap(c2 * d.pick((2, 3, -1)))) // c2
    if form == "sum-term":
        return d.add(d.scaled(d.some_input(), wrap(c1 * d.pick((1, 2, -1)))), d.some_input()) // c1
    if form == "sum-const":
        return d.plus_const(x, wrap(c1 * d.pick((1, 2, -1, 2**14)))) // c1
    if form == "term":
        return d.scaled(x, wrap(c1 * d.pick((1, 2, 3)))) // c1
    if form == "residue":
        return d.add(d.scaled(d.some_input(), wrap(c1 + d.int(1, 3))), d.some_input()) // c1
    return d.input(("small", "range", "near-max")) // c1


@template("rule-recombination", "egglog/recombination", "(x // c) * c + x % c (+ y) -> x (+ y)")
def _recombination(d: EdgeDraw) -> UOp:
    x = d.some_input() if d.chance(0.6) else d.linear(d.int(1, 2))
    c = d.pick((d.divisor(edge=0.5), I32_MIN, 2**30))
    terms = [(x // c) * c, x % c]
    if d.chance(0.5):
        terms.append(d.some_input())
    return d.total(terms)


@template(
    "rule-offsets", "egglog/offsets", "a >= b + m facts through max, min, // d and * k; c < b + k decided"
)
def _offsets(d: EdgeDraw) -> UOp:
    b = d.some_input()
    m = _c(d)
    a = d.plus_const(b, m)  # a = b + m
    form = d.pick(("max", "min", "div", "mul", "lt", "shift"))
    k = _c(d)
    if form == "max":
        lhs, rhs = a.maximum(d.some_input()), b.maximum(d.some_input())
    elif form == "min":
        lhs, rhs = d.minimum(a, UOp.const(k)), d.minimum(b, UOp.const(_c(d)))
    elif form == "div":
        c = _pos(d)
        lhs, rhs = a // c, b // c
    elif form == "mul":
        kk = d.pick((2, 3, 4096, -1, -4096, 2**16))
        lhs, rhs = a * kk, b * kk
    elif form == "lt":
        lhs, rhs = b, d.plus_const(a, k)
    else:
        lhs, rhs = d.plus_const(b, k), a
    return d.compare(lhs, rhs, d.pick(("lt", "gt", "le", "ge")))


@template(
    "rule-divisibility",
    "egglog/divisibility",
    "(x // c) * c -> x and x % c -> 0 for multiples, x % m factored, x != k by divisibility",
)
def _divisibility(d: EdgeDraw) -> UOp:
    c = d.pick((2, 3, 4, 8, 2**16, 2**30, -2, I32_MIN))
    g = d.pick((c, wrap(2 * c), wrap(c * d.pick((3, 2**15)))))
    x = (
        d.add(d.scaled(d.some_input(), g), d.scaled(d.some_input(), g))
        if d.chance(0.4)
        else d.scaled(d.some_input(), g)
    )
    form = d.pick(("divmul", "mod", "mod-factor", "ne", "ne-div"))
    if form == "divmul":
        return (x // c) * c
    if form == "mod":
        return x % c
    if form == "mod-factor":
        return x % wrap(c * d.pick((2, 3, 2**16)))
    if form == "ne":
        return x.ne(d.pick((1, wrap(c + 1), d.edge(), wrap(c * 3))))
    y = d.plus_const(x, d.pick((1, d.small(), d.edge())))
    return ((y // c) * c).ne(y)


@template(
    "rule-digits",
    "egglog/digits",
    "((x // a) % b) * a + x % a -> x % (a*b), and the multiplied, shifted forms",
)
def _digits(d: EdgeDraw) -> UOp:
    x = d.some_input() if d.chance(0.6) else d.linear(2)
    a = d.pick((2, 3, 4, 8, 16, 2**15, 2**16, 46341))
    b = d.pick((2, 3, 4, 8, 2**15, 2**16, 46341))
    s = d.pick((1, 1, 2, 3, -1, 2**16))
    form = d.pick(("join", "join-s", "div", "div-mod", "lin-div", "lin-mod", "lin-lt", "reduce"))
    if form == "join":
        return d.add(((x // a) % b) * a, x % a)
    if form == "join-s":
        return d.add(d.scaled((x // a) % b, wrap(a * s)), d.scaled(x % a, s))
    if form == "div":
        return d.add(d.scaled(x // wrap(a * b), wrap(b * s)), d.scaled((x // a) % b, s))
    if form == "div-mod":
        c = d.pick((2, 3, 2**16))
        return d.add(d.scaled((x // a) % b, s), d.scaled((x // wrap(a * b)) % c, wrap(b * s)))
    k = d.pick((2, 4, 8, 2**16))
    lin = d.add(d.scaled(d.some_input(), k), d.input(("small", "range", "point")))
    if form == "lin-div":
        return lin // wrap(k * d.pick((2, 3, 2**15)))
    if form == "lin-mod":
        return lin % wrap(k * d.pick((2, 3, 2**15)))
    if form == "lin-lt":
        return lin < wrap(k * d.pick((2, 3, 2**15, -1)))
    return d.add(d.scaled(d.some_input(), d.pick((7, 13, -5, I32_MAX))), d.some_input()) % d.pick(
        (3, 6, 2**16)
    )


@template(
    "rule-comparisons",
    "egglog/comparisons",
    "(x + c1) < c2, x * c1 < c2, c2 < x * c1, x * c < y * c, (x + y) < (x + z)",
)
def _comparisons(d: EdgeDraw) -> UOp:
    x, y = d.some_input(), d.some_input()
    c1, c2 = _c(d), _c(d)
    form = d.pick(("add-lt", "mul-lt", "lt-mul", "mul-mul", "common", "self", "ne", "where"))
    if form == "add-lt":
        return d.plus_const(x, c1) < c2 if d.chance(0.5) else UOp.const(c1) < d.plus_const(x, c2)
    if form == "mul-lt":
        return (x * d.pick((2, 3, 2**16, 2**30))) < c2
    if form == "lt-mul":
        return UOp.const(c2) < x * d.pick((2, 3, 2**16, 2**30))
    if form == "mul-mul":
        c = d.pick((2, 3, 2**16, 2**30, I32_MAX))
        return x * c < y * c
    z = d.some_input()
    if form == "common":
        return d.add(x, y) < d.add(x, z)
    if form == "self":
        return x < d.add(x, y) if d.chance(0.5) else d.add(x, y) < x
    if form == "ne":
        return d.add(x, y).ne(d.add(x, z)) if d.chance(0.5) else x.ne(d.add(x, y))
    c = d.cond(1)
    return (
        c.where(UOp.const(True), UOp.const(False))
        if d.chance(0.5)
        else c.where(UOp.const(False), UOp.const(True))
    )


@template(
    "rule-minmax",
    "egglog/minmax",
    "max/min absorption, max(a, b) < c, max(a + c, b + c), max(a*k, b*k), max(a, b) // c",
)
def _minmax(d: EdgeDraw) -> UOp:
    a, b = d.some_input(), d.some_input()
    c, k = _c(d), _c(d)
    form = d.pick(
        ("absorb", "absorb-min", "lt", "gt", "ne", "shift", "scale", "min", "where", "div", "offset")
    )
    if form == "absorb":
        return a.maximum(a.maximum(b))
    if form == "absorb-min":
        return a.maximum(d.minimum(a, b))
    if form == "lt":
        return a.maximum(b) < c if d.chance(0.5) else UOp.const(c) < d.minimum(a, b)
    if form == "gt":
        return UOp.const(c) < a.maximum(b)
    if form == "ne":
        return a.maximum(UOp.const(c)).ne(d.pick((k, c)))
    if form == "shift":
        return d.plus_const(a, c).maximum(d.plus_const(b, c))
    if form == "scale":
        kk = d.pick((2, 3, 2**16, -1))
        return (a * kk).maximum(b * kk)
    if form == "min":
        return d.neg(d.neg(a).maximum(UOp.const(c)))
    if form == "where":
        return (a < b).where(b, a)
    if form == "div":
        return a.maximum(b) // _pos(d)
    return (
        d.compare(a, d.plus_const(a.maximum(b), k))
        if d.chance(0.5)
        else d.compare(d.plus_const(d.minimum(a, b), k), UOp.const(c))
    )


@template(
    "rule-boolean",
    "egglog/boolean",
    "boolean algebra on comparisons: !(x < a) -> a - 1 < x, x < a && b < x, where(c, .) op where(c, .)",
)
def _boolean(d: EdgeDraw) -> UOp:
    x = d.some_input()
    a, b = _c(d), _c(d)
    form = d.pick(
        ("not-lt", "not-gt", "between", "either", "min-max", "where-op", "where-lt", "where-div", "total")
    )
    if form == "not-lt":
        return d.not_(x < a)
    if form == "not-gt":
        return d.not_(UOp.const(a) < x)
    if form == "between":
        return d.and_(x < a, UOp.const(b) < x)
    if form == "either":
        return d.or_(x < a, UOp.const(b) < x)
    if form == "min-max":
        y = d.some_input()
        return d.and_(x < a, x < y) if d.chance(0.5) else d.or_(UOp.const(a) < x, y < x)
    if form == "where-op":
        c = d.cond(1)
        left, right = c.where(UOp.const(a), d.some_input()), c.where(UOp.const(b), d.some_input())
        return d.pick((left + right, left * right, left.maximum(right), left < right, left.ne(right)))
    if form == "where-lt":
        return (x < a).where(x < b, d.atom())
    if form == "where-div":
        k = _pos(d)
        return (x < a).where(x // k if d.chance(0.5) else x % k, d.some_input())
    y = d.some_input()
    return d.and_(d.not_(x < y), d.not_(y < x))


@template(
    "rule-linear",
    "egglog/linear",
    "(x + a) != b, x * -1 <> b, x * k != b, x // c against k, (x + a) < (y + b)",
)
def _linear(d: EdgeDraw) -> UOp:
    x, y = d.some_input(), d.some_input()
    a, b = _c(d), _c(d)
    form = d.pick(
        (
            "add-ne",
            "neg-ne",
            "mul-ne",
            "neg-lt",
            "neg-neg",
            "div-ne0",
            "div-lt",
            "lt-div",
            "shifted-div",
            "two-sums",
            "div-ne",
        )
    )
    if form == "add-ne":
        return d.plus_const(x, a).ne(b)
    if form == "neg-ne":
        return (x * -1).ne(b)
    if form == "mul-ne":
        return (x * d.pick((2, 3, 2**16, -2, I32_MIN))).ne(b)
    if form == "neg-lt":
        return x * -1 < b if d.chance(0.5) else UOp.const(b) < x * -1
    if form == "neg-neg":
        return x * -1 < y * -1
    c = d.pick((2, 3, 8, 2**16, 2**30, I32_MAX))
    if form == "div-ne0":
        return (x // c).ne(0)
    if form == "div-lt":
        return x // c < b
    if form == "lt-div":
        return UOp.const(b) < x // c
    if form == "shifted-div":
        return d.compare(x // c, d.plus_const(d.plus_const(x, a) // c, d.small(-2, 2)))
    if form == "two-sums":
        return d.plus_const(x, a) < d.plus_const(y, b)
    return (x // c).ne(d.pick((b, d.small(-3, 3))))


@template("rule-intervals", "egglog/intervals", "x < y and x != y decided by the intervals of x and y")
def _intervals(d: EdgeDraw) -> UOp:
    kinds = ("touch-max", "touch-min", "near-max", "near-min", "point", "range", "small", "around-2**30")
    x = d.input(kinds) if d.chance(0.7) else d.plus_const(d.input(kinds), _c(d))
    y = d.input(kinds) if d.chance(0.6) else UOp.const(d.near(x))
    return x < y if d.chance(0.6) else x.ne(y)


@template(
    "rule-identities", "egglog/identities", "x*1, x+0, x//1, x//-1 (-2**31 // -1), x*0, x%1, x%x, x//x, x - x"
)
def _identities(d: EdgeDraw) -> UOp:
    x = d.some_input() if d.chance(0.5) else d.expr(1)
    form = d.pick(
        ("mul1", "add0", "div1", "divm1", "mul0", "mod1", "modm1", "modself", "divself", "subself", "negneg")
    )
    if form == "mul1":
        return x * 1
    if form == "add0":
        return x + 0
    if form == "div1":
        return x // 1
    if form == "divm1":
        return x // -1
    if form == "mul0":
        return x * 0
    if form == "mod1":
        return x % 1
    if form == "modm1":
        return x % -1
    if form == "modself":
        return x % x
    if form == "divself":
        return x // x
    if form == "subself":
        return d.sub(x, x)
    return d.neg(d.neg(x))


@template(
    "rule-distribution",
    "egglog/distribution",
    "x*c + y*c -> (x + y)*c, (x + c)*k, c1*(c2*x) with products past int32",
)
def _distribution(d: EdgeDraw) -> UOp:
    x, y = d.some_input(), d.some_input()
    c, k = d.coef(edge=0.5), d.coef(edge=0.5)
    form = d.pick(("factor", "expand", "sum-times", "const-const"))
    if form == "factor":
        return d.add(x * c, y * c)
    if form == "expand":
        return d.plus_const(x, _c(d)) * k
    if form == "sum-times":
        return d.add(x, y) * k
    return (x * c) * k


@template(
    "rule-fold",
    "egglog/fold",
    "constant folding and reassociation: (x + c1) + c2, (x*c1)*c2, c1 // c2 at the edges",
)
def _fold(d: EdgeDraw) -> UOp:
    x = d.some_input()
    c1, c2 = _c(d), _c(d)
    form = d.pick(("add", "mul", "max", "divconst", "modconst", "move"))
    if form == "add":
        return d.plus_const(d.plus_const(x, c1), c2)
    if form == "mul":
        return (x * (c1 or 2)) * (c2 or 3)
    if form == "max":
        return x.maximum(c1).maximum(c2)
    if form == "divconst":  # constants folded where exec_alu refuses: -2**31 // -1
        return d.add(x, UOp.const(d.pick((I32_MIN, c1))) // d.pick((-1, c2 or 1)))
    if form == "modconst":
        return d.add(x, UOp.const(c1) % (c2 or -1))
    return d.add(d.plus_const(x, c1), d.some_input())
