"""The piecewise-linear comparisons (eqsat_uopc.saturation.piecewise) as schemas.

`linear/piecewise-compare` runs under no_overflow only: the program's values are exact, so each
term is its normal form `max_i min_j (linear form)` over the mathematical integers, and a
comparison it decides is a constant (a bool: the written term computes nothing that could
overflow). What must hold is that each step of building a normal form is an identity of the
integers, and that each decision and case split covers every input. Each schema is one of them,
on two-by-two forms (symbolic linear values f_ij, atoms and bounds; the multiplier or divisor a
drawn parameter).
"""

from __future__ import annotations

import random
from typing import Any

import z3

from eqsat_uopc.rules.python_rules import PIECEWISE_COMPARE
from eqsat_uopc.verify.schemas.question import Claim, Question, Schema, Value

__all__ = ["PIECEWISE_SCHEMAS"]

PW = PIECEWISE_COMPARE.name
_NO_OVERFLOW = ("no_overflow",)


def _max(*xs: Any) -> Any:
    out = xs[0]
    for x in xs[1:]:
        out = z3.If(x > out, x, out)
    return out


def _min(*xs: Any) -> Any:
    out = xs[0]
    for x in xs[1:]:
        out = z3.If(x < out, x, out)
    return out


def _form(q: Question, name: str) -> tuple[list[list[Any]], Any]:
    """A two-by-two normal form over int32 values f[i][j]: (its linear values, max_i min_j)."""
    f = [[q.constant(f"{name}{i}{j}") for j in range(2)] for i in range(2)]
    return f, _max(*(_min(*row) for row in f))


def _add(q: Question) -> Claim:
    # a + max_i min_j f_ij = max_i min_j (f_ij + a)
    f, x = _form(q, "f")
    a = q.constant("a")
    return Value(x + a), Value(_max(*(_min(*(v + a for v in row)) for row in f)))


def _scaled(f: list[list[Any]], k: int) -> Any:
    """k times the two-by-two form f, as the builder writes it: max_i min_j (k f_ij) for k > 0; for
    k < 0 a minimum of maxima, distributed back into a maximum of minima (one per choice of a j in
    every i)."""
    if k > 0:
        return _max(*(_min(*(k * v for v in row)) for row in f))
    g = [[k * v for v in row] for row in f]
    return _max(*(_min(g[0][a], g[1][b]) for a in range(2) for b in range(2)))


def _scale(q: Question) -> Claim:
    # k * max_i min_j f_ij -> the scaled form
    f, x = _form(q, "f")
    k = q.param("k")
    return Value(k * x), Value(_scaled(f, k))


def _scale_sum(q: Question) -> Claim:
    # (x + y * j) * k -> x*k + y*(j*k), each operand's form scaled alone (k < 0: the sum's form has
    # more minima than its operands', and a negative factor multiplies their counts)
    f, x = _form(q, "f")
    g, y = _form(q, "g")
    j, k = q.param("j"), q.param("k")
    return Value((x + y * j) * k), Value(_scaled(f, k) + _scaled(g, j * k))


def _exact_division(mod: bool):
    # every linear form = r (mod c): x // c = max min ((f - r) / c), x % c = r
    def build(q: Question) -> Claim:
        c = q.param("c")
        r = q.param("r")
        f = [[c * q.constant(f"g{i}{j}") + r for j in range(2)] for i in range(2)]
        x = _max(*(_min(*row) for row in f))
        if mod:
            return Value(q.floormod(x, c)), Value(r)
        return Value(q.floordiv(x, c)), Value(_max(*(_min(*((v - r) / c for v in row)) for row in f)))

    return build


def _floor_multiple(q: Question) -> Claim:
    # (x // c) * (k*c) = k * (x - x % c), the remainder in [0, c - 1]
    c, k = q.param("c"), q.param("k")
    x = q.constant("x")
    rem = q.floormod(x, c)
    q.guard(rem >= 0, rem <= c - 1)
    return Value(q.floordiv(x, c) * (k * c)), Value(k * (x - rem))


def _rational_division(q: Question) -> Claim:
    # x // c = (x - x % c) / c, in rationals: c * (x // c) = x - x % c
    c = q.param("c")
    x = q.constant("x")
    return Value(c * q.floordiv(x, c)), Value(x - q.floormod(x, c))


def _decided_by_difference(q: Question) -> Claim:
    # two forms that differ by a constant d: a < b is d > 0
    f, x = _form(q, "f")
    d = q.param("d")
    y = _max(*(_min(*(v + d for v in row)) for row in f))
    return Value(x < y), Value(z3.BoolVal(d > 0))


