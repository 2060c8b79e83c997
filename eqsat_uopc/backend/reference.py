"""evaluate_reference: the C backend's semantics, written in Python on top of exec_alu.

This is the executable definition of what a compiled program returns, including which error it
reports: every node of the lowered program is evaluated for every lane, in the generated code's
order, with exec_alu; a lane where exec_alu refuses is *poisoned* with the status code of that
node (see render.py); WHERE passes on the poison of the lane it selects; the program fails with
the root's first poisoned lane; a defined but out-of-bounds symbolic INDEX or RANGE input stops
it at once. It is slow (pure Python) and independent of the C: the differential tests check
C == reference on everything, and reference == `run` wherever the reference returns a value.

Why not `run` alone as the oracle: `run` is a rewriter, and some of its symbolic rules erase an
undefined operation (`x * 0 -> 0` with x = a // 0), so on inputs that hit undefined behaviour it
may return a value where C, which computes every node, reports the error. Where the reference
returns a value, `run` must return the same value bit for bit.
"""

from __future__ import annotations

from typing import Any

from eqsat_uopc.backend.errors import (
    CAST_INVALID,
    DIV_BY_ZERO,
    DIV_OVERFLOW,
    INDEX_OOB,
    MOD_BY_ZERO,
    RANGE_OOB,
    IndexOutOfBoundsError,
    InputError,
    status_error,
)
from eqsat_uopc.backend.lower import lower
from eqsat_uopc.backend.program import to_input_array
from eqsat_uopc.ir.dtype import dtypes, truncate
from eqsat_uopc.ir.layout import ravel, unravel
from eqsat_uopc.ir.ops import BINARY, MOVEMENT, TRANSCENDENTAL, Ops
from eqsat_uopc.ir.uop import UOp, prod
from eqsat_uopc.semantics.alu import exec_alu

__all__ = ["evaluate_reference", "undefined_nodes"]


def _first(*codes: int) -> int:
    for c in codes:
        if c:
            return c
    return 0


def _fault(u: UOp, vals: list[Any], num: int) -> int:
    """The status code of an operation exec_alu refused."""
    if u.op is Ops.FLOORDIV:
        return num * 8 + (DIV_BY_ZERO if vals[1] == 0 else DIV_OVERFLOW)
    if u.op is Ops.FLOORMOD:
        return num * 8 + MOD_BY_ZERO
    return num * 8 + CAST_INVALID


def evaluate_reference(program: UOp, *inputs: Any) -> Any:
    """What compile_c(program)(*inputs) returns or raises, computed in Python."""
    lw, val, poi = _evaluate(program, inputs)
    root = lw.root
    if code := _first(*poi[root]):
        raise status_error(code)
    return _nest(val[root], root.shape, root.dtype)


def undefined_nodes(program: UOp, *inputs: Any) -> list[int]:
    """The numbers (%N) of the nodes that have an undefined lane on these inputs, used or not.

    `run` cannot evaluate a tensor with an undefined element through a movement op, even where
    the program never reads that element; the backend, per lane, can. This tells the two apart."""
    lw, _, poi = _evaluate(program, inputs)
    return sorted({lw.number[u] for u in lw.nodes if any(poi[u])})


