"""evaluate: the one evaluator of whole programs on Python values, with what went undefined and where.

Every element is a value and a *status*: 0 when it is defined, else a code `number * 8 + reason`
naming the node (its number in a numbering the caller gives, 0 without one) and why (the reasons
of eqsat_uopc.backend.errors, plus OVERFLOW). What is undefined, and how it spreads:
- an op exec_alu refuses (division by zero, INT32_MIN // -1, an invalid f32 -> i32 CAST);
- under int_semantics="no_overflow", an i32 op whose exact result leaves the int32 range
  (`int_semantics.overflows`); under "wrap" the value wraps and `Evaluation.overflowed` says so;
- an INDEX outside its axis and a RANGE value outside [0, extent - 1];
- (a bounded PARAM given a value outside its bounds is not undefined but refused: InputError, as
  the C backend refuses it; values.check_bounds);
- a status spreads to every user, first source first, except that WHERE takes the status of the
  branch it selects (`where(b != 0, a // b, 0)` is defined at b = 0), as the C backend does.
The structure of the walk (STACK, INDEX, movement ops, REDUCE, CALL scopes) is interpret.py's,
shared with the z3 encoding. The C backend's Python reference (backend/reference.py: `strict`
numbering and out-of-bounds errors), verification (verify/) and rule checks (verify/rule_sampling.py)
all evaluate through here, so they agree on what every op means.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from eqsat_uopc.ir.dtype import DType, dtypes, truncate
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.semantics.alu import exec_alu
from eqsat_uopc.semantics.int_semantics import INT_SEMANTICS, overflows
from eqsat_uopc.semantics.interpret import Elem, interpret_all
from eqsat_uopc.semantics.values import check_bounds

__all__ = [
    "CAST_INVALID",
    "DIV_BY_ZERO",
    "DIV_OVERFLOW",
    "INDEX_OOB",
    "MOD_BY_ZERO",
    "OVERFLOW",
    "RANGE_OOB",
    "Concrete",
    "Evaluation",
    "OutOfBounds",
    "evaluate",
    "evaluate_all",
    "nest",
]

# the reasons of a status code (the C backend writes the first six, so they never change)
DIV_BY_ZERO, DIV_OVERFLOW, MOD_BY_ZERO, CAST_INVALID, INDEX_OOB, RANGE_OOB, OVERFLOW = 1, 2, 3, 4, 5, 6, 7
_PLACEHOLDER = {"bool": False, "i32": 0, "f32": 0.0}


@dataclass(frozen=True)
class Evaluation:
    """A program's value on one input: nested lists for tensors, None when it is undefined.

    overflowed: some i32 ADD, MUL or FLOORDIV of the evaluation left the int32 range in exact
    arithmetic (under "wrap" it wrapped; under "no_overflow" that made its users undefined)."""

    value: Any
    defined: bool
    overflowed: bool = False


class OutOfBounds(Exception):
    """Raised by a strict evaluation at an INDEX or RANGE out of bounds: (code, (value, axis or
    extent, size or 0)), the C backend's immediate error."""

    def __init__(self, code: int, detail: tuple[int, int, int]) -> None:
        super().__init__(code, detail)
        self.code, self.detail = code, detail


def _first(*statuses: int) -> int:
    for s in statuses:
        if s:
            return s
    return 0


