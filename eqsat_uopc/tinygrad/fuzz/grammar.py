"""The fuzzer's grammar: named templates of index arithmetic, each aimed at rules of tinygrad's simplifier.

tinygrad's `uop/symbolic.py` and `uop/divandmod.py` simplify index expressions: a sum's linear form
under division and modulo (a constant quotient, congruence, a gcd factored out, nesting by a
factor, a variable divisor, exact multiples split off), recombination of `x%c` with `(x//c)*c`,
comparisons of scaled sums, boolean algebra, WHERE on conditions that decide their own branches,
and the bounds of every node. Each template below draws expressions of one such family, with the
forms varied the way real index code varies them: inputs whose lower bound lies above, at and
below 0 (and inputs with no bounds), coefficients that share factors with the divisor or are
congruent to a small residue of either sign, negative divisors and coefficients, variable
divisors with positive bounds, div/mod nested in div/mod, and every IR spelling of what tinygrad
writes with ops the IR lacks (eqsat_uopc.fuzz.spelling).

`generate(seed, index, templates)` is deterministic: expression `index` of `seed` uses template
`templates[index % len(templates)]` and an rng seeded by (seed, index, template name), so a case is
reproduced from those three alone, whatever ran before it. Every divisor of a generated
expression has an interval (`eqsat_uopc.semantics.intervals.bounds`) that excludes 0: the
expressions are defined on every input inside their bounds (except where an i32 result overflows).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from eqsat_uopc.fuzz import spelling as sp
from eqsat_uopc.fuzz.generation import Choices, FuzzCase, draw_case
from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN, dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.semantics.intervals import bounds

__all__ = [
    "BOUND_KINDS",
    "TEMPLATES",
    "Draw",
    "FuzzCase",
    "Template",
    "divisors_exclude_zero",
    "generate",
    "template_names",
]

# how an input's bounds are drawn, with weights: lower bounds above, at and below 0, narrow ranges
# (tinygrad folds a quotient that is constant on them), wide ones and none at all
BOUND_KINDS = {
    "nonneg": 30,  # [0, n]
    "positive": 15,  # [k, n], k >= 1
    "signed": 20,  # [-k, n]
    "negative": 8,  # [-n, -k]
    "narrow": 15,  # [a, a + w], w small
    "wide": 7,  # up to 2**24
    "unbounded": 5,  # the whole int32 range
}
_MAX_SIZE = 40  # DAG nodes: a generated expression larger than this is drawn again


class Draw(Choices):
    """The random choices of one expression: its inputs and their bounds, constants, spellings."""

    def divisor(self, negative: float = 0.15, largest: int = 16) -> int:
        """A constant divisor: small, often a power of two, sometimes negative; never 0 or +-1."""
        c = (
            self.pick((2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 16, 24, 32))
            if self.chance(0.7)
            else self.int(2, largest)
        )
        return -c if self.chance(negative) else c

    def coef(self, largest: int = 8, negative: float = 0.3) -> int:
        c = self.int(1, largest)
        return -c if self.chance(negative) else c

    def near(self, x: UOp, spread: int = 50) -> int:
        """A constant in or just outside x's interval, near 0 where the interval allows."""
        lo, hi = bounds(x)
        centre = min(max(0, lo), hi)
        c = centre + self.int(-spread, spread)
        return min(max(c, lo - 2, I32_MIN), hi + 2, I32_MAX)

    # -- inputs
    def bounds(self, kind: str | None = None) -> tuple[int, int] | None:
        r = self.rng
        kind = kind or r.choices(list(BOUND_KINDS), weights=list(BOUND_KINDS.values()))[0]
        n = r.choice((1, 2, 3, 5, 7, 8, 15, 16, 31, 40, 63, 100, 255, 1000))
        if kind == "nonneg":
            return (0, n)
        if kind == "positive":
            k = r.randint(1, 20)
            return (k, k + n)
        if kind == "signed":
            return (-r.choice((1, 2, 3, 4, 7, 8, 16, 50, 100)), n)
        if kind == "negative":
            k = r.randint(1, 20)
            return (-k - n, -k)
        if kind == "narrow":
            a = r.randint(-100, 100)
            return (a, a + r.randint(0, 12))
        if kind == "wide":
            return r.choice(((0, 2**16 - 1), (0, 2**20), (-(2**20), 2**20), (0, 2**24)))
        if kind == "unbounded":
            return None
        raise ValueError(f"unknown bounds kind {kind!r} (expected one of {', '.join(BOUND_KINDS)})")

    def var(self, kind: str | None = None, b: tuple[int, int] | str | None = "draw") -> UOp:
        """A new i32 input (the next slot), bounded as `kind` draws or by `b` itself."""
        bb = self.bounds(kind) if b == "draw" else b
        v = UOp.param(len(self.inputs), dtypes.i32, bounds=bb)
        self.inputs.append(v)
        return v

    def some_var(self, kind: str | None = None) -> UOp:
        """An input already drawn (60%) or a new one."""
        if self.inputs and self.chance(0.6):
            return self.pick(self.inputs)
        return self.var(kind)

    def small_var(self) -> UOp:
        """A new input with small bounds, for products of two inputs."""
        return self.var(self.pick(("nonneg", "positive", "signed", "narrow")), "draw")

    # -- arithmetic, spelled in every way the IR can
    def scaled(self, x: UOp, c: int) -> UOp:
        """c * x, as `x*c`, `c*x`, or for c < 0 as `-(x*|c|)`."""
        if c == 1 and self.chance(0.8):
            return x
        if c < 0 and self.chance(0.3):
            return sp.neg(self.rng, x if c == -1 else x * -c)
        return x * c if self.chance(0.75) else x.const_like(c) * x

    def plus_const(self, x: UOp, k: int) -> UOp:
        if k == 0:
            return x
        if k < 0 and self.chance(0.3):
            return sp.sub(self.rng, x, x.const_like(-k))
        return x + k if self.chance(0.8) else x.const_like(k) + x

    def linear(
        self,
        n: int | None = None,
        coefs: Sequence[int] | None = None,
        const: int | None = None,
        kinds: Sequence[str] | None = None,
    ) -> UOp:
        """sum(c_i * x_i) + const over n inputs (new or reused)."""
        n = n if n is not None else (len(coefs) if coefs is not None else self.int(1, 3))
        coefs = list(coefs) if coefs is not None else [self.coef() for _ in range(n)]
        xs: list[UOp] = []
        for _ in range(n):  # mostly distinct inputs; a repeated one exercises combining terms
            others = [v for v in self.inputs if v not in xs]
            kind = self.pick(kinds) if kinds else None
            xs.append(self.pick(others) if others and self.chance(0.3) else self.var(kind))
        s = self.total([self.scaled(x, c) for x, c in zip(xs, coefs, strict=True)])
        return self.plus_const(s, const if const is not None else 0)

    def divmod(self, x: UOp, c: UOp | int, op: str | None = None) -> UOp:
        op = op or self.pick(("div", "mod"))
        return x // c if op == "div" else x % c

    def positive_divisor_var(self) -> UOp:
        return self.var(b=self.pick(((1, 8), (2, 9), (3, 5), (10, 11), (4, 16), (1, 100), (2, 2), (7, 12))))

    # -- random expressions, for templates that embed one
    def expr(self, depth: int = 2) -> UOp:
        """A random i32 expression over the inputs: sums, products with constants, div/mod, max, where."""
        if depth <= 0 or self.chance(0.25):
            return self.some_var() if self.chance(0.85) else UOp.const(self.int(-8, 16))
        k = self.pick(("add", "add", "mul", "div", "mod", "max", "where", "sub"))
        a = self.expr(depth - 1)
        if k == "add":
            return self.add(a, self.expr(depth - 1) if self.chance(0.6) else UOp.const(self.int(-20, 20)))
        if k == "sub":
            return sp.sub(self.rng, a, self.expr(depth - 1))
        if k == "mul":
            return self.scaled(a, self.coef(12))
        if k in ("div", "mod"):
            d: UOp | int = self.divisor() if self.chance(0.8) else self.positive_divisor_var()
            return self.divmod(a, d, k)
        if k == "max":
            return a.maximum(self.expr(depth - 1))
        return self.cond(depth - 1).where(a, self.expr(depth - 1))

    def atom(self) -> UOp:
        """A comparison of an input (or a small sum) with a constant or another input."""
        x = self.some_var() if self.chance(0.7) else self.linear(2)
        c = self.near(x)
        k = self.pick(("lt", "lt", "gt", "le", "ge", "eq", "ne", "lt-var"))
        r = self.rng
        if k == "lt-var":
            return sp.lt(r, x, self.some_var())
        fn = {"lt": sp.lt, "gt": sp.gt, "le": sp.le, "ge": sp.ge, "eq": sp.eq}.get(k)
        return fn(r, x, x.const_like(c)) if fn else x.ne(c)

    def cond(self, depth: int = 1) -> UOp:
        """A random bool expression: comparisons under AND, OR, NOT and XOR in every spelling."""
        if depth <= 0 or self.chance(0.35):
            return self.atom()
        k = self.pick(("and", "or", "not", "xor"))
        a = self.cond(depth - 1)
        if k == "not":
            return sp.not_(self.rng, a)
        b = self.cond(depth - 1)
        return {"and": sp.and_, "or": sp.or_, "xor": sp.xor}[k](self.rng, a, b)


