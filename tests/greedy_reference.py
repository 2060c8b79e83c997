"""A direct reference interpreter for closed programs without CALLs, independent of the rewrite
engine: numpy object arrays for shapes, movement ops and indexing, exec_alu for every scalar
operation. Tests compare run / simplify against it."""

from __future__ import annotations

import numpy as np

from eqsat_uopc.ir.ops import ALU, Ops
from eqsat_uopc.ir.uop import UOp, prod
from eqsat_uopc.semantics.alu import exec_alu
from eqsat_uopc.semantics.values import same_value as same

__all__ = ["Undefined", "reference", "same"]


class Undefined(Exception):
    """exec_alu refused (C leaves the value undefined)."""


def _array(values, shape):
    a = np.empty(prod(shape), dtype=object)
    a[:] = list(values) if shape else [values[0]]
    return a.reshape(shape)


def reference(root: UOp):
    """The value of a closed program without CALLs, computed directly: numpy object arrays for
    shapes and indexing, exec_alu for every scalar operation."""
    val: dict[UOp, np.ndarray] = {}
    for u in root.toposort():
        src = [val[s] for s in u.src]
        if u.op is Ops.CONST:
            v = _array([u.arg], ())
        elif u.op in ALU:
            flat = []
            for items in zip(*(s.reshape(-1) for s in src), strict=True):
                r = exec_alu(u.op, u.dtype, list(items))
                if r is None:
                    raise Undefined(u.op)
                flat.append(r)
            v = _array(flat, u.shape)
        elif u.op is Ops.STACK:
            v = _array([x for s in src for x in s.reshape(-1)], u.shape)
        elif u.op is Ops.INDEX:
            idx = tuple(int(i[()]) for i in src[1:])
            if any(not 0 <= i < n for i, n in zip(idx, u.src[0].shape, strict=False)):
                raise Undefined("index out of bounds")
            sub = src[0][idx]
            v = sub if isinstance(sub, np.ndarray) else _array([sub], ())
        elif u.op is Ops.RESHAPE:
            v = src[0].reshape(u.arg)
        elif u.op is Ops.EXPAND:
            v = np.broadcast_to(src[0], u.arg)
        elif u.op is Ops.PERMUTE:
            v = src[0].transpose(u.arg)
        elif u.op is Ops.SHRINK:
            v = src[0][tuple(slice(b, e) for b, e in u.arg)]
        elif u.op is Ops.REDUCE:
            rop = u.arg[0]
            rows = np.ascontiguousarray(src[0]).reshape((prod(u.shape), -1))
            out = []
            for row in rows:
                acc = row[0]
                for x in row[1:]:
                    acc = exec_alu(rop, u.dtype, [acc, x])
                out.append(acc)
            v = _array(out, u.shape)
        else:
            raise AssertionError(f"unexpected {u.op}")
        val[u] = v
    out = val[root]
    return out[()] if root.shape == () else out.tolist()