def _evaluate(program: UOp, inputs: tuple) -> tuple[Any, dict[UOp, list], dict[UOp, list[int]]]:
    lw = lower(program)
    if len(inputs) != len(lw.inputs):
        raise InputError(f"program takes {len(lw.inputs)} input(s), got {len(inputs)}")
    given = {
        s.node: to_input_array(s, v).reshape(-1).tolist()
        for s, v in zip(lw.inputs, inputs, strict=True)
        if s.node is not None
    }
    for u in lw.nodes:  # constant indices are checked when the program is rendered, before it runs
        if u.op is Ops.INDEX:
            for axis, i in enumerate(u.src[1:]):
                if i.op is Ops.CONST and not 0 <= i.arg < (dim := u.src[0].shape[axis]):
                    num = lw.number[u]
                    raise IndexOutOfBoundsError(
                        f"INDEX at %{num}: index {i.arg} out of bounds for axis {axis} of size {dim}"
                    )
    val: dict[UOp, list] = {}
    poi: dict[UOp, list[int]] = {}
    for u in lw.nodes:
        num = lw.number[u]
        n = prod(u.shape)
        if u.op is Ops.CONST:
            val[u], poi[u] = [truncate(u.dtype, u.arg)], [0]
        elif u.op is Ops.PARAM:
            val[u], poi[u] = given[u], [0] * n
        elif u.op is Ops.RANGE:
            (v,), (ext,), (q,) = given[u], val[u.src[0]], poi[u.src[0]]
            if not q and not 0 <= v < ext:
                raise status_error(num * 8 + RANGE_OOB, (v, ext, 0))
            val[u], poi[u] = [v], [0]
        elif u.op in BINARY or u.op in TRANSCENDENTAL or u.op in (Ops.WHERE, Ops.CAST):
            vs, qs = [], []
            for lane in range(n):
                args = [val[s][lane] for s in u.src]
                srcq = [poi[s][lane] for s in u.src]
                r = exec_alu(u.op, u.dtype, args)
                if u.op is Ops.WHERE:
                    q = _first(srcq[0], srcq[1] if args[0] else srcq[2])
                else:
                    q = _first(*srcq, 0 if r is not None else _fault(u, args, num))
                vs.append(r if r is not None else truncate(u.dtype, 0))
                qs.append(q)
            val[u], poi[u] = vs, qs
        elif u.op is Ops.STACK:
            val[u] = [x for s in u.src for x in val[s]]
            poi[u] = [x for s in u.src for x in poi[s]]
        elif u.op is Ops.INDEX:
            _index(u, num, val, poi)
        elif u.op in MOVEMENT or u.op is Ops.REDUCE:
            val[u], poi[u] = _movement(u, val[u.src[0]], poi[u.src[0]])
        else:  # pragma: no cover  (lower/render refuse first)
            raise ValueError(f"reference: no rule for {u.op.name}")
    return lw, val, poi


def _index(u: UOp, num: int, val: dict, poi: dict) -> None:
    base, idx = u.src[0], u.src[1:]
    strides, acc = [], 1
    for d in reversed(base.shape):
        strides.append(acc)
        acc *= d
    strides.reverse()
    offset, idx_q = 0, 0
    for axis, i in enumerate(idx):
        (v,), (q,) = val[i], poi[i]
        dim = base.shape[axis]
        if q:
            idx_q = idx_q or q
            continue
        if not 0 <= v < dim:
            raise status_error(num * 8 + INDEX_OOB, (v, axis, dim))
        offset += v * strides[axis]
    if idx_q:
        offset = 0
    n = prod(u.shape)
    val[u] = val[base][offset : offset + n]
    poi[u] = [_first(idx_q, q) for q in poi[base][offset : offset + n]]


def _movement(u: UOp, flat: list, qflat: list[int]) -> tuple[list, list[int]]:
    ishape, oshape = u.src[0].shape, u.shape
    n_out = prod(oshape)
    if u.op is Ops.RESHAPE:
        return flat, qflat
    if u.op is Ops.REDUCE:
        rop, k = u.arg
        inner = prod(ishape[len(ishape) - k :])
        vs, qs = [], []
        for o in range(n_out):
            acc = flat[o * inner]
            for v in flat[o * inner + 1 : (o + 1) * inner]:
                acc = exec_alu(rop, u.dtype, [acc, v])
            vs.append(acc)
            qs.append(_first(*qflat[o * inner : (o + 1) * inner]))
        return vs, qs
    if u.op is Ops.EXPAND:
        pos = [
            ravel([0 if s == 1 else x for x, s in zip(unravel(i, oshape), ishape, strict=True)], ishape)
            for i in range(n_out)
        ]
    elif u.op is Ops.PERMUTE:
        inv = [u.arg.index(k) for k in range(len(ishape))]
        pos = [ravel([unravel(i, oshape)[inv[k]] for k in range(len(ishape))], ishape) for i in range(n_out)]
    else:  # SHRINK
        pos = [
            ravel([x + b for x, (b, _) in zip(unravel(i, oshape), u.arg, strict=True)], ishape)
            for i in range(n_out)
        ]
    return [flat[p] for p in pos], [qflat[p] for p in pos]


def _nest(flat: list, shape: tuple[int, ...], dtype) -> Any:
    if dtype is dtypes.f32:
        flat = [truncate(dtypes.f32, v) for v in flat]
    if not shape:
        return flat[0]
    step = len(flat) // shape[0]
    return [_nest(flat[k * step : (k + 1) * step], shape[1:], dtype) for k in range(shape[0])]
