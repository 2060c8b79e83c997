"""The two integer semantics every rule declares and every checker holds it to.

- "wrap": int32 arithmetic wraps (two's complement), as exec_alu and the C backend compute it; a
  rule declared "wrap" is sound for every int32 input.
- "no_overflow": the program's i32 operations never leave the int32 range (tinygrad's and Halide's
  assumption about index arithmetic); a rule declared "no_overflow" is sound on inputs where no
  intermediate i32 result overflows.

`overflows` is the one definition of "an intermediate i32 result overflowed" that evaluators,
rule checks and proofs share: an i32 ADD, MUL or FLOORDIV whose exact (mathematical) result lies
outside the int32 range. (FLOORDIV overflows only at INT32_MIN // -1, which exec_alu and C also
treat as undefined; MAX, comparisons, FLOORMOD and WHERE never overflow.)
"""

from __future__ import annotations

from typing import Any

from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN
from eqsat_uopc.ir.ops import Ops

__all__ = ["EXACT_OPS", "INT_SEMANTICS", "exact_alu", "exact_i32", "overflows"]

INT_SEMANTICS: tuple[str, ...] = ("wrap", "no_overflow")


def exact_i32(op: Ops, a: int, b: int) -> int | None:
    """The exact (unbounded) result of an i32 ADD, MUL or FLOORDIV; None for other ops or b = 0."""
    if op is Ops.ADD:
        return a + b
    if op is Ops.MUL:
        return a * b
    if op is Ops.FLOORDIV and b != 0:
        return a // b
    return None


def overflows(op: Ops, vals: list[Any] | tuple[Any, ...]) -> bool:
    """Does this i32 op on these int32 operands leave the int32 range in exact arithmetic?"""
    if len(vals) != 2:
        return False
    r = exact_i32(op, vals[0], vals[1])
    return r is not None and not I32_MIN <= r <= I32_MAX


# the i32-valued ops exact_alu computes over the mathematical integers
EXACT_OPS = frozenset({Ops.ADD, Ops.MUL, Ops.MAX, Ops.WHERE, Ops.FLOORDIV, Ops.FLOORMOD, Ops.CAST})


def exact_alu(op: Ops, vals: list[Any] | tuple[Any, ...]) -> Any:
    """An i32-valued op of EXACT_OPS over the mathematical integers (nothing wraps): what reasoning
    under "no_overflow" means, for checks that follow it (a CAST of an int or bool; None where
    undefined: division by zero)."""
    if op is Ops.ADD:
        return vals[0] + vals[1]
    if op is Ops.MUL:
        return vals[0] * vals[1]
    if op is Ops.MAX:
        return max(vals)
    if op is Ops.WHERE:
        return vals[1] if vals[0] else vals[2]
    if op in (Ops.FLOORDIV, Ops.FLOORMOD):
        if vals[1] == 0:
            return None
        return vals[0] // vals[1] if op is Ops.FLOORDIV else vals[0] % vals[1]
    if op is Ops.CAST:
        return int(vals[0])
    raise ValueError(f"exact_alu: {op.name} is not an i32 op of EXACT_OPS")
