"""The structure of a program's meaning, written once: every evaluator is this walk over a domain.

The concrete evaluator (evaluation.py: Python values with definedness, overflow and poison codes,
which the C backend's reference, verification and rule checks all use) and the z3 encoding
(verify/z3_encode.py: symbolic values) differ only in their domain.

A program denotes, for each element of its (row-major, flattened) result, a *value* and a
*definedness*. Everything about shapes and scopes is the same whether values are Python scalars or
z3 terms: STACK concatenates, INDEX selects (a symbolic index selects among the candidates),
RESHAPE keeps the order, EXPAND/PERMUTE/SHRINK are index maps, REDUCE folds left to right in
exec_alu's order, and a CALL evaluates its body in a scope of its own (the body's PARAMs are bound
to the arguments; a nested CALL's body is never entered from outside, so hash-consed PARAMs of
different scopes never mix). So this module walks the program once and asks a *domain* only for
scalars: constants, inputs, loop variables and one elementwise op at a time.

Definedness follows the C backend and `run`: an op is undefined where exec_alu refuses (division by
zero, INT_MIN // -1), and under "no_overflow" also where an i32 ADD or MUL leaves the int32 range;
undefinedness propagates to every user, except that WHERE takes the definedness of the branch it
selects (`where(b != 0, a // b, 0)` is defined at b = 0). An INDEX outside its axis is undefined.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from eqsat_uopc.ir.dtype import DType
from eqsat_uopc.ir.layout import ravel, unravel
from eqsat_uopc.ir.ops import ALU, MOVEMENT, Ops
from eqsat_uopc.ir.uop import UOp, call_params, prod

__all__ = ["Domain", "Elem", "interpret", "interpret_all", "movement_map", "scope_order"]

Elem = tuple[Any, Any]  # (value, defined): the domain's definedness (a status code, a z3 Bool, ...)


class Domain(Protocol):
    """What a kind of value (Python scalars, z3 terms) must provide. `node` is the UOp being
    evaluated, for domains that report where something went undefined."""

    def literal(self, value: Any, dtype: DType) -> Elem:
        """A CONST: its value, defined."""

    def param(self, node: UOp, element: int) -> Elem: ...

    def range_var(self, node: UOp, extent: Elem) -> Elem: ...

    def alu(self, node: UOp, op: Ops, dtype: DType, operand_dtype: DType, operands: list[Elem]) -> Elem: ...

    def known_index(self, index: Elem) -> int | None:
        """The index's value when it is a defined constant (the walk then selects directly)."""

    def out_of_bounds(self, node: UOp, axis: int, index: int, size: int, count: int) -> list[Elem]:
        """`count` elements of an INDEX whose constant index lies outside its axis."""

    def select(
        self, node: UOp, axis: int, index: Elem, candidates: list[list[Elem]], dtype: DType
    ) -> list[Elem]:
        """An INDEX by a symbolic (or undefined) index along `axis`: one of the candidate blocks."""


def scope_order(root: UOp) -> list[UOp]:
    """The nodes of root's scope, sources first: a CALL's arguments are in it, its body is not."""
    return root.toposort(enter_call_bodies=False)


def interpret(root: UOp, domain: Domain, env: Mapping[UOp, list[Elem]] | None = None) -> list[Elem]:
    """The elements of root, flattened row-major. env binds the PARAMs of a CALL body (None: the
    program's own scope, whose PARAMs are the domain's inputs)."""
    return interpret_all(root, domain, env)[root]


def interpret_all(
    root: UOp,
    domain: Domain,
    env: Mapping[UOp, list[Elem]] | None = None,
    order: Sequence[UOp] | None = None,
) -> dict[UOp, list[Elem]]:
    """The elements of every node of root's scope, evaluated in `order` (default: scope_order)."""
    memo: dict[UOp, list[Elem]] = {}
    for u in scope_order(root) if order is None else order:
        memo[u] = _node(u, memo, domain, env)
    return memo


def _node(u: UOp, memo: dict[UOp, list[Elem]], domain: Domain, env: Mapping[UOp, list[Elem]] | None) -> list:
    op = u.op
    if op is Ops.CONST:
        return [domain.literal(u.arg, u.dtype)]
    if op is Ops.PARAM:
        if env is not None:
            return env[u]
        return [domain.param(u, i) for i in range(prod(u.shape))]
    if op is Ops.RANGE:
        return [domain.range_var(u, memo[u.src[0]][0])]
    if op is Ops.STACK:
        return [e for s in u.src for e in memo[s]]
    if op is Ops.INDEX:
        return _index(u, memo, domain)
    if op is Ops.CALL:
        body = u.src[0]
        args = [memo[s] for s in u.src[1:]]
        return interpret(body, domain, {p: args[p.arg.slot] for p in call_params(body)})
    if op in MOVEMENT:
        flat = memo[u.src[0]]
        return [flat[i] for i in movement_map(u)]
    if op is Ops.REDUCE:
        return _reduce(u, memo[u.src[0]], domain)
    if op in ALU:
        operand_dtype = u.src[1].dtype if op is Ops.WHERE else u.src[0].dtype
        srcs = [memo[s] for s in u.src]
        return [domain.alu(u, op, u.dtype, operand_dtype, [s[i] for s in srcs]) for i in range(prod(u.shape))]
    raise ValueError(f"no semantics for {op.name}")  # pragma: no cover  (every op is handled above)


def _index(u: UOp, memo: dict[UOp, list[Elem]], domain: Domain) -> list[Elem]:
    cur, shape = memo[u.src[0]], u.src[0].shape
    for axis, i in enumerate(u.src[1:]):
        index = memo[i][0]
        n, inner = shape[0], prod(shape[1:])
        blocks = [cur[k * inner : (k + 1) * inner] for k in range(n)]
        k = domain.known_index(index)
        if k is not None:
            cur = blocks[k] if 0 <= k < n else domain.out_of_bounds(u, axis, k, n, inner)
        else:
            cur = domain.select(u, axis, index, blocks, u.dtype)
        shape = shape[1:]
    return cur


def movement_map(u: UOp) -> list[int]:
    """For each output element of a movement op, the flat position of the input element it reads."""
    ishape, oshape = u.src[0].shape, u.shape
    n_out = prod(oshape)
    if u.op is Ops.RESHAPE:
        return list(range(n_out))
    if u.op is Ops.EXPAND:
        return [
            ravel([0 if s == 1 else x for x, s in zip(unravel(i, oshape), ishape, strict=True)], ishape)
            for i in range(n_out)
        ]
    if u.op is Ops.PERMUTE:
        inv = [u.arg.index(k) for k in range(len(ishape))]
        return [ravel([unravel(i, oshape)[inv[k]] for k in range(len(ishape))], ishape) for i in range(n_out)]
    # SHRINK
    return [
        ravel([x + b for x, (b, _) in zip(unravel(i, oshape), u.arg, strict=True)], ishape)
        for i in range(n_out)
    ]


def _reduce(u: UOp, flat: list[Elem], domain: Domain) -> list[Elem]:
    rop, k = u.arg
    ishape = u.src[0].shape
    inner = prod(ishape[len(ishape) - k :])
    out = []
    for i in range(prod(u.shape)):
        acc = flat[i * inner]
        for e in flat[i * inner + 1 : (i + 1) * inner]:
            acc = domain.alu(u, rop, u.dtype, u.dtype, [acc, e])
        out.append(acc)
    return out