@dataclass(frozen=True)
class Template:
    """A named family of expressions and the tinygrad rules it is aimed at."""

    name: str
    targets: str  # the tinygrad rules (symbolic.py / divandmod.py) the template exercises
    build: Callable[[Draw], UOp]


TEMPLATES: dict[str, Template] = {}


def _template(name: str, targets: str) -> Callable[[Callable[[Draw], UOp]], Callable[[Draw], UOp]]:
    def register(fn: Callable[[Draw], UOp]) -> Callable[[Draw], UOp]:
        TEMPLATES[name] = Template(name, targets, fn)
        return fn

    return register


def template_names() -> tuple[str, ...]:
    """Every template, in the order generate() cycles through them."""
    return tuple(TEMPLATES)


# ---------------------------------------------------------------------------
# division and modulo of a sum (divandmod.py)


@_template("const-quotient", "fold_divmod_general: x//y is constant on the bounds (constant or variable y)")
def _const_quotient(d: Draw) -> UOp:
    if d.chance(0.35):  # a variable divisor: x // y with x in [q*yh, (q+1)*yl - 1]
        yl = d.int(1, 12)
        yh = yl + d.int(0, 2)
        q = d.int(0, 6)
        lo, hi = q * yh, (q + 1) * yl - 1
        if hi < lo:
            hi = lo + d.int(0, 3)  # the quotient straddles: tinygrad must not fold
        x = d.var(b=(lo, hi))
        y = d.var(b=(yl, yh))
        return d.divmod(d.plus_const(x, 0), y)
    s = d.linear(d.int(1, 2), kinds=("narrow", "positive", "nonneg"))
    s_lo, s_hi = bounds(s)
    width = s_hi - s_lo + 1
    c = d.int(max(2, width), max(2, width) + 12)
    k = (-s_lo) % c + c * d.int(-2, 2)
    if d.chance(0.25):
        k += d.pick((-1, 1))  # straddles a period boundary
    if d.chance(0.15):
        c = -c
    return d.divmod(d.plus_const(s, k), c)


