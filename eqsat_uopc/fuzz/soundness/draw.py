"""The random choices of one soundness-fuzzer expression, drawn where int32 arithmetic breaks.

A rewrite that is right on small numbers can be wrong where a sum wraps, a product leaves int32, a
divisor is -2**31 or a constant is built one past the range. So every input, constant and divisor
here is drawn from the places where that happens as often as from the small ones:

- inputs (`BOUND_KINDS`): no bounds at all (`UOp.param(k)`: any int32), bounds touching -2**31 or
  2**31 - 1, bounds a little above -2**31 or below 2**31 - 1, bounds around 2**30 and 2**16, small
  bounds, a single point, and loop variables (RANGEs) with extents from 1 to 2**31 - 1;
- constants (`EDGE_CONSTANTS`): -2**31, -2**31 + 1, 2**31 - 1, 2**31 - 2, +-2**30 (and one either
  side), +-2**16 (and one either side), 46341 (the smallest whose square leaves int32), and
  small ones;
- divisors (`EDGE_DIVISORS`): either sign, -2**31, +-(2**31 - 1), 2**31 - 2, +-2**30, +-2**16,
  +-1, +-2 and small ones; never 0 (a variable divisor may hold 0 where a template says so).

Arithmetic on drawn constants wraps into int32 (`wrap`), so a template never builds a constant the
IR refuses; ops the IR lacks are spelled every way it can (eqsat_uopc.fuzz.spelling).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from eqsat_uopc.fuzz import spelling as sp
from eqsat_uopc.fuzz.generation import Choices
from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN, dtypes, truncate
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.semantics.intervals import bounds

__all__ = ["BOUND_KINDS", "EDGE_CONSTANTS", "EDGE_DIVISORS", "RANGE_EXTENTS", "EdgeDraw", "wrap"]

# the constants that break int32 reasoning, by where they sit
EDGE_CONSTANTS: dict[str, tuple[int, ...]] = {
    "int32-min": (I32_MIN, I32_MIN + 1, I32_MIN + 2, I32_MIN + 7),
    "int32-max": (I32_MAX, I32_MAX - 1, I32_MAX - 2, I32_MAX - 6),
    "2**30": (2**30, 2**30 - 1, 2**30 + 1, -(2**30), -(2**30) - 1, -(2**30) + 1, 3 * 2**29),
    "2**16": (2**16, 2**16 - 1, 2**16 + 1, -(2**16), 2**15, -(2**15), 46341, -46341),
}
EDGE_DIVISORS: tuple[int, ...] = (
    I32_MIN,
    I32_MAX,
    -I32_MAX,
    I32_MAX - 1,
    2**30,
    -(2**30),
    2**30 + 1,
    2**16,
    -(2**16),
    2**16 + 1,
    46341,
    1,
    -1,
    2,
    -2,
)
_SMALL_DIVISORS = (2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 16, 24, 32, 100)
RANGE_EXTENTS = (1, 2, 3, 4, 7, 16, 100, 1024, 2**16, 2**16 + 1, 2**30, 2**30 + 1, I32_MAX)

# how an i32 input is drawn, with weights
BOUND_KINDS: dict[str, int] = {
    "unbounded": 16,  # UOp.param(k): any int32
    "touch-min": 9,  # [-2**31, hi]
    "touch-max": 9,  # [lo, 2**31 - 1]
    "near-min": 5,  # a little above -2**31
    "near-max": 5,  # a little below 2**31 - 1
    "around-2**30": 7,
    "around-2**16": 7,
    "small": 18,  # within [-100, 100]
    "point": 4,  # one value
    "range": 16,  # a RANGE: [0, extent - 1]
}
# the ops of a random i32 expression (expr), sums and products twice as often
_EXPR_OPS = (
    *("add", "add", "sub", "mul", "mul", "div", "mod"),
    *("max", "min", "where", "cast", "neg", "trunc", "shift"),
)
_ENDS = (I32_MIN, I32_MIN + 1, -(2**30), -(2**16), -100, -1, 0, 1, 100, 2**16, 2**30, I32_MAX - 1, I32_MAX)


def wrap(v: int) -> int:
    """v as an int32 (two's complement): what a constant computed from drawn ones becomes."""
    return truncate(dtypes.i32, v)


class EdgeDraw(Choices):
    """The random choices of one expression: inputs, constants, divisors, spellings."""

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)  # self.inputs: the i32 inputs, PARAMs and RANGEs, in the order drawn
        self.bools: list[UOp] = []
        self._slots = 0
        self._ranges = 0

    # -- numbers
    def small(self, lo: int = -9, hi: int = 9) -> int:
        return self.rng.randint(lo, hi)

    def edge(self) -> int:
        """A constant at an edge: near -2**31, 2**31 - 1, +-2**30 or +-2**16."""
        return self.pick(self.pick(list(EDGE_CONSTANTS.values())))

    def const(self, edge: float = 0.5) -> int:
        """A constant: at an edge with probability `edge`, else small."""
        return self.edge() if self.chance(edge) else self.small(-20, 20)

    def divisor(self, negative: float = 0.3, edge: float = 0.35) -> int:
        """A constant divisor, never 0: an edge one (either sign) or a small one of either sign."""
        if self.chance(edge):
            return self.pick(EDGE_DIVISORS)
        c = self.pick(_SMALL_DIVISORS)
        return -c if self.chance(negative) else c

    def coef(self, edge: float = 0.15, largest: int = 8) -> int:
        """A coefficient, never 0: small of either sign, sometimes at an edge."""
        if self.chance(edge):
            return self.edge() or 1
        c = self.int(1, largest)
        return -c if self.chance(0.3) else c

    # -- inputs
    def bounds(self, kind: str) -> tuple[int, int] | None:
        """The bounds of a PARAM of this kind (None: unbounded)."""
        r = self.rng
        if kind == "unbounded":
            return None
        if kind == "touch-min":
            return (I32_MIN, r.choice(_ENDS))
        if kind == "touch-max":
            return (r.choice(_ENDS), I32_MAX)
        width = r.choice((0, 1, 2, 5, 16, 100, 2**16, 2**20))
        if kind == "near-min":
            lo = I32_MIN + r.choice((0, 1, 2, 3, 7, 100))
            return (lo, lo + width)
        if kind == "near-max":
            hi = I32_MAX - r.choice((0, 1, 2, 3, 7, 100))
            return (hi - width, hi)
        if kind in ("around-2**30", "around-2**16"):
            centre = (2**30 if kind == "around-2**30" else 2**16) * r.choice((1, 1, -1))
            lo = centre - r.choice((0, 1, 2, 16, width))
            hi = centre + r.choice((0, 1, 2, 16, width))
            return (max(lo, I32_MIN), min(hi, I32_MAX))
        if kind == "small":
            lo = r.choice((0, 0, 1, -1, -2, -8, -100, r.randint(-20, 20)))
            return (lo, lo + r.choice((0, 1, 2, 3, 7, 15, 31, 100)))
        if kind == "point":
            v = self.const(edge=0.7)
            return (v, v)
        raise ValueError(f"unknown bounds kind {kind!r} (expected one of {', '.join(BOUND_KINDS)})")

    def input(self, kinds: Sequence[str] | None = None) -> UOp:
        """A new i32 input (a PARAM at the next slot, or a RANGE), of a kind drawn from `kinds`
        (default: every kind, by BOUND_KINDS' weights). One time in five `kinds` is ignored: a
        template asks for the inputs its rewrite needs, and the inputs it does not need are where a
        rewrite's guard is tested."""
        names = list(kinds) if kinds and not self.chance(0.2) else list(BOUND_KINDS)
        kind = self.rng.choices(names, weights=[BOUND_KINDS[k] for k in names])[0]
        if kind == "range":
            u = UOp.range(self.pick(RANGE_EXTENTS), f"r{self._ranges}")
            self._ranges += 1
        else:
            u = UOp.param(self._slots, dtypes.i32, bounds=self.bounds(kind))
            self._slots += 1
        self.inputs.append(u)
        return u

    def unbounded(self) -> UOp:
        return self.input(("unbounded",))

    def some_input(self, kinds: Sequence[str] | None = None, reuse: float = 0.5) -> UOp:
        """An i32 input already drawn (with probability `reuse`) or a new one."""
        if self.inputs and self.chance(reuse):
            return self.pick(self.inputs)
        return self.input(kinds)

    def bool_input(self) -> UOp:
        if self.bools and self.chance(0.4):
            return self.pick(self.bools)
        u = UOp.param(self._slots, dtypes.bool)
        self._slots += 1
        self.bools.append(u)
        return u

    def nonzero_input(self) -> UOp:
        """An i32 input whose bounds exclude 0 (a variable divisor), either sign, edges included."""
        r = self.rng
        b = r.choice(
            (
                (1, r.choice((1, 2, 3, 7, 16, 2**16, 2**30, I32_MAX))),
                (2, 9),
                (r.choice((1, 2, 2**16, 2**30)), I32_MAX),
                (I32_MIN, r.choice((-1, -2, -(2**16)))),
                (-r.choice((1, 2, 9, 100)), -1),
                (I32_MAX - r.choice((0, 1, 5)), I32_MAX),
            )
        )
        u = UOp.param(self._slots, dtypes.i32, bounds=b)
        self._slots += 1
        self.inputs.append(u)
        return u

    # -- arithmetic, spelled every way the IR can
    def scaled(self, x: UOp, c: int) -> UOp:
        """c * x as `x*c`, `c*x` or (c < 0) `-(x*|c|)`."""
        c = wrap(c)
        if c == 1 and self.chance(0.8):
            return x
        if c < 0 and c != I32_MIN and self.chance(0.25):
            return sp.neg(self.rng, x if c == -1 else x * -c)
        return x * c if self.chance(0.75) else x.const_like(c) * x

    def plus_const(self, x: UOp, k: int) -> UOp:
        k = wrap(k)
        if k == 0:
            return x
        if k < 0 and k != I32_MIN and self.chance(0.3):
            return sp.sub(self.rng, x, x.const_like(-k))
        return x + k if self.chance(0.8) else x.const_like(k) + x

    def sub(self, a: UOp, b: UOp) -> UOp:
        return sp.sub(self.rng, a, b)

    def neg(self, x: UOp) -> UOp:
        return sp.neg(self.rng, x)

    def linear(
        self,
        n: int | None = None,
        coefs: Sequence[int] | None = None,
        const: int | None = None,
        kinds: Sequence[str] | None = None,
    ) -> UOp:
        """sum(c_i * x_i) + const over n inputs (new, or one drawn before)."""
        n = n if n is not None else (len(coefs) if coefs is not None else self.int(1, 3))
        coefs = list(coefs) if coefs is not None else [self.coef() for _ in range(n)]
        xs: list[UOp] = []
        for _ in range(n):
            others = [v for v in self.inputs if v not in xs]
            xs.append(self.pick(others) if others and self.chance(0.3) else self.input(kinds))
        s = self.total([self.scaled(x, c) for x, c in zip(xs, coefs, strict=True)])
        return self.plus_const(s, const if const is not None else (self.const() if self.chance(0.6) else 0))

    def divmod(self, x: UOp, c: UOp | int, op: str | None = None) -> UOp:
        op = op or self.pick(("div", "mod"))
        c = c if isinstance(c, UOp) else UOp.const(wrap(c))
        return x // c if op == "div" else x % c

    def minimum(self, a: UOp, b: UOp) -> UOp:
        """min(a, b), as the corpora spell it (`-max(-a, -b)`) or as `where(a < b, a, b)`."""
        if self.chance(0.5):
            return self.neg(self.neg(a).maximum(self.neg(b)))
        return (a < b).where(a, b)

    # -- comparisons and conditions
    def near(self, x: UOp) -> int:
        """A constant near an end of x's interval (just inside or outside), or at an edge."""
        lo, hi = bounds(x)
        if self.chance(0.25):
            return self.const(edge=0.8)
        end = self.pick((int(lo), int(hi)))
        return wrap(end + self.pick((-2, -1, 0, 0, 1, 2)))

    def compare(self, a: UOp, b: UOp, kind: str | None = None) -> UOp:
        """a <op> b for one of <, >, <=, >=, ==, != in one of its spellings."""
        kind = kind or self.pick(("lt", "lt", "gt", "le", "ge", "eq", "ne"))
        if kind == "ne":
            return a.ne(b) if self.chance(0.7) else b.ne(a)
        fn = {"lt": sp.lt, "gt": sp.gt, "le": sp.le, "ge": sp.ge, "eq": sp.eq}[kind]
        return fn(self.rng, a, b)

    def not_(self, x: UOp) -> UOp:
        return sp.not_(self.rng, x)

    def and_(self, a: UOp, b: UOp) -> UOp:
        return sp.and_(self.rng, a, b)

    def or_(self, a: UOp, b: UOp) -> UOp:
        return sp.or_(self.rng, a, b)

    def atom(self) -> UOp:
        """A comparison of an input or a small sum with a constant near its bounds, or another input."""
        if self.bools and self.chance(0.15):
            return self.bool_input()
        x = self.some_input() if self.chance(0.7) else self.linear(2)
        if self.chance(0.2):
            return self.compare(x, self.some_input())
        return self.compare(x, x.const_like(self.near(x)))

    def cond(self, depth: int = 1) -> UOp:
        """A random bool expression: comparisons under AND, OR, NOT and XOR in every spelling."""
        if depth <= 0 or self.chance(0.35):
            return self.atom()
        k = self.pick(("and", "or", "not", "xor"))
        a = self.cond(depth - 1)
        if k == "not":
            return self.not_(a)
        b = self.cond(depth - 1)
        return {"and": self.and_, "or": self.or_, "xor": lambda x, y: sp.xor(self.rng, x, y)}[k](a, b)

    def leaf(self) -> UOp:
        return self.some_input() if self.chance(0.8) else UOp.const(self.const())

    def expr(self, depth: int = 2, pool: list[UOp] | None = None) -> UOp:
        """A random i32 expression over every scalar i32 op (ADD, MUL, FLOORDIV, FLOORMOD, MAX, WHERE,
        CAST of a bool), sums with edge constants, spelled SUB, NEG, MIN, truncating division and
        remainder (a positive divisor) and shifts; `pool` (when given)
        collects the subterms built and offers them again, so that the DAG shares them."""
        if pool and self.chance(0.2):
            return self.pick(pool)
        if depth <= 0 or self.chance(0.2):
            return self.leaf()
        k = self.pick(_EXPR_OPS)
        a = self.expr(depth - 1, pool)
        if k == "add":
            out = (
                self.add(a, self.expr(depth - 1, pool))
                if self.chance(0.6)
                else self.plus_const(a, self.const())
            )
        elif k == "sub":
            out = self.sub(a, self.expr(depth - 1, pool))
        elif k == "mul":
            out = self.scaled(a, self.coef(edge=0.3)) if self.chance(0.7) else a * self.expr(depth - 1, pool)
        elif k in ("div", "mod"):
            d: UOp | int = self.divisor() if self.chance(0.75) else self.expr(depth - 1, pool)
            out = self.divmod(a, d, k)
        elif k == "max":
            out = a.maximum(self.expr(depth - 1, pool))
        elif k == "min":
            out = self.minimum(a, self.expr(depth - 1, pool))
        elif k == "where":
            out = self.cond(depth - 1).where(a, self.expr(depth - 1, pool))
        elif k == "cast":
            out = self.cond(depth - 1).cast(dtypes.i32)
        elif k == "trunc":  # C's truncating / and % as a front end spells them with floor ops
            d = UOp.const(self.divisor(negative=0.0)) if self.chance(0.7) else self.nonzero_input()
            out = sp.cdiv(a, d) if self.chance(0.5) else sp.cmod(a, d)
        elif k == "shift":  # x << k and x >> k
            j = self.pick((1, 2, 3, 16, 30, 31))
            out = a * wrap(1 << j) if self.chance(0.5) else a // (1 << min(j, 30))
        else:
            out = self.neg(a)
        if pool is not None:
            pool.append(out)
        return out

    def bool_expr(self, depth: int = 2, pool: list[UOp] | None = None) -> UOp:
        """A random bool expression over comparisons of random i32 expressions, bool inputs, CAST to
        bool, and the IR's boolean ops (WHERE, CMPNE, CMPLT, MAX, MUL, ADD on bools)."""
        if depth <= 0 or self.chance(0.25):
            k = self.pick(("cmp", "cmp", "bool", "cast"))
            if k == "bool":
                return self.bool_input()
            if k == "cast":
                return self.expr(1, pool).cast(dtypes.bool)
            return self.compare(
                self.expr(1, pool), self.expr(1, pool) if self.chance(0.5) else UOp.const(self.const())
            )
        a = self.bool_expr(depth - 1, pool)
        b = self.bool_expr(depth - 1, pool)
        op = self.pick((Ops.WHERE, Ops.CMPNE, Ops.CMPLT, Ops.MAX, Ops.MUL, Ops.ADD))
        if op is Ops.WHERE:
            return a.where(b, self.bool_expr(depth - 1, pool))
        return UOp(op, (a, b))
