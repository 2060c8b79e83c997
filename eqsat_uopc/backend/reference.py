"""evaluate_reference: the C backend's semantics in Python: the project's one evaluator, run as C runs.

This is the executable definition of what a compiled program returns, including which error it
reports: every node of the lowered program is evaluated for every lane, in the generated code's
order, by eqsat_uopc.semantics.evaluation (exec_alu per element); a lane where exec_alu refuses
is *poisoned* with the status code of that node (see render.py); WHERE passes on the poison of
the lane it selects; the program fails with the root's first poisoned lane; a defined but
out-of-bounds symbolic INDEX or RANGE input stops it at once. It is slow (pure Python) and
independent of the C: the differential tests check C == reference on everything, and
reference == `run` wherever the reference returns a value.

Why not `run` alone as the oracle: `run` is a rewriter, and some of its symbolic rules erase an
undefined operation (`x * 0 -> 0` with x = a // 0), so on inputs that hit undefined behaviour it
may return a value where C, which computes every node, reports the error. Where the reference
returns a value, `run` must return the same value bit for bit.
"""

from __future__ import annotations

from typing import Any

from eqsat_uopc.backend.errors import IndexOutOfBoundsError, InputError, status_error
from eqsat_uopc.backend.lower import Lowered, lower
from eqsat_uopc.backend.program import to_input_array
from eqsat_uopc.ir.dtype import dtypes, truncate
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.semantics.evaluation import Concrete, Elem, OutOfBounds, evaluate_all, nest

__all__ = ["evaluate_reference", "undefined_nodes"]


def evaluate_reference(program: UOp, *inputs: Any) -> Any:
    """What compile_c(program)(*inputs) returns or raises, computed in Python."""
    lw, elems = _evaluate(program, inputs)
    root = elems[lw.root]
    if code := next((s for _, s in root if s), 0):
        raise status_error(code)
    flat = [v for v, _ in root]
    if lw.root.dtype is dtypes.f32:
        flat = [truncate(dtypes.f32, v) for v in flat]
    return nest(flat, lw.root.shape)


def undefined_nodes(program: UOp, *inputs: Any) -> list[int]:
    """The numbers (%N) of the nodes that have an undefined lane on these inputs, used or not.

    `run` cannot evaluate a tensor with an undefined element through a movement op, even where
    the program never reads that element; the backend, per lane, can. This tells the two apart."""
    lw, elems = _evaluate(program, inputs)
    return sorted({lw.number[u] for u in lw.nodes if any(s for _, s in elems[u])})


def _evaluate(program: UOp, inputs: tuple) -> tuple[Lowered, dict[UOp, list[Elem]]]:
    """The one evaluator (eqsat_uopc.semantics.evaluation) on the lowered program, as the C runs it:
    wraparound, the generated code's node order and numbering, out-of-bounds as immediate errors."""
    lw = lower(program)
    if len(inputs) != len(lw.inputs):
        raise InputError(f"program takes {len(lw.inputs)} input(s), got {len(inputs)}")
    params, ranges = {}, {}
    for spec, value in zip(lw.inputs, inputs, strict=True):
        if spec.node is None:
            continue
        flat = to_input_array(spec, value).reshape(-1).tolist()
        if spec.kind == "range":
            ranges[spec.node] = flat[0]
        else:
            params[spec.node.arg.slot] = flat
    for u in lw.nodes:  # constant indices are checked when the program is rendered, before it runs
        if u.op is Ops.INDEX:
            for axis, i in enumerate(u.src[1:]):
                if i.op is Ops.CONST and not 0 <= i.arg < (dim := u.src[0].shape[axis]):
                    raise IndexOutOfBoundsError(
                        f"INDEX at %{lw.number[u]}: index {i.arg} out of bounds for axis {axis} of size {dim}"
                    )
    domain = Concrete("wrap", params, ranges, number=lw.number, strict=True, ranges_by_node=True)
    try:
        return lw, evaluate_all(lw.root, domain, lw.nodes)
    except OutOfBounds as e:
        raise status_error(e.code, e.detail) from None