@_template("div-congruence", "fold_divmod_congruence: coefficients replaced by residues of either sign")
def _congruence(d: Draw) -> UOp:
    c = d.divisor(negative=0.1)
    coefs = []
    for _ in range(d.int(1, 3)):
        r = d.int(-2, 2)
        m = d.pick((-2, -1, 1, 1, 2, 3))
        coefs.append(r + m * abs(c) or abs(c) + 1)
    k = d.int(-3 * abs(c), 3 * abs(c))
    kinds = ("narrow", "nonneg", "signed", "positive") if d.chance(0.7) else None
    return d.divmod(d.linear(coefs=coefs, const=k, kinds=kinds), c)


@_template("divmod-gcd", "gcd_with_remainder / divide_by_gcd: a common factor of coefficients and divisor")
def _gcd(d: Draw) -> UOp:
    g = d.int(2, 6)
    c = g * d.int(1, 5) if d.chance(0.8) else g * d.int(1, 4) + d.int(1, g - 1)
    if c in (0, 1, -1):
        c = g * 2
    coefs = [g * d.coef(5, negative=0.25) for _ in range(d.int(1, 3))]
    k = g * d.int(-6, 6) + (d.int(0, g - 1) if d.chance(0.4) else 0)
    if d.chance(0.1):
        c = -c
    return d.divmod(d.linear(coefs=coefs, const=k), c)


@_template("nest-by-factor", "nest_by_factor: x//c -> (x//f)//(c//f) for a coefficient f dividing c")
def _nest_by_factor(d: Draw) -> UOp:
    f = d.int(2, 8)
    c = f * d.int(2, 5)
    coefs = [f * d.coef(4, negative=0.2)] + [d.coef(3, negative=0.1) for _ in range(d.int(0, 2))]
    kinds = ("nonneg", "positive", "narrow") if d.chance(0.8) else None
    return d.divmod(d.linear(coefs=coefs, const=d.int(-f, 2 * f), kinds=kinds), c)


