"""Raising: a choice of one e-node per e-class back into hash-consed, type-checked UOps.

The UOp constructor checks every node it builds, so a raised program is well-typed or raising
fails with the UOpError naming the op. Because UOps are hash-consed and the term encoding keeps
every arg exactly, raising the e-nodes of a lowered program gives back the very same UOp objects.
"""

from __future__ import annotations

from collections.abc import Mapping

from eqsat_uopc.extract.egraph import ClassId, ENode
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.saturation.errors import SaturationError

__all__ = ["raise_choice"]


def raise_choice(choice: Mapping[ClassId, ENode], roots: tuple[ClassId, ...] | list[ClassId]) -> list[UOp]:
    """The UOp of every root, built bottom-up (iteratively) from the chosen e-node of each e-class."""
    built: dict[ClassId, UOp] = {}
    on_path: set[ClassId] = set()
    for root in roots:
        stack: list[tuple[ClassId, bool]] = [(root, False)]
        while stack:
            cid, expanded = stack.pop()
            if cid in built:
                continue
            node = choice.get(cid)
            if node is None:
                raise SaturationError(f"no e-node chosen for e-class {cid!r}")
            if not expanded:
                if cid in on_path:
                    raise SaturationError(f"the choice is cyclic at e-class {cid!r}")
                on_path.add(cid)
                stack.append((cid, True))
                stack.extend((k, False) for k in reversed(node.children) if k not in built)
                continue
            on_path.discard(cid)
            built[cid] = UOp(node.op, tuple(built[k] for k in node.children), node.arg)
    return [built[r] for r in roots]
