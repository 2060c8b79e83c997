"""Checks every extraction result passes before it is trusted, and the build of programs from it.

`check_choice` verifies the structural promises (every root chosen, each chosen e-node belongs to
its e-class, closed under children, acyclic) and returns the needed e-classes children-first;
`build_programs` turns a checked choice into hash-consed UOps, so that UOp's own type and shape
checks run on every extracted node. A failure raises ExtractionError saying what was wrong and where.
"""

from __future__ import annotations

from collections.abc import Mapping

from eqsat_uopc.extract.egraph import ClassId, EGraph, ENode
from eqsat_uopc.extract.errors import ExtractionError

from eqsat_uopc.ir.uop import UOp, UOpError

__all__ = ["build_programs", "check_choice"]


def check_choice(egraph: EGraph, choice: Mapping[ClassId, ENode]) -> list[ClassId]:
    """The e-classes the roots need under choice, children before parents; raises ExtractionError.

    Extra entries (e-classes no root needs) are allowed and ignored.
    """
    for r in egraph.roots:
        if r not in choice:
            raise ExtractionError(f"root {r!r} has no chosen e-node")
    order: list[ClassId] = []
    state: dict[ClassId, int] = {}  # 1: on the current path, 2: done
    for r in egraph.roots:
        if state.get(r) == 2:
            continue
        path: list[ClassId] = [r]
        stack: list[tuple[ClassId, int]] = [(r, 0)]
        state[r] = 1
        _check_member(egraph, r, choice[r])
        while stack:
            cid, k = stack[-1]
            kids = choice[cid].children
            if k == len(kids):
                stack.pop()
                path.pop()
                state[cid] = 2
                order.append(cid)
                continue
            stack[-1] = (cid, k + 1)
            ch = kids[k]
            s = state.get(ch)
            if s == 2:
                continue
            if s == 1:
                cycle = [*path[path.index(ch) :], ch]
                raise ExtractionError(f"choice is cyclic: {' -> '.join(cycle)}")
            if ch not in choice:
                raise ExtractionError(
                    f"e-class {cid!r} (chosen {choice[cid]!r}) needs child {ch!r}, which has no chosen e-node"
                )
            _check_member(egraph, ch, choice[ch])
            state[ch] = 1
            path.append(ch)
            stack.append((ch, 0))
    return order


def _check_member(egraph: EGraph, cid: ClassId, node: ENode) -> None:
    ec = egraph.classes.get(cid)
    if ec is None:
        raise ExtractionError(f"choice names {cid!r}, which is not an e-class")
    if node not in ec.nodes:
        raise ExtractionError(f"chosen e-node {node!r} for e-class {cid!r} is not one of its e-nodes")


def build_programs(egraph: EGraph, choice: Mapping[ClassId, ENode]) -> tuple[UOp, ...]:
    """One hash-consed UOp per root, built bottom-up from a choice (checked first)."""
    built: dict[ClassId, UOp] = {}
    for cid in check_choice(egraph, choice):
        node = choice[cid]
        ec = egraph.classes[cid]
        try:
            u = UOp(node.op, tuple(built[c] for c in node.children), node.arg)
        except UOpError as e:
            raise ExtractionError(f"e-class {cid!r}: chosen {node!r} does not build: {e}") from None
        if u.dtype is not ec.dtype or u.shape != ec.shape:
            raise ExtractionError(
                f"e-class {cid!r} is {ec.dtype.name} {ec.shape}, its chosen {node!r} builds "
                f"{u.dtype.name} {u.shape}"
            )
        built[cid] = u
    return tuple(built[r] for r in egraph.roots)
