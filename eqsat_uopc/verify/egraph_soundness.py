"""Soundness check of a saturated e-graph: do all members of every e-class agree on an input?

An e-graph is sound on an input when every e-node of every e-class evaluates (with exec_alu, under
int32 wraparound) to the class's value, the children taking their classes' values. By induction
that covers every term the e-graph represents, so it is stronger than comparing a few extracted
members. Class values come from an acyclic choice of one e-node per class (Kahn order over the
children). Scalar ops only: PARAMs take the input's values, RANGEs a value per (identifier, extent); a node
whose value is unknown (STACK, INDEX, CALL, movement) or undefined (exec_alu returns None: division
by zero, ...) leaves its class unknown there, and unknown values are never compared.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from eqsat_uopc.extract.egraph import ClassId, EGraph, ENode
from eqsat_uopc.ir.dtype import dtypes, truncate
from eqsat_uopc.ir.ops import ALU, Ops
from eqsat_uopc.semantics.alu import exec_alu
from eqsat_uopc.semantics.int_semantics import EXACT_OPS, exact_alu
from eqsat_uopc.semantics.values import same_value

__all__ = ["Disagreement", "check_sound"]


class Disagreement(NamedTuple):
    """Two members of one e-class that evaluate differently on one input."""

    eclass: ClassId
    node: ENode
    node_value: Any
    class_value: Any


def _eval(
    node: ENode,
    kids: list[Any],
    dtype: Any,
    params: Mapping[int, Any],
    ranges: Mapping[Any, int],
    math_ints: bool = False,
) -> Any:
    op = node.op
    exact = math_ints and dtype is dtypes.i32 and op in EXACT_OPS and all(k is not None for k in kids)
    if exact and not (op is Ops.CAST and isinstance(kids[0], float)):
        return exact_alu(op, kids)
    if op is Ops.CONST:  # an f32 CONST may hold a double (16777217.0): its value is the f32 it rounds to
        return truncate(dtypes.f32, node.arg) if isinstance(node.arg, float) else node.arg
    if op is Ops.PARAM:
        return params.get(node.arg.slot) if not node.arg.shape else None
    if op is Ops.RANGE:
        return ranges.get((node.arg, kids[0]))
    if op in ALU and all(k is not None for k in kids):
        return exec_alu(op, dtype, kids)
    return None


def check_sound(
    egraph: EGraph,
    params: Mapping[int, Any],
    ranges: Mapping[Any, int] | None = None,
    int_semantics: str = "wrap",
) -> list[Disagreement]:
    """Every e-node whose value on (params, ranges) differs from its e-class's value.

    params: {PARAM slot: value}; ranges: {(RANGE identifier, extent): value}. int_semantics "wrap"
    evaluates with exec_alu (int32 wraps); "no_overflow" evaluates i32 arithmetic over the
    mathematical integers, the semantics under which that mode's rules are sound (use inputs on
    which the program itself does not overflow).
    """
    math_ints = int_semantics == "no_overflow"
    ranges = ranges or {}
    parents: dict[ClassId, list[tuple[ClassId, ENode, int]]] = {}
    pending: dict[tuple[ClassId, int], int] = {}
    value: dict[ClassId, Any] = {}
    ready: list[tuple[ClassId, ENode]] = []
    for ec in egraph:
        for k, n in enumerate(ec.nodes):
            kids = set(n.children)
            if not kids:
                ready.append((ec.id, n))
            pending[(ec.id, k)] = len(kids)
            for ch in kids:
                parents.setdefault(ch, []).append((ec.id, n, k))
    resolved: set[ClassId] = set()
    while ready:
        cid, n = ready.pop()
        if cid in resolved:
            continue
        resolved.add(cid)
        ec = egraph.classes[cid]
        value[cid] = _eval(n, [value[c] for c in n.children], ec.dtype, params, ranges, math_ints)
        for pid, pn, k in parents.get(cid, ()):
            pending[(pid, k)] -= 1
            if pending[(pid, k)] == 0:
                ready.append((pid, pn))
    out = []
    for ec in egraph:
        cv = value.get(ec.id)
        if cv is None:
            continue
        for n in ec.nodes:
            if not all(value.get(c) is not None for c in n.children):
                continue
            nv = _eval(n, [value[c] for c in n.children], ec.dtype, params, ranges, math_ints)
            if nv is not None and not same_value(nv, cv):
                out.append(Disagreement(ec.id, n, nv, cv))
    return out