def _decided_by_sign(q: Question) -> Claim:
    # b - a is a linear form whose range from the atoms' bounds lies below or at/above 0
    a, b = q.atom("a"), q.atom("b")
    s, t = q.param("s"), q.param("t")
    k = q.constant("k")
    lo = k + (s * a.lo if s > 0 else s * a.hi) + (t * b.lo if t > 0 else t * b.hi)
    hi = k + (s * a.hi if s > 0 else s * a.lo) + (t * b.hi if t > 0 else t * b.lo)
    diff = s * a.value + t * b.value + k
    q.guard(z3.Or(lo > 0, hi <= 0))
    return Value(diff > 0), Value(lo > 0)


def _residue_split(q: Question) -> Claim:
    # the cases x = c*y + r, r in [0, c), cover every x: splitting on the residue loses no input
    c = q.param("c")
    x = q.constant("x")
    return Value(z3.BoolVal(True)), Value(z3.Or(*(x == c * q.floordiv(x, c) + r for r in range(c))))


def _range_split(q: Question) -> Claim:
    # splitting an input's range at the constants of its MAX and MIN: below, between, above cover it
    x = q.constant("x")
    c1, c2 = q.constant("c1"), q.constant("c2")
    q.guard(c1 <= c2)
    cases = z3.Or(x < c1, z3.And(c1 <= x, x <= c2), x > c2)
    return Value(z3.BoolVal(True)), Value(cases)


def _draw_k(rng: random.Random) -> dict[str, int]:
    return {"k": rng.choice((1, 2, 3, -1, -2, -5, 2**16, -(2**16)))}


def _draw_c(rng: random.Random) -> dict[str, int]:
    c = rng.choice((2, 3, 4, 8, 16, 2**16))
    return {"c": c, "r": rng.randrange(c), "k": rng.choice((1, 2, 3))}


PIECEWISE_SCHEMAS: tuple[Schema, ...] = (
    Schema(PW, f"{PW}/add", "a + max min f -> max min (f + a)", "no_overflow", _add, semantics=_NO_OVERFLOW),
    Schema(
        PW,
        f"{PW}/scale",
        "k * max min f -> max min (k f) (k > 0), the distributed min of max (k < 0)",
        "no_overflow",
        _scale,
        _draw_k,
        _NO_OVERFLOW,
    ),
    Schema(
        PW,
        f"{PW}/scale-sum",
        "(x + y * j) * k -> x*k + y*(j*k)   each operand's form scaled alone",
        "k < 0, j != 0",
        _scale_sum,
        lambda rng: {"k": rng.choice((-1, -2, -5, -(2**16))), "j": rng.choice((1, -1, 3, -2, 2**16))},
        _NO_OVERFLOW,
    ),
    Schema(
        PW,
        f"{PW}/exact-division",
        "(max min f) // c -> max min ((f - r) / c)   every f = r (mod c)",
        "c > 0, every form's coefficients divisible by c, one residue r",
        _exact_division(False),
        _draw_c,
        _NO_OVERFLOW,
    ),
    Schema(
        PW,
        f"{PW}/exact-remainder",
        "(max min f) % c -> r   every f = r (mod c)",
        "c > 0, one residue r",
        _exact_division(True),
        _draw_c,
        _NO_OVERFLOW,
    ),
    Schema(
        PW,
        f"{PW}/floor-multiple",
        "(x // c) * (k*c) -> k * (x - x % c)   the remainder an atom in [0, c - 1]",
        "c > 0, k >= 1",
        _floor_multiple,
        _draw_c,
        _NO_OVERFLOW,
    ),
    Schema(
        PW,
        f"{PW}/rational-division",
        "x // c -> (x - x % c) / c",
        "c > 0",
        _rational_division,
        _draw_c,
        _NO_OVERFLOW,
    ),
    Schema(
        PW,
        f"{PW}/decided-by-difference",
        "a < b -> decided   when the forms differ by a constant",
        "one form is the other plus a constant",
        _decided_by_difference,
        lambda rng: {"d": rng.choice((0, 1, -1, 5, -(2**30), 2**30))},
        _NO_OVERFLOW,
    ),
    Schema(
        PW,
        f"{PW}/decided-by-sign",
        "a < b -> decided   when the atoms' bounds fix the sign of b - a",
        "the bounds of the interval analysis",
        _decided_by_sign,
        lambda rng: {"s": rng.choice((1, -1, 3, 2**16)), "t": rng.choice((1, -2, 5))},
        _NO_OVERFLOW,
    ),
    Schema(
        PW,
        f"{PW}/residue-split",
        "split x on x % c: the cases r in [0, c) cover every x",
        "c > 0",
        _residue_split,
        lambda rng: {"c": rng.choice((2, 3, 4, 8))},
        _NO_OVERFLOW,
    ),
    Schema(
        PW,
        f"{PW}/range-split",
        "split x at c1 <= c2: below, between and above cover every x",
        "c1 <= c2",
        _range_split,
        semantics=_NO_OVERFLOW,
    ),
)