@_template("factor-remainder", "factor_remainder: (d*x + y)//d -> x + y//d for non-negative terms")
def _factor_remainder(d: Draw) -> UOp:
    c = d.divisor(negative=0.0)
    coefs = [c * d.int(1, 4) + (d.int(0, c - 1) if d.chance(0.5) else 0) for _ in range(d.int(1, 2))]
    coefs += [d.int(1, 3) for _ in range(d.int(0, 2))]
    kinds = ("nonneg", "positive") if d.chance(0.8) else ("signed",)
    return d.divmod(d.linear(coefs=coefs, const=d.int(0, 2 * c), kinds=kinds), c)


@_template(
    "var-divisor", "divide_by_gcd with a symbolic gcd, factor_remainder and constant quotients, y a variable"
)
def _var_divisor(d: Draw) -> UOp:
    y = d.positive_divisor_var()
    form = d.pick(("sum-of-products", "product-plus", "symbolic-gcd", "plain", "product-mod"))
    if form == "sum-of-products":  # (d*b + c*d) // d
        terms = [
            d.scaled(y, 1) * d.small_var() if d.chance(0.5) else d.small_var() * y for _ in range(d.int(1, 3))
        ]
        return d.divmod(d.total(terms), y)
    if form == "product-plus":  # (x*y + z) // y
        x, z = d.small_var(), d.var(b=(0, d.int(0, 12)))
        return d.divmod(d.add(x * y, z), y)
    if form == "symbolic-gcd":  # (x*y*k1 + y*k2) // (y*k3)
        k = d.int(2, 4)
        s = d.add(d.small_var() * y * (k * d.int(1, 3)), y * (k * d.int(1, 3)))
        return d.divmod(s, y * k)
    if form == "product-mod":
        return (d.small_var() * y) % y if d.chance(0.5) else (y * d.small_var() + y * d.int(1, 5)) % y
    return d.divmod(d.var(), y)


