"""The Python folding step's rules (eqsat_uopc.saturation.fold) as schemas over programs.

These rewrite programs, not linear forms, so each schema is a pair of small programs whose
refinement the program verifier decides (`prove_equivalent(..., refinement=True)`, the z3 encoding
every other proof uses): `fold/exec-alu` on edge constants for every int and bool ALU op (exec_alu,
which computes the fold, against the verifier's encoding of the op: two definitions of one meaning
that must agree; under no_overflow an i32 result beyond int32 is not folded), the evaluate rules
on tensors of symbolic inputs, per ALU op where they lift one.
"""

from __future__ import annotations

import random

from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.rules.python_rules import (
    CMP_SELF,
    EXEC_ALU,
    INDEX_EMPTY,
    INDEX_INDEX,
    INDEX_STACK,
    PUSH_STACK,
)
from eqsat_uopc.semantics.alu import exec_alu
from eqsat_uopc.semantics.int_semantics import overflows
from eqsat_uopc.verify.schemas.question import EDGE_CONSTANTS, Claim, Question, Schema

__all__ = ["FOLD_SCHEMAS"]

_INT_OPS = (Ops.ADD, Ops.MUL, Ops.MAX, Ops.CMPLT, Ops.CMPNE, Ops.FLOORDIV, Ops.FLOORMOD)
_BOOL_OPS = (Ops.ADD, Ops.MUL, Ops.MAX, Ops.CMPLT, Ops.CMPNE)
_BINARY = (Ops.ADD, Ops.MUL, Ops.MAX, Ops.CMPLT, Ops.CMPNE, Ops.FLOORDIV, Ops.FLOORMOD)


def _exec_alu(q: Question) -> Claim:
    op = _BINARY[q.param("op")]
    if q.param("bool"):
        a, b = bool(q.param("a") & 1), bool(q.param("b") & 1)
    else:
        a, b = q.param("a"), q.param("b")
    term = UOp(op, (UOp.const(a), UOp.const(b)))
    folded = exec_alu(op, term.dtype, [a, b])
    if folded is None or (not q.wrap and term.dtype is dtypes.i32 and overflows(op, [a, b])):
        return term, term  # not folded: nothing to prove
    return term, UOp.const(folded)


def _draw_exec_alu(rng: random.Random) -> dict[str, int]:
    is_bool = rng.random() < 0.2
    ops = _BOOL_OPS if is_bool else _INT_OPS
    return {
        "op": _BINARY.index(rng.choice(ops)),
        "bool": int(is_bool),
        "a": rng.choice((*EDGE_CONSTANTS, 0, 5, -7)),
        "b": rng.choice((*EDGE_CONSTANTS, 0, 5, -7)),
    }


def _cmp_self(q: Question) -> Claim:
    # x < x, x != x -> False of x's shape
    x = UOp.param(0, dtypes.i32, (3,))
    op = Ops.CMPLT if q.param("lt") else Ops.CMPNE
    return UOp(op, (x, x)), UOp.const(False, dtypes.bool, (3,))


def _push_stack(q: Question) -> Claim:
    # f(STACK(a0, a1), b) -> STACK(f(a0, b[0]), f(a1, b[1]))
    op = _BINARY[q.param("op")]
    a0, a1 = UOp.param(0), UOp.param(1)
    b = UOp.param(2, dtypes.i32, (2,))
    lhs = UOp(op, (UOp(Ops.STACK, (a0, a1)), b))
    return lhs, UOp(Ops.STACK, (UOp(op, (a0, b.index(0))), UOp(op, (a1, b.index(1)))))


def _index_empty(q: Question) -> Claim:
    x = UOp.param(0, dtypes.i32, (2, 3))
    return UOp(Ops.INDEX, (x,)), x


def _index_index(q: Question) -> Claim:
    # INDEX(INDEX(a, i), j) -> INDEX(a, i, j), with i and j inputs (in bounds or not)
    a = UOp.param(0, dtypes.i32, (3, 4))
    i, j = UOp.param(1), UOp.param(2)
    return a.index(i).index(j), a.index(i, j)


def _index_stack(q: Question) -> Claim:
    # INDEX(STACK(a0, a1, a2), k, j) -> INDEX(ak, j)
    k = q.param("k")
    rows = [UOp.param(n, dtypes.i32, (2,)) for n in range(3)]
    j = UOp.param(3)
    return UOp(Ops.STACK, tuple(rows)).index(UOp.const(k), j), rows[k].index(j)


FOLD_SCHEMAS: tuple[Schema, ...] = (
    Schema(
        EXEC_ALU.name,
        f"{EXEC_ALU.name}/edges",
        "op(c1, c2) -> exec_alu(op, c1, c2)   int and bool ops, edge constants",
        "exec_alu defined there; under no_overflow an i32 result within int32",
        _exec_alu,
        _draw_exec_alu,
    ),
    Schema(
        CMP_SELF.name,
        f"{CMP_SELF.name}/shaped",
        "x < x, x != x -> False of x's shape",
        "none",
        _cmp_self,
        lambda rng: {"lt": rng.choice((0, 1))},
    ),
    Schema(
        PUSH_STACK.name,
        f"{PUSH_STACK.name}/binary",
        "f(STACK(a0, a1), b) -> STACK(f(a0, b[0]), f(a1, b[1]))   every binary int op",
        "none",
        _push_stack,
        lambda rng: {"op": rng.randrange(len(_BINARY))},
    ),
    Schema(INDEX_EMPTY.name, f"{INDEX_EMPTY.name}/any", "INDEX(x) -> x", "none", _index_empty),
    Schema(
        INDEX_INDEX.name,
        f"{INDEX_INDEX.name}/any",
        "INDEX(INDEX(a, i), j) -> INDEX(a, i, j)",
        "none",
        _index_index,
    ),
    Schema(
        INDEX_STACK.name,
        f"{INDEX_STACK.name}/constant",
        "INDEX(STACK(a0, a1, a2), k, j) -> INDEX(ak, j)   k a constant",
        "0 <= k < 3",
        _index_stack,
        lambda rng: {"k": rng.randrange(3)},
    ),
)
