"""Which e-nodes extraction may choose under `no_overflow`: none that overflows where the input does not.

Under `no_overflow` the e-graph's invariant is over the integers (docs/DESIGN.md, "Integer semantics"):
every member of a class computes the class's value as a mathematical integer. A member the rules
built (`-p5 + p4` beside the input's `-(p5 - p4)`) may have an intermediate that
leaves int32 at an input where the program's intermediates do not, and then the extracted program is
undefined where the input is defined: not a refinement. Translation validation refuted such results
(3 of 60 Caviar expressions); this makes extraction not choose them.

An e-node may be chosen when what it computes itself cannot newly overflow or divide by zero:
- its class is one of the input's (named by the lowering): its value is the input's own
  intermediate, an int32 wherever the input is defined;
- or it is not an i32 ADD, MUL, FLOORDIV or FLOORMOD (nothing else overflows or divides);
- or its class's interval (the e-graph's `lo`/`hi`, facts about the integer value at every input)
  lies in int32, and for a division or remainder its divisor's interval excludes 0 (and -1 with a
  dividend that may be INT_MIN: the quotient's interval then reaches 2**31, outside int32).
A chosen term's own intermediates are its chosen e-nodes' values, so a term of admissible e-nodes
only overflows where the input does. E-nodes over a class left with none are dropped in turn; if
that empties the root's class (a subsumed input e-node), the e-graph is returned whole and
translation validation remains the check.
"""

from __future__ import annotations

from eqsat_uopc.extract.egraph import ClassId, EClass, EGraph
from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN, dtypes
from eqsat_uopc.ir.ops import Ops

__all__ = ["admissible_under_no_overflow"]

_ARITHMETIC = (Ops.ADD, Ops.MUL, Ops.FLOORDIV, Ops.FLOORMOD)


def admissible_under_no_overflow(
    egraph: EGraph, inputs: set[ClassId], bounds: dict[ClassId, tuple[int, int]]
) -> EGraph:
    """egraph without the e-nodes that may overflow where the input does not (module docstring).
    `inputs`: the classes of the input's nodes; `bounds`: each class's known (lo, hi)."""

    def fits(cid: ClassId) -> bool:
        lo, hi = bounds.get(cid, (None, None))
        return lo is not None and hi is not None and lo >= I32_MIN and hi <= I32_MAX

    def admissible(cid: ClassId, ec: EClass, n) -> bool:
        if cid in inputs or n.op not in _ARITHMETIC or ec.dtype is not dtypes.i32 or ec.shape != ():
            return True
        if not fits(cid):
            return False
        if n.op in (Ops.FLOORDIV, Ops.FLOORMOD):
            lo, hi = bounds.get(n.children[1], (None, None))
            return lo is not None and hi is not None and (lo > 0 or hi < 0)
        return True

    kept = {cid: [n for n in ec.nodes if admissible(cid, ec, n)] for cid, ec in egraph.classes.items()}
    if all(len(kept[cid]) == len(ec.nodes) for cid, ec in egraph.classes.items()):
        return egraph
    changed = True
    while changed:  # drop e-nodes over a class left with none, until none is
        empty = {cid for cid, nodes in kept.items() if not nodes}
        changed = False
        for cid, nodes in kept.items():
            if nodes and any(ch in empty for n in nodes for ch in n.children):
                kept[cid] = [n for n in nodes if not any(ch in empty for ch in n.children)]
                changed = True
    if any(not kept[r] for r in egraph.roots):
        return egraph
    classes = {
        cid: EClass(cid, tuple(nodes), ec.dtype, ec.shape)
        for cid, ec in egraph.classes.items()
        if (nodes := kept[cid])
    }
    return EGraph(classes, egraph.roots, egraph.meta)
