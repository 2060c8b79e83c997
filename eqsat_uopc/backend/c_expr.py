"""The C text of one scalar operation: types, literals, ALU expressions, and their poison.

render.py lays out the program (buffers, loops, views); this module says what C computes each
op's element with (the prelude's `uopc_*` functions, which follow exec_alu bit for bit), which
inputs make it undefined (`fault`), and how an element's poison status is combined (`poison_expr`).
"""

from __future__ import annotations

import math

from eqsat_uopc.ir.dtype import I32_MIN, DType, dtypes, truncate
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp

__all__ = ["alu_expr", "c_literal", "c_type", "const_value", "fault", "poison_expr"]


def c_type(d: DType) -> str:
    return {"bool": "bool", "i32": "int32_t", "f32": "float"}[d.name]


def c_literal(v, d: DType) -> str:
    """v as a C literal of dtype d (f32: the f32 value of v, exactly)."""
    if d is dtypes.bool:
        return "true" if v else "false"
    if d is dtypes.i32:
        v = truncate(dtypes.i32, v)
        return "INT32_MIN" if v == I32_MIN else str(v)
    v = truncate(dtypes.f32, v)
    if math.isnan(v):
        return "NAN"
    if math.isinf(v):
        return "INFINITY" if v > 0 else "-INFINITY"
    # repr is the shortest decimal naming this double, which is an f32 value: C reads it back exactly
    text = repr(v)
    return text + "f" if ("." in text or "e" in text) else text + ".0f"


def const_value(u: UOp):
    """The value of a node that is a (broadcast) constant, else None."""
    while u.op in (Ops.RESHAPE, Ops.EXPAND):
        u = u.src[0]
    return u.arg if u.op is Ops.CONST else None


def alu_expr(u: UOp, args: list[str]) -> str:
    op, d = u.op, u.src[0].dtype
    if op in (Ops.ADD, Ops.MUL, Ops.MAX):
        return f"uopc_{op.name.lower()}_{d.name}({args[0]}, {args[1]})"
    if op is Ops.CMPLT:
        return f"{args[0]} < {args[1]}"
    if op is Ops.CMPNE:
        return f"{args[0]} != {args[1]}"
    if op in (Ops.FLOORDIV, Ops.FLOORMOD):
        return f"uopc_{op.name.lower()}_i32({args[0]}, {args[1]})"
    if op is Ops.WHERE:
        return f"{args[0]} ? {args[1]} : {args[2]}"
    if op is Ops.CAST:
        return f"uopc_cast_{d.name}_{u.dtype.name}({args[0]})"
    return f"uopc_{op.name.lower()}_f32({args[0]})"  # RECIP, EXP2, LOG2, SQRT, SIN


def fault(u: UOp) -> str | None:
    """The kind of undefined behaviour u itself may have, or None if it has none for any input."""
    if u.op is Ops.FLOORDIV:
        c = const_value(u.src[1])
        return None if c is not None and c not in (0, -1) else "div"
    if u.op is Ops.FLOORMOD:
        c = const_value(u.src[1])
        return None if c is not None and c != 0 else "mod"
    if u.op is Ops.CAST and u.src[0].dtype is dtypes.f32 and u.dtype is dtypes.i32:
        return "cast"
    return None


def poison_expr(u: UOp, args: list[str], qs: list[str | None], fault: str | None, num: int) -> str:
    if u.op is Ops.WHERE:
        qc, qa, qb = qs
        sel = f"{args[0]} ? {qa or '0'} : {qb or '0'}" if (qa or qb) else None
        if qc and sel:
            return f"uopc_first({qc}, {sel})"
        return qc or sel
    own = None
    if fault == "div":
        own = f"uopc_floordiv_fault({args[0]}, {args[1]}, {num})"
    elif fault == "mod":
        own = f"uopc_floormod_fault({args[1]}, {num})"
    elif fault == "cast":
        own = f"uopc_cast_f32_i32_fault({args[0]}, {num})"
    chain = [q for q in qs if q is not None] + ([own] if own else [])
    expr = chain[-1]
    for q in reversed(chain[:-1]):
        expr = f"uopc_first({q}, {expr})"
    return expr