@_template("nested-divmod", "nested_div, remove_nested_mod, (x//c1)//c2, (x//c + a)//d, (x%y)%y")
def _nested(d: Draw) -> UOp:
    x = d.linear(d.int(1, 2), kinds=("nonneg", "signed", "positive", "narrow"))
    c = abs(d.divisor())
    k = d.int(2, 6)
    form = d.pick(
        ("mod-div", "mod-mod", "div-div", "div-plus-div", "sum-mod-mod", "div-mod", "mod-div-0", "mod-mod-y")
    )
    if form == "mod-div":  # (x % (k*c)) // c
        return (x % (k * c)) // c
    if form == "mod-mod":  # (x % c1) % c2, c2 dividing c1 or not
        c2 = c if d.chance(0.6) else d.int(2, 9)
        return (x % (k * c)) % c2
    if form == "div-div":  # (x // c1) // c2, c2 of either sign
        return (x // c) // (k if d.chance(0.8) else -k)
    if form == "div-plus-div":  # (x // c + a) // d
        return d.plus_const(x // c, d.int(-5, 5)) // k
    if form == "sum-mod-mod":  # ((x % c*k) + y) % c
        return d.add(x % (c * k), d.some_var()) % c
    if form == "div-mod":
        return (x // c) % k
    if form == "mod-div-0":
        return (x % c) // (c * d.int(1, 3))
    y = d.positive_divisor_var()
    return (x % y) % y


@_template("split-const", "(x+c)//d -> (x+c%d)//d + c//d and (x+c)%d -> (x+c%d)%d, any sign of c and d")
def _split_const(d: Draw) -> UOp:
    c = d.divisor(negative=0.25)
    k = d.int(abs(c), 6 * abs(c)) * d.pick((1, -1))
    return d.divmod(d.plus_const(d.linear(d.int(1, 2)), k), c)


@_template("neg-divisor", "divisions and modulos by negative constants, negative coefficients, x//-1")
def _neg_divisor(d: Draw) -> UOp:
    c = -abs(d.divisor())
    if d.chance(0.15):
        c = -1
    coefs = [d.coef(9, negative=0.6) for _ in range(d.int(1, 2))]
    if d.chance(0.4):
        coefs[0] = abs(c) * d.coef(3, negative=0.5)
    return d.divmod(d.linear(coefs=coefs, const=d.int(-10, 10)), c)


@_template("divmod-recombine", "fold_add_divmod_recombine: (x%c)*m + (x//c)*(c*m), partial and shifted")
def _recombine(d: Draw) -> UOp:
    c = abs(d.divisor())
    m = d.pick((1, 1, 2, 3, -1))
    x = d.linear(d.int(1, 2), kinds=("nonneg", "signed", "positive"))
    rest = [d.some_var()] if d.chance(0.5) else []
    form = d.pick(("full", "full", "partial", "shifted", "minus"))
    if form == "full":  # l + (x//c)*(c*m) + (x%c)*m
        terms = [d.scaled(x // c, c * m), d.scaled(x % c, m)]
    elif form == "partial":  # ((x//c)%k)*(c*m) + (x%c)*m -> (x % (c*k))*m
        k = d.int(2, 6)
        terms = [d.scaled((x // c) % k, c * m), d.scaled(x % c, m)]
    elif form == "shifted":  # ((x + j*c)//c)*c + x%c -> x + j*c
        j = d.int(-3, 3) or 1
        terms = [d.scaled(d.plus_const(x, j * c) // c, c * m), d.scaled(x % c, m)]
    else:  # x - (x//c)*c -> x % c
        terms = [x, d.scaled(x // c, -c)]
    return d.total(terms + rest)


@_template(
    "shifted-div-sum", "sums of shifted divisions of one sum: (x+a)//c - (x+b)//c, l + (g//8)*24 + 3*(g%8)"
)
def _shifted(d: Draw) -> UOp:
    c = abs(d.divisor())
    x = d.linear(1 if d.chance(0.7) else 2, kinds=("nonneg", "positive", "signed"))
    n = d.int(2, 3)
    terms = []
    for _ in range(n):
        q = d.divmod(d.plus_const(x, d.int(-c, 2 * c)), c, "div" if d.chance(0.75) else "mod")
        terms.append(d.scaled(q, d.coef(3, negative=0.4)))
    return d.total(terms)


@_template("trunc-div", "tinygrad's CDIV/CMOD and shifts as the bridge spells them: floor op plus correction")
def _trunc(d: Draw) -> UOp:
    x = d.linear(d.int(1, 2))
    if d.chance(0.2):  # SHL / SHR: multiplication and floor division by a power of two
        k = d.int(1, 5)
        return (x * (1 << k)) // (1 << d.int(1, k)) if d.chance(0.5) else x // (1 << k)
    b: UOp | int = abs(d.divisor()) if d.chance(0.75) else d.positive_divisor_var()
    b = b if isinstance(b, UOp) else UOp.const(b)
    return sp.cdiv(x, b) if d.chance(0.6) else sp.cmod(x, b)


# ---------------------------------------------------------------------------
# comparisons (symbolic.py "lt" rules, lt_folding, canonicalize_simplex, bounds)


@_template("scaled-cmp", "lt_folding, c0*x<c1, c0+x<c1, x//d<c, x*-1<y*-1, canonicalize_simplex")
def _scaled_cmp(d: Draw) -> UOp:
    r = d.rng
    form = d.pick(("lt-folding", "scaled", "offset", "div", "negated", "simplex"))
    if form == "lt-folding":  # (g*a + g*b + z) < c with z small: -> (a + b) < c//g
        g = d.int(2, 8)
        terms = [
            d.scaled(d.var(d.pick(("nonneg", "positive", "signed"))), g * d.coef(3, 0.2))
            for _ in range(d.int(1, 2))
        ]
        if d.chance(0.7):
            terms.append(d.var(b=(0, d.int(0, g - 1) if d.chance(0.8) else g)))
        c = d.int(1, 12 * g)
        return sp.lt(r, d.total(terms), UOp.const(c))
    if form == "scaled":  # c0*x < c1
        c0 = d.coef(9, negative=0.4)
        c0 = c0 if abs(c0) > 1 else 2 * c0
        x = d.var()
        cmp = d.pick((sp.lt, sp.gt, sp.le, sp.ge))
        return cmp(r, d.scaled(x, c0), UOp.const(d.int(-40, 40)))
    if form == "offset":  # c0 + x < c1
        return sp.lt(r, d.plus_const(d.linear(1), d.int(-20, 20)), UOp.const(d.int(-20, 20)))
    if form == "div":  # x//d < c
        return d.pick((sp.lt, sp.ge))(r, d.linear(1) // d.divisor(negative=0.3), UOp.const(d.int(-6, 6)))
    if form == "negated":  # x*-1 < y*-1
        return sp.neg(r, d.linear(1)) < sp.neg(r, d.linear(1))
    xs = [d.scaled(d.var(d.pick(("nonneg", "positive"))), d.int(1, 4)) for _ in range(d.int(2, 3))]
    return sp.not_(r, d.total(xs) < 1) if d.chance(0.7) else sp.ge(r, d.total(xs), UOp.const(1))


@_template("cmp-range", "ALU/variable min==max -> CONST: comparisons and div/mod decided by the bounds")
def _cmp_range(d: Draw) -> UOp:
    r = d.rng
    form = d.pick(("outside", "mod-lt", "div-ne", "vars", "eq-outside"))
    x = d.linear(d.int(1, 2))
    lo, hi = bounds(x)
    if form == "outside" and lo > I32_MIN + 10 and hi < I32_MAX - 10:
        c = d.pick((lo - d.int(0, 3), hi + d.int(1, 3)))
        return d.pick((sp.lt, sp.gt, sp.le, sp.ge))(r, x, UOp.const(c))
    if form == "mod-lt":
        c = abs(d.divisor())
        return sp.lt(r, x % c, UOp.const(c + d.int(-1, 2)))
    if form == "div-ne":
        c = abs(d.divisor())
        return (
            (x // c).ne(d.int(-3, 3) * 1000) if d.chance(0.5) else sp.eq(r, x // c, UOp.const(d.int(-2, 2)))
        )
    if form == "vars":
        a = d.var(b=(0, d.int(0, 10)))
        b = d.var(b=(d.int(10, 20), d.int(20, 40)))
        return d.pick((sp.lt, sp.gt, sp.le, sp.ge))(r, a, b)
    return sp.eq(r, d.some_var(), UOp.const(d.int(-300, 300)))


# ---------------------------------------------------------------------------
# boolean algebra (symbolic_simple and symbolic's boolean rules)


@_template("bool-or-not", "x | !x -> True in each IR spelling of OR and NOT (and x & !x)")
def _or_not(d: Draw) -> UOp:
    r = d.rng
    x = d.atom() if d.chance(0.8) else d.cond(1)
    nx = sp.not_(r, x)
    a, b = (x, nx) if d.chance(0.5) else (nx, x)
    out = sp.or_(r, a, b) if d.chance(0.75) else sp.and_(r, a, b)
    if d.chance(0.3):
        out = out.where(d.expr(1), d.expr(1))
    return out


@_template("bool-identity", "x&True, x|False, x!=False, where(x,True,False), !!x, x&x, x|x, x^x, x^False")
def _bool_identity(d: Draw) -> UOp:
    r = d.rng
    x = d.atom()
    t, f = sp.TRUE, sp.FALSE
    form = d.pick(
        (
            "and-const",
            "or-const",
            "ne-false",
            "where-tf",
            "where-ft",
            "not-not",
            "and-self",
            "or-self",
            "xor-self",
            "xor-false",
        )
    )
    if form == "and-const":
        return sp.and_(r, x, d.pick((t, f)))
    if form == "or-const":
        return sp.or_(r, x, d.pick((t, f)))
    if form == "ne-false":
        return x.ne(f)
    if form == "where-tf":
        return x.where(t, f)
    if form == "where-ft":
        return x.where(f, t)
    if form == "not-not":
        return sp.not_(r, sp.not_(r, x))
    if form == "and-self":
        return sp.and_(r, x, x)
    if form == "or-self":
        return sp.or_(r, x, x)
    if form == "xor-self":
        return x.ne(x)
    return sp.xor(r, x, f)


@_template("bool-algebra", "boolean algebra over related comparisons: absorption, De Morgan, implied atoms")
def _bool_algebra(d: Draw) -> UOp:
    r = d.rng
    x = d.var(d.pick(("nonneg", "signed", "narrow")))
    atoms = []
    for _ in range(d.int(2, 3)):
        c = d.near(x, 20)
        atoms.append(d.pick((sp.lt, sp.gt, sp.le, sp.ge, sp.eq))(r, x, UOp.const(c)))
    if d.chance(0.3):
        atoms.append(d.atom())
    form = d.pick(("absorb", "demorgan", "random"))
    a, b = atoms[0], atoms[1]
    if form == "absorb":  # a | (a & b) -> a, a & (a | b) -> a
        return sp.or_(r, a, sp.and_(r, a, b)) if d.chance(0.5) else sp.and_(r, a, sp.or_(r, a, b))
    if form == "demorgan":  # !(a & b) vs !a | !b
        return (
            sp.not_(r, sp.and_(r, a, b))
            if d.chance(0.5)
            else sp.not_(r, sp.or_(r, sp.not_(r, a), sp.not_(r, b)))
        )
    out = atoms[0]
    for at in atoms[1:]:
        out = d.pick((sp.and_, sp.or_, sp.xor))(r, out, at if d.chance(0.7) else sp.not_(r, at))
    return out


# ---------------------------------------------------------------------------
# WHERE (symbolic_simple's where folding, fold_where_closure, where-alu, max folding)


def _related(d: Draw, x: UOp, c: int) -> UOp:
    """A condition on x related to `x < c`: the same one, an implied or a contradicted one."""
    r = d.rng
    k = d.pick(("same", "same", "implied", "contra", "negated"))
    if k == "same":
        return x < c
    if k == "implied":
        return sp.lt(r, x, UOp.const(c + d.int(1, 4)))
    if k == "contra":
        return sp.ge(r, x, UOp.const(c + d.int(0, 3)))
    return sp.not_(r, x < c)


@_template(
    "where-implied",
    "fold_where_closure: cond folds to True in where's true branch, False in its false branch",
)
def _where_implied(d: Draw) -> UOp:
    s = d.var(d.pick(("nonneg", "signed", "narrow")))
    c = d.near(s, 20)
    cond = s < c
    p, q = d.some_var(), d.some_var()
    inner = _related(d, s, c).where(p, q)
    form = d.pick(("scaled", "sum", "cond-in-branch", "both-branches"))
    if form == "scaled":  # where(s<8, where(s<8, p, q)*3, q + 2)
        return cond.where(d.scaled(inner, d.coef(5)), d.plus_const(q, d.int(-5, 5)))
    if form == "sum":
        return cond.where(d.add(inner, p), d.add(_related(d, s, c).where(q, p), q))
    if form == "cond-in-branch":  # where(c, (c & a) ? x : y, ...)
        a = d.atom()
        return cond.where(sp.and_(d.rng, _related(d, s, c), a).where(p, q), d.expr(1))
    return cond.where(inner, _related(d, s, c).where(q, d.plus_const(p, 1)))


@_template(
    "where-merge",
    "where(a, where(b,c,d), d) -> where(a&b,c,d); where(a,c,where(b,c,d)); where(!c,t,f); where(c,v,v)",
)
def _where_merge(d: Draw) -> UOp:
    r = d.rng
    a, b = d.cond(1), d.cond(1)
    t, f = d.expr(1), d.expr(1)
    form = d.pick(("and", "or", "not", "same", "const-cond"))
    if form == "and":
        return a.where(b.where(t, f), f)
    if form == "or":
        return a.where(t, b.where(t, f))
    if form == "not":
        return sp.not_(r, a).where(t, f)
    if form == "same":
        return a.where(t, t)
    return UOp.const(d.chance(0.5)).where(t, f)


@_template(
    "where-alu", "alu of two wheres on one condition with constant branches; where(c,t,0) + where(c,0,f)"
)
def _where_alu(d: Draw) -> UOp:
    c = d.cond(1)

    def w(cond: UOp) -> UOp:
        if d.chance(0.7):
            return cond.where(UOp.const(d.int(-9, 9)), UOp.const(d.int(-9, 9)))
        return cond.where(UOp.const(d.int(-9, 9)), d.some_var())

    form = d.pick(("binary", "plus-y", "complementary"))
    if form == "binary":
        op = d.pick((Ops.ADD, Ops.MUL, Ops.MAX, Ops.CMPLT, Ops.CMPNE))
        return UOp(op, (w(c), w(c)))
    if form == "plus-y":
        return d.add(d.add(d.some_var(), w(c)), w(c))
    zero = UOp.const(0)
    return d.add(c.where(d.expr(1), zero), c.where(zero, d.expr(1)))


@_template("max-fold", "where(a<b, b, a) -> max(a, b); max(x, y) decided by bounds; max(max(x, c1), c2)")
def _max_fold(d: Draw) -> UOp:
    x = d.linear(1)
    hi = bounds(x)[1]
    c = d.near(x)
    form = d.pick(("const-lt", "lt-const", "bounds", "chain", "min"))
    if form == "const-lt":  # where(c < x, x, c)
        return (UOp.const(c) < x).where(x, c)
    if form == "lt-const":  # where(x < c, c, x)
        return (x < c).where(c, x)
    if form == "bounds":
        y = d.var(b=(hi, hi + 10) if hi < I32_MAX - 10 and d.chance(0.5) else None)
        return x.maximum(y) if d.chance(0.5) else y.maximum(x)
    if form == "chain":
        return x.maximum(c).maximum(c + d.int(-5, 5))
    y = d.linear(1)  # min(x, y) spelled max(-x, -y) * -1
    return sp.neg(d.rng, sp.neg(d.rng, x).maximum(sp.neg(d.rng, y)))


# ---------------------------------------------------------------------------
# terms and constants (symbolic's "combine terms", two-stage ALU folding, identities)


@_template("combine-terms", "x*c0 + x*c1, y + x*c0 + x*c1, x + x*c, x + x, y*(x+c), -1*(x+c)")
def _combine(d: Draw) -> UOp:
    x = d.some_var() if d.chance(0.6) else d.expr(1)
    y = d.some_var()
    c0, c1 = d.coef(9, 0.4), d.coef(9, 0.4)
    form = d.pick(("two", "three", "plus-scaled", "double", "distribute", "negate"))
    if form == "two":
        return d.add(d.scaled(x, c0), d.scaled(x, c1))
    if form == "three":
        return d.add(d.add(y, d.scaled(x, c0)), d.scaled(x, c1))
    if form == "plus-scaled":
        return d.add(d.add(y, x) if d.chance(0.5) else x, d.scaled(x, c0))
    if form == "double":
        return d.add(d.add(y, x), x) if d.chance(0.5) else x + x
    if form == "distribute":
        return (
            d.plus_const(x, d.int(-9, 9)) * c0
            if d.chance(0.5)
            else UOp.const(c0) * d.plus_const(x, d.int(-9, 9))
        )
    return sp.neg(d.rng, d.plus_const(x, d.int(-9, 9) or 1))


@_template(
    "const-chain", "two-stage folding (x+c1)+c2, (x*c1)*c2, max(max(x,c1),c2); constants moved to the end"
)
def _const_chain(d: Draw) -> UOp:
    x = d.some_var() if d.chance(0.6) else d.expr(1)
    y = d.some_var()
    form = d.pick(("add", "mul", "max", "move-add", "move-mul"))
    c1, c2 = d.int(-9, 9), d.int(-9, 9)
    if form == "add":
        return d.plus_const(d.plus_const(x, c1 or 1), c2 or 2)
    if form == "mul":
        return d.scaled(d.scaled(x, c1 or 2), c2 or 3)
    if form == "max":
        return x.maximum(c1).maximum(c2)
    if form == "move-add":
        return d.add(d.plus_const(x, c1 or 1), y)
    return d.scaled(x, c1 or 2) * y


@_template("identity", "x*1, x+0, x//1, x//-1, x//x, x%x, x<x, x!=x, (x%y)%y, x*0, 0*x")
def _identity(d: Draw) -> UOp:
    x = d.expr(2)
    form = d.pick(
        ("mul1", "add0", "div1", "divm1", "divself", "modself", "ltself", "neself", "modmod", "mul0")
    )
    if form == "mul1":
        return x * 1
    if form == "add0":
        return x + 0
    if form == "div1":
        return x // 1
    if form == "divm1":
        return x // -1
    if form == "divself":
        y = d.positive_divisor_var() if d.chance(0.5) else d.plus_const(d.positive_divisor_var(), d.int(0, 3))
        return y // y
    if form == "modself":
        y = d.positive_divisor_var()
        return y % y
    if form == "ltself":
        return x < x
    if form == "neself":
        return x.ne(x)
    if form == "modmod":
        y = d.positive_divisor_var() if d.chance(0.4) else UOp.const(abs(d.divisor()))
        return (x % y) % y
    return x * 0 if d.chance(0.5) else UOp.const(0) * x


@_template("mixed", "anything: random expressions over every op, in every spelling")
def _mixed(d: Draw) -> UOp:
    if d.chance(0.3):
        return d.cond(2)
    return d.expr(3)


# ---------------------------------------------------------------------------


def divisors_exclude_zero(program: UOp) -> bool:
    """Whether every FLOORDIV/FLOORMOD divisor's interval excludes 0 (the program is then defined on
    every input inside its bounds, up to i32 overflow)."""
    for u in program.toposort():
        if u.op in (Ops.FLOORDIV, Ops.FLOORMOD):
            lo, hi = bounds(u.src[1])
            if lo <= 0 <= hi:
                return False
    return True


def _acceptable(program: UOp) -> bool:
    return (
        program.op not in (Ops.CONST, Ops.PARAM)
        and len(program.toposort()) <= _MAX_SIZE
        and divisors_exclude_zero(program)
    )


def generate(seed: int, index: int, templates: Sequence[str] | None = None) -> FuzzCase:
    """Expression `index` of `seed`: template `templates[index % len(templates)]` (default: all of
    them, in TEMPLATES order), drawn from an rng seeded by (seed, index, template)."""
    builders = {name: t.build for name, t in TEMPLATES.items()}
    return draw_case("fuzz-tinygrad", seed, index, templates, builders, Draw, _acceptable, FuzzCase)
