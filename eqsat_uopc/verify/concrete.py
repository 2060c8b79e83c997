"""The concrete evaluator behind the equivalence checks: exec_alu on Python values, with definedness.

It differs from `run` in what it reports, not in what it computes: besides the value it says
whether the value is *defined* (see interpret.py: exec_alu refusals, out-of-range indices, and
under "no_overflow" any i32 ADD or MUL whose exact result leaves the int32 range; a WHERE is as
defined as the branch it selects). Under "no_overflow" every i32 ADD and MUL is computed in
unbounded integers alongside its wrapped value, so an input on which a contributing intermediate
overflows is recognised and can be discarded by the random comparison.

It is the same walk as the z3 encoding (interpret.py), so it is also what replays a z3
counterexample: a refutation is only reported when this evaluator confirms it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from eqsat_uopc.ir.dtype import DType, dtypes, truncate
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.semantics.alu import exec_alu
from eqsat_uopc.verify.interpret import Elem, interpret

__all__ = ["Evaluation", "evaluate"]

_I32_MIN, _I32_MAX = -(2**31), 2**31 - 1
_PLACEHOLDER = {"bool": False, "i32": 0, "f32": 0.0}


@dataclass(frozen=True)
class Evaluation:
    """A program's value on one input: nested lists for tensors, None when it is undefined."""

    value: Any
    defined: bool


class _Concrete:
    """The domain of Python scalars (interpret.Domain)."""

    def __init__(
        self,
        int_semantics: str,
        params: Mapping[int, Any],
        ranges: dict[Any, int],
        draw_range: Callable[[Any, int], int] | None,
    ) -> None:
        self.no_overflow = int_semantics == "no_overflow"
        self.params = params
        self.ranges = ranges
        self.draw_range = draw_range
        self.flat_params: dict[int, list[Any]] = {}

    def const(self, value: Any, dtype: DType) -> Any:
        return value

    def undefined(self, dtype: DType) -> Elem:
        return (_PLACEHOLDER[dtype.name], False)

    def known_int(self, value: Any) -> int | None:
        return value

    def param(self, node: UOp, element: int) -> Elem:
        slot = node.arg.slot
        if slot not in self.flat_params:
            if slot not in self.params:
                raise KeyError(f"no value for PARAM slot {slot}")
            self.flat_params[slot] = [truncate(node.dtype, v) for v in _flatten(self.params[slot])]
        return (self.flat_params[slot][element], True)

    def range_var(self, node: UOp, extent: Elem) -> Elem:
        n, defined = extent
        ident = node.arg
        if ident not in self.ranges:
            if self.draw_range is None:
                raise KeyError(f"no value for RANGE {ident!r}")
            if not defined or n < 1:
                return self.undefined(dtypes.i32)  # an empty loop: no value to draw
            self.ranges[ident] = self.draw_range(ident, n)
        v = self.ranges[ident]
        return (v, defined and 0 <= v < n)

    def select(self, index: Elem, candidates: list[list[Elem]], dtype: DType) -> list[Elem]:
        k, defined = index
        if not defined or not 0 <= k < len(candidates):
            return [self.undefined(dtype) for _ in candidates[0]]
        return candidates[k]

    def alu(self, op: Ops, dtype: DType, operand_dtype: DType, operands: list[Elem]) -> Elem:
        if op is Ops.WHERE:
            (c, dc), x, y = operands
            return (x if c else y) if dc else self.undefined(dtype)
        if not all(d for _, d in operands):
            return self.undefined(dtype)
        vals = [v for v, _ in operands]
        r = exec_alu(op, dtype, vals)
        if r is None:
            return self.undefined(dtype)
        if self.no_overflow and operand_dtype is dtypes.i32 and op in (Ops.ADD, Ops.MUL):
            exact = vals[0] + vals[1] if op is Ops.ADD else vals[0] * vals[1]
            if not _I32_MIN <= exact <= _I32_MAX:
                return self.undefined(dtype)
        return (r, True)


def _flatten(v: Any) -> list[Any]:
    if hasattr(v, "tolist"):
        v = v.tolist()
    if isinstance(v, list | tuple):
        return [x for e in v for x in _flatten(e)]
    return [v]


def _nest(flat: list[Any], shape: tuple[int, ...]) -> Any:
    if not shape:
        return flat[0]
    n = len(flat) // shape[0]
    return [_nest(flat[i * n : (i + 1) * n], shape[1:]) for i in range(shape[0])]


def evaluate(
    program: UOp,
    params: Mapping[int, Any],
    ranges: Mapping[Any, int] | None = None,
    int_semantics: str = "wrap",
    draw_range: Callable[[Any, int], int] | None = None,
) -> Evaluation:
    """program's value for PARAM values by slot and RANGE values by identifier.

    A RANGE with no value is drawn by draw_range(identifier, extent) when given (and recorded in
    ranges, which must then be a dict); a RANGE value outside [0, extent - 1] is undefined.
    """
    if int_semantics not in ("wrap", "no_overflow"):
        raise ValueError(f"int_semantics must be 'wrap' or 'no_overflow', got {int_semantics!r}")
    domain = _Concrete(
        int_semantics, params, ranges if isinstance(ranges, dict) else dict(ranges or {}), draw_range
    )
    elems = interpret(program, domain)
    if not all(d for _, d in elems):
        return Evaluation(None, False)
    return Evaluation(_nest([v for v, _ in elems], program.shape), True)
