"""How the IR spells what front ends write with ops the IR lacks: each spelling, chosen at random.

The IR has no SUB, NEG, AND, OR, XOR, NOT, <=, >=, ==, truncating division or shifts; a program
that reaches saturation from tinygrad (through `from_tinygrad`) or from a user writes them with
the ops it has, and each has several spellings:

- NOT x: `x != true` (the bridge's, and tinygrad's own `logical_not`), `where(x, false, true)`,
  `x < true` (CMPLT on bools is `not a and b`);
- a AND b: `where(a, b, false)` (the bridge's), `a * b` (MUL on bools), `where(b, a, false)`;
- a OR b: `where(a, true, b)` (the bridge's), `max(a, b)` (MAX on bools), `a + b` (ADD on bools);
- a XOR b: `a != b`;
- a - b: `a + b*-1` (the bridge's), and -x: `x*-1`;
- a <= b: `(b < a) != true` (the bridge's CMPEQ and tinygrad's `(X < c).ne(True)`), `a < b + 1`;
  a >= b, a > b and a == b alike;
- truncating a / b and a % b (tinygrad's CDIV, CMOD): the bridge's floor op plus correction;
- x << k, x >> k: `x * 2**k`, `x // 2**k`.

A fuzzer that only wrote one spelling would test one rule's left-hand side; the simplifier must
know all of them, so every helper here takes the generator's rng and picks one. Both fuzzers (the
differential one against tinygrad and the soundness one) draw their spellings here.
"""

from __future__ import annotations

import random

from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp

__all__ = [
    "AND_SPELLINGS",
    "FALSE",
    "NOT_SPELLINGS",
    "OR_SPELLINGS",
    "TRUE",
    "and_",
    "cdiv",
    "cmod",
    "eq",
    "ge",
    "gt",
    "le",
    "lt",
    "neg",
    "not_",
    "or_",
    "sub",
    "xor",
]

TRUE = UOp.const(True, dtypes.bool)
FALSE = UOp.const(False, dtypes.bool)


def _not_ne(x: UOp) -> UOp:
    return x.ne(TRUE)


def _not_where(x: UOp) -> UOp:
    return x.where(FALSE, TRUE)


def _not_lt(x: UOp) -> UOp:
    return x < TRUE


def _and_where(a: UOp, b: UOp) -> UOp:
    return a.where(b, FALSE)


def _and_mul(a: UOp, b: UOp) -> UOp:
    return a * b


def _and_where_swapped(a: UOp, b: UOp) -> UOp:
    return b.where(a, FALSE)


def _or_where(a: UOp, b: UOp) -> UOp:
    return a.where(TRUE, b)


def _or_max(a: UOp, b: UOp) -> UOp:
    return a.maximum(b)


def _or_add(a: UOp, b: UOp) -> UOp:
    return a + b


# name -> spelling; the first of each is the bridge's
NOT_SPELLINGS = {"ne-true": _not_ne, "where": _not_where, "lt-true": _not_lt}
AND_SPELLINGS = {"where": _and_where, "mul": _and_mul, "where-swapped": _and_where_swapped}
OR_SPELLINGS = {"where": _or_where, "max": _or_max, "add": _or_add}


def not_(rng: random.Random, x: UOp) -> UOp:
    return rng.choice(list(NOT_SPELLINGS.values()))(x)


def and_(rng: random.Random, a: UOp, b: UOp) -> UOp:
    return rng.choice(list(AND_SPELLINGS.values()))(a, b)


def or_(rng: random.Random, a: UOp, b: UOp) -> UOp:
    return rng.choice(list(OR_SPELLINGS.values()))(a, b)


def xor(rng: random.Random, a: UOp, b: UOp) -> UOp:
    return a.ne(b) if rng.random() < 0.5 else b.ne(a)


def neg(rng: random.Random, x: UOp) -> UOp:
    """-x: `x*-1` (the bridge's NEG), or `-1*x`."""
    minus = x.const_like(-1)
    return x * minus if rng.random() < 0.7 else minus * x


def sub(rng: random.Random, a: UOp, b: UOp) -> UOp:
    """a - b: `a + b*-1` (the bridge's SUB), or `b*-1 + a`."""
    nb = neg(rng, b)
    return a + nb if rng.random() < 0.7 else nb + a


def lt(rng: random.Random, a: UOp, b: UOp) -> UOp:
    """a < b, or for ints also `a + 1 <= b` spelled `(b < a + 1) != true`."""
    if a.dtype is dtypes.i32 and rng.random() < 0.2:
        return not_(rng, b < a + 1)
    return a < b


def gt(rng: random.Random, a: UOp, b: UOp) -> UOp:
    return lt(rng, b, a)


def le(rng: random.Random, a: UOp, b: UOp) -> UOp:
    """a <= b: `(b < a) != true` (the bridge's), or for ints `a < b + 1`."""
    if a.dtype is dtypes.i32 and rng.random() < 0.3:
        return a < b + 1
    return not_(rng, b < a)


def ge(rng: random.Random, a: UOp, b: UOp) -> UOp:
    return le(rng, b, a)


def eq(rng: random.Random, a: UOp, b: UOp) -> UOp:
    """a == b: `(a != b) != true` (the bridge's CMPEQ), or another NOT spelling of `a != b`."""
    return not_(rng, a.ne(b) if rng.random() < 0.7 else b.ne(a))


def _opposite(a: UOp, b: UOp) -> UOp:
    if b.op is Ops.CONST and b.arg > 0:
        return a < 0
    return (a < 0).ne(b < 0)


def cdiv(a: UOp, b: UOp) -> UOp:
    """C's truncating a / b as the bridge spells tinygrad's CDIV: floor plus a correction."""
    q, r = a // b, a % b
    fix = r.ne(0).where(_opposite(a, b), FALSE)
    return fix.where(q + 1, q)


def cmod(a: UOp, b: UOp) -> UOp:
    """C's truncating a % b as the bridge spells tinygrad's CMOD."""
    r = a % b
    fix = r.ne(0).where(_opposite(a, b), FALSE)
    return fix.where(r - b, r)