class Concrete:
    """The domain of Python scalars (interpret.Domain): elements are (value, status)."""

    def __init__(
        self,
        int_semantics: str,
        params: Mapping[int, Any],
        ranges: dict[Any, int],
        draw_range: Callable[[Any, int], int] | None = None,
        number: Mapping[UOp, int] | None = None,
        strict: bool = False,
        ranges_by_node: bool = False,
    ) -> None:
        self.no_overflow = int_semantics == "no_overflow"
        self.params = params
        self.ranges = ranges
        self.draw_range = draw_range
        self.number = number
        self.strict = strict  # INDEX / RANGE out of bounds raise OutOfBounds instead of poisoning
        # RANGE values keyed by node (one input each, as compiled), else by identifier
        self.ranges_by_node = ranges_by_node
        self.flat_params: dict[int, list[Any]] = {}
        self.overflowed = False

    def code(self, node: UOp, reason: int) -> int:
        return (self.number.get(node, 0) if self.number is not None else 0) * 8 + reason

    def literal(self, value: Any, dtype: DType) -> Elem:
        return (truncate(dtype, value), 0)

    def undefined(self, dtype: DType, status: int) -> Elem:
        return (_PLACEHOLDER[dtype.name], status)

    def known_index(self, index: Elem) -> int | None:
        value, status = index
        return None if status else value

    def out_of_bounds(self, node: UOp, axis: int, index: int, size: int, count: int) -> list[Elem]:
        code = self.code(node, INDEX_OOB)
        if self.strict:
            raise OutOfBounds(code, (index, axis, size))
        return [self.undefined(node.dtype, code)] * count

    def param(self, node: UOp, element: int) -> Elem:
        slot = node.arg.slot
        if slot not in self.flat_params:
            if slot not in self.params:
                raise KeyError(f"no value for PARAM slot {slot}")
            flat = [truncate(node.dtype, v) for v in _flatten(self.params[slot])]
            check_bounds(node.arg, flat)  # outside the input's domain: refused, as the C backend does
            self.flat_params[slot] = flat
        return (self.flat_params[slot][element], 0)

    def range_var(self, node: UOp, extent: Elem) -> Elem:
        n, status = extent
        ident = node if self.ranges_by_node else node.arg
        if ident not in self.ranges:
            if self.draw_range is None:
                raise KeyError(f"no value for RANGE {ident!r}")
            if status or n < 1:
                return self.undefined(dtypes.i32, status or self.code(node, RANGE_OOB))  # an empty loop
            self.ranges[ident] = self.draw_range(ident, n)
        v = self.ranges[ident]
        if status:
            return (v, status)
        if not 0 <= v < n:
            code = self.code(node, RANGE_OOB)
            if self.strict:
                raise OutOfBounds(code, (v, n, 0))
            return (v, code)
        return (v, 0)

    def select(
        self, node: UOp, axis: int, index: Elem, candidates: list[list[Elem]], dtype: DType
    ) -> list[Elem]:
        k, status = index
        if status:
            return [self.undefined(dtype, status) for _ in candidates[0]]
        if not 0 <= k < len(candidates):
            return self.out_of_bounds(node, axis, k, len(candidates), len(candidates[0]))
        return candidates[k]

    def alu(self, node: UOp, op: Ops, dtype: DType, operand_dtype: DType, operands: list[Elem]) -> Elem:
        vals = [v for v, _ in operands]
        if op is Ops.WHERE:
            (c, sc), x, y = operands
            chosen = x if c else y
            return (chosen[0], _first(sc, chosen[1]))
        status = _first(*(s for _, s in operands))
        if operand_dtype is dtypes.i32 and overflows(op, vals):  # INT32_MIN // -1 too, undefined below
            self.overflowed = True
            if self.no_overflow and not status:
                status = self.code(node, OVERFLOW)
        r = exec_alu(op, dtype, vals)
        if r is None:
            return self.undefined(dtype, status or self.code(node, _fault(op, vals)))
        return (r, status)


def _fault(op: Ops, vals: list[Any]) -> int:
    """Why exec_alu refused op on these values."""
    if op is Ops.FLOORDIV:
        return DIV_BY_ZERO if vals[1] == 0 else DIV_OVERFLOW
    if op is Ops.FLOORMOD:
        return MOD_BY_ZERO
    return CAST_INVALID


def _flatten(v: Any) -> list[Any]:
    if hasattr(v, "tolist"):
        v = v.tolist()
    if isinstance(v, list | tuple):
        return [x for e in v for x in _flatten(e)]
    return [v]


def nest(flat: list[Any], shape: tuple[int, ...]) -> Any:
    """A flat row-major list as nested lists of `shape` (a scalar for shape ())."""
    if not shape:
        return flat[0]
    n = len(flat) // shape[0]
    return [nest(flat[i * n : (i + 1) * n], shape[1:]) for i in range(shape[0])]


def evaluate(
    program: UOp,
    params: Mapping[int, Any],
    ranges: Mapping[Any, int] | None = None,
    int_semantics: str = "wrap",
    draw_range: Callable[[Any, int], int] | None = None,
) -> Evaluation:
    """program's value for PARAM values by slot and RANGE values by identifier.

    A RANGE with no value is drawn by draw_range(identifier, extent) when given (and recorded in
    ranges, which must then be a dict); a RANGE value outside [0, extent - 1] is undefined. A
    bounded PARAM's value outside its bounds is refused (InputError), as the C backend refuses it.
    """
    if int_semantics not in INT_SEMANTICS:
        raise ValueError(f"int_semantics must be 'wrap' or 'no_overflow', got {int_semantics!r}")
    domain = Concrete(
        int_semantics, params, ranges if isinstance(ranges, dict) else dict(ranges or {}), draw_range
    )
    elems = interpret_all(program, domain)[program]
    if any(s for _, s in elems):
        return Evaluation(None, False, domain.overflowed)
    return Evaluation(nest([v for v, _ in elems], program.shape), True, domain.overflowed)


def evaluate_all(program: UOp, domain: Concrete, order: Sequence[UOp] | None = None) -> dict[UOp, list[Elem]]:
    """Every node's elements (value, status) under a configured domain, in `order` if given."""
    return interpret_all(program, domain, None, order)
